"""The permission layer: what becomes of a tool call once its PreToolUse hooks have answered.

``evaluate`` decides in this order; the first step that decides wins:

1. a hook's deny (or defer, handed back as is), in every mode, bypassPermissions included;
2. deny rules, matched on any command of a Bash line as Bash reads it; a line whose commands
   cannot be known (``hookline.permissions.bash``) matches every Bash deny rule;
3. hookline's private state: Read, Grep and Glob never reach ``.hookline/``;
4. the dangerous tier (``hookline.permissions.dangerous``): a deny no mode, rule or hook lifts;
   what it cannot prove harmless (a recursive delete or chmod, a write that may reach a
   device, a push, with a target not proven) asks in every mode, after step 7;
5. ask rules (a hook's allow does not skip them);
6. the protected set (``hookline.permissions.protected``): a write into it, or a Bash write not
   proven to miss it (``hookline.permissions.writes``), asks, in every mode;
7. a hook's ask; then a Bash line that cannot be known asks, in every mode (plan refuses it):
   no hook's allow, mode, rule or tier approves what cannot be read; only the sandbox's
   auto-allow runs it, inside the sandbox, which is then the boundary (step 10);
8. the mode: bypassPermissions runs the rest; plan refuses what does more than read;
   acceptEdits runs file edits, and Bash lines it can prove only edit files in the workspace
   (and touch nothing an Edit or Read deny rule covers);
9. a hook's allow; allow rules, which must name every command of a Bash line;
10. the OS sandbox, when it auto-allows Bash (``sandbox.autoAllowBashIfSandboxed``);
11. the tiers: read-only tools and read-only Bash lines run (with a Read deny rule, only a line
    proved to open no file it covers: ``hookline.permissions.reads``); the rest ask (or run,
    with ``mutating: "allow"``). An ask says what made a Bash line more than a read.

In dontAsk mode whatever would ask is denied. ``auto`` has no classifier here: it acts as default.

``from_settings`` reads the settings layers (``hookline.permissions.config``):
``permissions.allow/ask/deny`` of every layer (merged) and ``permissions.defaultMode`` by
precedence (``manual`` is default; auto and bypassPermissions are ignored in project and local
files, which a repository controls); ``disableBypassPermissionsMode: "disable"`` in any layer
refuses bypass. ``additionalDirectories`` is not read yet: the workspace is ``cwd``. hookline's
own keys, under ``{"hookline": {"permissions": {...}}}``: ``dangerous`` adds entries (merged
across layers), each a rule (``"Bash(terraform destroy *)"``, ``"Read(~/.ssh/**)"``) or
``{"name": ..., "pattern": <regex searched in Bash commands>}``; ``dangerousDefaults: false``
drops the built-in ones; ``readOnlyTools`` adds tools that run unasked; ``mutating`` is
``"ask"`` (the default) or ``"allow"``.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import TYPE_CHECKING, Any, Final, Literal, Protocol

from hookline.events import PermissionMode
from hookline.permissions import command_rules, edits, paths, readonly, reads, visibility
from hookline.permissions.bash import Analysis, analyze
from hookline.permissions.dangerous import DANGEROUS, Danger
from hookline.permissions.rules import PermissionRule

if TYPE_CHECKING:
    from hookline.decisions import Decision, Origin, Permission
    from hookline.layers import Layered, SettingsWarning

#: A rule and the settings it came from, as in ``"project settings"``.
SourcedRule = tuple[PermissionRule, str]
Warnings = list["SettingsWarning"]
#: Where an allow rule of an approval "for the rest of this session" comes from
#: (``hookline.permissions.session``).
SESSION_SOURCE = "this session's approval"
#: Tools that run unasked (settings add to them with ``readOnlyTools``).
READ_ONLY_TOOLS = frozenset({"Read", "Glob", "Grep"})

_EDITS: Final = {"Edit": "file_path", "Write": "file_path", "NotebookEdit": "notebook_path"}


class SandboxPolicy(Protocol):
    """What the permission layer asks of the OS sandbox (``hookline.permissions.sandbox``)."""

    def auto_allows(self, command: str, tool_input: Mapping[str, Any]) -> bool:
        """Whether this Bash call runs sandboxed and the settings auto-allow such calls."""
        ...


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the permission layer decided, why (in words for the model), and who decided: by
    name (``source``: ``"tier:read-only"``, the rule and its settings, ...) and by kind
    (``origin``: rule, mode, tier, sandbox, or the hook's own)."""

    permission: Permission
    reason: str
    source: str
    origin: Origin = field(compare=False)


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
    #: The workspace roots: what acceptEdits may change, where the protected folders are;
    #: empty: the cwd of each call.
    workspace: tuple[str, ...] = ()
    #: The OS sandbox, when Bash runs in one.
    sandbox: SandboxPolicy | None = None
    #: Files the settings name as code (hook files, the modules they import, hook scripts):
    #: part of the protected set (``hookline.permissions.protected``), absolute.
    code_files: tuple[str, ...] = ()

    def hides(self, tool_name: str) -> bool:
        """Whether a deny rule names ``tool_name`` whole, so the model is not offered it (a
        call to it is refused all the same)."""
        return any(rule.names_whole(tool_name) for rule, _ in self.deny)

    @classmethod
    def from_settings(
        cls, settings: Layered, *, mode: PermissionMode | None = None, cwd: str
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
    project_dir: str | None = None,
) -> Verdict:
    """Decide one call by the order in the module docstring. No state; the file system is
    only read, to resolve paths (symlinks, globs) for acceptEdits and the protected folders.
    ``cwd`` is where relative paths start (the shell's folder, after a ``cd``); ``project_dir``
    anchors ``./`` rules and is the workspace when the policy names none (``cwd`` if None)."""
    call = _call(policy, tool_name, tool_input, read_only, cwd, home, project_dir)
    verdict = _decide(policy, call, hook, hook_name)
    if verdict.permission != "ask" or policy.mode != "dontAsk":
        return verdict
    why = (
        f"{verdict.reason.rstrip('.')}. This session runs in dontAsk mode, which denies what needs "
    )
    why += f"approval: do not retry {tool_name}; go on without it, or tell the user."
    return Verdict("deny", why, "mode:dontAsk", "mode")


