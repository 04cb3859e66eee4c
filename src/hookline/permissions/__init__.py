"""The permission layer: rules, the Bash analysis they read, tiers, modes and the OS sandbox.

- ``bash``: Bash lines read with tree-sitter: every command that will run, or why that cannot
  be known;
- ``rules`` and ``command_rules``: permission rules in Claude Code's syntax (``Bash(git push *)``,
  ``Read(./.env)``), matched on the parsed line and on real paths;
- ``readonly``, ``dangerous``, ``edits``: the read-only tier, the dangerous tier and what
  acceptEdits may approve, on the parsed line; ``targets`` and ``paths``: where their paths lead
  (``targets`` is public, for hooks that judge a command's paths themselves);
- ``visibility``: hookline's private state and the files Grep and Glob leave out;
- ``policy``: ``PermissionPolicy`` and ``evaluate``, the order in which they decide (each step
  in ``steps``, on the call as ``judged_call`` reads it, to a ``verdict``); ``call``: the one
  value a call is asked about in (``CallContext``, for ``evaluate_call``);
- ``config``: reading a policy from the settings layers;
- ``sandbox``: running Bash under bubblewrap.
"""

from hookline.permissions import targets
from hookline.permissions._call import CallContext
from hookline.permissions._dangerous import DANGEROUS, Danger
from hookline.permissions._policy import (
    READ_ONLY_TOOLS,
    PermissionPolicy,
    Verdict,
    evaluate,
    evaluate_call,
)
from hookline.permissions._rules import PermissionRule, RuleCondition, if_
from hookline.permissions._sandbox import SandboxConfig

__all__ = [
    "DANGEROUS",
    "READ_ONLY_TOOLS",
    "CallContext",
    "Danger",
    "PermissionPolicy",
    "PermissionRule",
    "RuleCondition",
    "SandboxConfig",
    "Verdict",
    "evaluate",
    "evaluate_call",
    "if_",
    "targets",
]
