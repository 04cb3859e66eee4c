"""Live asks: a host's call waiting on a person, kept in the store while the host waits.

A ``LiveAsk`` is made when ``hookline serve`` hands an ask to the inbox instead of the
host: what the approver must see (``ask``: the tool, its final input after
any rewrite, who asked and why, who the caller is), when it was made and its ``deadline``.
Its answer slot starts empty and is filled once: ``answer_ask`` is one conditional UPDATE
(``WHERE answer IS NULL``), so of every answer given at once, in any process or on any server
that shares the store, exactly one is the answer, and the others are told they came too late.
A person's answer is refused after the deadline (``before``); the expiry the waiting server
writes is not, so whichever of the two comes first wins.

A live ask approved "for the rest of the session" leaves a session grant
(``hookline.permissions._session.SessionGrant.to_dict``) kept under its host session: the
tenant and the agent (token) that asked, the host and the host's session id (``put_grant``,
``session_grants``), so every server on the store allows what it names in that session from
then on, for as long as the server's grant lifetime says (``since``).

Neither table grows for ever: ``forget_asks`` drops the asks whose deadline passed long ago
(each one's answer is on the audit record of the call that waited on it), and the grants given
before a time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from time import time as _now
from typing import TYPE_CHECKING, Any, Final, Protocol, runtime_checkable

from hookline.storage._base import dump_json, load_json

if TYPE_CHECKING:
    from collections.abc import Sequence

    from hookline.storage._sql import Cursor, LockKind

ASK_COLUMNS: Final = "id, created_at, deadline, ask, answer"
#: One host session's key: (tenant or "", agent or "", host, session id).
SessionKey = tuple[str, str, str, str]


def asks_table(*, real: str, data: str) -> tuple[str, ...]:
    """The statements of schema 3: the live asks' table, in the backend's column types."""
    return (
        f"""CREATE TABLE hookline_asks (
        id TEXT PRIMARY KEY,
        created_at {real} NOT NULL,
        deadline {real} NOT NULL,
        ask {data} NOT NULL,
        answer {data},
        answered_at {real}
    )""",
        "CREATE INDEX hookline_asks_deadline ON hookline_asks (deadline)",
    )


def grants_table(*, real: str, data: str) -> tuple[str, ...]:
    """The statements of schema 4: the session grants of live asks approved for the session,
    one per ask, found by host session."""
    return (
        f"""CREATE TABLE hookline_grants (
        ask TEXT PRIMARY KEY,
        tenant TEXT NOT NULL,
        agent TEXT NOT NULL,
        host TEXT NOT NULL,
        session_id TEXT NOT NULL,
        given_at {real} NOT NULL,
        allows {data} NOT NULL
    )""",
        "CREATE INDEX hookline_grants_session ON hookline_grants (session_id, host, tenant, agent)",
    )


@dataclass(frozen=True, slots=True)
class LiveAsk:
    """One call a host waits on: what it is (``ask``), until when, and its answer once given
    (None while it waits): ``{"permission": "allow"|"deny", "by", "role", "via", ...}``."""

    id: str
    created: float
    deadline: float
    ask: dict[str, Any]
    answer: dict[str, Any] | None = field(default=None)

    def waiting(self, now: float | None = None) -> bool:
        """Whether a person may still answer it."""
        return self.answer is None and (_now() if now is None else now) < self.deadline


@runtime_checkable
class AskStore(Protocol):
    """A store that keeps live asks (both of hookline's backends)."""

    def put_ask(self, ask: LiveAsk) -> None:
        """Keep a new live ask (its answer slot empty)."""

    def get_ask(self, id: str) -> LiveAsk | None:
        """The live ask with this id, answered or not; None when there is none."""

    def waiting_asks(self, *, limit: int = 200) -> list[LiveAsk]:
        """The asks not answered whose deadline has not passed, newest first."""

    def answer_ask(self, id: str, answer: dict[str, Any], *, before: float | None = None) -> bool:
        """Fill the ask's answer slot if it is empty (and, given ``before``, its deadline is
        after it): True for the one answer that does, False for every other."""

    def put_grant(self, ask: str, key: SessionKey, grant: dict[str, Any]) -> None:
        """Keep the session grant live ask ``ask`` gave to host session ``key`` (once: the
        same ask's grant again changes nothing)."""

    def session_grants(self, key: SessionKey, *, since: float = 0.0) -> list[dict[str, Any]]:
        """The session grants given to host session ``key`` at ``since`` or later, oldest
        first."""

    def forget_asks(self, *, before: float, grants_before: float) -> int:
        """Drop the asks whose deadline was before ``before`` (answered or expired: never one
        still waiting) and the grants given before ``grants_before``; how many rows went."""


class AskTable:
    """``AskStore`` over a backend's transactions (mixed into ``SqlStore``)."""

    def _transaction(self, lock: LockKind = "read") -> Any:  # the SqlStore's
        raise NotImplementedError

    def _sql(self, text: str) -> str:
        raise NotImplementedError

    def put_ask(self, ask: LiveAsk) -> None:
        sql = f"INSERT INTO hookline_asks ({ASK_COLUMNS}) VALUES (?, ?, ?, ?, NULL)"
        params = (ask.id, ask.created, ask.deadline, dump_json(ask.ask))
        with self._transaction("write") as cur:
            cur.execute(self._sql(sql), params)

    def get_ask(self, id: str) -> LiveAsk | None:
        sql = f"SELECT {ASK_COLUMNS} FROM hookline_asks WHERE id = ?"
        with self._transaction() as cur:
            cur.execute(self._sql(sql), (id,))
            row = cur.fetchone()
        return None if row is None else _ask_from_row(row)

    def waiting_asks(self, *, limit: int = 200) -> list[LiveAsk]:
        sql = (
            f"SELECT {ASK_COLUMNS} FROM hookline_asks WHERE answer IS NULL AND deadline > ? "
            "ORDER BY created_at DESC, id LIMIT ?"
        )
        with self._transaction() as cur:
            cur.execute(self._sql(sql), (_now(), limit))
            rows = cur.fetchall()
        return [_ask_from_row(row) for row in rows]

    def answer_ask(self, id: str, answer: dict[str, Any], *, before: float | None = None) -> bool:
        sql = "UPDATE hookline_asks SET answer = ?, answered_at = ? WHERE id = ? AND answer IS NULL"
        now = _now()
        params: list[Any] = [dump_json(answer), now, id]
        if before is not None:
            sql, params = sql + " AND deadline > ?", [*params, before]
        cur: Cursor
        with self._transaction("write") as cur:
            cur.execute(self._sql(sql), params)
            return cur.rowcount == 1

    def put_grant(self, ask: str, key: SessionKey, grant: dict[str, Any]) -> None:
        sql = (
            "INSERT INTO hookline_grants (ask, tenant, agent, host, session_id, given_at, allows) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (ask) DO NOTHING"
        )
        with self._transaction("write") as cur:
            cur.execute(self._sql(sql), (ask, *key, _now(), dump_json(grant)))

    def session_grants(self, key: SessionKey, *, since: float = 0.0) -> list[dict[str, Any]]:
        sql = (
            "SELECT allows FROM hookline_grants WHERE session_id = ? AND host = ? AND tenant = ? "
            "AND agent = ? AND given_at >= ? ORDER BY given_at, ask"
        )
        tenant, agent, host, session = key
        with self._transaction() as cur:
            cur.execute(self._sql(sql), (session, host, tenant, agent, since))
            rows = cur.fetchall()
        return [load_json(row[0]) for row in rows]

    def forget_asks(self, *, before: float, grants_before: float) -> int:
        before = min(before, _now())  # an ask still waiting stays, whatever was asked
        cur: Cursor
        with self._transaction("write") as cur:
            cur.execute(self._sql("DELETE FROM hookline_asks WHERE deadline < ?"), (before,))
            asks = cur.rowcount
            cur.execute(
                self._sql("DELETE FROM hookline_grants WHERE given_at < ?"), (grants_before,)
            )
            return asks + cur.rowcount


def _ask_from_row(row: Sequence[Any]) -> LiveAsk:
    id, created, deadline, ask, answer = row
    said = None if answer is None else load_json(answer)
    return LiveAsk(str(id), float(created), float(deadline), load_json(ask), said)
