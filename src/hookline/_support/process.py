"""A child process in its own process group: fed its stdin, output collected, group killed.

Shared by command hooks and the Bash tool.

``run_process`` starts ``argv`` as the leader of a new session (so of a new process group),
writes ``stdin`` and closes it, and collects stdout and stderr, keeping at most ``STREAM_CAP``
bytes of each (the rest is read and dropped, so a chatty hook never blocks on a full pipe).
It returns when the process exits: like Claude Code, it does not wait for a background child
that still holds the output pipes open.

Cancelled (the engine's timeout), it sends SIGTERM to the whole group, waits ``kill_grace``
seconds, sends SIGKILL to the group, reaps the leader and re-raises the cancellation.

No orphans: every group is listed with this process's watchdog (``hookline._support.watchdog``,
one per harness process, started on first use), which SIGKILLs the groups it knows when the harness
dies, SIGKILL included. A group stays listed after its leader exits while a background child
of it lives (``sleep 300 &``), so that child too ends with the harness. Why not
``PR_SET_PDEATHSIG``: it covers only the direct child (not the ``sleep`` that ``bash -c``
starts), it fires when the forking *thread* ends rather than the process, and setting it needs
``preexec_fn``, which is unsafe in a process with threads. The one gap: a harness killed between
the fork and the next line (the group being listed) leaves that child behind.
"""

from __future__ import annotations

import asyncio
import asyncio.unix_events as unix_events
import os
import signal
import sys
import threading
from collections.abc import Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from shutil import which
from subprocess import PIPE
from typing import Any

from hookline._support import watchdog

#: Bytes kept of each output stream.
STREAM_CAP = 1 << 20
#: After the exit, how long the output pipes get to reach end-of-file (a background child may
#: hold them open; what was written before the exit is already in the pipe).
_PIPES_GRACE = 0.1
#: After SIGKILL, how long to wait for the leader to be reaped.
_REAP_WAIT = 1.0


@dataclass(frozen=True)
class Finished:
    """How a process ended: its exit code and what it wrote (capped), as bytes and as UTF-8
    text (bytes that are not UTF-8 read as U+FFFD)."""

    returncode: int
    stdout_bytes: bytes
    stderr_bytes: bytes
    #: Bytes read beyond ``STREAM_CAP`` and dropped.
    stdout_dropped: int = 0
    stderr_dropped: int = 0

    @cached_property
    def stdout(self) -> str:
        return self.stdout_bytes.decode("utf-8", "replace")

    @cached_property
    def stderr(self) -> str:
        return self.stderr_bytes.decode("utf-8", "replace")


async def run_process(
    argv: Sequence[str],
    *,
    stdin: bytes,
    cwd: str,
    env: Mapping[str, str],
    kill_grace: float,
    stream_cap: int = STREAM_CAP,
    pass_fds: Sequence[int] = (),
) -> Finished:
    """Run ``argv`` to its exit; raises OSError if it (or the watchdog) cannot be started.

    ``stream_cap``: the bytes kept of each output stream; ``pass_fds``: descriptors the child
    inherits under the same numbers."""
    WATCHDOG.start()
    transport, output = await _spawn(
        argv, cwd=cwd, env=env, cap=stream_cap, grace=kill_grace, pass_fds=pass_fds
    )
    pgid = transport.get_pid()
    try:
        _feed(transport, stdin)
        try:
            await output.exited.wait()
            if not output.closed.is_set():  # most often they are: no timer to set
                with suppress(TimeoutError):
                    async with asyncio.timeout(_PIPES_GRACE):
                        await output.closed.wait()
        except asyncio.CancelledError:
            await _stop_group(pgid, output, kill_grace)
            raise
        returncode = transport.get_returncode()
        return output.finished(-1 if returncode is None else returncode)
    finally:
        transport.close()
        WATCHDOG.release_if_empty(pgid)


