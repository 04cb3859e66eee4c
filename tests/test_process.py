"""Child processes: the watchdog kills their groups when the harness dies, SIGKILL included."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cli_runner import HOOKLINE, src_env
from hookline._support import process, watchdog
from hookline._support.process import WATCHDOG, run_process

#: A Bash command (and a hook command) that leaves a grandchild behind: bash -> sleep.
LEAVES_A_SLEEP = "sleep 300 & echo $! > {pidfile}; wait"


def _wait_for(condition: Callable[[], bool], seconds: float = 30.0) -> bool:
    """Poll ``condition`` (bounded): a guard against a hang, not a timing assertion."""
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)
    return condition()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return not _zombie(pid)


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] == "Z"
    except OSError:
        return False


def _pid_in(pidfile: Path) -> int | None:
    text = pidfile.read_text().strip() if pidfile.exists() else ""
    return int(text) if text.isdigit() else None


def _harness(project: Path, *extra: str) -> subprocess.Popen[bytes]:
    argv = [*HOOKLINE, "run", "go", "--model", "scripted:script.json", "--cwd", str(project)]
    argv += ["--permission-mode", "bypassPermissions", *extra]
    return subprocess.Popen(
        argv, cwd=project, env=src_env(), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip


def _kill_harness_and_check(harness: subprocess.Popen[bytes], pidfile: Path) -> None:
    try:
        assert _wait_for(lambda: _pid_in(pidfile) is not None), "the sleep never started"
    finally:
        harness.send_signal(signal.SIGKILL)
        harness.wait()
    pid = _pid_in(pidfile)
    assert pid is not None
    assert _wait_for(lambda: not _alive(pid)), f"sleep {pid} outlived the killed harness"


def _script(project: Path, command: str) -> None:
    turns = [
        {"tool_calls": [{"id": "t1", "name": "Bash", "input": {"command": command}}]},
        {"text": "done"},
    ]
    (project / "script.json").write_text(json.dumps({"turns": turns}))


def test_a_bash_grandchild_dies_when_the_harness_is_sigkilled(tmp_path: Path) -> None:
    pidfile = tmp_path / "sleep.pid"
    _script(tmp_path, LEAVES_A_SLEEP.format(pidfile=pidfile))
    _kill_harness_and_check(_harness(tmp_path), pidfile)


def test_a_command_hooks_grandchild_dies_when_the_harness_is_sigkilled(tmp_path: Path) -> None:
    pidfile = tmp_path / "hook-sleep.pid"
    _script(tmp_path, "true")
    hook = {"type": "command", "command": LEAVES_A_SLEEP.format(pidfile=pidfile), "timeout": 600}
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}}
    harness = _harness(tmp_path, "--settings", json.dumps(settings))
    _kill_harness_and_check(harness, pidfile)


def test_a_background_child_left_by_a_finished_command_dies_with_the_harness(
    tmp_path: Path,
) -> None:
    pidfile = tmp_path / "bg.pid"
    _script(tmp_path, f"sleep 300 > /dev/null 2>&1 & echo $! > {pidfile}")
    harness = _harness(tmp_path)
    assert harness.wait(timeout=60) == 0  # the run ends normally, the sleep still running
    pid = _pid_in(pidfile)
    assert pid is not None
    assert _wait_for(lambda: not _alive(pid)), f"sleep {pid} outlived the harness"


def test_the_watchdog_kills_every_listed_group_at_end_of_file_and_ignores_noise() -> None:
    sleeper = subprocess.Popen(["sleep", "300"], start_new_session=True)
    read_end, write_end = os.pipe()
    dog = subprocess.Popen(
        [sys.executable, "-I", "-S", watchdog.__file__], stdin=read_end, start_new_session=True
    )
    os.close(read_end)
    try:
        os.write(write_end, f"+{sleeper.pid}\nnot a line\n+1\n-999999\n".encode())
    finally:
        os.close(write_end)  # as if the harness died
    assert dog.wait(timeout=30) == 0
    assert sleeper.wait(timeout=30) == -signal.SIGKILL


def test_a_released_group_is_not_killed() -> None:
    keeper = subprocess.Popen(["sleep", "300"], start_new_session=True)
    read_end, write_end = os.pipe()
    dog = subprocess.Popen(
        [sys.executable, "-I", "-S", watchdog.__file__], stdin=read_end, start_new_session=True
    )
    os.close(read_end)
    try:
        os.write(write_end, f"+{keeper.pid}\n-{keeper.pid}\n".encode())
        os.close(write_end)
        assert dog.wait(timeout=30) == 0
        assert keeper.poll() is None
    finally:
        keeper.kill()
        keeper.wait()


def test_run_process_lists_its_group_and_releases_it_once_empty() -> None:
    done = asyncio.run(
        run_process(["/bin/sh", "-c", "echo $$"], stdin=b"", cwd="/", env={}, kill_grace=1)
    )
    pgid = int(done.stdout)
    assert pgid not in WATCHDOG._groups


def test_a_killed_watchdog_is_replaced_and_told_every_group() -> None:
    WATCHDOG.start()
    old = WATCHDOG._pid
    os.kill(old, signal.SIGKILL)
    assert _wait_for(lambda: not WATCHDOG._running())
    done = asyncio.run(run_process(["true"], stdin=b"", cwd="/", env={}, kill_grace=1))
    assert done.returncode == 0
    assert WATCHDOG._pid != old and WATCHDOG._running()


@pytest.mark.parametrize("cap", [3, 1 << 21])
def test_stream_cap_keeps_that_many_bytes(cap: int) -> None:
    argv = [sys.executable, "-c", "print('x' * 2_000_000, end='')"]
    done = asyncio.run(run_process(argv, stdin=b"", cwd="/", env={}, kill_grace=1, stream_cap=cap))
    assert len(done.stdout) == min(cap, 2_000_000)
    assert done.stdout_dropped == max(2_000_000 - cap, 0)


@pytest.mark.parametrize("steps", range(8))
def test_a_group_cancelled_while_starting_is_stopped_whole(tmp_path: Path, steps: int) -> None:
    """Cancelled at any point of its start (``steps`` turns of the event loop in), the whole
    group ends before the cancellation returns: no grandchild outlives it. (asyncio alone kills
    only the leader of a half-started process, and then waits for the grandchild's pipes.)"""
    pidfile = tmp_path / "pid"

    async def go() -> None:
        task = asyncio.create_task(
            run_process(
                ["sh", "-c", LEAVES_A_SLEEP.format(pidfile=pidfile)],
                stdin=b"",
                cwd=str(tmp_path),
                env=os.environ,
                kill_grace=0.2,
            )
        )
        for _ in range(steps):
            await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 20)  # a guard against a hang, not a timing claim

    asyncio.run(go())
    if pidfile.exists() and pidfile.read_text().strip():
        assert not _alive(int(pidfile.read_text()))


