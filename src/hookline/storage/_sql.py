"""The SQL both backends share: a ``Store`` over one DB-API connection.

The statements use ``?`` placeholders; the PostgreSQL store turns them into ``%s``. A backend
opens the connection, lists the statements that create its tables (per schema version) and
says how a transaction takes each kind of lock.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from time import time as _now
from typing import Any, Literal, Protocol

from hookline._agent.saved.store import SessionRecord
from hookline._errors import ConfigError
from hookline.storage._asks import AskTable, asks_table, grants_table
from hookline.storage._base import (
    SCHEMA_VERSION,
    AuditEntry,
    AuditRow,
    Chain,
    audit_from_row,
    audit_params,
    chained,
    dump_json,
    place,
    session_from_row,
    sessions_from_rows,
)

SESSION_COLUMNS = "id, status, version, state, user_name, tenant, created_at, updated_at"
AUDIT_COLUMNS = (
    "seq, hash, prev_hash, time, session_id, tool_use_id, event, kind, tool, decision, data, "
    "permission"
)
META_TABLE = "CREATE TABLE IF NOT EXISTS hookline_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)"
INDEXES = (
    "CREATE INDEX hookline_sessions_status ON hookline_sessions (status, created_at)",
    "CREATE INDEX hookline_audit_session ON hookline_audit (session_id, seq)",
    "CREATE INDEX hookline_audit_tool ON hookline_audit (tool, seq)",
    "CREATE INDEX hookline_audit_decision ON hookline_audit (decision, seq)",
    "CREATE INDEX hookline_audit_time ON hookline_audit (time)",
)
_SESSIONS_TABLE = """CREATE TABLE hookline_sessions (
        id TEXT PRIMARY KEY,
        status TEXT NOT NULL,
        version INTEGER NOT NULL,
        state {state} NOT NULL,
        user_name TEXT,
        tenant TEXT,
        created_at {real} NOT NULL,
        updated_at {real} NOT NULL
    )"""
_AUDIT_TABLE = """CREATE TABLE hookline_audit (
        seq {seq} PRIMARY KEY,
        hash TEXT NOT NULL,
        prev_hash TEXT,
        time {real} NOT NULL,
        session_id TEXT,
        tool_use_id TEXT,
        event TEXT,
        kind TEXT NOT NULL,
        tool TEXT,
        decision TEXT,
        data {data} NOT NULL
    )"""
_UPSERT_SESSION = (
    f"INSERT INTO hookline_sessions ({SESSION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (id) DO UPDATE SET status = excluded.status, version = excluded.version, "
    "state = excluded.state, user_name = excluded.user_name, tenant = excluded.tenant, "
    "updated_at = excluded.updated_at"  # created_at stays: when the session was first saved
)
_INSERT_AUDIT = f"INSERT INTO hookline_audit ({AUDIT_COLUMNS}) VALUES ({', '.join('?' * 12)})"
_SET_META = (
    "INSERT INTO hookline_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value "
    "= excluded.value"
)
#: ``audit_rows``'s filters, in the order of its parameters (the tenant's is the backend's).
_AUDIT_FILTERS = ("session_id = ?", "tool = ?", "decision = ?", "time >= ?", "time < ?", "seq > ?")
_LATER_FILTERS = ("permission = ?", "kind = ?")
#: Schema 2: a tool call's permission apart from its outcome (``decision``); NULL in older rows.
_PERMISSION_COLUMN = (
    "ALTER TABLE hookline_audit ADD COLUMN permission TEXT",
    "CREATE INDEX hookline_audit_permission ON hookline_audit (permission, seq)",
)

#: What a transaction locks: nothing more than it touches, the writer's lock, the audit chain,
#: or the schema (so two processes opening a new database do not both create it).
LockKind = Literal["read", "write", "audit", "schema"]


def migrations(*, real: str, seq: str, state: str, data: str) -> dict[int, tuple[str, ...]]:
    """The statements that bring the tables from one schema version to the next, written with
    the backend's column types: a float, the audit ``seq``, the session state, the audit data."""
    types = {"real": real, "seq": seq, "state": state, "data": data}
    tables = (_SESSIONS_TABLE.format(**types), _AUDIT_TABLE.format(**types))
    return {
        1: (*tables, *INDEXES),
        2: _PERMISSION_COLUMN,
        3: asks_table(real=real, data=data),
        4: grants_table(real=real, data=data),
    }


