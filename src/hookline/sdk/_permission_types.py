"""The Agent SDK's permission updates and results (claude-agent-sdk 0.2.189), field for field.

What ``can_use_tool`` takes and answers (``hookline.sdk._permission`` makes it an approver;
``hookline.sdk._updates`` applies the updates). Import them from ``hookline.types``
(``hookline.sdk._types`` re-exports every name).

No ``from __future__ import annotations`` here: SDK programs read the real annotations.
"""

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Self, TypeVar

from hookline._events import PermissionMode

_T = TypeVar("_T")

# -- permissions -----------------------------------------------------------------------------------

PermissionUpdateDestination = Literal["userSettings", "projectSettings", "localSettings", "session"]
PermissionBehavior = Literal["allow", "deny", "ask"]
_RULE_UPDATES = ("addRules", "replaceRules", "removeRules")
_DIRECTORY_UPDATES = ("addDirectories", "removeDirectories")


@dataclass
class PermissionRuleValue:
    """A rule: a tool, and what it covers of it (``"npm test"``); None covers every use."""

    tool_name: str
    rule_content: str | None = None


@dataclass
class PermissionUpdate:
    """A change to the permission rules, the mode or the allowed directories."""

    type: Literal[
        "addRules",
        "replaceRules",
        "removeRules",
        "setMode",
        "addDirectories",
        "removeDirectories",
    ]
    rules: list[PermissionRuleValue] | None = None
    behavior: PermissionBehavior | None = None
    mode: PermissionMode | None = None
    directories: list[str] | None = None
    destination: PermissionUpdateDestination | None = None

    def to_dict(self) -> dict[str, Any]:
        """The update in Claude Code's control-protocol shape.

        No destination means ``"session"``; a rule without content has no ``ruleContent`` key
        (Claude Code refuses a null one). A ValueError when a field this type needs is None,
        or the type is none of the six: Claude Code would drop the whole answer instead.
        """
        wire: dict[str, Any] = {"type": self.type, "destination": self.destination or "session"}
        if self.type in _RULE_UPDATES:
            rules = self._needed("rules", self.rules, "a list of PermissionRuleValue")
            wire["rules"] = [_wire_rule(rule) for rule in rules]
            wire["behavior"] = self._needed("behavior", self.behavior, "'allow', 'deny' or 'ask'")
        elif self.type == "setMode":
            wire["mode"] = self._needed("mode", self.mode, "a permission mode ('acceptEdits', ...)")
        elif self.type in _DIRECTORY_UPDATES:
            wire["directories"] = self._needed("directories", self.directories, "a list of paths")
        else:
            kinds = ", ".join((*_RULE_UPDATES, "setMode", *_DIRECTORY_UPDATES))
            raise ValueError(
                f"PermissionUpdate type {self.type!r} cannot be sent: it is none of {kinds}"
            )
        return wire

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        """The update ``to_dict`` wrote (or Claude Code sent); a KeyError without ``type``."""
        rules = data.get("rules")
        return cls(
            type=data["type"],
            rules=None if rules is None else [_rule(wire) for wire in rules],
            behavior=data.get("behavior"),
            mode=data.get("mode"),
            directories=data.get("directories"),
            destination=data.get("destination"),
        )

    def _needed(self, name: str, value: _T | None, what: str) -> _T:
        if value is None:
            raise ValueError(f"PermissionUpdate(type={self.type!r}) needs {name}: set it to {what}")
        return value


def _wire_rule(rule: PermissionRuleValue) -> dict[str, Any]:
    wire: dict[str, Any] = {"toolName": rule.tool_name}
    if rule.rule_content is not None:
        wire["ruleContent"] = rule.rule_content
    return wire


def _rule(wire: dict[str, Any]) -> PermissionRuleValue:
    return PermissionRuleValue(tool_name=wire["toolName"], rule_content=wire.get("ruleContent"))


@dataclass
class ToolPermissionContext:
    """What ``can_use_tool`` learns besides the tool and its input."""

    signal: Any | None = None
    suggestions: list[PermissionUpdate] = field(default_factory=list)
    tool_use_id: str | None = None
    agent_id: str | None = None
    blocked_path: str | None = None
    decision_reason: str | None = None
    title: str | None = None
    display_name: str | None = None
    description: str | None = None


@dataclass
class PermissionResultAllow:
    behavior: Literal["allow"] = "allow"
    updated_input: dict[str, Any] | None = None
    updated_permissions: list[PermissionUpdate] | None = None


@dataclass
class PermissionResultDeny:
    behavior: Literal["deny"] = "deny"
    message: str = ""
    interrupt: bool = False


PermissionResult = PermissionResultAllow | PermissionResultDeny
CanUseTool = Callable[[str, dict[str, Any], ToolPermissionContext], Awaitable[PermissionResult]]


class CanUseToolShadowedWarning(UserWarning):
    """``can_use_tool`` is set, but other options allow some calls before it is asked."""