@pytest.mark.skipif(not process._pidfds_work(), reason="pidfds need Linux 5.3 or later")
@pytest.mark.parametrize(
    ("script", "returncode"), [("exit 3", 3), ("kill -9 $$", -9), ("echo out; echo err >&2", 0)]
)
def test_a_child_is_waited_for_without_a_thread_of_its_own(
    monkeypatch: pytest.MonkeyPatch, script: str, returncode: int
) -> None:
    """asyncio's default on Python 3.11 starts a thread to wait for each child; the exit is
    read from the child's pidfd on the loop instead, with the same exit code and output."""
    started: list[str] = []
    start = threading.Thread.start
    monkeypatch.setattr(threading.Thread, "start", lambda t: (started.append(t.name), start(t))[1])
    done = asyncio.run(
        run_process(["/bin/sh", "-c", script], stdin=b"", cwd="/", env={}, kill_grace=1)
    )
    assert (done.returncode, done.stdout, done.stderr) == (
        returncode, "out\n" * (returncode == 0), "err\n" * (returncode == 0)
    )  # fmt: skip
    assert started == []


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="child watchers are deprecated from 3.12")
def test_a_child_watcher_the_program_chose_is_the_one_used() -> None:
    """A program that installed its own child watcher keeps it: hookline's children are then
    waited for by that watcher, which sees each of them (none is reaped behind its back)."""
    seen: list[int] = []

    class Watcher(asyncio.ThreadedChildWatcher):  # a watcher of the program's own
        def add_child_handler(self, pid: int, callback: Any, *args: Any) -> None:
            seen.append(pid)
            super().add_child_handler(pid, callback, *args)

    async def go() -> int:
        return (
            await run_process(["/bin/sh", "-c", "exit 5"], stdin=b"", cwd="/", env={}, kill_grace=1)
        ).returncode

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        chosen = Watcher()
        asyncio.set_child_watcher(chosen)
        try:
            assert asyncio.run(go()) == 5
        finally:
            asyncio.set_child_watcher(None)
            chosen.close()
    assert len(seen) == 1


@pytest.mark.skipif(not process._pidfds_work(), reason="pidfds need Linux 5.3 or later")
@pytest.mark.skipif(sys.version_info >= (3, 12), reason="from 3.12 on asyncio reads the pidfd")
def test_a_child_without_a_pidfd_is_still_waited_for(monkeypatch: pytest.MonkeyPatch) -> None:
    """No descriptor left for its pidfd: the child is waited for the default way, and its exit
    code (2, a hook's block) is read all the same."""

    def no_descriptor(pid: int, flags: int = 0) -> int:
        raise OSError(24, "Too many open files")

    assert process._pidfds_work()  # known before: the child's own pidfd is what fails
    monkeypatch.setattr(os, "pidfd_open", no_descriptor)
    done = asyncio.run(
        run_process(["/bin/sh", "-c", "exit 2"], stdin=b"", cwd="/", env={}, kill_grace=1)
    )
    assert done.returncode == 2
