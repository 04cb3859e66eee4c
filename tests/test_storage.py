"""The stores: sessions and claims, the audit chain, concurrency and crash safety.

Every behaviour runs against SQLite (a temp file) and PostgreSQL (a fresh schema per test in
the database that ``HOOKLINE_TEST_POSTGRES_URL`` names; ``.ci/postgres.sh`` starts one). Without
that variable the PostgreSQL half is skipped, except under CI, where it fails.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast
from urllib.parse import urlsplit

import pytest

from hookline._errors import ConfigError
from hookline.audit._chain import link as sha256_chain
from hookline.storage import (
    SCHEMA_VERSION,
    AskStore,
    AuditEntry,
    AuditRow,
    LiveAsk,
    SessionRecord,
    SqliteStore,
    Store,
    open_store,
    verify_chain,
)
from postgres_schema import fresh_schema, query


@dataclass
class Backend:
    """One database to test against: ``url`` is what ``open_store`` (and a child process) takes."""

    name: str
    url: str
    state_dir: Path
    execute: Callable[[str], list[tuple[Any, ...]]]

    def open(self) -> Store:
        return open_store(self.url, state_dir=self.state_dir)


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    if request.param == "sqlite":
        path = tmp_path / "store.db"
        yield Backend("sqlite", str(path), tmp_path, lambda sql: _sqlite_execute(path, sql))
        return
    with fresh_schema() as (_, url):
        yield Backend("postgres", url, tmp_path, lambda sql: query(url, sql))


def _sqlite_execute(path: Path, sql: str) -> list[tuple[Any, ...]]:
    with closing(sqlite3.connect(path)) as conn, conn:
        return conn.execute(sql).fetchall()


@pytest.fixture
def store(backend: Backend) -> Iterator[Store]:
    opened = backend.open()
    yield opened
    opened.close()


def entry(n: int, **fields: Any) -> AuditEntry:
    return AuditEntry(**{"kind": "tool", "time": 1000.0 + n, "data": {"n": n}, **fields})


def spawn(target: Callable[..., None], *args: Any) -> multiprocessing.Process:
    process = multiprocessing.get_context("spawn").Process(target=target, args=args)
    process.start()
    return process


# -- sessions ------------------------------------------------------------------------------


def test_a_session_round_trips_with_unicode_and_nested_json(store: Store):
    state = {
        "messages": [{"role": "user", "text": "héllo — 你好 🚀"}, {"role": "assistant"}],
        "pending": {"tool_use_id": "t1", "input": {"path": "ü/ß.txt", "flags": [True, None]}},
        "numbers": [0, -1, 2**53, 1.5, 1e-7],
        "ключ": "значение",
    }
    record = SessionRecord("s1", "paused", 3, state, "alice", "acme", 100.25, 200.5)
    store.put_session(record)
    assert store.get_session("s1") == record


def test_put_session_replaces_the_record_with_the_same_id(store: Store):
    store.put_session(SessionRecord("s1", "paused", 1, {"a": 1}))
    store.put_session(SessionRecord("s1", "done", 2, {"b": 2}, tenant="t"))
    got = store.get_session("s1")
    assert got is not None
    assert (got.status, got.version, got.state, got.tenant) == ("done", 2, {"b": 2}, "t")
    assert store.get_session("missing") is None


def test_list_sessions_is_newest_first_filtered_by_status_and_limited(store: Store):
    for n, status in enumerate(["paused", "done", "paused", "paused"]):
        store.put_session(SessionRecord(f"s{n}", status, 1, {}, created_at=float(n)))
    assert [r.id for r in store.list_sessions()] == ["s3", "s2", "s1", "s0"]
    assert [r.id for r in store.list_sessions(status="paused")] == ["s3", "s2", "s0"]
    assert [r.id for r in store.list_sessions(status="paused", limit=2)] == ["s3", "s2"]
    assert store.list_sessions(status="running") == []


def test_delete_session_forgets_it_and_ignores_unknown_ids(store: Store):
    store.put_session(SessionRecord("s1", "paused", 1, {}))
    store.delete_session("s1")
    store.delete_session("s1")
    assert store.get_session("s1") is None


def test_claim_session_sets_the_status_only_from_the_expected_one(store: Store):
    store.put_session(SessionRecord("s1", "paused", 1, {"x": 1}, updated_at=1.0))
    assert store.claim_session("s1", expected="running", new="done") is False
    assert store.claim_session("missing", expected="paused", new="running") is False
    assert store.claim_session("s1", expected="paused", new="running") is True
    assert store.claim_session("s1", expected="paused", new="running") is False
    got = store.get_session("s1")
    assert got is not None
    assert (got.status, got.state) == ("running", {"x": 1})
    assert got.updated_at > 1.0


def _claim(url: str, state_dir: str, barrier: Any) -> None:
    store = open_store(url, state_dir=Path(state_dir))
    barrier.wait(timeout=120)
    won = store.claim_session("s1", expected="paused", new="resumed")
    store.close()
    sys.exit(10 if won else 11)


def test_exactly_one_of_eight_processes_claims_a_session(backend: Backend, store: Store):
    store.put_session(SessionRecord("s1", "paused", 1, {}))
    barrier = multiprocessing.get_context("spawn").Barrier(8)
    processes = [spawn(_claim, backend.url, str(backend.state_dir), barrier) for _ in range(8)]
    for process in processes:
        process.join(timeout=180)
    codes = sorted(process.exitcode or 0 for process in processes)
    assert codes == [10] + [11] * 7


# -- the audit log -------------------------------------------------------------------------


def test_appended_rows_chain_each_hash_to_the_one_before(store: Store):
    first = store.append_audit([entry(1), entry(2, decision="allow")], sha256_chain)
    second = store.append_audit(
        [entry(3, session_id="s1", data={"é": [1, {"b": None}]})], sha256_chain
    )
    rows = store.audit_rows()
    assert rows == first + second
    assert [row.seq for row in rows] == [1, 2, 3]
    assert rows[0].prev_hash is None
    for before, row in zip([None, *rows], rows, strict=False):
        assert row.prev_hash == (before.hash if before else None)
        assert row.hash == sha256_chain(row.prev_hash, row.entry)
    assert verify_chain(rows, sha256_chain) is None
    assert store.last_audit() == rows[-1]


def test_a_new_store_continues_the_chain_with_the_given_function(backend: Backend, store: Store):
    [first] = store.append_audit([entry(1)], sha256_chain)
    seen: list[tuple[str | None, AuditEntry]] = []

    def chain(prev_hash: str | None, item: AuditEntry) -> str:
        seen.append((prev_hash, item))
        return sha256_chain(prev_hash, item)

    with closing(backend.open()) as other:
        [second] = other.append_audit([entry(2)], chain)
    assert seen == [(first.hash, entry(2))]
    assert (second.seq, second.prev_hash) == (2, first.hash)


def test_an_edited_row_breaks_the_chain_at_that_row(backend: Backend, store: Store):
    store.append_audit([entry(n) for n in range(1, 6)], sha256_chain)
    backend.execute("UPDATE hookline_audit SET data = '{\"n\":99}' WHERE seq = 3")
    assert verify_chain(store.audit_rows(), sha256_chain) == 3
    assert verify_chain(store.audit_rows(after_seq=3), sha256_chain) is None


def test_nothing_is_written_for_no_entries_or_for_data_that_is_not_json(store: Store):
    assert store.append_audit([], sha256_chain) == []
    with pytest.raises(ValueError):
        store.append_audit([entry(1), entry(2, data={"x": math.nan})], sha256_chain)
    assert store.audit_rows() == []
    assert store.last_audit() is None


def test_audit_rows_filter_by_session_tool_decision_time_and_seq(store: Store):
    store.append_audit(
        [
            entry(1, session_id="a", tool="Bash", decision="allow"),
            entry(2, session_id="a", tool="Read"),
            entry(3, session_id="b", tool="Bash", decision="deny"),
            entry(4, session_id="b", kind="hook", event="PreToolUse", decision="deny"),
            entry(5, session_id="a", tool="Bash", decision="deny", tool_use_id="t5"),
        ],
        sha256_chain,
    )

    def seqs(**filters: Any) -> list[int]:
        return [row.seq for row in store.audit_rows(**filters)]

    assert seqs(session_id="a") == [1, 2, 5]
    assert seqs(tool="Bash") == [1, 3, 5]
    assert seqs(decision="deny") == [3, 4, 5]
    assert seqs(session_id="a", tool="Bash", decision="deny") == [5]
    assert seqs(since=1002.0, until=1004.0) == [2, 3]
    assert seqs(after_seq=3) == [4, 5]
    assert seqs(decision="deny", limit=2) == [3, 4]
    assert seqs(session_id="nobody") == []
    [row] = store.audit_rows(after_seq=4)
    assert (row.tool_use_id, row.event, row.kind) == ("t5", None, "tool")


def test_audit_rows_newest_are_the_last_of_the_matching_rows_in_seq_order(store: Store):
    """``newest`` with ``limit``: the last rows that match (a session's recent steps), still
    oldest first; ``kind`` and ``tenant`` filter as the rest do."""
    acme, globex = {"tenant": "acme"}, {"tenant": "globex"}
    store.append_audit(
        [
            entry(1, session_id="a", kind="served", data=acme),
            entry(2, session_id="a", kind="tool", data=acme),
            entry(3, session_id="b", kind="served", data=acme),
            entry(4, session_id="a", kind="served", data=globex),
            entry(5, session_id="a", kind="served", data=acme),
            entry(6, session_id="a", kind="served", data=acme),
        ],
        sha256_chain,
    )

    def seqs(**filters: Any) -> list[int]:
        return [row.seq for row in store.audit_rows(**filters)]

    assert seqs(kind="served") == [1, 3, 4, 5, 6]
    assert seqs(session_id="a", kind="served", newest=True, limit=2) == [5, 6]
    assert seqs(session_id="a", kind="served", tenant="acme", newest=True, limit=3) == [1, 5, 6]
    assert seqs(session_id="a", kind="served", limit=2) == [1, 4]  # the first, without newest
    assert seqs(session_id="a", since=1004.0, newest=True, limit=10) == [4, 5, 6]
    assert seqs(session_id="a", newest=True) == [1, 2, 4, 5, 6]


def test_the_newest_rows_of_a_session_are_read_back_from_its_end_through_its_index(
    backend: Backend, store: Store, monkeypatch: pytest.MonkeyPatch
):
    """A long session's last rows cost the same as a short one's: the statement walks the
    session's index (on PostgreSQL, whichever index in seq order it finds cheaper) from its end
    and stops at the limit (the plan says so: no scan of the table, no sort of its rows)."""
    rows = [entry(n, session_id="long" if n % 50 else "short", kind="served")
            for n in range(1, 5001)]  # fmt: skip
    store.append_audit(rows, sha256_chain)
    said: list[str] = []
    written = store._sql  # type: ignore[attr-defined]
    monkeypatch.setattr(store, "_sql", lambda text: said.append(text) or written(text))
    found = store.audit_rows(session_id="long", kind="served", since=0.0, limit=6, newest=True)
    assert [row.seq for row in found] == list(range(4994, 5000))
    [sql] = said
    values = "'long', 0.0, 'served', 6"
    bound = sql.replace("%s", "?")
    for value in values.split(", "):
        bound = bound.replace("?", value, 1)
    if backend.name == "sqlite":
        plan = " ".join(str(row[-1]) for row in backend.execute(f"EXPLAIN QUERY PLAN {bound}"))
        assert "USING INDEX hookline_audit_session" in plan and "TEMP B-TREE" not in plan, plan
    else:
        backend.execute("ANALYZE hookline_audit")
        plan = " ".join(str(row[0]) for row in backend.execute(f"EXPLAIN {bound}"))
        # a walk back along an index in seq order (the session's, or the table's own when
        # the session is most of the table), stopped by the limit
        assert plan.startswith("Limit") and "Index Scan Backward using hookline_audit_" in plan
        assert "Sort" not in plan and "Seq Scan" not in plan, plan


def _append(url: str, state_dir: str, barrier: Any, worker: int) -> None:
    store = open_store(url, state_dir=Path(state_dir))
    barrier.wait(timeout=120)
    for n in range(50):
        store.append_audit([AuditEntry(kind="tool", data={"worker": worker, "n": n})], sha256_chain)
    store.close()


def test_four_processes_appending_at_once_make_one_unbroken_chain(backend: Backend, store: Store):
    barrier = multiprocessing.get_context("spawn").Barrier(4)
    args = (backend.url, str(backend.state_dir), barrier)
    processes = [spawn(_append, *args, worker) for worker in range(4)]
    for process in processes:
        process.join(timeout=180)
    assert [process.exitcode for process in processes] == [0] * 4
    rows = store.audit_rows()
    assert [row.seq for row in rows] == list(range(1, 201))
    assert verify_chain(rows, sha256_chain) is None
    assert {(row.data["worker"], row.data["n"]) for row in rows} == {
        (w, n) for w in range(4) for n in range(50)
    }


def test_threads_sharing_one_store_make_one_unbroken_chain(store: Store):
    def work(worker: int) -> None:
        for n in range(25):
            store.append_audit([entry(n, data={"worker": worker})], sha256_chain)

    threads = [threading.Thread(target=work, args=(w,)) for w in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    rows = store.audit_rows()
    assert len(rows) == 100
    assert verify_chain(rows, sha256_chain) is None


_CRASH_CHILD = """
import sys
from pathlib import Path
from hookline.audit._chain import link as sha256_chain
from hookline.storage import AuditEntry, open_store

store = open_store(sys.argv[1], state_dir=Path(sys.argv[2]))
print("ready", flush=True)
append = 0
while True:
    append += 1
    parts = [
        AuditEntry(kind="tool", data={"append": append, "part": part, "pad": "x" * 3000})
        for part in range(5)
    ]
    rows = store.append_audit(parts, sha256_chain)
    print(rows[-1].seq, flush=True)
"""


def _kill_while_appending(backend: Backend) -> set[int]:
    """Run the appending child, SIGKILL it at a random moment; the seqs it saw acknowledged."""
    command = [sys.executable, "-c", _CRASH_CHILD, backend.url, str(backend.state_dir)]
    lines: list[str] = []
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as child:
        assert child.stdout is not None
        assert child.stdout.readline() == "ready\n"
        reader = threading.Thread(target=lambda: lines.extend(child.stdout or ()))
        reader.start()
        time.sleep(random.uniform(0.05, 0.5))
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
        reader.join(timeout=30)
    return {int(line) for line in lines if line.endswith("\n")}


def test_a_sigkilled_writer_loses_no_acknowledged_row_and_leaves_no_half(backend: Backend):
    for _ in range(3):
        acknowledged = _kill_while_appending(backend)
        assert acknowledged, "the child never appended before it was killed"
        with closing(backend.open()) as store:
            rows: list[AuditRow] = store.audit_rows()
        assert acknowledged <= {row.seq for row in rows}
        assert [row.seq for row in rows] == list(range(1, len(rows) + 1))
        assert verify_chain(rows, sha256_chain) is None
        assert len(rows) % 5 == 0
        assert all(row.data["part"] == (row.seq - 1) % 5 for row in rows)
    if backend.name == "sqlite":
        assert backend.execute("PRAGMA integrity_check") == [("ok",)]


# -- the schema ----------------------------------------------------------------------------


def test_reopening_keeps_the_data_and_records_the_schema_version(backend: Backend):
    with closing(backend.open()) as first:
        first.put_session(SessionRecord("s1", "paused", 1, {}))
    with closing(backend.open()) as second:
        assert second.get_session("s1") is not None
    version = backend.execute("SELECT value FROM hookline_meta WHERE key = 'schema'")
    assert version == [(str(SCHEMA_VERSION),)]


def test_a_database_with_a_newer_schema_version_is_refused(backend: Backend):
    backend.open().close()
    newer = SCHEMA_VERSION + 1
    backend.execute(f"UPDATE hookline_meta SET value = '{newer}' WHERE key = 'schema'")
    with pytest.raises(ConfigError, match=f"schema version is {newer}") as refused:
        backend.open()
    assert refused.value.fix is not None and "upgrade hookline" in refused.value.fix
    assert refused.value.file is not None
    if backend.name == "sqlite":
        assert refused.value.file == backend.url
    else:
        from hookline.storage._postgres import redact

        assert refused.value.file == redact(backend.url)
        assert str(urlsplit(backend.url).password) not in str(refused.value)


# -- open_store ----------------------------------------------------------------------------


def test_open_store_defaults_to_sqlite_in_the_state_folder(tmp_path: Path):
    state_dir = tmp_path / ".hookline" / "state"
    with closing(open_store(None, state_dir=state_dir)) as store:
        assert isinstance(store, SqliteStore)
        assert isinstance(store, Store)
    assert (state_dir / "hookline.db").is_file()


def test_open_store_takes_sqlite_urls_and_plain_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.chdir(tmp_path)
    cases = {
        "sqlite:///rel.db": tmp_path / "rel.db",
        f"sqlite:///{tmp_path}/abs.db": tmp_path / "abs.db",
    }
    cases[str(tmp_path / "plain.db")] = tmp_path / "plain.db"
    for url, path in cases.items():
        store = open_store(url, state_dir=tmp_path / "unused")
        assert isinstance(store, SqliteStore)
        store.close()
        assert path.is_file(), url


@pytest.mark.parametrize("backend", ["postgres"], indirect=True)
def test_open_store_takes_both_postgres_schemes(backend: Backend):
    from hookline.storage._postgres import PostgresStore

    for url in (backend.url, backend.url.replace("postgresql://", "postgres://", 1)):
        store = open_store(url, state_dir=backend.state_dir)
        assert isinstance(store, PostgresStore)
        store.close()


@pytest.mark.parametrize("url", ["", "   ", "mysql://localhost/db", "sqlite://", "sqlite://host/x"])
def test_open_store_refuses_what_it_cannot_open(url: str, tmp_path: Path):
    with pytest.raises(ConfigError, match=r"store|file"):
        open_store(url, state_dir=tmp_path)


def test_a_file_that_is_not_a_database_is_a_config_error(tmp_path: Path):
    path = tmp_path / "junk.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(ConfigError, match="cannot open the SQLite store") as refused:
        open_store(str(path), state_dir=tmp_path)
    assert refused.value.file == str(path)


def test_an_unreachable_postgres_is_a_config_error_that_hides_the_password(tmp_path: Path):
    pytest.importorskip("psycopg")
    with pytest.raises(ConfigError, match="cannot open the PostgreSQL store") as refused:
        open_store("postgresql://me:s3cret@127.0.0.1:1/db", state_dir=tmp_path)
    assert refused.value.file == "postgresql://me:***@127.0.0.1:1/db"
    assert "s3cret" not in str(refused.value)


def test_postgres_without_psycopg_names_the_install_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setitem(sys.modules, "psycopg", None)
    monkeypatch.delitem(sys.modules, "hookline.storage._postgres", raising=False)
    with pytest.raises(ConfigError, match="psycopg") as refused:
        open_store("postgresql://localhost/db", state_dir=tmp_path)
    assert refused.value.fix == "pip install 'hookline[postgres]'"


def _autocheckpoint(store: SqliteStore) -> int:
    with store._transaction() as cur:  # the store's own connection
        cur.execute("PRAGMA wal_autocheckpoint")
        return int(cur.fetchone()[0])


def test_checkpoints_apart_move_the_wal_in_a_thread_and_the_connection_does_none(tmp_path: Path):
    """While a server serves, its commits never checkpoint (a checkpoint syncs the disk);
    the thread does, and everything written reaches the database file."""
    path = tmp_path / "hookline.db"
    with closing(SqliteStore(path)) as store:
        assert _autocheckpoint(store) == 1000
        with store.checkpoints_apart(every=0.01) as thread:
            assert _autocheckpoint(store) == 0
            store.append_audit([entry(n) for n in range(200)], sha256_chain)
            thread.done.clear()
            assert thread.done.wait(30)  # a checkpoint after the rows were written
            busy, in_wal, moved = thread.last or (1, 0, -1)
            assert busy == 0 and in_wal > 0 and moved == in_wal
        assert not thread.is_alive()
        assert _autocheckpoint(store) == 1000
    with closing(sqlite3.connect(path)) as conn:
        assert conn.execute("SELECT count(*) FROM hookline_audit").fetchone()[0] == 200


# -- live asks -----------------------------------------------------------------------------


def _live(id: str = "a1", *, deadline: float | None = None) -> LiveAsk:
    now = time.time()
    said = {"tool": "Bash", "input": {"command": "rm -rf build\u202e"}, "host": "claude-code"}
    return LiveAsk(id, now, now + 60 if deadline is None else deadline, said)


def test_a_live_ask_round_trips_and_is_answered_once(store: Store):
    asks = cast(AskStore, store)
    assert isinstance(store, AskStore)
    asks.put_ask(_live())
    got = asks.get_ask("a1")
    assert got is not None and got.waiting()
    assert got.ask["input"] == {"command": "rm -rf build\u202e"}
    assert [a.id for a in asks.waiting_asks()] == ["a1"]
    assert asks.answer_ask("a1", {"permission": "allow", "by": "ann"}, before=time.time())
    assert not asks.answer_ask("a1", {"permission": "deny", "by": "bob"}, before=time.time())
    assert not asks.answer_ask("a1", {"permission": "deny", "via": "expiry"})
    done = asks.get_ask("a1")
    assert done is not None and done.answer == {"permission": "allow", "by": "ann"}
    assert not done.waiting() and asks.waiting_asks() == []
    assert asks.get_ask("missing") is None


def test_a_person_cannot_answer_a_live_ask_past_its_deadline_but_its_expiry_can(store: Store):
    asks = cast(AskStore, store)
    asks.put_ask(_live(deadline=time.time() - 1))
    assert asks.waiting_asks() == []  # past its deadline: not listed
    assert not asks.answer_ask("a1", {"permission": "allow", "by": "ann"}, before=time.time())
    assert asks.answer_ask("a1", {"permission": "deny", "via": "expiry"})
    got = asks.get_ask("a1")
    assert got is not None and got.answer == {"permission": "deny", "via": "expiry"}


def _answer_ask(url: str, state_dir: str, barrier: Any, name: str) -> None:
    store = cast(AskStore, open_store(url, state_dir=Path(state_dir)))
    barrier.wait(timeout=120)
    won = store.answer_ask("a1", {"permission": "allow", "by": name}, before=time.time())
    cast(Store, store).close()
    sys.exit(10 if won else 11)


def test_exactly_one_of_eight_processes_answers_a_live_ask(backend: Backend, store: Store):
    cast(AskStore, store).put_ask(_live())
    barrier = multiprocessing.get_context("spawn").Barrier(8)
    args = (backend.url, str(backend.state_dir), barrier)
    processes = [spawn(_answer_ask, *args, f"p{n}") for n in range(8)]
    for process in processes:
        process.join(timeout=180)
    codes = sorted(process.exitcode or 0 for process in processes)
    assert codes == [10] + [11] * 7
    got = cast(AskStore, store).get_ask("a1")
    assert got is not None and got.answer is not None and got.answer["by"].startswith("p")


_SQLITE_STEP = """
import sys
from pathlib import Path
from hookline.storage import SqliteStore
store = SqliteStore(Path(sys.argv[1]))
if sys.argv[2] == "claim":
    assert store.claim_session("s1", expected="paused", new="resumed")
store.close()
"""


def test_a_sqlite_file_opened_twice_in_a_process_still_sees_other_processes_commits(
    tmp_path: Path,
):
    """A second connection in this process (a server's checkpointer, an inbox beside the
    server) must not drop the first one's locks: another process closing the file would then
    delete the WAL from under it, and it would never see a commit again."""
    path = tmp_path / "hookline.db"
    with closing(SqliteStore(path)) as first, closing(SqliteStore(path)):
        first.put_session(SessionRecord("s1", "paused", 1, {}))
        for step in ("open and close", "claim"):
            done = subprocess.run(
                [sys.executable, "-c", _SQLITE_STEP, str(path), step], capture_output=True
            )
            assert done.returncode == 0, done.stderr
        seen = first.get_session("s1")
        assert seen is not None and seen.status == "resumed"


def test_session_grants_are_kept_once_per_ask_and_found_by_tenant_host_and_session(store: Store):
    asks = cast(AskStore, store)
    edits = {"rules": [], "mode": "acceptEdits", "description": "file edits"}
    push = {"rules": ["Bash(git push *)"], "mode": None, "description": "Bash(git push *)"}
    asks.put_grant("a1", ("acme", "ci", "claude-code", "s1"), edits)
    asks.put_grant("a1", ("acme", "ci", "claude-code", "s1"), push)  # the same ask: kept once
    asks.put_grant("a2", ("acme", "ci", "claude-code", "s1"), push)
    assert asks.session_grants(("acme", "ci", "claude-code", "s1")) == [edits, push]
    others = [("", "ci", "claude-code", "s1"), ("acme", "dev", "claude-code", "s1"),
              ("acme", "ci", "gemini", "s1"), ("acme", "ci", "claude-code", "s")]  # fmt: skip
    assert [asks.session_grants(other) for other in others] == [[], [], [], []]


def test_old_asks_and_grants_are_forgotten_and_a_grant_past_its_time_is_not_found(store: Store):
    asks = cast(AskStore, store)
    now = time.time()
    asks.put_ask(_live("old", deadline=now - 100))  # expired long ago
    asks.put_ask(_live("answered", deadline=now - 100))
    assert asks.answer_ask("answered", {"permission": "allow", "by": "ann"})
    asks.put_ask(_live("recent", deadline=now - 1))  # expired a moment ago: kept
    asks.put_ask(_live("waiting"))
    key = ("acme", "ci", "claude-code", "s1")
    edits = {"rules": [], "mode": "acceptEdits", "description": "file edits"}
    asks.put_grant("a1", key, edits)
    given = time.time()
    assert asks.session_grants(key, since=given - 60) == [edits]
    assert asks.session_grants(key, since=given + 1) == []  # given before: past its time
    # even a "before" in the future never drops an ask still waiting
    assert asks.forget_asks(before=now - 50, grants_before=given - 60) == 2
    assert asks.get_ask("old") is None and asks.get_ask("answered") is None
    assert [asks.get_ask(id) is not None for id in ("recent", "waiting")] == [True, True]
    assert asks.session_grants(key) == [edits]
    assert asks.forget_asks(before=now + 3600, grants_before=given + 1) == 2
    assert [ask.id for ask in asks.waiting_asks()] == ["waiting"]
    assert asks.session_grants(key) == []
