"""The Claude Code adapter: settings files, command and HTTP hooks, their wording, and lint.

The answer format itself (Claude Code's hook JSON) is in ``hookline._hooks.protocol``: every hook,
Python ones included, may answer in it."""
