"""The reaper (the watchdog process) and its keepers: nothing a tool or a hook starts outlives
its call, its session or the harness, however it detaches (``setsid``, a double fork, ``nohup``,
a daemon).

Run as a script with no imports beyond the standard library (``python -I -S reaper.py``) by
``hookline._support.process``, one watchdog per harness process. The process tree::

    harness ──(socket)── watchdog            a child subreaper, outside the harness's tree
                          └── keeper          one per call, a child subreaper too
                               └── command    in a session of its own, and all it starts

Linux gives an orphaned process to its nearest ancestor that is a child subreaper
(``PR_SET_CHILD_SUBREAPER``), not to init: whatever a command starts and leaves behind, however
it left its process group, becomes a child of the call's keeper. So the keeper always knows its
call's processes, as the kernel keeps them: its descendants. It ends them all (SIGKILL, over and
over until none is left) when the harness closes its end of the call's socket, and so when the
harness dies, however it dies: the kernel closes that socket then.

Each keeper is forked from the watchdog (a fork of this small process, not a new interpreter)
when the harness asks for one (``n`` on the socket the harness holds, fd 0 here), ahead of the
call it will serve; the watchdog hands the harness its end of the keeper's socket. For a call,
the harness sends the keeper the command's stdin, stdout and stderr and the descriptors it
inherits, with the length of the request; then the request (``marshal``: argv, env, cwd, the
numbers of the inherited descriptors); later, maybe, ``t`` (SIGTERM every process of the call)
or ``k`` (SIGKILL them all). The keeper answers ``p<pid>``, or ``e<errno> <step> <what>`` (the
command could not be started), then ``x<exit code> <left>`` (a negative code: the signal that
ended it; ``left``: 1 if processes of the call still run). A keeper whose call left nothing
waits for the next call on the same socket; one whose call left processes exits once they have
ended, or ends them when its socket closes.

The watchdog is a child subreaper too: should a keeper be killed (by one of its own call's
processes, say), the call's processes come to the watchdog, which ends them at once. When the
harness's socket reads end-of-file, the watchdog ends everything below it and exits. It ignores
SIGINT, SIGTERM and SIGHUP, and lives in a session of its own, so that a Ctrl-C meant for the
harness's terminal group does not end it first.
"""

from __future__ import annotations

import ctypes
import marshal
import os
import select
import signal
import socket
import sys
import time
from collections.abc import Iterable
from contextlib import suppress

#: ``prctl`` option: orphaned descendants become this process's children.
PR_SET_CHILD_SUBREAPER = 36
#: Signals the watchdog and keepers ignore, and a command gets back at their defaults.
_IGNORED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_DEFAULTS = (*_IGNORED, signal.SIGPIPE, signal.SIGXFSZ)
#: The most descriptors one call passes (its socket, stdin, stdout, stderr and inherited ones).
MAX_FDS = 64


def main(fd: int = 0) -> None:
    """Fork a keeper each time the harness asks for one, until it goes; then end them all."""
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))  # what the harness let be inherited is not ours
    for sig in _IGNORED:
        signal.signal(sig, signal.SIG_IGN)
    subreaper()
    wake = _wakeup()
    harness = socket.socket(fileno=fd)
    keepers: set[int] = set()
    while True:
        ready, _, _ = select.select([fd, wake], [], [])
        if wake in ready:
            _drain(wake)
            _reap_keepers(keepers)
        if fd in ready:
            try:
                asked = harness.recv(16)
            except OSError:  # a broken connection is a gone harness
                break
            if not asked:
                break  # end-of-file: the harness is gone
            ours, theirs = socket.socketpair()
            keepers.add(_fork_keeper(theirs, (fd, wake, ours.fileno())))
            theirs.close()
            with suppress(OSError):  # gone: the next read says so
                socket.send_fds(harness, [b"k"], [ours.fileno()])
            ours.close()
    end_all(os.getpid())


def subreaper() -> bool:
    """Make this process a child subreaper; False where the kernel has none (not Linux)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def _wakeup() -> int:
    """A descriptor that turns readable when a child exits (SIGCHLD)."""
    read, write = os.pipe()
    for end in (read, write):
        os.set_blocking(end, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(write)
    return read


def _drain(fd: int) -> None:
    with suppress(BlockingIOError):
        while os.read(fd, 512):
            pass


def _reap_keepers(keepers: set[int]) -> None:
    """Reap exited children. A keeper that did not end cleanly (killed) may have left its
    call's processes, now the watchdog's: they are ended at once. Orphans are not keepers."""
    stray = False
    for pid, status in _reaped():
        if pid not in keepers:
            continue
        keepers.discard(pid)
        stray = stray or os.waitstatus_to_exitcode(status) != 0
    if stray:
        for pid in _children(os.getpid()):
            if pid not in keepers:
                end_all(pid, including=True)


def _reaped() -> Iterable[tuple[int, int]]:
    """Every child that has exited, reaped."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        yield pid, status


