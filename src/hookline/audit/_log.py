"""The audit log: every hook run, tool call, approval and resume, redacted, chained, kept twice.

    Agent(model, audit=True)                      # plugged in first, on the agent's store
    audit = attach_audit(agent)                   # or AuditLog(store, jsonl_path=...).attach(agent)
    ...
    audit.close()

``AuditLog`` is an observer (``hookline._agent.observers``): each method turns one kind of thing
the agent did into records, and ``AuditWriter`` (``hookline.audit._writer``) queues and writes
them. It fails closed: a record that cannot be written stops the run where it was to be written.

A tool call is two records: ``tool_started`` and ``tool`` (its result), or one ``tool`` when it
never ran. The call's hook runs ride in them, in ``data["hooks"]`` (``hookline.audit.unfolded``
gives them back as rows of their own): the PreToolUse and PermissionRequest runs in
``tool_started``, the later ones in ``tool``. Hook runs of other events are ``hook`` records, as
are those of a call cut off before either record (written when the run ends or the agent
closes). Two records per call instead of one per hook run: a call with more hooks makes no more
records.

Written ahead: just before a tool body runs, everything queued is written to the file (an
approval, and the ``tool_started`` record saying what let it run, with the input it runs with
and the hook runs that decided it), and the body starts only once that write has returned; the
store gets its copy in groups (``hookline.audit._writer``). A failed write raises ``AuditError``
into the run, which stops before the body: nothing runs unrecorded. The result follows: written
when the call ends, or with group commit (``max_delay``) at the next tool start or when the
delay is up, whichever comes first. A process killed in between leaves the call on record as
started and not finished. With ``sync`` (``audit_sync``), the write ahead is fsync'd too: on
disk, not only in the page cache, before the body starts. Records are also written after each
hook run of an event outside a tool call (SessionStart, UserPromptSubmit, Stop, ...), on an
approval, before the session is saved (a pause, a checkpoint), at the end of each run, and when
the agent closes.

A tool call's record keeps its outcome (``status``: executed, failed, blocked, deferred; the
``decision`` column, as before) apart from its permission (the ``permission`` column: allow,
deny, defer; ``origin`` in its data: a hook, a rule, the mode, a tier, an approver, ...), so a
refusal by a permission rule is found as a ``deny`` as a hook's is; a deferred call's names
its ``deadline`` when one is set. Hook and approval records carry the permission they answered
too. A model call that reports its usage is a ``model`` record with the model's name and the
tokens (``hookline._agent.messages.Usage``).

Every record passes the redactor before it is hashed or written. Who: the user and tenant of
the session (its scope, which hooks see too), else those given to ``AuditLog``; inside a
subagent, its ``agent_id`` too (hook runs, tool calls and model calls).
"""

from __future__ import annotations

from collections.abc import Callable
from time import time
from typing import TYPE_CHECKING, Any, cast

from hookline._agent.observers import Observer
from hookline._decisions import UNCHANGED
from hookline._errors import ConfigError
from hookline.audit._chain import digest
from hookline.audit._records import (
    PREVIEW,
    Call,
    answer_data,
    expired_data,
    input_diff,
    output_diff,
    resumed_by,
    run_columns,
    shown_input,
)
from hookline.audit._redact import Redactor, clip
from hookline.audit._writer import JSONL_NAME, AuditWriter, Flushed
from hookline.storage._base import AuditEntry, Store

if TYPE_CHECKING:
    from hookline._agent.loop import Agent
    from hookline._agent.messages import Message
    from hookline._agent.result import RunResult
    from hookline._agent.saved.pause import Claimed, Resumer
    from hookline._agent.saved.state import Turn
    from hookline._agent.session import Session
    from hookline._events import HookEvent
    from hookline._hooks.engine import HookRun
    from hookline._tools.approvals import Approval, ApprovalRequest
    from hookline._tools.base import ToolCall, ToolResult
    from hookline._tools.pipeline import ToolStarted

__all__ = ["JSONL_NAME", "PREVIEW", "AuditLog", "Flushed", "attach_audit", "input_diff"]

