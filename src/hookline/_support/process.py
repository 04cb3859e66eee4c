"""A command run for a tool or a hook: fed its stdin, its output collected, and every process it
starts ended with its call.

Shared by command hooks and the Bash tool (and Grep's ripgrep).

``run_process`` has the watchdog (``hookline._support.reaper``, one per harness process,
started on first use) fork a keeper for the call, which starts ``argv`` in a session of its own,
with stdin, stdout and stderr on pipes to this process. It writes ``stdin`` and closes it, and
collects stdout and stderr, keeping at most ``STREAM_CAP`` bytes of each (the rest is read and
dropped, so a chatty hook never blocks on a full pipe). It returns when the command exits: like
Claude Code, it does not wait for a background child that still holds the output pipes open,
nor for one that holds stdin unread (what was not written of it is dropped). Every pipe of the
call is closed by the time it returns or raises: none is left to a transport that the event
loop, once it ends, leaves to the garbage collector (a ``ResourceWarning`` then).

What the command leaves running when it exits (``sleep 300 &``, a ``setsid`` child, a daemon
that double-forked) ends then too, unless the call hands it to ``leftovers`` (``Leftovers``: a
session's, for Bash), which ends it when it is closed. Either way it ends when the harness dies,
SIGKILL included. None of this is bookkeeping of process groups, which a ``setsid`` child
leaves: the keeper is a child subreaper, to which the kernel gives every orphaned process of
the call, so what it ends is exactly the call's processes, as the kernel sees them.

Cancelled (the engine's timeout, a Bash timeout), it has every process of the call sent SIGTERM,
waits ``kill_grace`` seconds, has them all sent SIGKILL, and re-raises the cancellation.

Why not ``PR_SET_PDEATHSIG``: it covers only the direct child (not the ``sleep`` that ``bash -c``
starts), it fires when the forking *thread* ends rather than the process, and setting it needs
``preexec_fn``, which is unsafe in a process with threads. Why not a PID namespace per call: it
needs privileges, or user namespaces that some systems refuse, and it ends everything when the
command exits, where a Bash call's ``&`` work is meant to live on for the session.
"""

from __future__ import annotations

import asyncio
import marshal
import os
import socket
from collections.abc import Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from functools import cached_property, lru_cache
from shutil import which

from hookline._support import reaper
from hookline._support.keepers import WATCHDOG, Leftovers

#: Bytes kept of each output stream.
STREAM_CAP = 1 << 20
#: After the exit, how long the output pipes get to reach end-of-file (a background child may
#: hold them open; what was written before the exit is already in the pipe).
_PIPES_GRACE = 0.1
#: After SIGKILL, how long to wait for the keeper to tell the exit.
_REAP_WAIT = 1.0
#: At most how long the closed transports get to let go of their pipes (they do on the next
#: turn of the event loop: a guard against a hang, never waited out).
_LET_GO_WAIT = 1.0


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
    leftovers: Leftovers | None = None,
) -> Finished:
    """Run ``argv`` to its exit; raises OSError if it (or the watchdog) cannot be started.

    ``stream_cap``: the bytes kept of each output stream; ``pass_fds``: descriptors the command
    inherits under the same numbers; ``leftovers``: who keeps what the command leaves running
    (None: it ends with the call)."""
    async with _Call.spawn(argv, env, cwd, pass_fds) as call:
        output = await call.connect(stream_cap)
        await call.send()
        await call.feed(stdin)  # now: the command finds it there as it starts
        await call.started()
        try:
            returncode = await call.exited()
            if not all(s.closed.is_set() for s in output):  # mostly they are: no timer to set
                with suppress(TimeoutError):
                    async with asyncio.timeout(_PIPES_GRACE):
                        await _closed(output)
        except asyncio.CancelledError:
            await call.stop(output, kill_grace)
            raise
        if not call.left:
            WATCHDOG.reuse(call.detach())  # nothing of it is left: its keeper takes another
        elif leftovers is not None:
            leftovers.keep(call.detach())
        out, err = output
        return Finished(returncode, bytes(out.kept), bytes(err.kept), out.dropped, err.dropped)