def _fork_keeper(call: socket.socket, inherited: tuple[int, ...]) -> int:
    """Fork a keeper that waits on ``call`` for its call."""
    try:
        pid = os.fork()
    except OSError:
        return -1  # its socket closes unused: the harness reads that nothing started
    if pid == 0:
        try:
            for fd in inherited:
                os.close(fd)
            keep(call)
        finally:
            os._exit(0)
    return pid


# -- the keeper: one call ---------------------------------------------------------------------


def keep(call: socket.socket) -> None:
    """Run calls, one after another, for as long as each leaves nothing behind."""
    reaper = subreaper()
    wake = _wakeup()
    while _one_call(call, wake, reaper=reaper):
        pass


def _one_call(call: socket.socket, wake: int, *, reaper: bool) -> bool:
    """Wait for a call, then run it: start the command, tell its pid, then its exit code and
    whether anything of it is left. True: nothing is, and this keeper takes the next call.

    The call comes as its descriptors (stdin, stdout, stderr, inherited ones) with the
    request's length, then the request (``marshal``: argv, env, cwd, inherited numbers)."""
    head, fds, _, _ = socket.recv_fds(call, 8, MAX_FDS)
    if not fds:
        return False  # the harness went, or let this keeper go
    for received in fds:  # none reaches the command but by its place (``_placed``)
        os.set_inheritable(received, False)
    size = int.from_bytes(head + _exactly(call, 8 - len(head)), "big")
    pid, failure = _start(marshal.loads(_exactly(call, size)), fds)
    for fd in fds:
        os.close(fd)  # the command's output ends when the command's own copies close
    _send(call, f"p{pid}" if pid > 0 else f"e{failure}")
    if pid < 0:
        return True
    running, session = True, 0 if reaper else pid  # the session: only where orphans escape
    while True:
        ready, _, _ = select.select([call.fileno(), wake], [], [])
        if wake in ready:
            _drain(wake)
            for child, status in _reaped():
                if child == pid:
                    running = False
                    left = _has_children() or bool(session and _processes(0, session))
                    _send(call, f"x{os.waitstatus_to_exitcode(status)} {int(left)}")
                    if not left:
                        return True
            if not running and not _has_children() and not (session and _processes(0, session)):
                return False  # what it left has ended: the holder of the call reads so
        if call.fileno() in ready:
            order = _receive(call)
            if order in (b"", b"k"):
                end_all(os.getpid(), session=session)
            elif order == b"t":
                for process in _processes(os.getpid(), session):
                    _signal(process, signal.SIGTERM)
            if order == b"":
                return False  # the harness is done with the call, or gone


def _exactly(call: socket.socket, size: int) -> bytes:
    data = bytearray()
    while len(data) < size:
        piece = call.recv(min(size - len(data), 1 << 20))
        if not piece:
            raise SystemExit(0)  # the harness gave up before the call was sent
        data += piece
    return bytes(data)


def _start(request: dict[str, object], fds: list[int]) -> tuple[int, str]:
    """Start the command in a session of its own (``posix_spawn``: no copy of this process is
    made): its pid, or -1 and why it could not start (``errno step what``)."""
    argv = [str(a) for a in request["argv"]]  # type: ignore[attr-defined]
    env = {str(k): str(v) for k, v in request["env"].items()}  # type: ignore[attr-defined]
    cwd, targets = str(request["cwd"]), list(request["fds"])  # type: ignore[call-overload]
    step, what = "cwd", cwd
    try:
        os.chdir(cwd)  # the keeper's folder is the command's
        step, what = "exec", argv[0]
        program = _program(argv[0], env)
        actions = _placed(fds, [0, 1, 2, *targets])
        pid = os.posix_spawn(
            program, argv, env, file_actions=actions, setsid=True, setsigdef=_DEFAULTS
        )
        return pid, ""
    except OSError as exc:
        return -1, f"{exc.errno or 0} {step} {what}"