_BASE = ("user", "tenant")
_HOOK = ("hook", "source", "handler", "hook_kind")
_CLIPPED = frozenset({"input_diff", "output_diff"})


class AuditLog(AuditWriter, Observer):
    """Records what the agents it observes do, in a store and a JSONL file."""

    #: What cannot be recorded does not run: a failed write stops the run.
    fail_closed = True
    #: An event only when its hooks run: a call's event tells the runs riding in its records
    #: what the call was as they saw it; one no hook listens to records nothing.
    events = frozenset()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: Calls in flight, by session and tool_use_id: as the next hook sees them.
        self._calls: dict[tuple[str, str], Call] = {}
        self._bases: dict[tuple[str | None, ...], dict[str, Any]] = {}
        self._hook_bases: dict[tuple[str, ...], dict[str, Any]] = {}

    def attach(self, agent: Agent) -> Callable[[], None]:
        """Record what ``agent`` does from now on; the returned function stops it (and flushes)."""
        handle = agent.observe(self)

        def detach() -> None:
            handle.remove()
            self.flush(copy=True)

        return detach

    # -- what an agent does -------------------------------------------------------------------

    def event(self, session: Session, event: HookEvent) -> None:
        tool_use_id = getattr(event, "tool_use_id", None)
        if tool_use_id is not None:  # the call as this event's hooks will see it
            self.redactor.learn(getattr(event, "tool_input", None))
            key = (session.id, tool_use_id)
            known = self._calls.get(key)
            if known is None:
                self._calls[key] = Call(event)
            else:
                known.seen(event)

    def hook_run(self, session: Session, run: HookRun) -> None:
        """A hook run inside a tool call rides in the call's next record (its ``hooks``);
        any other is a ``hook`` record of its own."""
        call = self._calls.get((session.id, run.tool_use_id)) if run.tool_use_id else None
        answer = run.answer
        data = self._hook_base(run)
        data["duration_ms"] = round(run.duration_ms, 3)
        if run.shadow:  # what it would have decided: on record, and nothing more
            data["shadow"] = True
        context, messages = answer.additional_context, answer.system_message
        if run.reason or run.failure or context or messages:
            self._put(data, reason=run.reason, failure=run.failure, error=run.error)
            self._put(data, context=context, system_message=messages)
        self._put(data, agent_id=run.agent_id)  # a subagent's hook
        if answer.updated_input is not None:
            diff = input_diff(call.input if call else {}, answer.updated_input)
            self._put(data, input_diff=diff)
        if answer.updated_output is not UNCHANGED:
            before = call.output if call else UNCHANGED
            self._put(data, output_diff=output_diff(before, answer.updated_output))
        if call is None:  # not inside a tool call: its event's hooks are done, or it is late
            self.add(self._hook_entry(session, time(), run.tool_use_id, None, data))
            self.settle()
            return
        if run.kind == "transformer":
            call.rewritten(answer)
        call.hooks.append((time(), data))

    def tool_started(self, session: Session, started: ToolStarted) -> None:
        """Write ahead: what lets the call run is in the file before its body (the store copies
        it later)."""
        key = (session.id, started.call.id)
        call = self._calls.get(key)
        if call is None:  # no hook heard of it yet: kept for its result, which reuses ``shown``
            call = self._calls[key] = Call(None)
            call.tool = started.call.name
        shown = shown_input(self.redactor, started.input)
        data = self._base(session)
        call.started = (started.input, shown)
        _ride(data, call)
        data.update(shown)
        self._put(data, approver=started.approver, allowed=started.allowed, origin=started.origin)
        self._put(data, reason=started.gate.reason, agent_id=session.scope.agent_id)
        self.add(_on_call("tool_started", session.id, _named(started.call), "allow", "allow", data))
        self.write_ahead()  # the store's copy waits: a call on file as started starts

    def tool_finished(self, session: Session, result: ToolResult) -> None:
        call = self._calls.pop((session.id, result.call.id), None)
        data = self._base(session)
        if call is not None:
            _ride(data, call)
        data["status"] = result.status
        data["duration_ms"] = round(result.duration_ms, 3)
        known = call.started if call is not None else None
        shown = known[1] if known is not None and known[0] is result.input else None
        data.update(shown or shown_input(self.redactor, result.input))
        if result.output is not None:
            data["output_digest"] = digest(self.redactor.redact(result.output))
        self._put(data, reason=result.reason, context=result.context)
        self._put(data, stop_reason=result.stop_reason, approver=result.approver)
        self._put(data, permission=result.permission, origin=result.origin)
        self._put(data, agent_id=session.scope.agent_id, deadline=result.deadline)
        verdict = (result.status, result.permission)
        self.add(_on_call("tool", session.id, _named(result.call), *verdict, data))
        self.settle()

    def approval_answered(
        self, session: Session, request: ApprovalRequest, answer: Approval
    ) -> None:
        self.record_approval(request, answer)

    def record_approval(self, request: ApprovalRequest, approval: Approval) -> None:
        """Record a person's (or an approver's) answer to an approval request, and flush."""
        self.redactor.learn(request.tool_input)  # the reason may quote its line
        data = self.redactor.redact(
            {
                "user": request.user or self.user,
                "tenant": request.tenant or self.tenant,
                "answered_by": approval.approver,
                "behavior": approval.permission,
                "message": approval.message,
                "asked_by": request.source,
                "reason": request.reason,
            }
        )
        data.update(shown_input(self.redactor, request.tool_input))
        data["scope"] = approval.scope
        if approval.scope == "session" and request.session_grant is not None:
            data["session_grant"] = self.redactor.redact(request.session_grant.to_dict())
        if approval.updated_input is not None:
            diff = input_diff(request.tool_input, approval.updated_input)
            data["input_diff"] = clip(self.redactor.redact(diff), PREVIEW)
        named, said = (request.tool_use_id, request.tool_name), approval.permission
        self.add(_on_call("approval", request.session_id, named, said, said, data))
        self.flush()

    def model_called(self, session: Session, reply: Message, model: str) -> None:
        """A model call that reported its usage: which model, and the tokens it used."""
        if reply.usage is None:
            return
        data = self._base(session)
        data["model"] = self.redactor.redact(model)
        data["usage"] = reply.usage.to_dict()
        self._put(data, agent_id=session.scope.agent_id)
        self.add(AuditEntry(kind="model", time=time(), session_id=session.id, data=data))
        self.settle()

    def message(self, session: Session, message: Message) -> None:
        if self._pending:  # whatever is queued is complete
            self.settle()

    def checkpoint(self, session: Session, turn: Turn) -> None:
        self.flush(copy=True)  # what led here is on record before the state is saved

    def paused(self, session: Session, turn: Turn) -> None:
        self._strays(session)
        self.flush(copy=True)

    def resumed(self, session: Session, claimed: Claimed, by: Resumer) -> None:
        """One record per waiting call (and per call a crash cut, which has no answer): who
        resumed, the answer, the edit as a diff; past the pause's deadline, the expiry answer
        (answered by ``deadline``) and ``expired``."""
        cut = claimed.turn.interrupted
        for call in [*claimed.turn.waiting, *cut]:
            answer = claimed.answers.get(call.id)
            said = resumed_by(by, claimed) | answer_data(answer) | expired_data(claimed, call.id)
            data = self.redactor.redact(said)
            if call in cut:
                data["interrupted"] = True
            if answer is not None and answer.updated_input is not None:
                diff = input_diff(call.input, answer.updated_input)
                data["input_diff"] = clip(self.redactor.redact(diff), PREVIEW)
            self.add(_on_call("resume", session.id, _named(call), data["answer"], None, data))
        self.flush()

    def run_ended(self, session: Session, turn: Turn, result: RunResult) -> None:
        self._strays(session)
        self.flush(copy=True)

    def closed(self, session: Session) -> None:
        self._strays(session)
        self.release()  # the last records; the file reopens if the agent runs again

    # -- helpers ------------------------------------------------------------------------------

    def _base(self, session: Session) -> dict[str, Any]:
        """Who: the fields that repeat, redacted once and remembered."""
        scope = session.scope
        key = (scope.user or self.user, scope.tenant or self.tenant)
        known = self._bases.get(key)
        if known is None:
            known = self._bases[key] = self.redactor.redact(dict(zip(_BASE, key, strict=True)))
        return dict(known)

    def _hook_base(self, run: HookRun) -> dict[str, Any]:
        """Which hook answered what, for which event: a hook run's fields that repeat."""
        key = (run.hook, run.source, run.handler, run.kind)
        known = self._hook_bases.get(key)
        if known is None:
            known = self._hook_bases[key] = self.redactor.redact(dict(zip(_HOOK, key, strict=True)))
        data = {"event": run.event, **known, "decision": run.decision}
        if run.answer.permission is not None:
            data["permission"] = run.answer.permission
        return data

    def _hook_entry(
        self,
        session: Session,
        when: float,
        tool_use_id: str | None,
        tool: str | None,
        run: dict[str, Any],
    ) -> AuditEntry:
        """A hook run's record of its own: its event, decision and permission as columns."""
        columns, data = run_columns(run)
        return AuditEntry(
            kind="hook",
            time=when,
            session_id=session.id,
            tool_use_id=tool_use_id,
            tool=tool,
            data=self._base(session) | data,
            **columns,
        )

    def _strays(self, session: Session) -> None:
        """Hook runs of calls that will have no further record (a run cut off, a call that
        never started): each written as a record of its own, so none is lost."""
        for (session_id, tool_use_id), call in list(self._calls.items()):
            if session_id != session.id:
                continue
            del self._calls[session_id, tool_use_id]
            for when, run in call.hooks:
                self.add(self._hook_entry(session, when, tool_use_id, call.tool, run))

    def _put(self, data: dict[str, Any], **fields: Any) -> None:
        """Add the fields that say something, redacted (and diffs clipped)."""
        for key, value in fields.items():
            if value:
                shown = self.redactor.redact(value)
                data[key] = clip(shown, PREVIEW) if key in _CLIPPED else shown


