"""The audit log: every hook run, tool result and approval, redacted, chained and written twice.

    audit = attach_audit(agent)  # or AuditLog(store, jsonl_path=...).attach(agent) -> undo
    ...
    audit.close()

``attach`` only observes: hook runs and events come from the engine's monitors, tool starts
and results from the pipeline and the loop, all through ``agent.watch``. Records are buffered
and written in one go (one store transaction, one ``write(2)`` to the file, under the file's
lock).

Written ahead: just before a tool body runs, everything queued is written (its PreToolUse hook
runs, an approval, and a ``tool_started`` record saying what let it run, with the input it runs
with), and the body starts only once that write has returned. A failed write raises
``AuditError`` into the run, which stops before the body: nothing runs unrecorded. The result
follows: written when the call ends, or with group commit (``max_delay``) when the delay is up
or at the next tool start, whichever comes first. A process killed in between leaves the call
on record as started and not finished. Records are also written after each hook run of an
event outside a tool call (SessionStart, UserPromptSubmit, Stop, ...), on an approval, and on
``flush``/``close``. A record is acknowledged once the flush that wrote it has returned.

Every record passes the redactor before it is hashed or written. Who: the user and tenant of
the session (its scope, which hooks see too), else those given to ``AuditLog``.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path
from time import monotonic, time
from typing import TYPE_CHECKING, Any, NamedTuple

from hookline.audit.chain import AuditError, ChainedFile, canonical, digest, store_chain
from hookline.audit.redact import Redactor, clip
from hookline.decisions import UNCHANGED
from hookline.errors import ConfigError, HooklineError
from hookline.events import HookEvent
from hookline.hooks.engine import HookRun
from hookline.storage.base import AuditEntry, AuditRow
from hookline.tools.base import ToolResult
from hookline.tools.pipeline import ToolStarted

if TYPE_CHECKING:
    from hookline.agent.loop import Agent
    from hookline.storage.base import Store
    from hookline.tools.approvals import Approval, ApprovalRequest

JSONL_NAME = "audit.jsonl"
_BASE = ("user", "tenant", "hook", "source", "handler", "hook_kind")
_CLIPPED = frozenset({"input_diff", "output_diff"})
PREVIEW = 200  # characters of a string kept in an input preview or a diff


#: Group commit writes at the latest when this many records wait.
_GROUP_LIMIT = 256


class Flushed(NamedTuple):
    """What one flush wrote: how many records, and the last seq in the store and the file."""

    records: int
    store_seq: int | None
    file_seq: int | None


class AuditLog:
    """Writes audit records to a store and a JSONL file, each with its own hash chain."""

    def __init__(
        self,
        store: Store | Callable[[], Store] | None,
        *,
        jsonl_path: str | Path | None,
        redactor: Redactor | None = None,
        user: str | None = None,
        tenant: str | None = None,
        max_delay: float = 0.0,
    ) -> None:
        if store is None and jsonl_path is None:
            raise ConfigError(
                "an audit log needs somewhere to write", key="store", fix="give a store or a path"
            )
        #: The store, or a function giving the current one (an agent reopens its store).
        self.store_of: Callable[[], Store | None] = store if callable(store) else lambda: store
        self.file = ChainedFile(jsonl_path) if jsonl_path is not None else None
        self.redactor = redactor if redactor is not None else Redactor()
        self.user, self.tenant = user, tenant
        self._pending: list[AuditEntry] = []
        self._unfiled: list[bytes] = []  # in the store, not yet in the file (a write failed)
        self._lock = threading.RLock()
        self._owns_store = False
        #: Group commit: records may wait up to this many seconds (or 256 records) before they
        #: are written, so one transaction serves many calls. 0: written at the end of each call.
        #: A record is acknowledged once written: a crash loses at most this window.
        self.max_delay = max_delay
        self._oldest = 0.0

    @classmethod
    def open(cls, state_dir: str | Path, *, store: str | None = None, **options: Any) -> AuditLog:
        """The store at ``store`` (a URL or path; SQLite in ``state_dir`` by default) and
        ``<state_dir>/audit.jsonl``; ``close`` closes the store too. ``options``: redactor,
        user, tenant."""
        from hookline.storage import open_store

        folder = Path(state_dir)
        log = cls(open_store(store, state_dir=folder), jsonl_path=folder / JSONL_NAME, **options)
        log._owns_store = True
        return log

    def attach(self, agent: Agent) -> Callable[[], None]:
        """Record what ``agent`` does from now on; the returned function stops it (and flushes)."""
        stop = agent.watch(_Observer(self, agent))

        def detach() -> None:
            stop()
            self.flush()

        return detach

    def record_approval(self, request: ApprovalRequest, approval: Approval) -> None:
        """Record a person's (or an approver's) answer to an approval request, and flush."""
        data = self.redactor.redact({
            "user": request.user or self.user, "tenant": request.tenant or self.tenant,
            "answered_by": approval.approver, "behavior": approval.behavior,
            "message": approval.message, "asked_by": request.source, "reason": request.reason,
        })  # fmt: skip
        data.update(_input(self.redactor, request.tool_input))
        if approval.updated_input is not None:
            diff = input_diff(request.tool_input, approval.updated_input)
            data["input_diff"] = clip(self.redactor.redact(diff), PREVIEW)
        self.add(AuditEntry(kind="approval", time=time(), session_id=request.session_id,
                            tool_use_id=request.tool_use_id, tool=request.tool_name,
                            decision=approval.behavior, data=data))  # fmt: skip
        self.flush()

    def add(self, entry: AuditEntry) -> None:
        """Queue a record (already redacted) for the next flush."""
        entry = _valid_columns(entry)
        with self._lock:
            if not self._pending:
                self._oldest = monotonic()
            self._pending.append(entry)

    def settle(self) -> None:
        """Write now, unless group commit lets the queued records wait a little longer."""
        if not self._pending:
            return
        waited = monotonic() - self._oldest
        if waited >= self.max_delay or len(self._pending) >= _GROUP_LIMIT:
            self.flush()

    def flush(self) -> Flushed | None:
        """Write the queued records: one store transaction, one append to the file."""
        with self._lock:
            entries, self._pending = self._pending, []
            if not entries and not self._unfiled:
                return None
            bodies = [canonical(entry) for entry in entries]
            rows: list[AuditRow] = []
            stored, file_seq = False, None
            try:
                with self.file.locked() if self.file else nullcontext():
                    store = self.store_of() if entries else None
                    if store is not None:
                        rows = store.append_audit(entries, store_chain(entries, bodies))
                        stored = True
                    if self.file is not None:
                        known = rows if not self._unfiled else []
                        file_seq = self.file.append([*self._unfiled, *bodies], known)
                        self._unfiled = []
            except Exception as exc:
                if stored:
                    self._unfiled += bodies
                else:
                    self._pending[:0] = entries
                if isinstance(exc, HooklineError):
                    raise
                raise AuditError(f"the audit log could not be written: {exc}") from exc
            return Flushed(len(entries), rows[-1].seq if rows else None, file_seq)

    def close(self) -> None:
        """Flush, then release the file (and the store, if ``open`` opened it)."""
        with self._lock:
            try:
                self.flush()
            finally:
                if self.file is not None:
                    self.file.close()
                store = self.store_of() if self._owns_store else None
                if store is not None:
                    store.close()
                    self.store_of = lambda: None

    def __enter__(self) -> AuditLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Observer:
    """One attached agent: turns what it sees into records, tracking the calls in flight."""

    def __init__(self, log: AuditLog, agent: Agent) -> None:
        self.log, self.agent = log, agent
        self.calls: dict[str, _Call] = {}
        self.bases: dict[tuple[str | None, ...], dict[str, Any]] = {}

    def __call__(self, item: Any) -> None:
        kind = type(item)
        if kind is HookRun:
            self.hook_run(item)
        elif kind is ToolStarted:
            self.tool_started(item)
        elif kind is ToolResult:
            self.tool_result(item)
        elif isinstance(item, HookEvent):
            tool_use_id = getattr(item, "tool_use_id", None)
            if tool_use_id is not None:  # the call as this event's hooks will see it
                known = self.calls.get(tool_use_id)
                fresh = self.calls[tool_use_id] = _Call(item)
                fresh.started = known.started if known is not None else None
        elif self.log._pending:  # a message: whatever is queued is complete
            self.log.settle()

    def base(self, *hook: str) -> dict[str, Any]:
        """Who (and which hook): the fields that repeat, redacted once and remembered."""
        scope = self.agent.session.scope
        key = (scope.user or self.log.user, scope.tenant or self.log.tenant, *hook)
        known = self.bases.get(key)
        if known is None:
            known = self.bases[key] = self.log.redactor.redact(dict(zip(_BASE, key, strict=False)))
        return dict(known)

    def hook_run(self, run: HookRun) -> None:
        call = self.calls.get(run.tool_use_id) if run.tool_use_id else None
        answer = run.answer
        data = self.base(run.hook, run.source, run.handler, run.kind)
        data["duration_ms"] = round(run.duration_ms, 3)
        context, messages = answer.additional_context, answer.system_message
        if run.reason or run.failure or context or messages:
            self.put(data, reason=run.reason, failure=run.failure, error=run.error,
                     context=context, system_message=messages)  # fmt: skip
        if answer.updated_input is not None:
            diff = input_diff(call.input if call else {}, answer.updated_input)
            self.put(data, input_diff=diff)
        if answer.updated_output is not UNCHANGED:
            before = call.output if call else UNCHANGED
            self.put(data, output_diff=output_diff(before, answer.updated_output))
        if call is not None and run.kind == "transformer":
            call.rewritten(answer)
        self.log.add(AuditEntry(kind="hook", time=time(), session_id=self.agent.session.id,
                                tool_use_id=run.tool_use_id, event=run.event,
                                tool=call.tool if call else None, decision=run.decision,
                                data=data))  # fmt: skip
        if call is None:  # not inside a tool call: its event's hooks are done, or it is late
            self.log.settle()

    def tool_started(self, started: ToolStarted) -> None:
        """Write ahead: what lets the call run is on disk and in the store before its body."""
        call = self.calls.get(started.call.id)
        shown = _input(self.log.redactor, started.input)
        if call is not None:
            call.started = (started.input, shown)
        data = self.base()
        data.update(shown)
        self.put(data, approver=started.approver, allowed=started.allowed,
                 reason=started.gate.reason)  # fmt: skip
        self.log.add(AuditEntry(kind="tool_started", time=time(), session_id=self.agent.session.id,
                                tool_use_id=started.call.id, tool=started.call.name,
                                decision="allow", data=data))  # fmt: skip
        self.log.flush()

    def tool_result(self, result: ToolResult) -> None:
        call = self.calls.pop(result.call.id, None)
        redact = self.log.redactor.redact
        data = self.base()
        data["status"] = result.status
        data["duration_ms"] = round(result.duration_ms, 3)
        known = call.started if call is not None else None
        shown = known[1] if known is not None and known[0] is result.input else None
        data.update(shown or _input(self.log.redactor, result.input))
        if result.output is not None:
            data["output_digest"] = digest(redact(result.output))
        self.put(data, reason=result.reason, context=result.context,
                 stop_reason=result.stop_reason,
                 approver=getattr(result, "approver", None))  # fmt: skip
        self.log.add(AuditEntry(kind="tool", time=time(), session_id=self.agent.session.id,
                                tool_use_id=result.call.id, tool=result.call.name,
                                decision=result.status, data=data))  # fmt: skip
        self.log.settle()

    def put(self, data: dict[str, Any], **fields: Any) -> None:
        """Add the fields that say something, redacted (and diffs clipped)."""
        for key, value in fields.items():
            if value:
                shown = self.log.redactor.redact(value)
                data[key] = clip(shown, PREVIEW) if key in _CLIPPED else shown


class _Call:
    """A tool call in flight: its tool, and its input and output as the next hook sees them."""

    __slots__ = ("input", "output", "started", "tool")

    def __init__(self, event: HookEvent) -> None:
        self.tool: str | None = getattr(event, "tool_name", None)
        self.input: Any = getattr(event, "tool_input", {})
        self.output: Any = getattr(event, "tool_response", UNCHANGED)
        #: The input the body ran with, and its redacted fields (the result reuses them).
        self.started: tuple[Any, dict[str, Any]] | None = None

    def rewritten(self, answer: Any) -> None:
        if answer.updated_input is not None:
            self.input = answer.updated_input
        if answer.updated_output is not UNCHANGED:
            self.output = answer.updated_output


#: The text columns of a record, and the lone surrogates none of them can hold.
_COLUMNS = ("kind", "session_id", "tool_use_id", "event", "tool", "decision")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _valid_columns(entry: AuditEntry) -> AuditEntry:
    """``entry`` with each lone surrogate in a text column (a tool_use_id or tool name a model
    made up) replaced by U+FFFD: a database column holds UTF-8, which cannot hold it. ``data``
    keeps it exactly, as a ``\\u`` escape in its JSON."""
    bad: dict[str, Any] = {
        name: _SURROGATE.sub("\ufffd", value)
        for name in _COLUMNS
        if isinstance(value := getattr(entry, name), str)
        and not value.isascii()
        and _SURROGATE.search(value)
    }
    return replace(entry, **bad) if bad else entry


def _input(redactor: Redactor, value: Any) -> dict[str, Any]:
    """The digest of the redacted input, and the input itself, redacted and clipped."""
    shown = redactor.redact(value)
    return {"input_digest": digest(shown), "input": clip(shown, PREVIEW)}


def input_diff(before: Any, after: dict[str, Any]) -> dict[str, Any]:
    """The keys a rewrite changed, added and removed, with the values (redacted later)."""
    old = before if isinstance(before, dict) else {}
    diff: dict[str, Any] = {
        "changed": {k: [old[k], v] for k, v in after.items() if k in old and old[k] != v},
        "added": {k: v for k, v in after.items() if k not in old},
        "removed": [k for k in old if k not in after],
    }
    return {k: v for k, v in diff.items() if v}


def output_diff(before: Any, after: Any) -> dict[str, Any]:
    """A short summary of a replaced output: its shape before and after, and a preview."""
    return {"from": _shape(before), "to": _shape(after), "preview": after}


def _shape(value: Any) -> str:
    if value is UNCHANGED:
        return "unknown"
    size = f" of {len(value)}" if isinstance(value, str | list | dict) else ""
    return f"{type(value).__name__}{size}"


def attach_audit(
    agent: Agent, *, redactor: Redactor | None = None, max_delay: float = 0.0
) -> AuditLog:
    """An audit log on the agent's store and ``<state dir>/audit.jsonl``, recording it now.
    ``close()`` it in the agent's ``close``, after ``engine.drain()`` and before the store
    closes; it stays usable (the file reopens, the store is the agent's at each flush)."""
    path = agent.session.state_dir / JSONL_NAME
    log = AuditLog(lambda: agent.store, jsonl_path=path, redactor=redactor, max_delay=max_delay)
    log.attach(agent)
    return log
