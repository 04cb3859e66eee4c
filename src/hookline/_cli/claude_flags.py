"""``claude -p``'s flags on ``hookline run`` (and ``hookline -p``), with Claude Code's meanings.

``claude_options`` adds the flags scripts written for ``claude -p`` use that ``hookline run``
did not have already (``--settings``, ``--max-turns``, ``--permission-mode``, ``--model``,
``--output-format``, ``--allowedTools`` and ``--disallowedTools`` are its own). Every other
flag of ``claude --help`` (Claude Code 2.1.332) is in ``NOT_SUPPORTED``, with why: given one,
``refusal`` says so in one line, by name, rather than click's bare "No such option".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

import click

from hookline._cli.tool_rules import Greedy


def _file_option(flag: str, text: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """An option that names a file to read."""
    return click.option(flag, type=click.Path(dir_okay=False), default=None, help=text)


_OPTIONS: Final = (
    click.option(
        "-p",
        "--print",
        "print_mode",
        is_flag=True,
        help="Print as claude -p does: text is the result alone; an error run exits 1.",
    ),
    click.option(
        "--input-format",
        type=click.Choice(["text", "stream-json"]),
        default="text",
        show_default=True,
        help="stream-json: user messages, one JSON line each, read from stdin in turn (needs "
        "--output-format stream-json).",
    ),
    click.option(
        "--include-partial-messages",
        is_flag=True,
        help="stream-json: the model's text as stream_event deltas as it arrives.",
    ),
    click.option(
        "--include-hook-events",
        is_flag=True,
        help="stream-json: a hook_started and a hook_response line for each hook run.",
    ),
    click.option(
        "--fallback-model",
        default=None,
        metavar="MODEL[,MODEL...]",
        help="Models that answer a request the model fails for good, in order.",
    ),
    click.option(
        "--system-prompt",
        default=None,
        metavar="TEXT",
        help="The system prompt (the project's instruction files still follow).",
    ),
    _file_option("--system-prompt-file", "The system prompt, read from a file."),
    click.option(
        "--append-system-prompt",
        default=None,
        metavar="TEXT",
        help="Text added at the end of the system prompt.",
    ),
    _file_option(
        "--append-system-prompt-file",
        "Text added at the end of the system prompt, read from a file.",
    ),
    click.option(
        "-c",
        "--continue",
        "continue_latest",
        is_flag=True,
        help="Go on with the latest session of this folder.",
    ),
    click.option(
        "-r",
        "--resume",
        "resume",
        default=None,
        metavar="SESSION_ID",
        help="Go on with this session (its conversation, under its id).",
    ),
    click.option(
        "--session-id",
        default=None,
        metavar="UUID",
        help="The id of the new session (with --fork-session: of the fork).",
    ),
    click.option(
        "--fork-session",
        is_flag=True,
        help="With --resume or --continue: go on under a new session id.",
    ),
    click.option(
        "--no-session-persistence",
        is_flag=True,
        help="Keep no transcript: the session cannot be resumed (the audit still records the run).",
    ),
    click.option(
        "--mcp-config",
        cls=Greedy,
        multiple=True,
        metavar="FILE|JSON...",
        help='MCP servers from .mcp.json files or JSON ({"mcpServers": {...}}).',
    ),
    click.option(
        "--strict-mcp-config",
        is_flag=True,
        help="Only the --mcp-config servers: not the project's nor the settings'.",
    ),
    click.option(
        "--add-dir",
        "add_dirs",
        cls=Greedy,
        multiple=True,
        metavar="DIR...",
        help="More folders the file tools may work in.",
    ),
    click.option(
        "--setting-sources",
        default=None,
        metavar="user,project,local",
        help="Which settings files to read (managed and --settings always are).",
    ),
    click.option(
        "--dangerously-skip-permissions",
        is_flag=True,
        help="--permission-mode bypassPermissions (refused as root, as Claude Code refuses it, "
        "unless IS_SANDBOX=1).",
    ),
    click.option(
        "--json-schema",
        default=None,
        metavar="JSON",
        help="Structured output: the result's structured_output fits this schema.",
    ),
    click.option(
        "--agents",
        default=None,
        metavar="JSON|FILE",
        help='Subagent types: {"name": {"description": ..., "prompt": ...}}.',
    ),
)


def claude_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``hookline run``'s ``claude -p`` flags."""
    for option in reversed(_OPTIONS):
        command = option(command)
    return command


#: Claude Code's other flags (``claude --help``, 2.1.332), each with why hookline has none.
NOT_SUPPORTED: Final = {
    **dict.fromkeys(
        ("--agent",),
        "hookline runs its own loop; subagent types come from --agents and .claude/agents",
    ),
    "--allow-dangerously-skip-permissions": "there is no interactive mode to switch into it",
    "--autocompact": "use --compact-at TOKENS",
    "--ax-screen-reader": "hookline has no interactive screen",
    **dict.fromkeys(("--bg", "--background"), "hookline has no background sessions"),
    "--bare": "hookline has no plugins, LSP or auto-memory to leave out; hooks always run",
    "--betas": "hookline sends no beta headers",
    "--brief": "hookline has no SendUserMessage tool",
    **dict.fromkeys(("--chrome", "--no-chrome"), "hookline has no browser integration"),
    **dict.fromkeys(
        (
            "--cloud",
            "--environment",
            "--teleport",
            "--remote-control",
            "--remote-control-session-name-prefix",
            "--desktop",
            "--from-pr",
            "--file",
        ),
        "hookline runs here, with no cloud, desktop or remote sessions",
    ),
    **dict.fromkeys(("-d", "--debug", "--debug-file"), "use -v/--verbose for hook tracebacks"),
    "--disable-slash-commands": "hookline has no slash commands",
    "--effort": "hookline's models take no effort setting",
    "--exclude-dynamic-system-prompt-sections": "hookline has no Claude Code system prompt",
    "--forward-subagent-text": "use the Agent SDK's forward_subagent_text",
    "--ide": "hookline has no IDE integration",
    "--max-budget-usd": "hookline does not price model calls",
    **dict.fromkeys(("-n", "--name"), "hookline's sessions are named by their id"),
    "--permission-prompts": "asks go to --approver-url or a person at the terminal",
    **dict.fromkeys(("--plugin-dir", "--plugin-url"), "hookline has no plugins"),
    "--prompt-suggestions": "hookline suggests no prompts",
    "--replay-user-messages": "hookline does not echo streamed user messages",
    "--restricted": "use --disallowedTools and settings files",
    "--safe-mode": "hookline has no customizations beyond settings and hooks to switch off",
    "--system-prompt-snapshot": "hookline renders the system prompt on every request",
    "--tmux": "hookline has no worktree sessions",
    "--tools": "use --disallowedTools to keep tools from the model",
    **dict.fromkeys(("-w", "--worktree"), "hookline has no worktree sessions"),
}


def refusal(option: str, *, command: str = "hookline run", near: Sequence[str] = ()) -> str:
    """The one line that refuses ``option`` (``--effort``, ``--debug=api``), by name;
    ``near``: the options of ``command`` it may be a misspelling of."""
    name = option.split("=", 1)[0]
    why = NOT_SUPPORTED.get(name)
    if why is not None:
        return (
            f"{name} is a claude flag hookline does not support: {why} (fix: leave it out; "
            f"`{command} --help` lists the flags hookline takes)"
        )
    fix = f"did you mean {' or '.join(near)}?" if near else f"`{command} --help` lists them"
    return f"{name} is not an option of {command} (fix: {fix})"