class Cursor(Protocol):
    """The part of a DB-API cursor the shared SQL uses."""

    @property
    def rowcount(self) -> int: ...
    def execute(self, sql: str, params: Sequence[Any] = ..., /) -> object: ...
    def executemany(self, sql: str, params: Iterable[Sequence[Any]], /) -> object: ...
    def fetchone(self) -> Any: ...
    def fetchall(self) -> list[Any]: ...
    def close(self) -> None: ...


class Connection(Protocol):
    """The part of a DB-API connection the shared SQL uses."""

    def cursor(self) -> Any: ...
    def commit(self) -> None: ...
    def rollback(self) -> None: ...
    def close(self) -> None: ...


class SqlStore(AskTable):
    """A ``Store`` (and an ``AskStore``) over one DB-API connection, guarded by a lock so
    threads can share it."""

    #: The audit filter on the tenant an audit record's data names, in the backend's SQL.
    tenant_filter = "json_extract(data, '$.tenant') = ?"

    def __init__(self, conn: Connection, *, where: str, tables: Mapping[int, Sequence[str]]):
        self._conn = conn
        self._mutex = threading.Lock()
        self.where = where
        self._migrate(tables)

    def _begin(self, cur: Cursor, lock: LockKind) -> None:
        """Start the transaction and take ``lock``; each backend knows how."""
        raise NotImplementedError

    def _sql(self, text: str) -> str:
        """The statement in the driver's placeholder style (``?`` here)."""
        return text

    @contextmanager
    def _transaction(self, lock: LockKind = "read") -> Iterator[Cursor]:
        with self._mutex:
            cur: Cursor = self._conn.cursor()
            try:
                self._begin(cur, lock)
                yield cur
            except BaseException:
                self._conn.rollback()
                raise
            else:
                self._conn.commit()
            finally:
                cur.close()

    def _migrate(self, tables: Mapping[int, Sequence[str]]) -> None:
        with self._transaction("schema") as cur:
            cur.execute(META_TABLE)
            cur.execute(self._sql("SELECT value FROM hookline_meta WHERE key = ?"), ("schema",))
            row = cur.fetchone()
            found = int(row[0]) if row else 0
            if found > SCHEMA_VERSION:
                raise ConfigError(
                    f"the store's schema version is {found}; this hookline knows up to "
                    f"{SCHEMA_VERSION}",
                    file=self.where,
                    fix="upgrade hookline to the release that wrote it, or use another store",
                )
            for version in range(found + 1, SCHEMA_VERSION + 1):
                for statement in tables[version]:
                    cur.execute(statement)
            if found < SCHEMA_VERSION:
                cur.execute(self._sql(_SET_META), ("schema", str(SCHEMA_VERSION)))

    def put_session(self, record: SessionRecord) -> None:
        r = record
        params = (
            r.id,
            r.status,
            r.version,
            dump_json(r.state),
            r.user,
            r.tenant,
            r.created_at,
            r.updated_at,
        )
        with self._transaction("write") as cur:
            cur.execute(self._sql(_UPSERT_SESSION), params)

    def get_session(self, id: str) -> SessionRecord | None:
        sql = f"SELECT {SESSION_COLUMNS} FROM hookline_sessions WHERE id = ?"
        with self._transaction() as cur:
            cur.execute(self._sql(sql), (id,))
            row = cur.fetchone()
        return None if row is None else session_from_row(row)

    def list_sessions(
        self, *, status: str | None = None, tenant: str | None = None, limit: int = 100
    ) -> list[SessionRecord]:
        given = (("status = ?", status), ("tenant = ?", tenant))
        chosen = [(test, value) for test, value in given if value is not None]
        where = "WHERE " + " AND ".join(test for test, _ in chosen) + " " if chosen else ""
        params = [value for _, value in chosen]
        sql = f"SELECT {SESSION_COLUMNS} FROM hookline_sessions {where}"
        with self._transaction() as cur:
            cur.execute(self._sql(sql + "ORDER BY created_at DESC, id LIMIT ?"), [*params, limit])
            rows = cur.fetchall()
        return sessions_from_rows(rows)

    def claim_session(self, id: str, *, expected: str, new: str) -> bool:
        sql = "UPDATE hookline_sessions SET status = ?, updated_at = ? WHERE id = ? AND status = ?"
        with self._transaction("write") as cur:
            cur.execute(self._sql(sql), (new, _now(), id, expected))
            return cur.rowcount == 1

    def delete_session(self, id: str) -> None:
        with self._transaction("write") as cur:
            cur.execute(self._sql("DELETE FROM hookline_sessions WHERE id = ?"), (id,))

    def append_audit(
        self, entries: Sequence[AuditEntry], chain: Chain, texts: Sequence[str] | None = None
    ) -> list[AuditRow]:
        if not entries:
            return []
        # raises before the transaction
        data = texts if texts is not None else [dump_json(entry.data) for entry in entries]
        with self._transaction("audit") as cur:
            cur.execute("SELECT seq, hash FROM hookline_audit ORDER BY seq DESC LIMIT 1")
            rows = place(entries, chain, cur.fetchone())
            params = [audit_params(row, text) for row, text in zip(rows, data, strict=True)]
            cur.executemany(self._sql(_INSERT_AUDIT), params)
        return rows

    def copy_audit(self, rows: Sequence[AuditRow], texts: Sequence[str] | None = None) -> bool:
        if not rows:
            return True
        data = texts if texts is not None else [dump_json(row.data) for row in rows]
        with self._transaction("audit") as cur:
            cur.execute("SELECT seq, hash FROM hookline_audit ORDER BY seq DESC LIMIT 1")
            if not chained(cur.fetchone(), rows):
                return False
            params = [audit_params(row, text) for row, text in zip(rows, data, strict=True)]
            cur.executemany(self._sql(_INSERT_AUDIT), params)
        return True

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
        given = (session_id, tool, decision, since, until, after_seq, tenant, permission, kind)
        tests = (*_AUDIT_FILTERS, self.tenant_filter, *_LATER_FILTERS)
        chosen = [(t, v) for t, v in zip(tests, given, strict=True) if v is not None]
        where = " WHERE " + " AND ".join(test for test, _ in chosen) if chosen else ""
        order = "seq DESC" if newest else "seq"  # newest: the index read from its end, back
        sql = f"SELECT {AUDIT_COLUMNS} FROM hookline_audit{where} ORDER BY {order}"
        params = [value for _, value in chosen]
        if limit is not None:
            sql, params = sql + " LIMIT ?", [*params, limit]
        with self._transaction() as cur:
            cur.execute(self._sql(sql), params)
            rows = [audit_from_row(row) for row in cur.fetchall()]
        return rows[::-1] if newest else rows

    def last_audit(self) -> AuditRow | None:
        with self._transaction() as cur:
            cur.execute(f"SELECT {AUDIT_COLUMNS} FROM hookline_audit ORDER BY seq DESC LIMIT 1")
            row = cur.fetchone()
        return None if row is None else audit_from_row(row)

    def audit_session_ids(self, prefix: str, *, limit: int = 20) -> list[str]:
        """The session ids in the audit log that start with ``prefix`` (at most ``limit``)."""
        return self._ids_starting("session_id", "hookline_audit", prefix, limit)

    def session_ids(self, prefix: str, *, limit: int = 20) -> list[str]:
        """The ids of the stored sessions that start with ``prefix`` (at most ``limit``)."""
        return self._ids_starting("id", "hookline_sessions", prefix, limit)

    def _ids_starting(self, column: str, table: str, prefix: str, limit: int) -> list[str]:
        pattern = "".join("!" + c if c in "!%_" else c for c in prefix) + "%"
        sql = (
            f"SELECT DISTINCT {column} FROM {table} WHERE {column} LIKE ? ESCAPE '!' ORDER BY "
            f"{column} LIMIT ?"
        )
        with self._transaction() as cur:
            cur.execute(self._sql(sql), (pattern, limit))
            found = [str(row[0]) for row in cur.fetchall()]
        return [id for id in found if id.startswith(prefix)]  # LIKE ignores case in SQLite

    def close(self) -> None:
        with self._mutex:
            self._conn.close()

    def __enter__(self) -> SqlStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
