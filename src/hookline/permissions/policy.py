"""The permission layer: what becomes of a tool call once its PreToolUse hooks have answered.

``evaluate`` decides in Claude Code's order; the first step that decides wins:

1. a hook's deny (or defer, handed back as is), in every mode, bypassPermissions included;
2. deny rules, matched on any part of the call (any subcommand of a Bash line);
3. the dangerous tier (``hookline.dangerous``): a deny that no mode, rule or hook lifts;
4. ask rules (a hook's allow does not skip them); 5. a hook's ask;
6. the mode: bypassPermissions runs the rest; plan refuses what does more than read;
   acceptEdits runs file edits, and mkdir/touch/rm/rmdir/mv/cp/sed, below the workspace;
7. a hook's allow; allow rules, which must cover every subcommand of a Bash line;
8. the tiers: read-only tools run; the rest ask (or run, with ``mutating: "allow"``).

In dontAsk mode whatever would ask is denied. ``auto`` has no classifier here: it acts as default.

``from_settings`` reads ``permissions.allow/ask/deny`` of every layer (merged) and
``permissions.defaultMode`` by precedence (``manual`` is default; auto and bypassPermissions are
ignored in project and local files, which a repository controls); ``disableBypassPermissionsMode:
"disable"`` in any layer refuses bypass. ``additionalDirectories`` is not read yet: the workspace
is ``cwd``. hookline's own keys, under ``{"hookline": {"permissions": {...}}}``: ``dangerous``
adds entries (merged across layers), each a rule (``"Bash(terraform destroy *)"``,
``"Read(~/.ssh/**)"``) or ``{"name": ..., "pattern": <regex searched in Bash commands>}``;
``dangerousDefaults: false`` drops the built-in ones; ``readOnlyTools`` adds tools that run
unasked; ``mutating`` is ``"ask"`` (the default) or ``"allow"``.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal, cast, get_args

from hookline.events import PermissionMode
from hookline.hooks.settings import SettingsWarning
from hookline.permissions.dangerous import DANGEROUS, Danger
from hookline.permissions.rules import PermissionRule
from hookline.shell import subcommands

if TYPE_CHECKING:
    from hookline.decisions import Decision
    from hookline.hooks.settings import Settings

Behavior = Literal["allow", "ask", "deny", "defer"]
#: A rule and the settings it came from, as in ``"project settings"``.
SourcedRule = tuple[PermissionRule, str]
Warnings = list[SettingsWarning]
#: Tools that run unasked (settings add to them with ``readOnlyTools``).
READ_ONLY_TOOLS = frozenset({"Read", "Glob", "Grep"})

_MODES = frozenset(get_args(PermissionMode))
_EDITS = {"Edit": "file_path", "Write": "file_path", "NotebookEdit": "notebook_path"}
_FILE_COMMANDS = frozenset({"mkdir", "touch", "rm", "rmdir", "mv", "cp", "sed"})
_PROTECTED = frozenset({".git", ".claude", ".hookline", ".vscode", ".idea"})
_FLAG = re.compile(r"--?[\w-]+")
_OURS, _CC = ("hookline", "permissions"), ("permissions",)
_NO_BYPASS = "disableBypassPermissionsMode"


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the permission layer decided, why (in words for the model), and who decided."""

    behavior: Behavior
    reason: str
    source: str


@dataclass(frozen=True, slots=True)
class PermissionPolicy:
    """Rules (each with the settings it came from), the mode, and the default tiers."""

    allow: tuple[SourcedRule, ...] = ()
    ask: tuple[SourcedRule, ...] = ()
    deny: tuple[SourcedRule, ...] = ()
    mode: PermissionMode = "default"
    dangerous: tuple[Danger, ...] = DANGEROUS
    read_only_tools: frozenset[str] = READ_ONLY_TOOLS
    mutating: Literal["ask", "allow"] = "ask"
    #: Folders acceptEdits may change without asking; empty: the cwd of each call.
    workspace: tuple[str, ...] = ()

    @classmethod
    def from_settings(
        cls, settings: Settings, *, mode: PermissionMode | None = None, cwd: str
    ) -> tuple[PermissionPolicy, Warnings]:
        """The policy the settings describe (an explicit ``mode`` wins over theirs), and what
        in them was wrong and ignored: a bad entry never stops the rest from loading."""
        from hookline.permissions.config import policy_from_settings  # settings import hooks

        return policy_from_settings(settings, mode=mode, cwd=cwd)


def evaluate(
    policy: PermissionPolicy,
    *,
    tool_name: str,
    tool_input: Mapping[str, Any],
    read_only: bool,
    hook: Decision,
    cwd: str,
    home: str | None = None,
    hook_name: str = "PreToolUse",
) -> Verdict:
    """Decide one call by the order in the module docstring. Pure: no I/O, no state."""
    read_only = read_only or tool_name in policy.read_only_tools
    verdict = _decide(policy, _Call(tool_name, tool_input, read_only, cwd, home), hook, hook_name)
    if verdict.behavior != "ask" or policy.mode != "dontAsk":
        return verdict
    why = (
        f"{verdict.reason.rstrip('.')}. This session runs in dontAsk mode, which denies what needs "
    )
    why += f"approval: do not retry {tool_name}; go on without it, or tell the user."
    return Verdict("deny", why, "mode:dontAsk")