class _Call:
    """One call: its socket to its keeper, and this side of the command's three pipes, all
    closed when its ``async with`` ends (the socket unless handed on)."""

    def __init__(self, sock: socket.socket, pipes: list[int], request: bytes) -> None:
        self.sock: socket.socket | None = sock
        self._pipes = pipes  # stdin's write end, stdout's and stderr's read ends; -1: handed on
        self._request = request
        self._transports: list[tuple[asyncio.BaseTransport, _Pipe]] = []
        self._pending = b""
        #: Whether the command left processes running when it exited (unknown: True).
        self.left = True

    @classmethod
    def spawn(
        cls, argv: Sequence[str], env: Mapping[str, str], cwd: str, pass_fds: Sequence[int]
    ) -> _Call:
        """Hand a keeper the command's descriptors; OSError if there is no keeper to have."""
        if len(pass_fds) > reaper.MAX_FDS - 3:
            raise OSError(f"a command inherits at most {reaper.MAX_FDS - 3} descriptors")
        request = marshal.dumps(
            {"argv": list(argv), "env": dict(env), "cwd": cwd, "fds": list(pass_fds)}
        )
        ends = [os.pipe() for _ in range(3)]
        child = [ends[0][0], ends[1][1], ends[2][1]]
        try:
            keeper = _handed(len(request).to_bytes(8, "big"), [*child, *pass_fds])
        except BaseException:
            for read, write in ends:
                os.close(read if read not in child else write)
            raise
        finally:
            for fd in child:
                os.close(fd)
        return cls(keeper, [ends[0][1], ends[1][0], ends[2][0]], request)

    async def __aenter__(self) -> _Call:
        return self

    async def __aexit__(self, *exc: object) -> None:
        """Close what is left (the socket's closing has the keeper end the call's processes),
        and wait until the transports let go of their pipes: a transport closes its pipe one turn
        of the event loop after it is closed."""
        for transport, _ in self._transports:
            _let_go(transport)
        for fd in self._pipes:
            if fd >= 0:
                os.close(fd)
        if self.sock is not None:
            self.sock.close()
        with suppress(TimeoutError):  # a guard: a closed transport lets go on the next turn
            async with asyncio.timeout(_LET_GO_WAIT):
                await _closed([pipe for _, pipe in self._transports])

    def detach(self) -> socket.socket:
        """The call's socket, handed on: whoever holds it keeps the call's processes."""
        kept, self.sock = self.sock, None
        assert kept is not None
        return kept

    async def connect(self, cap: int) -> list[_Stream]:
        """Read stdout and stderr, keeping ``cap`` bytes of each."""
        loop, streams = asyncio.get_running_loop(), [_Stream(cap), _Stream(cap)]
        for index, stream in enumerate(streams, start=1):
            pipe = os.fdopen(self._pipes[index], "rb", buffering=0)
            self._pipes[index] = -1
            transport, _ = await loop.connect_read_pipe(lambda s=stream: s, pipe)  # type: ignore[misc]
            self._transports.append((transport, stream))
        return streams

    async def send(self) -> None:
        """Send the keeper what to run."""
        assert self.sock is not None
        await asyncio.get_running_loop().sock_sendall(self.sock, self._request)

    async def started(self) -> int:
        """The command's pid, or OSError saying why it could not start."""
        line = await self._line()
        if line.startswith("p"):
            return int(line[1:])
        if not line.startswith("e"):
            raise OSError("the keeper of the call ended before it said the command started")
        number, _, where = line[1:].partition(" ")
        code = int(number) if number.isdigit() else 0
        raise OSError(code, os.strerror(code), where.partition(" ")[2] or None)

    async def feed(self, data: bytes) -> None:
        """Write ``data`` to the command's stdin and close it. A command that exits without
        reading its stdin is fine: the pipe transport swallows the broken pipe."""
        fd, self._pipes[0] = self._pipes[0], -1
        if not data:
            os.close(fd)
            return
        pipe = os.fdopen(fd, "wb", buffering=0)
        loop = asyncio.get_running_loop()
        transport, stdin = await loop.connect_write_pipe(_Pipe, pipe)
        self._transports.append((transport, stdin))
        transport.write(data)
        transport.close()  # once what was written is flushed, or the pipe broke

    async def exited(self) -> int:
        """The command's exit code (negative: the signal that ended it), and whether anything
        it started is ``left`` running. A keeper gone before telling it (killed) reads as
        SIGKILL: a failure, never a success."""
        while line := await self._line():
            if line.startswith("x"):
                code, _, left = line[1:].partition(" ")
                self.left = left != "0"
                return int(code)
        return -9

    async def stop(self, output: list[_Stream], grace: float) -> None:
        """SIGTERM every process of the call; SIGKILL after ``grace`` seconds, or once all are
        gone (the exit told and the pipes closed); then wait a little for the exit."""
        self._order(b"t")
        exited = asyncio.ensure_future(self.exited())
        try:
            with suppress(TimeoutError):
                async with asyncio.timeout(grace):
                    await asyncio.shield(exited)
                    await _closed(output)
        finally:
            self._order(b"k")
        with suppress(TimeoutError):
            async with asyncio.timeout(_REAP_WAIT):
                await exited
        exited.cancel()

    def _order(self, order: bytes) -> None:
        with suppress(OSError):
            if self.sock is not None:
                self.sock.send(order)

    async def _line(self) -> str:
        """The keeper's next line; "" once it is gone."""
        assert self.sock is not None
        loop = asyncio.get_running_loop()
        while b"\n" not in self._pending:
            data = await loop.sock_recv(self.sock, 256)
            if not data:
                return ""
            self._pending += data
        line, _, self._pending = self._pending.partition(b"\n")
        return line.decode("utf-8", "surrogateescape")