async def _spawn(
    argv: Sequence[str],
    *,
    cwd: str,
    env: Mapping[str, str],
    cap: int,
    grace: float,
    pass_fds: Sequence[int],
) -> tuple[asyncio.SubprocessTransport, _Output]:
    """Start the group and list it with the watchdog. Cancelled while starting, the start is
    let finish (shielded) and the whole group stopped: asyncio alone would kill only the
    leader, and its children would run on, holding the cancellation until they end."""
    options = {"cwd": cwd, "env": dict(env), "start_new_session": True, "pass_fds": tuple(pass_fds)}
    starting = asyncio.ensure_future(_exec(asyncio.get_running_loop(), _Output(cap), argv, options))
    try:
        transport, output = await asyncio.shield(starting)
    except asyncio.CancelledError:
        with suppress(OSError):
            transport, output = await starting
            WATCHDOG.watch(transport.get_pid())
            await _stop_group(transport.get_pid(), output, grace)
            transport.close()
            WATCHDOG.release_if_empty(transport.get_pid())
        raise
    WATCHDOG.watch(transport.get_pid())
    return transport, output


async def _exec(
    loop: asyncio.AbstractEventLoop, output: _Output, argv: Sequence[str], options: dict[str, Any]
) -> tuple[asyncio.SubprocessTransport, _Output]:
    """Start ``argv`` with three pipes, as ``loop.subprocess_exec`` does. On Python 3.11
    asyncio's default child watcher waits for each child on a thread of its own (a thread
    started and handed over to, a hook's largest cost after the spawn); where pidfds work, the
    exit is read from the child's pidfd on the loop instead, as Python 3.12 does by default,
    for these children only: the process-wide watcher is left as it is."""
    if not _pidfd_exits(loop):
        return await loop.subprocess_exec(
            lambda: output, *argv, stdin=PIPE, stdout=PIPE, stderr=PIPE, **options
        )
    started = loop.create_future()
    transport = unix_events._UnixSubprocessTransport(  # type: ignore[attr-defined]
        loop, output, list(argv), False, PIPE, PIPE, PIPE, 0, waiter=started, **options
    )
    _on_exit(loop, transport)
    try:
        await started  # the pipes connected
    except BaseException:
        transport.close()  # kills the child if it still runs
        await transport._wait()
        raise
    return transport, output


def _on_exit(loop: asyncio.AbstractEventLoop, transport: Any) -> None:
    """Reap the child when its pidfd turns readable and tell its transport the exit code. No
    child goes unwatched: without a pidfd for it (no descriptor left, say), the default
    watcher's thread waits for it."""
    pid = transport.get_pid()
    try:
        pidfd = os.pidfd_open(pid)
    except OSError:
        asyncio.get_child_watcher().add_child_handler(
            pid, lambda _, code: loop.call_soon_threadsafe(transport._process_exited, code)
        )
        return

    def exited() -> None:
        loop.remove_reader(pidfd)
        os.close(pidfd)
        try:
            returncode = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        except ChildProcessError:  # reaped elsewhere (a waitpid(-1) of someone else's): as
            returncode = 255  # asyncio says it, an exit that is no success, never a block
        transport._process_exited(returncode)

    loop.add_reader(pidfd, exited)


def _pidfd_exits(loop: asyncio.AbstractEventLoop) -> bool:
    """Whether ``_exec`` reads exits from pidfds itself: on Python 3.11, with asyncio's own
    Unix loop, while the process-wide child watcher is still the default thread per child (a
    watcher someone chose is used as chosen; from 3.12 on the default reads pidfds already)."""
    return (
        sys.version_info < (3, 12)
        and type(loop) is unix_events.SelectorEventLoop
        and _pidfds_work()
        and type(asyncio.get_child_watcher()) is asyncio.ThreadedChildWatcher
    )


@lru_cache(maxsize=1)
def _pidfds_work() -> bool:
    """Whether this system opens pidfds (Linux 5.3 and later)."""
    try:
        os.close(os.pidfd_open(os.getpid()))
    except (AttributeError, OSError):  # not Linux, or a kernel before 5.3
        return False
    return True


class _Output(asyncio.SubprocessProtocol):
    """Collects a process's stdout (fd 1) and stderr (fd 2), and notes when it exits."""

    def __init__(self, cap: int = STREAM_CAP) -> None:
        self.cap = cap
        self.kept = {1: bytearray(), 2: bytearray()}
        self.dropped = {1: 0, 2: 0}
        self.exited = asyncio.Event()
        self.closed = asyncio.Event()
        self._open = {1, 2}

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        kept = self.kept[fd]
        room = max(self.cap - len(kept), 0)
        kept += data[:room]
        self.dropped[fd] += max(len(data) - room, 0)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        self._open.discard(fd)
        if not self._open:
            self.closed.set()

    def process_exited(self) -> None:
        self.exited.set()

    def finished(self, returncode: int) -> Finished:
        kept, dropped = self.kept, self.dropped
        return Finished(returncode, bytes(kept[1]), bytes(kept[2]), dropped[1], dropped[2])


