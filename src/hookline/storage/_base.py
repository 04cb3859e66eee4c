"""What a store keeps, and the small protocol every backend speaks.

A store holds two things: session records (a paused session's whole state, resumed exactly
once through ``claim_session``) and the audit log (append-only rows, each hash-chained to the
one before it). Besides the protocol: the chain walk and the row mapping every backend shares.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from time import time as _now
from typing import Any, Protocol, runtime_checkable

from hookline._agent.saved.store import SessionRecord, SessionStore
from hookline._errors import ConfigError
from hookline._support.jsontext import strict

#: The layout of the tables. A store refuses a database whose recorded version is newer.
#: 2 adds the audit's ``permission`` column; 3 the live asks' table (``_asks``); 4 the
#: session grants of live asks (``_asks``).
SCHEMA_VERSION = 4


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditEntry:
    """One record for the audit log, before the store gives it a place in the chain."""

    kind: str
    time: float = field(default_factory=_now)
    session_id: str | None = None
    tool_use_id: str | None = None
    event: str | None = None
    tool: str | None = None
    decision: str | None = None
    data: dict[str, Any] = field(default_factory=dict)
    #: allow, deny, ask or defer: what the record's hook, approval or permission step said.
    permission: str | None = None


@dataclass(frozen=True, slots=True)
class AuditRow:
    """One row of the audit log: an entry with its place (``seq``) and its link (``hash``)."""

    seq: int
    hash: str
    prev_hash: str | None
    time: float
    session_id: str | None
    tool_use_id: str | None
    event: str | None
    kind: str
    tool: str | None
    decision: str | None
    data: dict[str, Any]
    permission: str | None = None

    @property
    def entry(self) -> AuditEntry:
        """The entry this row was made from (what the chain function hashed)."""
        return AuditEntry(**{name: getattr(self, name) for name in (*ENTRY_FIELDS, *LATER_FIELDS)})


#: ``chain(prev_hash, entry)`` -> the entry's hash. Called inside the append's transaction.
Chain = Callable[[str | None, AuditEntry], str]
ENTRY_FIELDS = ("time", "session_id", "tool_use_id", "event", "kind", "tool", "decision", "data")
#: Fields added since the first layout: hashed only when set, so a record written before them
#: (which has none) hashes as it did, and the chains it is in still verify.
LATER_FIELDS = ("permission",)


@runtime_checkable
class Store(SessionStore, Protocol):
    """Sessions and the audit log. Each call is one short transaction; all are thread-safe.
    The session half the agent needs is ``hookline._agent.saved.store.SessionStore``."""

    def list_sessions(
        self, *, status: str | None = None, tenant: str | None = None, limit: int = 100
    ) -> list[SessionRecord]:
        """Records (with this status, of this tenant, if given), most recently created first."""

    def delete_session(self, id: str) -> None:
        """Forget the record with this id (nothing happens if there is none)."""

    def append_audit(
        self, entries: Sequence[AuditEntry], chain: Chain, texts: Sequence[str] | None = None
    ) -> list[AuditRow]:
        """Append the entries after the last row, as one transaction; return their rows.
        ``texts``: each entry's data as its writer encoded it, if known (else ``dump_json``)."""

    def copy_audit(self, rows: Sequence[AuditRow], texts: Sequence[str] | None = None) -> bool:
        """Insert rows chained elsewhere (the audit file's) as they are, in one transaction, if
        the first follows the newest row (or starts a chain in an empty log); else write nothing
        and return False. ``texts``: each row's data as ``dump_json`` wrote it, if known."""

    def audit_rows(
        self,
        *,
        session_id: str | None = None,
        tool: str | None = None,
        decision: str | None = None,
        since: float | None = None,
        until: float | None = None,
        after_seq: int | None = None,
        limit: int | None = None,
        tenant: str | None = None,
        permission: str | None = None,
        kind: str | None = None,
        newest: bool = False,
    ) -> list[AuditRow]:
        """Rows matching every filter given, in ``seq`` order (``since <= time < until``;
        ``tenant``: the records whose data names that tenant). ``newest``: the last ``limit``
        of them (still in ``seq`` order), read from the newest back, not the first ``limit``."""

    def last_audit(self) -> AuditRow | None:
        """The newest row, or None while the log is empty."""