#: Tools whose own input check refuses a path a deny rule covers, before PreToolUse fires
#: (Claude Code's Read, Edit and Write do); other tools meet deny rules after it.
INPUT_CHECKED = frozenset({"Read", "Edit", "Write", "NotebookEdit"})


def path_refusal(
    policy: PermissionPolicy,
    *,
    tool_name: str,
    tool_input: Mapping[str, Any],
    cwd: str,
    home: str | None = None,
    project_dir: str | None = None,
) -> Verdict | None:
    """The deny rule that refuses an ``INPUT_CHECKED`` tool's path, as its input check does
    before any hook runs; None when no rule does (or the tool is not one of them)."""
    if tool_name not in INPUT_CHECKED or not policy.deny:
        return None
    call = _call(policy, tool_name, tool_input, False, cwd, home, project_dir)
    return _deny_rule(policy, call)


@dataclass(frozen=True)
class PathCheck:
    """The path rules a tool body applies again, at the moment of use, to the real path it is
    about to open: a link can be pointed elsewhere after its call was judged (by an earlier
    call of the same batch, or by a process in the background while a hook or a person
    answered), so the body goes by where the path leads now. Deny rules and hookline's private
    state are judged again; no answer lifts either, so a refusal here is always right. The
    file tools then open what was judged and nothing else (``read_text``, ``write_text``)."""

    policy: PermissionPolicy
    #: Where ``./`` rules start: the project folder.
    cwd: str

    def refusal(self, tool_name: str, real_path: str, given: str) -> str | None:
        """Why ``tool_name`` may not use ``real_path`` (absolute, no links) now that ``given``
        (absolute, as the call was judged) leads there, else None. A write that lands in a
        protected folder (``.git``, ``.claude``, ``.hookline``) only through a link was not
        judged as one, which asks in every mode: it is refused too."""
        key = visibility.READERS.get(tool_name) or visibility.WRITERS.get(tool_name)
        if key is None:
            return None
        call = _call(self.policy, tool_name, {key: real_path}, False, self.cwd, None, self.cwd)
        if refused := _never(self.policy, call, resolve=False):  # no link left to follow
            return refused.reason
        where = {**call.where, "code_files": self.policy.code_files}  # no link left to follow
        now = visibility.protected_write_reason(tool_name, call.tool_input, **where, resolve=False)
        judged = {key: given}
        if now and not visibility.protected_write_reason(tool_name, judged, **where, resolve=False):
            return (
                f"{tool_name} was refused: it now writes into {now}, which is protected, only "
                f"through a link; write to {real_path} itself, so that it is asked for"
            )
        return None


