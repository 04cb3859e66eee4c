"""``hookline serve --workers N`` and several servers on one PostgreSQL store: real server
processes on 127.0.0.1, concurrent hook calls, then the audit checked as ``hookline audit verify``
checks it: one whole chain, and exactly one record per call."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Barrier
from pathlib import Path
from typing import Any

import httpx
import pytest

from cli_runner import HOOKLINE, src_env
from hookline._serve.rate import Limits, SharedBuckets
from hookline.audit._writer import JSONL_NAME

#: The policy's hook: a call whose tool_use_id starts "held-" holds its worker (the hook runs
#: inline, on the worker's event loop, so that worker accepts nothing more) until as many
#: workers as HOLD_COUNT say hold too; its answer names the worker's pid.
GUARD = """
import os
import time
from pathlib import Path

from hookline import Decision

def hold(event):
    if not event.tool_use_id.startswith("held-"):
        return None
    held = Path(os.environ["HOLD_DIR"])
    (held / str(os.getpid())).touch()
    deadline = time.monotonic() + 30
    while len(os.listdir(held)) < int(os.environ["HOLD_COUNT"]) and time.monotonic() < deadline:
        time.sleep(0.01)  # a barrier between processes: the test waits for it, not for time
    return Decision.allow(f"held by worker {os.getpid()}")
"""

SETTINGS = {
    "hooks": {
        "PreToolUse": [{"matcher": "Read", "hooks": [{"type": "python", "callable": "guard:hold"}]}]
    }
}


def policy_folder(root: Path) -> Path:
    folder = root / "policy"
    (folder / ".claude").mkdir(parents=True)
    (folder / ".claude" / "settings.json").write_text(json.dumps(SETTINGS))
    (folder / "guard.py").write_text(GUARD)
    return folder


def call(cwd: Path, tool_use_id: str, tool: str = "Bash") -> dict[str, Any]:
    """A PreToolUse as Claude Code sends it."""
    tool_input = {"file_path": str(cwd / "notes.txt")} if tool == "Read" else {"command": "ls"}
    return {
        "session_id": "d0bec9ad-936a-48ca-a213-75c3297749fd",
        "transcript_path": "/home/u/.claude/projects/p/d0bec9ad.jsonl",
        "cwd": str(cwd),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": tool_use_id,
    }


@contextmanager
def serving(policy: Path, *args: str, env: dict[str, str] | None = None) -> Iterator[str]:
    """``hookline serve --port 0`` for ``policy`` with ``args``: its URL while it runs; stopped
    with SIGTERM (it must exit 0, saying it stopped)."""
    command = [*HOOKLINE, "serve", "--cwd", str(policy), "--port", "0", *args]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env or src_env()
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()  # once it listens (the test's timeout bounds it)
        assert " on " in first, process.stderr.read() if process.stderr else first
        yield first.split(" on ", 1)[1].strip()
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert err.strip().splitlines()[-1] == "hookline serve: stopped"


def all_at_once(where: str, bodies: list[dict[str, Any]]) -> list[httpx.Response]:
    """Post every body, each from its own thread on its own connection, released together."""
    return all_at_once_to([where] * len(bodies), bodies)


def held_by_each_worker(where: str, cwd: Path, held: Path, count: int) -> set[str]:
    """One held call per worker: each sent once the one before holds its worker, so the next
    connection can only be taken by a worker still free; the pids that answered."""
    results: list[httpx.Response] = []
    threads = []
    for index in range(count):
        body = call(cwd, f"held-{index}", "Read")
        thread = threading.Thread(
            target=lambda b=body: results.append(httpx.post(where, json=b, timeout=60))
        )
        thread.start()
        threads.append(thread)
        while len(os.listdir(held)) <= index:  # the call holds a worker now
            assert thread.is_alive() or results, "the held call was answered without holding"
            time.sleep(0.01)
    for thread in threads:
        thread.join()
    reasons = [
        answer.json()["hookSpecificOutput"]["permissionDecisionReason"] for answer in results
    ]
    return {reason.rsplit(" ", 1)[1] for reason in reasons}


def verify(policy: Path, *store: str) -> str:
    done = subprocess.run(
        [*HOOKLINE, "audit", "verify", "--cwd", str(policy), *store],
        capture_output=True,
        text=True,
        env=src_env(),
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def file_records(policy: Path) -> list[dict[str, Any]]:
    path = policy / ".hookline" / "state" / JSONL_NAME
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_workers_record_every_call_once_in_one_whole_chain(tmp_path: Path) -> None:
    policy, held = policy_folder(tmp_path), tmp_path / "held"
    held.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    env = {**src_env(), "HOLD_DIR": str(held), "HOLD_COUNT": "3"}
    with serving(policy, "--workers", "3", env=env) as where:
        pids = held_by_each_worker(where, work, held, 3)
        bodies = [call(work, f"toolu_{i:03}") for i in range(60)]
        answers = all_at_once(where, bodies)
    assert len(pids) == 3  # three workers answered
    said = {answer.json()["hookSpecificOutput"]["permissionDecision"] for answer in answers}
    assert said == {"allow"}
    records = file_records(policy)
    ids = Counter(record["tool_use_id"] for record in records)
    expected = {f"toolu_{i:03}" for i in range(60)} | {f"held-{i}" for i in range(3)}
    assert set(ids) == expected
    assert set(ids.values()) == {1}  # every call on record exactly once
    assert [record["seq"] for record in records] == list(range(1, 64))
    out = verify(policy)
    assert "63 records, chain intact" in out
    assert "file and store: the same records" in out


#: A supervisor of two workers that wait for a stop, each saying it started with a file
#: named by its pid: ``python -c SUPERVISOR FOLDER SETTLE FAIL``.
SUPERVISOR = """
import os, signal, sys
from pathlib import Path

