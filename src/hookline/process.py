"""A child process in its own process group: fed its stdin, output collected, group killed.

Shared by command hooks and the Bash tool.

``run_process`` starts ``argv`` as the leader of a new session (so of a new process group),
writes ``stdin`` and closes it, and collects stdout and stderr, keeping at most ``STREAM_CAP``
bytes of each (the rest is read and dropped, so a chatty hook never blocks on a full pipe).
It returns when the process exits: like Claude Code, it does not wait for a background child
that still holds the output pipes open.

Cancelled (the engine's timeout), it sends SIGTERM to the whole group, waits ``kill_grace``
seconds, sends SIGKILL to the group, reaps the leader and re-raises the cancellation.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from subprocess import PIPE

#: Bytes kept of each output stream.
STREAM_CAP = 1 << 20
#: After the exit, how long the output pipes get to reach end-of-file (a background child may
#: hold them open; what was written before the exit is already in the pipe).
_PIPES_GRACE = 0.1
#: After SIGKILL, how long to wait for the leader to be reaped.
_REAP_WAIT = 1.0


@dataclass(frozen=True, slots=True)
class Finished:
    """How a process ended: its exit code and what it wrote (decoded, capped)."""

    returncode: int
    stdout: str
    stderr: str
    #: Bytes read beyond ``STREAM_CAP`` and dropped.
    stdout_dropped: int = 0
    stderr_dropped: int = 0


async def run_process(
    argv: Sequence[str],
    *,
    stdin: bytes,
    cwd: str,
    env: Mapping[str, str],
    kill_grace: float,
) -> Finished:
    """Run ``argv`` to its exit; raises OSError if it cannot be started."""
    loop = asyncio.get_running_loop()
    transport, output = await loop.subprocess_exec(
        _Output,
        *argv,
        stdin=PIPE,
        stdout=PIPE,
        stderr=PIPE,
        cwd=cwd,
        env=dict(env),
        start_new_session=True,
    )
    try:
        _feed(transport, stdin)
        try:
            await output.exited.wait()
            with suppress(TimeoutError):
                await asyncio.wait_for(output.closed.wait(), _PIPES_GRACE)
        except asyncio.CancelledError:
            await _stop_group(transport.get_pid(), output, kill_grace)
            raise
        returncode = transport.get_returncode()
        return output.finished(-1 if returncode is None else returncode)
    finally:
        transport.close()


class _Output(asyncio.SubprocessProtocol):
    """Collects a process's stdout (fd 1) and stderr (fd 2), and notes when it exits."""

    def __init__(self) -> None:
        self.kept = {1: bytearray(), 2: bytearray()}
        self.dropped = {1: 0, 2: 0}
        self.exited = asyncio.Event()
        self.closed = asyncio.Event()
        self._open = {1, 2}

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        kept = self.kept[fd]
        room = max(STREAM_CAP - len(kept), 0)
        kept += data[:room]
        self.dropped[fd] += max(len(data) - room, 0)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        self._open.discard(fd)
        if not self._open:
            self.closed.set()

    def process_exited(self) -> None:
        self.exited.set()

    def finished(self, returncode: int) -> Finished:
        return Finished(
            returncode,
            self.kept[1].decode("utf-8", "replace"),
            self.kept[2].decode("utf-8", "replace"),
            self.dropped[1],
            self.dropped[2],
        )


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