def _call(
    policy: PermissionPolicy,
    tool_name: str,
    tool_input: Mapping[str, Any],
    read_only: bool,
    cwd: str,
    home: str | None,
    project_dir: str | None,
) -> _Call:
    read_only = read_only or tool_name in policy.read_only_tools
    anchor = posixpath.normpath(project_dir or cwd)
    roots = policy.workspace or (anchor,)
    home = home or posixpath.expanduser("~")
    where = {"cwd": cwd, "roots": roots, "home": home}
    return _Call(tool_name, tool_input, read_only, cwd, home, roots, anchor, where)


@dataclass(frozen=True)
class _Call:
    tool_name: str
    tool_input: Mapping[str, Any]
    read_only: bool
    cwd: str
    home: str | None
    roots: tuple[str, ...]
    #: Where ``./`` rules start: the project folder, wherever the shell is.
    anchor: str
    #: ``cwd``, ``roots`` and ``home`` as the path checks take them (made once per call: every
    #: entry of the dangerous tier is given them).
    where: dict[str, Any]

    def matches(self, rule: PermissionRule, *, every: bool = False) -> bool:
        name, given, anchor = self.tool_name, self.tool_input, self.anchor
        return rule.matches(name, given, cwd=self.cwd, home=self.home, every=every, anchor=anchor)

    def meets(self, danger: Danger) -> bool:
        return danger.matches(self.tool_name, self.tool_input, **self.where)

    def unproven(self, danger: Danger) -> str | None:
        return danger.unproven(self.tool_name, self.tool_input, **self.where)

    @property
    def command(self) -> str | None:
        command = self.tool_input.get("command")
        return command if self.tool_name == "Bash" and isinstance(command, str) else None

    @cached_property
    def bash(self) -> Analysis | None:
        """The Bash line as Bash reads it; None for other tools."""
        return None if self.command is None else analyze(self.command)

    @cached_property
    def not_read_only(self) -> str | None:
        """Why the call does more than read; None when it only reads."""
        if self.bash is not None:
            return readonly.why_not_read_only(self.bash)
        return None if self.read_only else f"{self.tool_name} can change files"

    @property
    def what(self) -> str:
        """The call in a few words: ``Bash command `rm -rf build` `` or just the tool's name."""
        command = self.command
        if command is None:
            return self.tool_name
        return f"Bash command `{command if len(command) < 60 else command[:57] + '...'}`"


def _decide(policy: PermissionPolicy, call: _Call, hook: Decision, hook_name: str) -> Verdict:
    return (
        _hook_refusal(call, hook, hook_name)
        or _refusal(policy, call)
        or _must_ask(policy, call, hook, hook_name)
        or _by_mode(policy, call)
        or _approval(policy, call, hook, hook_name)
        or _tier(policy, call)
    )


def _hook_refusal(call: _Call, hook: Decision, hook_name: str) -> Verdict | None:
    if hook.permission in ("deny", "defer"):
        why = hook.reason or f"a {hook_name} hook refused {call.what}"
        return Verdict(hook.permission, why, f"hook:{hook_name}", hook.origin)
    return None


def _refusal(policy: PermissionPolicy, call: _Call) -> Verdict | None:
    """Deny rules, hookline's private state, the dangerous tier."""
    name = call.what
    if never := _never(policy, call):
        return never
    if danger := next((d for d in policy.dangerous if call.meets(d)), None):
        why = f"{name} was refused: it is {danger.about} (dangerous tier, {danger.name}), which no"
        why += " mode, rule or hook allows. Do not retry it or a variant; tell the user instead."
        return Verdict("deny", why, f"tier:dangerous:{danger.name}", "tier")
    return None


def _never(policy: PermissionPolicy, call: _Call, *, resolve: bool = True) -> Verdict | None:
    """What refuses a call whatever anyone answers: a deny rule, hookline's private state
    (``PathCheck`` applies them again when a file tool's body runs, on a real path: then
    ``resolve`` is False)."""
    if denied := _deny_rule(policy, call):
        return denied
    where = _no_home(call)
    if private := visibility.private_reason(
        call.tool_name, call.tool_input, **where, resolve=resolve
    ):
        return Verdict("deny", private, "tier:private", "tier")
    return None


