""" "Allow for the rest of this session": what such an answer allows, scoped as Claude Code
scopes "Yes, and don't ask again".

``grant_for`` works out the scope of one call that asked, the way Claude Code's prompt
suggests it (observed in its PermissionRequest payloads' ``permission_suggestions``):

- a file edit the mode could run (Edit, Write, NotebookEdit, or a Bash line of only file edits,
  inside the workspace): acceptEdits, for the rest of the session ("allow all edits during
  this session");
- a Bash line: one allow rule per command it runs, ``Bash(npm test *)`` when the command's
  second word is a subcommand (``git push *``, ``docker compose *``, ``make all *``), else the
  command exactly (``Bash(pytest tests/ -x)``, ``Bash(./run.sh --fast)``, and each
  read-only command of the line: ``Bash(cd sub)``); none for a line that cannot be known,
  runs a substitution, writes with a redirect, or sets a variable for a command;
- an Edit, Write or NotebookEdit outside the workspace: ``Edit(//<its folder>/**)`` (never
  ``/`` or the home folder itself);
- WebFetch: ``WebFetch(domain:<host>)``; any other tool (an MCP tool, a tool of your own): the
  tool, by name.

A grant is kept only if, added to the policy, it lets that very call run (``evaluate`` says
so), so what is offered is what the answer allows. It adds allow rules (or the mode), which
``evaluate`` weighs after deny rules, hookline's private state, the dangerous tier, ask rules,
the protected set, a hook's ask and a Bash line that cannot be known: no session answer lifts
any of those. Claude Code keeps a Bash rule in ``.claude/settings.local.json`` for good;
hookline keeps every grant for this session only (a resumed session keeps its grants).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final
from urllib.parse import urlsplit

from hookline._decisions import NO_DECISION
from hookline._errors import ConfigError
from hookline._events import PermissionMode
from hookline._file_tools import WRITERS
from hookline._support.words import words
from hookline.permissions._call import CallContext
from hookline.permissions._command_rules import SAFE_ENV
from hookline.permissions._paths import user_home
from hookline.permissions._policy import SESSION_SOURCE, PermissionPolicy, evaluate_call
from hookline.permissions._readonly import why_command_not_read_only
from hookline.permissions._rules import PermissionRule
from hookline.permissions.bash import Command, analyze

#: Where an allow rule of a session grant says it came from (audit, reasons).
SOURCE: Final = SESSION_SOURCE
#: A command's second word that names a subcommand (``npm test``, ``docker compose``).
_SUBCOMMAND = re.compile(r"[a-z][a-z0-9-]*")
#: Programs whose second word is code or a program to run, not a subcommand: exact rules only.
_NO_PREFIX: Final = words(
    "sudo doas su env bash sh zsh dash fish eval exec xargs python python3 node ruby perl php "
    "ssh nohup time timeout nice watch command builtin find awk sed"
)
_GLOB = frozenset("*?[]{}")
_EDIT_MODES: Final = frozenset({"default", "auto"})


@dataclass(frozen=True, slots=True)
class SessionGrant:
    """What an allow for the rest of the session allows: allow rules, or acceptEdits."""

    rules: tuple[PermissionRule, ...] = ()
    mode: PermissionMode | None = None

    def describe(self) -> str:
        """In a few words, for the prompt: ``Bash(npm test *)``, or the edits it accepts."""
        if self.mode == "acceptEdits":
            return "file edits in the workspace (acceptEdits mode)"
        return ", ".join(str(rule) for rule in self.rules)

    def applied(self, policy: PermissionPolicy) -> PermissionPolicy:
        """``policy`` with this grant: its rules among the allow rules, its mode set."""
        extra = tuple((rule, SOURCE) for rule in self.rules if (rule, SOURCE) not in policy.allow)
        mode = self.mode if self.mode is not None and policy.mode in _EDIT_MODES else policy.mode
        return replace(policy, allow=(*policy.allow, *extra), mode=mode)

    def to_dict(self) -> dict[str, Any]:
        """The JSON an approver is sent, and a paused session keeps."""
        rules = [str(rule) for rule in self.rules]
        return {"rules": rules, "mode": self.mode, "description": self.describe()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SessionGrant:
        """A grant as ``to_dict`` wrote it; a ConfigError if it is not one."""
        rules, mode = data.get("rules") or [], data.get("mode")
        if mode not in (None, "acceptEdits") or not isinstance(rules, list):
            raise ConfigError(f"not a session grant: {dict(data)!r}", key="session.grants")
        return cls(tuple(PermissionRule.parse(r, key="session.grants") for r in rules), mode)


def grant_for(policy: PermissionPolicy, asked: CallContext) -> SessionGrant | None:
    """The grant that would let this call (one the tiers asked about) run for the rest of the
    session, as Claude Code scopes it; None when there is none to offer."""

    def runs(candidate: PermissionPolicy) -> str | None:
        verdict = evaluate_call(candidate, asked, NO_DECISION)
        return verdict.source if verdict.permission == "allow" else None

    if policy.mode in _EDIT_MODES and runs(replace(policy, mode="acceptEdits")) == (
        "mode:acceptEdits"
    ):
        return SessionGrant(mode="acceptEdits")
    home = asked.home or user_home()
    rules = _rules(asked.tool_name, asked.tool_input, cwd=asked.cwd, home=home)
    if not rules:
        return None
    grant = SessionGrant(rules=rules)
    source = runs(grant.applied(policy))
    return grant if source is not None and SOURCE in source else None


def _rules(
    tool_name: str, tool_input: Mapping[str, Any], *, cwd: str, home: str
) -> tuple[PermissionRule, ...]:
    """The rules that scope this call; () when it has none."""
    texts: Sequence[str | None]
    if tool_name == "Bash":
        command = tool_input.get("command")
        texts = _bash(command) if isinstance(command, str) else ()
    elif tool_name in WRITERS:
        texts = [_folder_rule(tool_input.get(WRITERS[tool_name]), cwd=cwd, home=home)]
    elif tool_name == "WebFetch":
        texts = [_domain_rule(tool_input.get("url"))]
    else:
        texts = [tool_name]
    if not texts or None in texts:
        return ()
    try:
        return tuple(dict.fromkeys(PermissionRule.parse(str(text)) for text in texts))
    except ConfigError:  # a command whose text cannot be written as a rule
        return ()


def _bash(line: str) -> list[str | None]:
    """One rule text per command of ``line`` (None for one that cannot have its own)."""
    analysis = analyze(line)
    if not analysis.known or analysis.recursive or analysis.substitutions:
        return []
    return [_command_rule(c) for c in analysis.commands if not c.transparent]


def _command_rule(command: Command) -> str | None:
    """``Bash(<program> <subcommand> *)`` or the command exactly, as Claude Code offers them;
    None for a command that writes with a redirect or sets a variable a rule cannot allow."""
    if command.writes or not SAFE_ENV.issuperset(command.env) or command.name is None:
        return None
    words = [command.path or command.name, *(arg.value for arg in command.args)]
    second = words[1] if len(words) > 1 else None
    prefixed = command.name not in _NO_PREFIX and why_command_not_read_only(command) is not None
    if second and _SUBCOMMAND.fullmatch(second) and prefixed:  # a read-only one: exactly
        return f"Bash({words[0]} {second} *)"
    if command.more_args or any(w is None or _GLOB & set(w) for w in words):
        return None  # a word only run time knows, or one a rule would read as a pattern
    return f"Bash({' '.join(w for w in words if w is not None)})"


def _folder_rule(path: Any, *, cwd: str, home: str) -> str | None:
    """``Edit(//<folder>/**)`` for the folder ``path`` is in; None for ``/`` or the home."""
    if not isinstance(path, str) or not path:
        return None
    full = posixpath.normpath(posixpath.join(cwd, posixpath.expanduser(path)))
    folder = posixpath.dirname(full)
    if folder in ("/", posixpath.normpath(home)) or _GLOB & set(folder):
        return None
    return f"Edit(/{folder}/**)"


def _domain_rule(url: Any) -> str | None:
    host = urlsplit(url).hostname if isinstance(url, str) else None
    return f"WebFetch(domain:{host})" if host and not _GLOB & set(host) else None