@dataclass(frozen=True, slots=True)
class _Call:
    tool_name: str
    tool_input: Mapping[str, Any]
    read_only: bool
    cwd: str
    home: str | None

    def matches(self, rule: PermissionRule, *, every: bool = False) -> bool:
        name, given = self.tool_name, self.tool_input
        return rule.matches(name, given, cwd=self.cwd, home=self.home, every=every)

    def meets(self, danger: Danger) -> bool:
        return danger.matches(self.tool_name, self.tool_input, cwd=self.cwd, home=self.home)

    def command(self, words: Sequence[str]) -> _Call:
        return replace(self, tool_input={"command": " ".join(words)})

    @property
    def what(self) -> str:
        """The call in a few words: ``Bash command `rm -rf build` `` or just the tool's name."""
        command = self.tool_input.get("command")
        if self.tool_name != "Bash" or not isinstance(command, str):
            return self.tool_name
        return f"Bash command `{command if len(command) < 60 else command[:57] + '...'}`"


def _decide(policy: PermissionPolicy, call: _Call, hook: Decision, hook_name: str) -> Verdict:
    name, by_hook = call.what, f"hook:{hook_name}"
    if hook.permission in ("deny", "defer"):
        why = hook.reason or f"a {hook_name} hook refused {name}"
        return Verdict(hook.permission, why, by_hook)
    if rule := next((r for r in policy.deny if call.matches(r[0])), None):
        why = f"{name} is denied by the {rule[1]} rule {rule[0]}; do not retry it or work around"
        return Verdict("deny", f"{why} it. If the task needs it, tell the user.", _named(rule))
    if danger := next((d for d in policy.dangerous if call.meets(d)), None):
        why = f"{name} was refused: it is {danger.about} (dangerous tier, {danger.name}), which no"
        why += " mode, rule or hook allows. Do not retry it or a variant; tell the user instead."
        return Verdict("deny", why, f"tier:dangerous:{danger.name}")
    if rule := next((r for r in policy.ask if call.matches(r[0])), None):
        why = f"{name} needs approval: the {rule[1]} rule {rule[0]} asks for it"
        return Verdict("ask", why, _named(rule, "ask"))
    if hook.permission == "ask":
        return Verdict("ask", hook.reason or f"a {hook_name} hook asks to approve {name}", by_hook)
    if by_mode := _by_mode(policy, call):
        return by_mode
    if hook.permission == "allow":
        return Verdict("allow", hook.reason or f"a {hook_name} hook allowed {name}", by_hook)
    if rules := _allowed(policy.allow, call):
        return Verdict("allow", f"{name} is allowed by settings", " + ".join(rules))
    if call.read_only or policy.mutating == "allow":
        tier = "read-only" if call.read_only else "mutating"
        return Verdict("allow", f"{name} runs without approval ({tier} tier)", f"tier:{tier}")
    why = f"{name} can change files or run commands, so it needs approval"
    return Verdict("ask", why, "tier:mutating")


def _named(rule: SourcedRule, kind: str = "deny") -> str:
    return f"rule:{kind}:{rule[0]} ({rule[1]})"


def _by_mode(policy: PermissionPolicy, call: _Call) -> Verdict | None:
    name, mode = call.what, policy.mode
    if mode == "bypassPermissions":
        return Verdict("allow", f"bypassPermissions mode runs {name}", "mode:bypassPermissions")
    if mode == "plan" and not call.read_only:
        why = f"This session is in plan mode, where only read-only tools run, so {name} was not "
        why += "run. Explore with read-only tools and present your plan; do not retry it "
        return Verdict("deny", why + "until the user leaves plan mode.", "mode:plan")
    if mode == "acceptEdits" and _edits_inside(policy.workspace or (call.cwd,), call):
        return Verdict("allow", f"acceptEdits mode runs {name} here", "mode:acceptEdits")
    return None


def _allowed(rules: Sequence[SourcedRule], call: _Call) -> list[str]:
    """The allow rules that cover the whole call (for Bash: each subcommand), or []."""
    if whole := next((r for r in rules if call.matches(r[0], every=True)), None):
        return [_named(whole, "allow")]
    parts = subcommands(call.tool_input.get("command")) if call.tool_name == "Bash" else None
    cover = [next((r for r in rules if call.command(w).matches(r[0], every=True)), None)
             for w in parts or ()]  # fmt: skip
    if not cover or None in cover:
        return []
    return list(dict.fromkeys(_named(cast(SourcedRule, r), "allow") for r in cover))


def _edits_inside(roots: tuple[str, ...], call: _Call) -> bool:
    """An edit, or a line of only filesystem commands, whose every path is below a root."""
    if call.tool_name in _EDITS:
        path = call.tool_input.get(_EDITS[call.tool_name])
        return isinstance(path, str) and _inside(path, roots, call)
    command = call.tool_input.get("command")
    if call.tool_name != "Bash" or not isinstance(command, str) or ">" in command:
        return False  # a redirect writes where no argument says
    parts = subcommands(command) or [[""]]
    return all(words[0] in _FILE_COMMANDS and all(
        _FLAG.fullmatch(w) if w.startswith("-")  # not -t/etc: a flag may hide a path
        else "$" not in w and "`" not in w and _inside(w.strip("'\""), roots, call)
        for w in words[1:]) for words in parts)  # fmt: skip


def _inside(path: str, roots: tuple[str, ...], call: _Call) -> bool:
    """Whether ``path`` lies strictly below a root, outside the protected folders (.git, ...)."""
    if path == "~" or path.startswith("~/"):
        path = (call.home or posixpath.expanduser("~")) + path[1:]
    full = posixpath.normpath(posixpath.join(call.cwd, path))
    for root in roots:
        relative = posixpath.relpath(full, root)
        if relative not in (".", "..") and not relative.startswith("../"):
            return not _PROTECTED.intersection(relative.split("/"))
    return False