def _deny_rule(policy: PermissionPolicy, call: _Call) -> Verdict | None:
    if rule := next((r for r in policy.deny if call.matches(r[0])), None):
        why = f"{call.what} is denied by the {rule[1]} rule {rule[0]}"
        if call.bash is not None and not call.bash.known:
            why += f" (what it runs cannot be known: {call.bash.unknown[0]})"
        why += "; do not retry it or work around it. If the task needs it, tell the user."
        return Verdict("deny", why, _named(rule), "rule")
    return None


def _must_ask(
    policy: PermissionPolicy, call: _Call, hook: Decision, hook_name: str
) -> Verdict | None:
    """Ask rules, protected paths, a hook's ask, and Bash that cannot be known."""
    name = call.what
    if rule := next((r for r in policy.ask if call.matches(r[0])), None):
        why = f"{name} needs approval: the {rule[1]} rule {rule[0]} asks for it"
        return Verdict("ask", why, _named(rule, "ask"), "rule")
    if protected := _protected(call, policy.code_files):  # the dangerous tier's reason first
        why = f"{name} {protected}: it needs an explicit approval in every mode"
        return _unproven(policy, call) or Verdict("ask", why, "tier:protected", "tier")
    if hook.permission == "ask":
        why = hook.reason or f"a {hook_name} hook asks to approve {name}"
        return Verdict("ask", why, f"hook:{hook_name}", hook.origin)
    if call.bash is not None and not call.bash.known:
        why = f"{name} needs approval: what it runs cannot be known before it runs "
        why += f"({call.bash.unknown[0]})"
        if policy.mode == "plan":
            return _plan_refusal(name)
        if sandboxed := _sandboxed(policy, call):  # the sandbox is the boundary, not a proof
            return _unproven(policy, call) or sandboxed
        return Verdict("ask", why, "tier:unknown", "tier")
    return _unproven(policy, call)


def _unproven(policy: PermissionPolicy, call: _Call) -> Verdict | None:
    """A recursive delete or chmod, a write that may reach a device, or a push, whose targets
    the dangerous tier cannot prove harmless: it asks in every mode."""
    for danger in policy.dangerous:
        if why := call.unproven(danger):
            if policy.mode == "plan":
                return _plan_refusal(call.what)
            why = f"{call.what} needs approval in every mode: {why} (dangerous tier, {danger.name})"
            return Verdict("ask", why, f"tier:dangerous:{danger.name}", "tier")
    return None


def _protected(call: _Call, code_files: tuple[str, ...]) -> str | None:
    """What the call writes into the protected set, or may: in a phrase that follows its
    name (``writes into /ws/.git/hooks, which is protected``); None when it provably does not."""
    if call.bash is not None:
        return edits.protected_write(call.bash, **call.where, code_files=code_files)
    found = visibility.protected_write_reason(
        call.tool_name, call.tool_input, **call.where, code_files=code_files
    )
    return found and f"writes into {found}, which is protected"


def _no_home(call: _Call) -> dict[str, Any]:
    return {"cwd": call.cwd, "roots": call.roots}


def _named(rule: SourcedRule, kind: str = "deny") -> str:
    return f"rule:{kind}:{rule[0]} ({rule[1]})"


def _plan_refusal(name: str) -> Verdict:
    why = f"This session is in plan mode, where only read-only tools run, so {name} was not "
    why += "run. Explore with read-only tools and present your plan; do not retry it "
    return Verdict("deny", why + "until the user leaves plan mode.", "mode:plan", "mode")


def _by_mode(policy: PermissionPolicy, call: _Call) -> Verdict | None:
    name, mode = call.what, policy.mode
    if mode == "bypassPermissions":
        why = f"bypassPermissions mode runs {name}"
        return Verdict("allow", why, "mode:bypassPermissions", "mode")
    if mode == "plan" and call.not_read_only:
        return _plan_refusal(name)
    if mode == "acceptEdits" and _provable_edit(policy, call):
        return Verdict("allow", f"acceptEdits mode runs {name} here", "mode:acceptEdits", "mode")
    return None


def _provable_edit(policy: PermissionPolicy, call: _Call) -> bool:
    """An edit of a file, or a Bash line of only file edits, inside the workspace, outside the
    protected set, touching no file an Edit or Read deny rule covers."""
    if call.bash is not None:
        denied = partial(_path_denied, policy, call)
        found = edits.why_not_provable_edit(
            call.bash,
            **call.where,
            code_files=policy.code_files,
            denied=denied,
            read_rules=_read_rules(policy, call),
        )
        return found is None
    path = call.tool_input.get(_EDITS.get(call.tool_name, ""))
    if not isinstance(path, str):
        return False
    full = paths.absolute(path, call.cwd, call.home)
    real = paths.real(full)
    return any(paths.inside(real, root) and real != root for root in _real_roots(call.roots))


