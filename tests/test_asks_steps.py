"""A live ask's recent steps when the audit cannot give them (``hookline._serve.recent``): the
ask is made and answered as ever, with no steps, saying why; a read that hangs is not waited
for past its bound. In process, over a real SQLite store whose audit read fails or hangs."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from hookline._inbox.live import live_asks
from hookline._serve import recent
from hookline._serve.asks import Asks, AskSettings
from hookline._serve.gate import Caller
from hookline._serve.judge import Ruling
from hookline.audit._writer import AuditWriter
from hookline.storage import AuditRow, SqliteStore
from test_asks_rulings import Ruled, asked

PAYLOAD = {"session_id": "s1", "hook_event_name": "PreToolUse", "tool_input": {"command": "x"}}


class Unreadable(SqliteStore):
    """A store whose audit cannot be read: it fails, or (``hang``) waits until released."""

    hang: threading.Event | None = None

    def audit_rows(self, **filters: Any) -> list[AuditRow]:
        if self.hang is not None:
            self.hang.wait(30)
        raise OSError("the audit table is locked by a migration")


def answered_ask(store: Unreadable) -> tuple[Ruling, float, list[Any]]:
    """A call asked about, answered (allow) as soon as its live ask is in the store: the
    ruling, the seconds until the ask was there, and the inbox's view of it then."""
    audit = AuditWriter(store, jsonl_path=None)
    asks = Asks(AskSettings("inbox", 10.0, "deny"), store, audit)
    rules = asks.around(Ruled(asked()), Caller("127.0.0.1"), "claude-code")
    seen: list[Any] = []

    async def approve(began: float) -> float:
        while not (waiting := await asyncio.to_thread(store.waiting_asks)):
            await asyncio.sleep(0.01)
        took = time.monotonic() - began
        if store.hang is not None:  # the ask was made without it: the read may end now
            store.hang.set()
        seen.extend(await asyncio.to_thread(live_asks, store))
        said = {"permission": "allow", "by": "ann", "via": "inbox"}
        assert await asyncio.to_thread(store.answer_ask, waiting[0].id, said)
        asks.answered(waiting[0].id)
        return took

    async def go() -> tuple[Ruling, float]:
        began = time.monotonic()
        ruling, took = await asyncio.gather(rules.rule(PAYLOAD), approve(began))
        return ruling, took

    ruling, took = asyncio.run(go())
    return ruling, took, seen


def test_an_audit_that_cannot_be_read_leaves_the_ask_without_steps_saying_why(
    tmp_path: Path,
) -> None:
    store = Unreadable(tmp_path / "store.db")
    try:
        ruling, _, [shown] = answered_ask(store)
        assert shown.live is not None
        ask = store.get_ask(shown.live.id)
    finally:
        store.close()
    assert ruling.answer["hookSpecificOutput"]["permissionDecision"] == "allow"
    assert ask is not None and "steps" not in ask.ask
    assert ask.ask["steps_failure"] == "the audit table is locked by a migration"
    assert shown.steps == (
        "the session's recent steps could not be read: the audit table is locked by a migration",
    )


def test_a_read_that_hangs_is_waited_for_no_longer_than_its_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(recent, "WAIT", 0.3)
    store = Unreadable(tmp_path / "store.db")
    store.hang = threading.Event()
    try:
        ruling, took, [shown] = answered_ask(store)
    finally:
        store.close()
    assert ruling.answer["hookSpecificOutput"]["permissionDecision"] == "allow"
    assert took < 5.0  # not the 30 seconds the read would have taken
    assert shown.steps == (
        "the session's recent steps could not be read: no answer from the store in 0.3s",
    )