def verify_chain(rows: Iterable[AuditRow], chain: Chain) -> int | None:
    """The ``seq`` of the first row that does not follow from the one before, or None.

    ``rows`` is the whole log or a contiguous slice of it, in ``seq`` order.
    """
    before: AuditRow | None = None
    for row in rows:
        if before is None:
            linked = row.seq > 1 or row.prev_hash is None
        else:
            linked = row.seq == before.seq + 1 and row.prev_hash == before.hash
        if not linked or row.hash != chain(row.prev_hash, row.entry):
            return row.seq
        before = row
    return None


def place(
    entries: Sequence[AuditEntry], chain: Chain, last: Sequence[Any] | None
) -> list[AuditRow]:
    """Rows for ``entries`` placed after ``last`` (its ``(seq, hash)``, None for an empty log)."""
    seq, prev = (int(last[0]), str(last[1])) if last else (0, None)
    rows = []
    for e in entries:
        seq += 1
        digest = chain(prev, e)
        rows.append(placed(e, seq, digest, prev))
        prev = digest
    return rows


def placed(e: AuditEntry, seq: int, hash: str, prev_hash: str | None) -> AuditRow:
    """The row ``e`` is at ``seq`` in a chain, after a record whose hash is ``prev_hash``."""
    return AuditRow(
        seq,
        hash,
        prev_hash,
        e.time,
        e.session_id,
        e.tool_use_id,
        e.event,
        e.kind,
        e.tool,
        e.decision,
        e.data,
        e.permission,
    )


def follows(last: Sequence[Any] | None, row: AuditRow) -> bool:
    """Whether ``row`` comes right after ``last`` (a row's ``(seq, hash)``; None: no row yet)."""
    if last is None:
        return row.seq == 1 and row.prev_hash is None
    return row.seq == int(last[0]) + 1 and row.prev_hash == last[1]


def chained(last: Sequence[Any] | None, rows: Sequence[AuditRow]) -> bool:
    """Whether ``rows`` come right after ``last``, each right after the one before."""
    for row in rows:
        if not follows(last, row):
            return False
        last = (row.seq, row.hash)
    return True


#: The JSON text a store keeps: NaN or a non-JSON value raises instead of being stored.
dump_json = strict


def load_json(value: str | dict[str, Any]) -> dict[str, Any]:
    """A JSON column's value: text from SQLite, already decoded from PostgreSQL."""
    return json.loads(value) if isinstance(value, str) else value


class CorruptRecordWarning(UserWarning):
    """A stored session whose state cannot be read was left out of a listing."""


class CorruptRecord(ConfigError):
    """A stored session's state is not a JSON object; ``id`` names the session."""

    def __init__(self, id: str, reason: str) -> None:
        super().__init__(
            f"session {id}: its stored state cannot be read ({reason})",
            key=id,
            fix=f"inspect or delete the row with id {id!r} in hookline_sessions",
        )
        self.id = id


def session_from_row(row: Sequence[Any]) -> SessionRecord:
    """The record of a session row; CorruptRecord when its state is not a JSON object."""
    id, status, version, state, user, tenant, created, updated = row
    try:
        data = load_json(state)
    except (ValueError, TypeError) as exc:  # JSONDecodeError, bytes that are not UTF-8
        raise CorruptRecord(str(id), f"not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise CorruptRecord(str(id), f"JSON {type(data).__name__}, not an object")
    return SessionRecord(id, status, version, data, user, tenant, created, updated)


def sessions_from_rows(rows: Iterable[Sequence[Any]]) -> list[SessionRecord]:
    """The records of session rows; a corrupt row is left out, with a CorruptRecordWarning
    naming its id, so one bad row does not hide every other session."""
    records = []
    for row in rows:
        try:
            records.append(session_from_row(row))
        except CorruptRecord as exc:
            warnings.warn(exc.message + "; left out", CorruptRecordWarning, stacklevel=3)
    return records


def audit_from_row(row: Sequence[Any]) -> AuditRow:
    seq, hash, prev, time, session_id, tool_use_id, event, kind, tool, decision, data, said = row
    return AuditRow(
        seq,
        hash,
        prev,
        time,
        session_id,
        tool_use_id,
        event,
        kind,
        tool,
        decision,
        load_json(data),
        said,
    )


def audit_params(r: AuditRow, data: str) -> tuple[Any, ...]:
    return (
        r.seq,
        r.hash,
        r.prev_hash,
        r.time,
        r.session_id,
        r.tool_use_id,
        r.event,
        r.kind,
        r.tool,
        r.decision,
        data,
        r.permission,
    )