def _read_rules(policy: PermissionPolicy, call: _Call) -> reads.DenyRules | None:
    """The Read deny rules (of the settings and the dangerous tier), when there are any."""
    rules = [rule for rule, _ in policy.deny if rule.tool == "Read"]
    rules += [d.rule for d in policy.dangerous if d.rule is not None and d.rule.tool == "Read"]
    home = call.home or posixpath.expanduser("~")
    return reads.DenyRules(tuple(rules), call.cwd, home, call.anchor) if rules else None


def _reads_denied(policy: PermissionPolicy, call: _Call) -> str | None:
    """Why a Bash line may read a file a Read deny rule covers (``hookline.permissions.reads``):
    the read-only tier does not run it unasked. None when it is proven not to."""
    if call.bash is None or (rules := _read_rules(policy, call)) is None:
        return None
    return reads.why_line_reads_denied(call.bash, cwd=call.cwd, home=rules.home, rules=rules)


def _path_denied(policy: PermissionPolicy, call: _Call, tool: str, path: str) -> bool:
    """Whether a ``tool`` deny rule (of the settings or the dangerous tier) covers ``path``."""
    given = {"file_path": path}
    rules = [rule for rule, _ in policy.deny if rule.tool == tool]
    rules += [d.rule for d in policy.dangerous if d.rule is not None and d.rule.tool == tool]
    home, anchor = call.home, call.anchor
    return any(r.matches(tool, given, cwd=call.cwd, home=home, anchor=anchor) for r in rules)


def _real_roots(roots: Sequence[str]) -> list[str]:
    return [paths.real(root) for root in roots]


def _approval(
    policy: PermissionPolicy, call: _Call, hook: Decision, hook_name: str
) -> Verdict | None:
    """A hook's allow, allow rules, the sandbox's auto-allow."""
    name = call.what
    if hook.permission == "allow":
        why = hook.reason or f"a {hook_name} hook allowed {name}"
        return Verdict("allow", why, f"hook:{hook_name}", hook.origin)
    if rules := _allowed(policy.allow, call):
        source = " + ".join(rules)
        by = f"for this session ({source})" if SESSION_SOURCE in source else "by settings"
        return Verdict("allow", f"{name} is allowed {by}", source, "rule")
    return _sandboxed(policy, call)


def _sandboxed(policy: PermissionPolicy, call: _Call) -> Verdict | None:
    """The sandbox's auto-allow of a Bash call it runs (``autoAllowBashIfSandboxed``)."""
    sandbox, command = policy.sandbox, call.command
    if command is None or sandbox is None:
        return None
    if sandbox.auto_allows(command, call.tool_input):
        why = f"{call.what} runs in the OS sandbox"
        return Verdict("allow", why, "sandbox:autoAllow", "sandbox")
    return None


def _tier(policy: PermissionPolicy, call: _Call) -> Verdict:
    why_not = call.not_read_only or _reads_denied(policy, call)
    if why_not is None:
        why = f"{call.what} runs without approval (read-only tier)"
        return Verdict("allow", why, "tier:read-only", "tier")
    if policy.mutating == "allow":
        why = f"{call.what} runs without approval (mutating tier)"
        return Verdict("allow", why, "tier:mutating", "tier")
    if call.bash is not None:
        why = f"{call.what} needs approval: {why_not}"
    else:
        why = f"{call.what} can change files or run commands, so it needs approval"
    return Verdict("ask", why, "tier:mutating", "tier")


def _allowed(rules: Sequence[SourcedRule], call: _Call) -> list[str]:
    """The allow rules that cover the whole call (for Bash: each command on its own), or []."""
    if whole := next((r for r in rules if call.matches(r[0], every=True)), None):
        return [_named(whole, "allow")]
    if call.command is None:
        return []
    bash_rules = [r for r in rules if r[0].tool == "Bash" and r[0].specifier is not None]
    specs = [str(r[0].specifier) for r in bash_rules]
    found = command_rules.cover(specs, call.command)
    if found is None:
        return []
    return list(dict.fromkeys(_named(bash_rules[i], "allow") for i in found))
