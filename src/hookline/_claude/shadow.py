"""Shadow rules and hooks: tried on real traffic and recorded, deciding nothing, until turned on.

    {"hookline": {"shadow": {
        "permissions": {"deny": ["Bash(rm -rf *)"], "ask": ["Bash(git push *)"]},
        "hooks": {"PreToolUse": [{"matcher": "Bash",
                                  "hooks": [{"type": "command", "command": "./guard.sh"}]}]}}}}

They live under ``hookline``, which Claude Code never reads, so no host takes them for live
rules. Each shadow hook is registered as the same hook would be, marked ``shadow``
(``HookSpec.shadow``): it runs, its run is on the audit record with ``"shadow": true`` (what it
would have decided) and in ``hookline replay``'s report, and the engine leaves its answer out
of the decision. Each shadow permission rule is a shadow PreToolUse hook named after it
(``deny Bash(rm -rf *)``), answering its list's word where the rule matches the call: a
deny or ask rule where any part of the call matches (as such rules are read), an allow rule
where all of it does. A team turns a rule on, with evidence, by moving it out of ``shadow``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final, Literal

from hookline._decisions import Decision
from hookline._errors import ConfigError
from hookline._events import PreToolUse
from hookline.permissions._rules import PermissionRule

if TYPE_CHECKING:
    from hookline._hooks.registry import HookRegistry

#: Where a layer keeps its shadow rules and hooks.
PATH: Final = ("hookline", "shadow")
Listed = Literal["allow", "ask", "deny"]
LISTS: Final[tuple[Listed, ...]] = ("deny", "ask", "allow")


def shadow_section(data: Mapping[str, Any]) -> Mapping[str, Any]:
    """A layer's ``shadow`` object under ``hookline`` (empty when it has none)."""
    found: Any = data
    for part in PATH:
        found = found.get(part) if isinstance(found, Mapping) else None
    return found if isinstance(found, Mapping) else {}


def register_rules(
    section: Mapping[str, Any], registry: HookRegistry, *, file: str, source: str
) -> None:
    """Each shadow permission rule of ``section`` as a shadow PreToolUse hook; a ConfigError
    (naming the file and key) for a list or a rule that cannot be read."""
    lists = section.get("permissions", {})
    if not isinstance(lists, Mapping):
        raise _bad(file, "hookline.shadow.permissions", "must be an object of rule lists")
    for listed in LISTS:
        key = f"hookline.shadow.permissions.{listed}"
        rules = lists.get(listed, [])
        if not isinstance(rules, list) or not all(isinstance(r, str) for r in rules):
            raise _bad(file, key, "must be a list of rules")
        for text in rules:
            rule = PermissionRule.parse(text, file=file, key=key)
            registry.add(
                PreToolUse.name,
                _answering(rule, listed, file),
                name=f"{listed} {rule}",
                source=source,
                shadow=True,
            )


def _answering(
    rule: PermissionRule, listed: Listed, file: str
) -> Callable[[PreToolUse], Decision | None]:
    every = listed == "allow"
    reason = f"shadow rule {listed} {rule} ({file})"

    def answer(event: PreToolUse) -> Decision | None:
        given = event.tool_input
        cwd, anchor = event.cwd, event.project_dir
        if rule.matches(event.tool_name, given, cwd=cwd, every=every, anchor=anchor):
            return Decision(listed, reason, origin="rule")
        return None

    return answer


def _bad(file: str, key: str, what: str) -> ConfigError:
    fix = 'write "hookline": {"shadow": {"permissions": {"deny": ["Bash(rm *)"]}}}'
    return ConfigError(f"{key} {what}", file=file, key=key, fix=fix)