def _feed(transport: asyncio.SubprocessTransport, data: bytes) -> None:
    """Write ``data`` to the process's stdin and close it. A hook that exits without reading
    its stdin is fine: the pipe transport swallows the broken pipe."""
    pipe = transport.get_pipe_transport(0)
    if isinstance(pipe, asyncio.WriteTransport):
        pipe.write(data)
        pipe.close()


async def _stop_group(pid: int, output: _Output, grace: float) -> None:
    """SIGTERM the process group, SIGKILL it after ``grace`` seconds, and reap the leader.

    The grace lasts until the whole group is done, not just the leader: a ``/bin/sh -c`` leader
    exits at once on SIGTERM while the hook it started still handles the signal. The pipes
    closing tells that every process holding them has gone."""
    _signal_group(pid, signal.SIGTERM)
    try:
        with suppress(TimeoutError):
            await asyncio.wait_for(_group_done(output), grace)
    finally:
        _signal_group(pid, signal.SIGKILL)  # also the leader's children that outlived it
    with suppress(TimeoutError):
        await asyncio.wait_for(output.exited.wait(), _REAP_WAIT)


async def _group_done(output: _Output) -> None:
    await output.exited.wait()
    await output.closed.wait()


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


class Watchdog:
    """This process's link to its watchdog: which child process groups to kill if it dies."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._owner = 0  # the pid that started the watchdog: a forked child needs its own
        self._pid = 0
        self._fd = -1
        self._groups: set[int] = set()

    def start(self) -> None:
        """Start the watchdog unless this process has a live one; OSError if it cannot."""
        with self._lock:
            if self._owner != os.getpid():  # new, or forked: the groups are the parent's
                self._forget_parent()
                self._spawn()
            elif not self._running():
                self._spawn()

    def watch(self, pgid: int) -> None:
        """Kill group ``pgid`` when this process dies."""
        with self._lock:
            self._groups.add(pgid)
            self._send(f"+{pgid}\n")

    def release_if_empty(self, pgid: int) -> None:
        """Forget ``pgid`` once no process of it is left (a background child keeps it)."""
        if watchdog.group_alive(pgid):
            return
        with self._lock:
            self._groups.discard(pgid)
            self._send(f"-{pgid}\n")

    def _send(self, line: str) -> None:
        try:
            os.write(self._fd, line.encode())
        except OSError:  # the watchdog was killed: start another and tell it every group
            self._spawn()
            os.write(self._fd, "".join(f"+{g}\n" for g in self._groups).encode())

    def _running(self) -> bool:
        try:
            return os.waitpid(self._pid, os.WNOHANG) == (0, 0)
        except ChildProcessError:
            return False

    def _forget_parent(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)  # a forked copy of the parent's write end would hide its death
        self._fd, self._groups = -1, set()

    def _spawn(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        read_end, write_end = os.pipe()  # both ends close on exec in every other child
        try:
            self._pid = os.posix_spawn(
                sys.executable,
                [sys.executable, "-I", "-S", str(Path(watchdog.__file__))],
                dict(os.environ),
                file_actions=[
                    (os.POSIX_SPAWN_DUP2, read_end, 0),
                    (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                    (os.POSIX_SPAWN_DUP2, 1, 2),
                ],
                setsid=True,
            )
        except BaseException:
            os.close(write_end)
            raise
        finally:
            os.close(read_end)
        self._owner, self._fd = os.getpid(), write_end


#: This process's watchdog.
WATCHDOG = Watchdog()


def find_program(name: str) -> str | None:
    """Where ``name`` is on ``PATH`` (looked up once per name and ``PATH``), or None."""
    return _find(name, os.environ.get("PATH", ""))


@lru_cache(maxsize=64)
def _find(name: str, path: str) -> str | None:
    return which(name, path=path)
