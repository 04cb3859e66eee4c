"""The steps of ``evaluate``, in the order ``hookline.permissions._policy`` gives: each step
either decides (a ``Verdict``) or passes the call on (None)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING

import hookline.permissions._command_rules as command_rules
import hookline.permissions._edits as edits
import hookline.permissions._paths as paths
import hookline.permissions._reads as reads
import hookline.permissions._visibility as visibility
from hookline._file_tools import WRITERS
from hookline.permissions._verdict import SESSION_SOURCE, SourcedRule, Verdict

if TYPE_CHECKING:
    from hookline._decisions import Decision
    from hookline.permissions._judged_call import JudgedCall
    from hookline.permissions._policy import PermissionPolicy


def decide(policy: PermissionPolicy, call: JudgedCall, hook: Decision, hook_name: str) -> Verdict:
    return (
        _hook_refusal(call, hook, hook_name)
        or _refusal(policy, call)
        or _must_ask(policy, call, hook, hook_name)
        or _by_mode(policy, call)
        or _approval(policy, call, hook, hook_name)
        or _tier(policy, call)
    )


def _hook_refusal(call: JudgedCall, hook: Decision, hook_name: str) -> Verdict | None:
    if hook.permission in ("deny", "defer"):
        why = hook.reason or f"a {hook_name} hook refused {call.what}"
        return Verdict(hook.permission, why, f"hook:{hook_name}", hook.origin)
    return None


def _refusal(policy: PermissionPolicy, call: JudgedCall) -> Verdict | None:
    """Deny rules, hookline's private state, the dangerous tier."""
    name = call.what
    if refused := never(policy, call):
        return refused
    if danger := next((d for d in policy.dangerous if call.meets(d)), None):
        why = f"{name} was refused: it is {danger.about} (dangerous tier, {danger.name}), which no"
        why += " mode, rule or hook allows. Do not retry it or a variant; tell the user instead."
        return Verdict("deny", why, f"tier:dangerous:{danger.name}", "tier")
    return None


def never(policy: PermissionPolicy, call: JudgedCall, *, resolve: bool = True) -> Verdict | None:
    """What refuses a call whatever anyone answers: a deny rule, hookline's private state
    (``PathCheck`` applies them again when a file tool's body runs, on a real path: then
    ``resolve`` is False)."""
    if denied := deny_rule(policy, call):
        return denied
    if private := visibility.private_reason(
        call.tool_name, call.tool_input, **call.where, resolve=resolve
    ):
        return Verdict("deny", private, "tier:private", "tier")
    if named := _bash_reads_private(policy, call):
        why = f"{call.what} was refused: {named} (transcripts, the session store, the audit log,"
        why += " its keys), which no tool reads. Do not retry it or a variant."
        return Verdict("deny", why, "tier:private", "tier")
    return None


def _bash_reads_private(policy: PermissionPolicy, call: JudgedCall) -> str | None:
    """A path of hookline's private state a Bash line's words name, unless the line writes
    into the protected set (which holds it): that asks in every mode, naming the write. The
    write is looked for only then: the common line names no such path."""
    named = _bash_private(call, "named")
    if named is None or _protected(call, policy.code_files):
        return None
    return named


def _bash_private(call: JudgedCall, scope: reads.Scope) -> str | None:
    """Why a Bash line may read hookline's private state, counting what ``scope`` says
    (``hookline.permissions._reads``): ``named``, a path its words name, refused in every mode
    as a Read of it is; ``reach``, a folder it reads whole that holds some, asked in every
    mode. What only run time knows the read-only tier does not run unasked
    (``_reads_denied``)."""
    if call.bash is None:
        return None
    home, private = call.private_reads
    return reads.why_line_reads_denied(
        call.bash, cwd=call.cwd, home=home, rules=private, scope=scope
    )


def deny_rule(policy: PermissionPolicy, call: JudgedCall) -> Verdict | None:
    if rule := next((r for r in policy.deny if call.matches(r[0])), None):
        why = f"{call.what} is denied by the {rule[1]} rule {rule[0]}"
        if call.bash is not None and not call.bash.known:
            why += f" (what it runs cannot be known: {call.bash.unknown[0]})"
        why += "; do not retry it or work around it. If the task needs it, tell the user."
        return Verdict("deny", why, _named(rule), "rule")
    return None


def _must_ask(
    policy: PermissionPolicy, call: JudgedCall, hook: Decision, hook_name: str
) -> Verdict | None:
    """Ask rules, protected paths, a hook's ask, and Bash that cannot be known."""
    name = call.what
    if rule := next((r for r in policy.ask if call.matches(r[0])), None):
        why = f"{name} needs approval: the {rule[1]} rule {rule[0]} asks for it"
        return Verdict("ask", why, _named(rule, "ask"), "rule")
    if reach := _bash_private(call, "reach"):
        why = f"{name} needs approval in every mode: {reach}"
        return _unproven(policy, call) or Verdict("ask", why, "tier:private", "tier")
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


