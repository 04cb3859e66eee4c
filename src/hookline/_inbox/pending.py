"""The calls waiting in the store for an answer, each as the terminal prompt would show it.

    pending_sessions(store)   # [Pending(session_id, paused_at, calls=[Waiting], steps, ...)]

A paused session (``deferred``) keeps each waiting call as the model asked for it and, in its
deferred result, the input as the hooks left it (the final input after rewrites), the reason
and where the deferral came from. ``Waiting.request`` puts those in the ``ApprovalRequest`` the
prompt draws, so ``lines`` are the prompt's own rows (``approve_screen.prompt_lines``: every
value through ``display.shown``, wrapped with ``↪``, look-alike and mixed-script warnings).
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from hookline._agent.messages import TextBlock, ToolResultBlock
from hookline._agent.saved.deadline import expired
from hookline._agent.saved.state import load_state
from hookline._cli.approve_screen import Line, prompt_lines
from hookline._errors import ConfigError
from hookline._support.display import abridged, shown
from hookline._tools.approvals import ApprovalRequest
from hookline._tools.base import ToolCall
from hookline.audit._steps import STEPS, call_words
from hookline.storage import CorruptRecordWarning

if TYPE_CHECKING:
    from hookline._agent.messages import Message
    from hookline._agent.saved.state import Turn
    from hookline.storage import SessionRecord, Store

#: The columns the prompt's rows are laid out for.
WIDTH: Final = 100
#: A hook run's decisions that put a call before a person.
_ASKING: Final = ("defer", "ask")
#: Where a deferral came from (``ToolResult.origin``), in words.
_ORIGINS: Final = {
    "hook": "a PreToolUse hook",
    "json": "a hook's JSON answer",
    "exit_code_2": "a hook (exit code 2)",
    "hook_failure": "a hook that failed",
    "rule": "a permission rule",
    "mode": "the permission mode",
    "tier": "the default tiers",
    "sandbox": "the sandbox",
    "approver": "the approver",
    "unanswered": "an ask nobody could answer then (the run had no approver)",
    "permission": "the permission layer (a rule, the mode or a tier)",
    "host_permission": "Claude Code's permission rules (its own permission prompt)",
}


@dataclass(frozen=True, slots=True)
class Waiting:
    """One call waiting for an answer, as its approval request."""

    request: ApprovalRequest

    @property
    def lines(self) -> list[Line]:
        return prompt_lines(self.request, WIDTH)


@dataclass(frozen=True, slots=True)
class Live:
    """What a live ask is beyond its call: a host waits on its hook for the answer until
    ``deadline`` (``hookline._inbox.live``)."""

    id: str
    host: str
    deadline: float
    agent: str | None = None
    peer: str | None = None
    #: What approving it for the session allows its host session from then on (None: it
    #: offers nothing for the session).
    grant: str | None = None


@dataclass(frozen=True, slots=True)
class Pending:
    """A paused session and the calls it waits on; or, with ``live``, a host's call."""

    session_id: str
    #: When it paused (the record's ``updated_at``): a link names the pause it answers.
    paused_at: float
    user: str | None
    tenant: str | None
    prompt: str
    calls: tuple[Waiting, ...]
    #: The conversation's last messages (a live ask: its host session's last hook events),
    #: one shown line each (``hookline.audit._steps``).
    steps: tuple[str, ...]
    #: A live ask (a host waits on it), not a paused session.
    live: Live | None = None
    #: When the paused calls stop waiting: an answer after it is refused, and the resume
    #: denies them (``hookline._agent.saved.deadline``). None: no deadline.
    deadline: float | None = None

    def expired(self, now: float | None = None) -> bool:
        """Whether its deadline passed (at ``now``; None: the clock's)."""
        return expired(self.deadline, time.time() if now is None else now)

    @property
    def answer_by(self) -> float | None:
        """When an answer stops counting: a live ask's deadline, or the paused calls' (None:
        never)."""
        return self.live.deadline if self.live is not None else self.deadline


