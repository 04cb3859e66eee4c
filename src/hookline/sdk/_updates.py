"""Permission updates: what a ``can_use_tool`` answer asks to remember
(``PermissionResultAllow(updated_permissions=[...])``), and ``set_permission_mode``.

They apply to the running session, as Claude Code applies an update whose destination is
``session``:

* ``addRules`` adds allow, ask or deny rules (``PermissionRuleValue("Bash", "npm test")`` is
  the rule ``Bash(npm test)``); ``replaceRules`` and ``removeRules`` replace or remove rules
  added this way. The rules of the settings files are never removed: an answer can add a deny
  rule, never lift one a team wrote.
* ``setMode`` changes the permission mode (hooks and deny rules still come first in every mode).

An update for a settings file (``localSettings``, ``projectSettings``, ``userSettings``) is kept
for the session only, and the log says so: hookline does not write settings files from an
answer. ``addDirectories`` and ``removeDirectories``, and an update that is malformed, are
skipped with a warning; the call itself is allowed as answered either way.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Final

from hookline._errors import ConfigError
from hookline.permissions._rules import PermissionRule

if TYPE_CHECKING:
    from hookline._agent.loop import Agent
    from hookline._events import PermissionMode
    from hookline.sdk._types import PermissionUpdate

logger = logging.getLogger(__name__)

#: Where a rule added by an answer says it came from (the audit names the rule's source).
SOURCE: Final = "session:can_use_tool"
_RULE_UPDATES: Final = frozenset({"addRules", "replaceRules", "removeRules"})


def apply(agent: Agent, updates: Sequence[PermissionUpdate]) -> None:
    """Apply each update to ``agent``'s session; one that cannot apply is logged and skipped."""
    for update in updates:
        try:
            update.to_dict()  # the SDK's own check of the fields each type needs
            _apply(agent, update)
        except (ValueError, ConfigError) as exc:
            logger.warning("a permission update from can_use_tool was skipped: %s", exc)


def set_mode(agent: Agent, mode: PermissionMode) -> None:
    """Judge later calls in ``mode``; events report it too."""
    permit = agent.pipeline.permit
    if permit.policy is not None:
        permit.policy = replace(permit.policy, mode=mode)
    agent.session.scope = replace(agent.session.scope, permission_mode=mode)


def _apply(agent: Agent, update: PermissionUpdate) -> None:
    if update.destination not in (None, "session"):
        logger.warning(
            "a permission update for %s is kept for this session only: hookline does not write "
            "settings files from can_use_tool",
            update.destination,
        )
    if update.type == "setMode" and update.mode is not None:
        set_mode(agent, update.mode)
    elif update.type in _RULE_UPDATES:
        _rules(agent, update)
    else:
        logger.warning("a permission update of type %s is not supported yet", update.type)


def _rules(agent: Agent, update: PermissionUpdate) -> None:
    permit = agent.pipeline.permit
    kind = update.behavior
    if permit.policy is None or kind not in ("allow", "ask", "deny"):
        logger.warning("a %s update has nothing to change", update.type)
        return
    given = tuple(_rule(value.tool_name, value.rule_content) for value in update.rules or ())
    current = getattr(permit.policy, kind)
    if update.type == "addRules":
        changed = (*current, *((rule, SOURCE) for rule in given))
    elif update.type == "replaceRules":
        kept = tuple(pair for pair in current if pair[1] != SOURCE)
        changed = (*kept, *((rule, SOURCE) for rule in given))
    else:
        changed = tuple(pair for pair in current if pair[1] != SOURCE or pair[0] not in given)
    changes: dict[str, Any] = {kind: changed}
    permit.policy = replace(permit.policy, **changes)


def _rule(tool: str, content: str | None) -> PermissionRule:
    text = f"{tool}({content})" if content else tool
    return PermissionRule.parse(text, key="updated_permissions")