def _unproven(policy: PermissionPolicy, call: JudgedCall) -> Verdict | None:
    """A recursive delete or chmod, a write that may reach a device, or a push, whose targets
    the dangerous tier cannot prove harmless: it asks in every mode."""
    for danger in policy.dangerous:
        if why := call.unproven(danger):
            if policy.mode == "plan":
                return _plan_refusal(call.what)
            why = f"{call.what} needs approval in every mode: {why} (dangerous tier, {danger.name})"
            return Verdict("ask", why, f"tier:dangerous:{danger.name}", "tier")
    return None


def _protected(call: JudgedCall, code_files: tuple[str, ...]) -> str | None:
    """What the call writes into the protected set, or may: in a phrase that follows its
    name (``writes into /ws/.git/hooks, which is protected``); None when it provably does not."""
    if call.bash is not None:
        return edits.protected_write(call.bash, **call.where, code_files=code_files)
    found = visibility.protected_write_reason(
        call.tool_name, call.tool_input, **call.where, code_files=code_files
    )
    return found and f"writes into {found}, which is protected"


def _named(rule: SourcedRule, kind: str = "deny") -> str:
    return f"rule:{kind}:{rule[0]} ({rule[1]})"


def _plan_refusal(name: str) -> Verdict:
    why = f"This session is in plan mode, where only read-only tools run, so {name} was not "
    why += "run. Explore with read-only tools and present your plan; do not retry it "
    return Verdict("deny", why + "until the user leaves plan mode.", "mode:plan", "mode")


def _by_mode(policy: PermissionPolicy, call: JudgedCall) -> Verdict | None:
    name, mode = call.what, policy.mode
    if mode == "bypassPermissions":
        why = f"bypassPermissions mode runs {name}"
        return Verdict("allow", why, "mode:bypassPermissions", "mode")
    if mode == "plan" and call.not_read_only:
        return _plan_refusal(name)
    if mode == "acceptEdits" and _provable_edit(policy, call) and not _reads_denied(policy, call):
        return Verdict("allow", f"acceptEdits mode runs {name} here", "mode:acceptEdits", "mode")
    return None


def _provable_edit(policy: PermissionPolicy, call: JudgedCall) -> bool:
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
    path = call.tool_input.get(WRITERS.get(call.tool_name, ""))
    if not isinstance(path, str):
        return False
    full = paths.absolute(path, call.cwd, call.home)
    real = paths.real(full)
    return any(paths.inside(real, root) and real != root for root in _real_roots(call.roots))


def _read_rules(policy: PermissionPolicy, call: JudgedCall) -> reads.DenyRules | None:
    """The Read deny rules (of the settings and the dangerous tier), when there are any."""
    rules = [rule for rule, _ in policy.deny if rule.tool == "Read"]
    rules += [d.rule for d in policy.dangerous if d.rule is not None and d.rule.tool == "Read"]
    home = call.home or paths.user_home()
    return reads.DenyRules(tuple(rules), call.cwd, home, call.anchor) if rules else None


def _reads_denied(policy: PermissionPolicy, call: JudgedCall) -> str | None:
    """Why a Bash line may read hookline's private state or a file a Read deny rule covers
    (``hookline.permissions._reads``): the read-only tier does not run it unasked. None when it
    is proven not to."""
    if call.bash is None:
        return None
    home, private = call.private_reads
    why = reads.why_line_reads_denied(call.bash, cwd=call.cwd, home=home, rules=private)
    if why is not None or (rules := _read_rules(policy, call)) is None:
        return why
    return reads.why_line_reads_denied(call.bash, cwd=call.cwd, home=rules.home, rules=rules)


def _path_denied(policy: PermissionPolicy, call: JudgedCall, tool: str, path: str) -> bool:
    """Whether a ``tool`` deny rule (of the settings or the dangerous tier) covers ``path``."""
    given = {"file_path": path}
    rules = [rule for rule, _ in policy.deny if rule.tool == tool]
    rules += [d.rule for d in policy.dangerous if d.rule is not None and d.rule.tool == tool]
    home, anchor = call.home, call.anchor
    return any(r.matches(tool, given, cwd=call.cwd, home=home, anchor=anchor) for r in rules)


def _real_roots(roots: Sequence[str]) -> list[str]:
    return [paths.real(root) for root in roots]


def _approval(
    policy: PermissionPolicy, call: JudgedCall, hook: Decision, hook_name: str
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


def _sandboxed(policy: PermissionPolicy, call: JudgedCall) -> Verdict | None:
    """The sandbox's auto-allow of a Bash call it runs (``autoAllowBashIfSandboxed``)."""
    sandbox, command = policy.sandbox, call.command
    if command is None or sandbox is None:
        return None
    if sandbox.auto_allows(command, call.tool_input):
        why = f"{call.what} runs in the OS sandbox"
        return Verdict("allow", why, "sandbox:autoAllow", "sandbox")
    return None


def _tier(policy: PermissionPolicy, call: JudgedCall) -> Verdict:
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


def _allowed(rules: Sequence[SourcedRule], call: JudgedCall) -> list[str]:
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