def pending_sessions(store: Store, *, limit: int = 200, named: bool = True) -> list[Pending]:
    """Every paused session with a waiting call, newest first; unreadable ones left out.
    ``named``: with the hooks that deferred each call, from the audit (``deferred_by``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CorruptRecordWarning)
        records = store.list_sessions(status="deferred", limit=limit)
    found = [pending(record, store if named else None) for record in records]
    return [p for p in found if p is not None and p.calls]


def pending(record: SessionRecord, store: Store | None = None) -> Pending | None:
    """``record`` as a Pending, or None when its state cannot be read; with ``store``, each
    call says which hooks deferred it."""
    try:
        session, messages, turn = load_state(record.state, where=f"session {record.id}")
    except ConfigError:
        return None
    hooks = deferred_by(store, record.id) if store is not None else {}
    calls = tuple(
        Waiting(_request(record, session, turn, call, hooks.get(call.id))) for call in turn.waiting
    )
    steps = tuple(_step(message) for message in messages[-STEPS:])
    return Pending(
        record.id,
        record.updated_at,
        record.user,
        record.tenant,
        turn.prompt,
        calls,
        steps,
        deadline=turn.deadline,
    )


def deferred_by(store: Store, session_id: str) -> dict[str, str]:
    """For each call of the session the audit saw deferred: the hooks that deferred or asked
    for it, each with where it came from (its latest deferral's record)."""
    found = {}
    for row in store.audit_rows(session_id=session_id, decision="deferred"):
        hooks = row.data.get("hooks") if row.kind == "tool" and row.tool_use_id else None
        said = hooks_asking(hooks)
        if said and row.tool_use_id:
            found[row.tool_use_id] = said
    return found


def hooks_asking(hooks: object) -> str | None:
    """The hooks of a record's ``hooks`` that deferred or asked, each with where it came from."""
    runs = hooks if isinstance(hooks, list) else []
    said = [h for h in runs if isinstance(h, dict) and h.get("decision") in _ASKING]
    return ", ".join(f"{h.get('hook')} ({h.get('source')})" for h in said) or None


def asked_by(origin: str | None, hooks: str | None) -> str:
    """Where an ask or a deferral came from, in words, with the hooks that made it."""
    source = _ORIGINS.get(origin or "", origin or "unknown")
    return f"{source}: {hooks}" if hooks else source


def _request(
    record: SessionRecord,
    session: dict[str, object],
    turn: Turn,
    call: ToolCall,
    hooks: str | None,
) -> ApprovalRequest:
    deferred = next((r for r in turn.calls if r.call.id == call.id), None)
    final = dict(deferred.input) if deferred is not None else dict(call.input)
    origin = deferred.origin if deferred is not None else None
    source = asked_by(origin, hooks)
    if deferred is not None and deferred.approver:
        source += f" ({deferred.approver})"
    return ApprovalRequest(
        session_id=record.id,
        tool_use_id=call.id,
        tool_name=call.name,
        tool_input=final,
        original_input=dict(call.input) if final != call.input else None,
        reason=(deferred.reason if deferred is not None else None) or turn.detail,
        source=source,
        user=record.user,
        tenant=record.tenant,
        cwd=str(session.get("cwd") or "") or None,
    )


def _step(message: Message) -> str:
    """One message on one line: who, then each part (text, a call, a result), shown."""
    parts = []
    for part in message.content:
        if isinstance(part, TextBlock):
            parts.append(abridged(part.text, 200))
        elif isinstance(part, ToolCall):
            parts.append(call_words(part.name, part.input))
        elif isinstance(part, ToolResultBlock):
            parts.append(f"result: {abridged(part.content, 200)}")
        else:
            parts.append(abridged(str(part), 200))
    return f"{shown(message.role)}: {' | '.join(parts)}"