def _program(name: str, env: dict[str, str]) -> str:
    """The file ``name`` runs, found on the command's own PATH as ``execvpe`` would find it."""
    if os.sep in name:
        return name
    for folder in os.get_exec_path(env):
        path = os.path.join(folder, name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    raise FileNotFoundError(2, os.strerror(2), name)


def _placed(fds: list[int], targets: list[int]) -> list[tuple[int, ...]]:
    """File actions that put ``fds`` at the numbers ``targets``: each is first copied above
    every number in use, so that no target overwrites a descriptor still to be placed. Every
    other descriptor of the keeper closes on exec (the call's socket above all: a command
    holding it could keep its keeper's end open, or speak for it)."""
    above = max(*targets, *fds) + 1
    actions: list[tuple[int, ...]] = []
    for index, fd in enumerate(fds):
        actions.append((os.POSIX_SPAWN_DUP2, fd, above + index))
    for index, target in enumerate(targets):
        actions.append((os.POSIX_SPAWN_DUP2, above + index, target))
    actions.extend((os.POSIX_SPAWN_CLOSE, above + index) for index in range(len(fds)))
    return actions


def _send(call: socket.socket, line: str) -> None:
    with suppress(OSError):  # the harness went: the next read says so
        call.sendall(f"{line}\n".encode("utf-8", "surrogateescape"))


def _receive(call: socket.socket) -> bytes:
    try:
        return call.recv(1)
    except OSError:
        return b""


def _has_children() -> bool:
    """Whether any child is left (alive, or exited and not reaped yet); reaps none."""
    try:
        os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return False
    return True


# -- ending processes -------------------------------------------------------------------------


def end_all(root: int, *, session: int = 0, including: bool = False) -> None:
    """SIGKILL every descendant of ``root`` (and ``root`` itself, ``including``) and every
    process of ``session``, over and over, reaping what is this process's to reap, until none
    is left alive."""
    for _ in range(1_000):  # each round ends a generation that was forking as it died
        alive = _processes(root, session, including=including)
        if not alive:
            return
        for pid in alive:
            _signal(pid, signal.SIGKILL)
        for _ in _reaped():
            pass
        time.sleep(0.001)


def _processes(root: int, session: int, *, including: bool = False) -> list[int]:
    """The live processes below ``root`` (``root`` too, ``including``) and in ``session`` (0:
    none). Where the kernel gives no subreaper, the session is how a call's orphans are still
    found: those that did not leave it."""
    found = _below(root, session) | ({root} if including else set())
    return sorted(pid for pid in found if (fields := _stat(pid)) and fields[0] != "Z")


def _below(root: int, session: int) -> set[int]:
    """Every process below ``root`` and in ``session``: from the kernel's lists of each
    process's children where it keeps them, else from the parent links of all of ``/proc``."""
    if not session and _LISTS_CHILDREN:
        found: set[int] = set()
        todo = [root]
        while todo:
            for child in _listed_children(todo.pop()):
                if child not in found:
                    found.add(child)
                    todo.append(child)
        return found
    children: dict[int, list[int]] = {}
    found = set()
    for name in os.listdir("/proc"):
        if name.isdigit() and (fields := _stat(int(name))) is not None:
            children.setdefault(int(fields[1]), []).append(int(name))
            if session and int(fields[3]) == session:
                found.add(int(name))
    todo = list(children.get(root, ())) if root else []  # root 0: the session alone
    while todo:
        pid = todo.pop()
        found.add(pid)
        todo.extend(children.get(pid, ()))
    return found


def _listed_children(pid: int) -> list[int]:
    """The children of ``pid``'s threads, as ``/proc/PID/task/TID/children`` lists them."""
    children: list[int] = []
    with suppress(OSError):  # gone
        for task in os.listdir(f"/proc/{pid}/task"):
            with suppress(OSError), open(f"/proc/{pid}/task/{task}/children", "rb") as listed:
                children.extend(int(child) for child in listed.read().split())
    return children


#: Whether the kernel lists each thread's children (``CONFIG_PROC_CHILDREN``).
_LISTS_CHILDREN = os.path.exists(f"/proc/self/task/{os.getpid()}/children")


def _children(root: int) -> list[int]:
    """The live children of ``root``."""
    return [pid for pid in _processes(root, 0) if (fields := _stat(pid)) and int(fields[1]) == root]


def _stat(pid: int) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` after the command name (state, parent, group,
    session, ...); None: gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rpartition(b")")[2].decode().split()
    except OSError:
        return None


def _signal(pid: int, sig: signal.Signals) -> None:
    with suppress(ProcessLookupError, PermissionError):
        os.kill(pid, sig)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