from hookline._serve.workers import Workers

ready, settle, fail = Path(sys.argv[1]), float(sys.argv[2]), sys.argv[3] == "fail"

def serve_one():
    (ready / str(os.getpid())).touch()
    if fail:
        raise RuntimeError("the store cannot be opened")
    signal.pause()

notes = []
status = Workers(2, serve_one, note=notes.append, settle=settle).run()
print("\\n".join(notes))
sys.exit(status)
"""


def supervised(ready: Path, *, settle: float, fail: bool = False) -> subprocess.Popen[str]:
    args = [str(ready), str(settle), "fail" if fail else "serve"]
    return subprocess.Popen(
        [*HOOKLINE[:1], "-c", SUPERVISOR, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=src_env(),
    )


def started(ready: Path, count: int, supervisor: subprocess.Popen[str]) -> list[int]:
    """The pids of the first ``count`` workers, once that many have started."""
    while len(os.listdir(ready)) < count:  # the workers say so (the test's timeout bounds it)
        assert supervisor.poll() is None, supervisor.communicate()
        time.sleep(0.01)
    return [int(name) for name in os.listdir(ready)]


def test_a_worker_that_ends_is_started_again_and_a_stop_reaches_them_all(
    tmp_path: Path,
) -> None:
    ready = tmp_path / "ready"
    ready.mkdir()
    supervisor = supervised(ready, settle=0)
    first = started(ready, 2, supervisor)
    os.kill(first[0], signal.SIGKILL)
    later = set(started(ready, 3, supervisor)) - set(first)
    supervisor.send_signal(signal.SIGTERM)
    out, err = supervisor.communicate(timeout=60)
    assert supervisor.returncode == 0, err
    assert out.strip() == "a worker ended (signal SIGKILL): starting another"
    for pid in (*first, *later):  # every worker is gone, the new one too
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_a_worker_that_cannot_start_stops_the_others_with_status_1(tmp_path: Path) -> None:
    ready = tmp_path / "ready"
    ready.mkdir()
    supervisor = supervised(ready, settle=600, fail=True)
    out, err = supervisor.communicate(timeout=60)
    assert supervisor.returncode == 1
    assert "a worker failed: the store cannot be opened" in err
    assert out.startswith("a worker ended as it started (exit status 1): stopping the others")


def test_servers_with_their_own_folders_share_one_postgres_store(tmp_path: Path) -> None:
    """Two servers (one of two workers), as on two hosts: their own policy and state folders,
    one PostgreSQL store. The store is one whole chain of every call, each server's file its
    own, and each server's verify finds all of its records in the store. A call retried on the
    other server (a load balancer's retry) is judged again, to the same answer, and each
    delivery is on record."""
    from postgres_schema import fresh_schema

    first, second = policy_folder(tmp_path / "a"), policy_folder(tmp_path / "b")
    work = tmp_path / "work"
    work.mkdir()
    with fresh_schema() as (_, url):
        store = ("--store", url)
        with serving(first, *store) as one, serving(second, *store, "--workers", "2") as two:
            bodies = [call(work, f"toolu_{i:03}") for i in range(40)]
            targets = [one if i % 2 else two for i in range(40)]
            answers = all_at_once_to(targets, bodies)
            retried = [httpx.post(where, json=call(work, "toolu_retried"), timeout=60)
                       for where in (one, two)]  # fmt: skip
        assert {a.json()["hookSpecificOutput"]["permissionDecision"] for a in answers} == {"allow"}
        assert retried[0].json() == retried[1].json()
        for policy in (first, second):
            out = verify(policy, *store)
            assert "42 records, chain intact" in out  # the store: every server's calls
            assert "the store is shared with other servers' files" in out
        listed = subprocess.run(
            [*HOOKLINE, "audit", "--cwd", str(first), *store, "--json"],
            capture_output=True,
            text=True,
            env=src_env(),
            timeout=120,
            check=True,
        )
    ids = Counter(json.loads(line)["tool_use_id"] for line in listed.stdout.splitlines())
    assert ids == Counter({f"toolu_{i:03}": 1 for i in range(40)} | {"toolu_retried": 2})
    assert len(file_records(first)) + len(file_records(second)) == 42


def all_at_once_to(targets: list[str], bodies: list[dict[str, Any]]) -> list[httpx.Response]:
    """``all_at_once``, each body to its own server."""
    start = threading.Barrier(len(bodies))
    answers: list[httpx.Response] = []

    def post(where: str, body: dict[str, Any]) -> None:
        start.wait()
        answers.append(httpx.post(where, json=body, timeout=60))

    threads = [
        threading.Thread(target=post, args=pair) for pair in zip(targets, bodies, strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(answers) == len(bodies)
    return answers


def _take(limits: Limits, times: int, ready: Barrier, go: Barrier, passed: Queue[int]) -> None:
    ready.wait()  # every worker forked: they take at once
    go.wait()
    passed.put(sum(limits.take("agent") for _ in range(times)))


def test_workers_forked_after_the_shared_buckets_share_one_rate_per_token() -> None:
    """Four processes, each taking 30 at once from one token's bucket of 50 (the clock
    stopped): 50 pass in all, not 50 each."""
    fork = multiprocessing.get_context("fork")
    limits = Limits(rate=1.0, burst=50, clock=lambda: 100.0, buckets=SharedBuckets())
    ready, go, passed = fork.Barrier(5), fork.Barrier(5), fork.Queue()
    workers = [fork.Process(target=_take, args=(limits, 30, ready, go, passed)) for _ in range(4)]
    for worker in workers:
        worker.start()
    ready.wait(timeout=60)
    go.wait(timeout=60)
    counts = [passed.get(timeout=60) for _ in workers]
    for worker in workers:
        worker.join(timeout=60)
    assert sum(counts) == 50
    assert not limits.take("agent")  # the parent sees the same bucket
    assert limits.take("another")


def _hold_and_wait(buckets: SharedBuckets, holding: Any) -> None:
    with buckets.held("agent"):
        holding.set()  # the lock is this process's now: kill it here
        threading.Event().wait()


def test_a_worker_killed_while_it_holds_the_buckets_lock_stops_no_other() -> None:
    """The worst moment: SIGKILL inside the lock. The kernel lets a record lock go with its
    holder, so the next call takes its token as ever (a semaphore would wait for ever)."""
    fork = multiprocessing.get_context("fork")
    limits = Limits(rate=1.0, burst=5, clock=lambda: 100.0, buckets=SharedBuckets())
    holding = fork.Event()
    holder = fork.Process(target=_hold_and_wait, args=(limits.buckets, holding))
    holder.start()
    assert holding.wait(timeout=60)
    os.kill(holder.pid or 0, signal.SIGKILL)
    holder.join(timeout=60)
    taken: list[bool] = []
    after = threading.Thread(target=lambda: taken.append(limits.take("agent")), daemon=True)
    after.start()
    after.join(timeout=60)  # a deadlock detector: it returns at once unless the lock is stuck
    assert taken == [True]