def _ride(data: dict[str, Any], call: Call) -> None:
    """The call's hook runs since its last record, in this one (already redacted)."""
    runs = call.taken()
    if runs:
        data["hooks"] = runs


def attach_audit(
    agent: Agent, *, redactor: Redactor | None = None, max_delay: float = 0.0
) -> AuditLog:
    """An audit log on the agent's store and ``<state dir>/audit.jsonl``, recording it now; the
    agent's ``close`` writes what waits and lets the file go (the log stays usable: the file
    reopens, the store is the agent's at each flush)."""
    log = agent_audit(agent, redactor=redactor, max_delay=max_delay)
    log.attach(agent)
    return log


def agent_audit(
    agent: Agent, *, redactor: Redactor | None = None, max_delay: float | None = None
) -> AuditLog:
    """The audit log ``audit=True`` plugs into ``agent``: its store (as it is at each flush),
    ``<state dir>/audit.jsonl``, its ``redact`` patterns, its ``audit_delay`` and
    ``audit_sync``."""
    options = agent.options
    if options.store is not None and not isinstance(options.store, str | Store):
        raise ConfigError(
            f"the store {options.store!r} keeps sessions but not the audit log",
            key="store",
            fix="give a store from hookline.storage (SqliteStore, PostgresStore), or audit=False",
        )
    return AuditLog(
        lambda: cast(Store, agent.store),  # checked above: a store of hookline.storage
        jsonl_path=agent.session.state_dir / JSONL_NAME,
        redactor=redactor if redactor is not None else Redactor(options.redact),
        max_delay=options.audit_delay if max_delay is None else max_delay,
        sync=options.audit_sync,
    )


def _on_call(
    kind: str,
    session_id: str | None,
    named: tuple[str, str],
    decision: str | None,
    permission: str | None,
    data: dict[str, Any],
) -> AuditEntry:
    """A record about one tool call (``named``: its id and tool), stamped now."""
    tool_use_id, tool = named
    columns = {"tool_use_id": tool_use_id, "tool": tool, "decision": decision}
    columns["permission"] = permission
    return AuditEntry(kind=kind, time=time(), session_id=session_id, data=data, **columns)


def _named(call: ToolCall) -> tuple[str, str]:
    return call.id, call.name
