"""The permission layer: rules, the Bash analysis they read, tiers, modes and the OS sandbox.

- ``rules``: permission rules in Claude Code's syntax (``Bash(git push *)``, ``Read(./.env)``);
- ``dangerous``: the tier refused whatever the mode, rules or hooks say;
- ``policy``: ``PermissionPolicy`` and ``evaluate``, the order in which they decide;
- ``config``: reading a policy from the settings layers.
"""

from hookline.permissions.dangerous import DANGEROUS, Danger
from hookline.permissions.policy import READ_ONLY_TOOLS, PermissionPolicy, Verdict, evaluate
from hookline.permissions.rules import PermissionRule, RuleCondition, if_

__all__ = [
    "DANGEROUS",
    "READ_ONLY_TOOLS",
    "Danger",
    "PermissionPolicy",
    "PermissionRule",
    "RuleCondition",
    "Verdict",
    "evaluate",
    "if_",
]
