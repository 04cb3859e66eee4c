"""The permission layer: what becomes of a tool call once its PreToolUse hooks have answered.

``evaluate`` decides in this order; the first step that decides wins:

1. a hook's deny (or defer, handed back as is), in every mode, bypassPermissions included;
2. deny rules, matched on any command of a Bash line as Bash reads it; a line whose commands
   cannot be known (``hookline.permissions.bash``) matches every Bash deny rule;
3. hookline's private state: Read, Grep and Glob never reach ``.hookline/``;
4. the dangerous tier (``hookline.permissions._dangerous``): a deny no mode, rule or hook lifts;
   what it cannot prove harmless (a recursive delete or chmod, a write that may reach a
   device, a push, with a target not proven) asks in every mode, after step 7;
5. ask rules (a hook's allow does not skip them);
6. the protected set (``hookline.permissions._protected``): a write into it, or a Bash write not
   proven to miss it (``hookline.permissions._writes``), asks, in every mode;
7. a hook's ask; then a Bash line that cannot be known asks, in every mode (plan refuses it):
   no hook's allow, mode, rule or tier approves what cannot be read; only the sandbox's
   auto-allow runs it, inside the sandbox, which is then the boundary (step 10);
8. the mode: bypassPermissions runs the rest; plan refuses what does more than read;
   acceptEdits runs file edits, and Bash lines it can prove only edit files in the workspace
   (and touch nothing an Edit or Read deny rule covers);
9. a hook's allow; allow rules, which must name every command of a Bash line;
10. the OS sandbox, when it auto-allows Bash (``sandbox.autoAllowBashIfSandboxed``);
11. the tiers: read-only tools and read-only Bash lines run (with a Read deny rule, only a line
    proved to open no file it covers: ``hookline.permissions._reads``); the rest ask (or run,
    with ``mutating: "allow"``). An ask says what made a Bash line more than a read.

In dontAsk mode whatever would ask is denied. ``auto`` has no classifier here: it acts as default.

``from_settings`` reads the settings layers (``hookline.permissions._config``):
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

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

import hookline.permissions._paths as paths
import hookline.permissions._visibility as visibility
from hookline._events import PermissionMode
from hookline._file_tools import INPUT_CHECKED, PATH_FIELDS, READERS
from hookline.permissions._call import CallContext
from hookline.permissions._dangerous import DANGEROUS, Danger
from hookline.permissions._judged_call import judged_call
from hookline.permissions._steps import decide, deny_rule, never
from hookline.permissions._verdict import SESSION_SOURCE, SourcedRule, Verdict

if TYPE_CHECKING:
    from hookline._decisions import Decision
    from hookline._settings_layers import Layered, SettingsWarning

__all__ = [
    "INPUT_CHECKED",
    "READ_ONLY_TOOLS",
    "SESSION_SOURCE",
    "PathCheck",
    "PermissionPolicy",
    "SandboxPolicy",
    "SourcedRule",
    "Verdict",
    "Warnings",
    "evaluate",
    "path_refusal",
]

Warnings = list["SettingsWarning"]
#: Tools that run unasked (settings add to them with ``readOnlyTools``): the file tools that
#: only read.
READ_ONLY_TOOLS = frozenset(READERS)


class SandboxPolicy(Protocol):
    """What the permission layer asks of the OS sandbox (``hookline.permissions._sandbox``)."""

    def auto_allows(self, command: str, tool_input: Mapping[str, Any]) -> bool:
        """Whether this Bash call runs sandboxed and the settings auto-allow such calls."""
        ...


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
    #: part of the protected set (``hookline.permissions._protected``), absolute.
    code_files: tuple[str, ...] = ()

    def verdict(self, asked: CallContext, hook: Decision) -> Verdict:
        """``evaluate_call`` of this policy (for the tool pipeline, which does not import the
        permission layer itself: a policy means it is loaded)."""
        return evaluate_call(self, asked, hook)

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
        from hookline.permissions._config import policy_from_settings  # settings import hooks

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
    anchors ``./`` rules and is the workspace when the policy names none (``cwd`` if None).
    ``evaluate_call`` takes the same as one ``CallContext``."""
    asked = CallContext(tool_name, tool_input, cwd, read_only, project_dir, home)
    return evaluate_call(policy, asked, hook, hook_name=hook_name)


def evaluate_call(
    policy: PermissionPolicy, asked: CallContext, hook: Decision, *, hook_name: str = "PreToolUse"
) -> Verdict:
    """``evaluate``, for a call given as one ``CallContext`` (as the tool pipeline has it),
    over one snapshot of the file system's links (``paths.snapshot``)."""
    with paths.snapshot():
        verdict = decide(policy, judged_call(policy, asked), hook, hook_name)
    if verdict.permission != "ask" or policy.mode != "dontAsk":
        return verdict
    why = (
        f"{verdict.reason.rstrip('.')}. This session runs in dontAsk mode, which denies what needs "
    )
    why += f"approval: do not retry {asked.tool_name}; go on without it, or tell the user."
    return Verdict("deny", why, "mode:dontAsk", "mode")


def path_refusal(policy: PermissionPolicy, asked: CallContext) -> Verdict | None:
    """The deny rule that refuses an ``INPUT_CHECKED`` tool's path, as its input check does
    before any hook runs; None when no rule does (or the tool is not one of them)."""
    if asked.tool_name not in INPUT_CHECKED or not policy.deny:
        return None
    return deny_rule(policy, judged_call(policy, asked))


@dataclass(frozen=True)
class PathCheck:
    """The path rules a tool body applies again, at the moment of use, to the real path it is
    about to open: a link can be pointed elsewhere after its call was judged (by an earlier
    call of the same batch, or by a process in the background while a hook or a person
    answered), so the body goes by where the path leads now. Deny rules and hookline's private
    state are judged again; no answer lifts either, so a refusal here is always right. The
    file tools then open what was judged and nothing else (``hookline._tools.builtin._file_io``)."""

    policy: PermissionPolicy
    #: Where ``./`` rules start: the project folder.
    cwd: str

    def refusal(self, tool_name: str, real_path: str, given: str) -> str | None:
        """Why ``tool_name`` may not use ``real_path`` (absolute, no links) now that ``given``
        (absolute, as the call was judged) leads there, else None. A write that lands in a
        protected folder (``.git``, ``.claude``, ``.hookline``) only through a link was not
        judged as one, which asks in every mode: it is refused too."""
        key = PATH_FIELDS.get(tool_name)
        if key is None:
            return None
        asked = CallContext(tool_name, {key: real_path}, self.cwd, project_dir=self.cwd)
        call = judged_call(self.policy, asked)
        if refused := never(self.policy, call, resolve=False):  # no link left to follow
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