def _handed(head: bytes, fds: list[int]) -> socket.socket:
    """A keeper that took ``fds``; one that waited since its last call and was killed
    meanwhile is let go for another."""
    while True:
        keeper, reused = WATCHDOG.keeper()
        try:
            keeper.setblocking(True)
            socket.send_fds(keeper, [head], fds)
        except OSError:
            keeper.close()
            if reused:
                continue
            raise
        keeper.setblocking(False)
        return keeper


def _let_go(transport: asyncio.BaseTransport) -> None:
    """Close ``transport`` now; stdin's drops what it has not written yet (no one read it)."""
    if isinstance(transport, asyncio.WriteTransport) and transport.get_write_buffer_size():
        transport.abort()
    else:
        transport.close()  # closing already (at end-of-file, flushed, broken): nothing to do


class _Pipe(asyncio.Protocol):
    """This side of one of the command's pipes: ``closed`` once its transport let go of it."""

    def __init__(self) -> None:
        self.closed = asyncio.Event()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed.set()


class _Stream(_Pipe):
    """Collects one output stream, keeping ``cap`` bytes and counting the rest."""

    def __init__(self, cap: int) -> None:
        super().__init__()
        self.cap = cap
        self.kept = bytearray()
        self.dropped = 0

    def data_received(self, data: bytes) -> None:
        room = max(self.cap - len(self.kept), 0)
        self.kept += data[:room]
        self.dropped += max(len(data) - room, 0)


async def _closed(pipes: Sequence[_Pipe]) -> None:
    for pipe in pipes:
        await pipe.closed.wait()


def find_program(name: str) -> str | None:
    """Where ``name`` is on ``PATH`` (looked up once per name and ``PATH``), or None."""
    return _find(name, os.environ.get("PATH", ""))


@lru_cache(maxsize=64)
def _find(name: str, path: str) -> str | None:
    return which(name, path=path)
