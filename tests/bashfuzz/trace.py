"""What one strace'd Bash run did: the programs it executed and the files it changed.

``read_trace(text)`` reads the output of ``strace -f -qq -y -xx -e trace=...`` (``SYSCALLS``):
every string is in hexadecimal, so a path is decoded exactly, whatever bytes it holds. It
returns the ``Exec``\\ s (attempts too: a failed ``execve`` still shows what Bash meant to run)
and the ``Change``\\ s: an ``open`` for writing, creating or truncating, a rename, unlink,
``mkdir``, link, ``chmod``, ``chown``, a time or attribute change, a mount, a clock or host
name set. Each is absolute: relative paths are joined to the folder that process was in
(followed through ``chdir``, ``fchdir`` and ``clone``), and an open that succeeded is named by
the file the kernel opened (``-y``), links resolved.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

#: The system calls traced: process creation (to follow folders), program starts, and every
#: call that changes a file or the system by name or descriptor.
SYSCALLS = (
    "execve,execveat,clone,clone3,fork,vfork,chdir,fchdir,"
    "open,openat,openat2,creat,rename,renameat,renameat2,unlink,unlinkat,rmdir,mkdir,mkdirat,"
    "mknod,mknodat,link,linkat,symlink,symlinkat,truncate,ftruncate,chmod,fchmod,fchmodat,"
    "chown,fchown,lchown,fchownat,utime,utimes,utimensat,futimesat,setxattr,lsetxattr,"
    "fsetxattr,removexattr,lremovexattr,fremovexattr,bind,mount,umount2,settimeofday,"
    "clock_settime,sethostname,setdomainname"
)
_WRITE_FLAGS = ("O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND", "O_TMPFILE")
#: Calls that change what they name, and which of their arguments are (dirfd, path) pairs:
#: an index alone is a path (relative to the folder), a pair a directory descriptor and a path.
_CHANGES: dict[str, tuple[int | tuple[int, int], ...]] = {
    "creat": (0,), "rename": (0, 1), "renameat": ((0, 1), (2, 3)), "renameat2": ((0, 1), (2, 3)),
    "unlink": (0,), "unlinkat": ((0, 1),), "rmdir": (0,), "mkdir": (0,), "mkdirat": ((0, 1),),
    "mknod": (0,), "mknodat": ((0, 1),), "link": (1,), "linkat": ((2, 3),), "symlink": (1,),
    "symlinkat": ((1, 2),), "truncate": (0,), "ftruncate": (0,), "chmod": (0,), "fchmod": (0,),
    "fchmodat": ((0, 1),), "chown": (0,), "fchown": (0,), "lchown": (0,), "fchownat": ((0, 1),),
    "utime": (0,), "utimes": (0,), "utimensat": ((0, 1),), "futimesat": ((0, 1),),
    "setxattr": (0,), "lsetxattr": (0,), "fsetxattr": (0,), "removexattr": (0,),
    "lremovexattr": (0,), "fremovexattr": (0,), "mount": (1,), "umount2": (0,),
}  # fmt: skip
#: Calls that change the system, not a file.
_SYSTEM = frozenset({"settimeofday", "clock_settime", "sethostname", "setdomainname"})
_LINE = re.compile(r"^(\d+) +(?:<\.\.\. (\w+) resumed>|(\w+)\()(.*)$")
_RESULT = re.compile(r"\)\s+= ")
_HEX = re.compile(rb"\\x([0-9a-f]{2})")


@dataclass(frozen=True, slots=True)
class Exec:
    """A program a process started (or tried to: ``ok`` False)."""

    pid: int
    path: str
    argv: tuple[str, ...]
    ok: bool


@dataclass(frozen=True, slots=True)
class Change:
    """A file (or the system) changed by one call: ``syscall``, the absolute ``path``, and the
    program that made the call (the last one its process executed)."""

    pid: int
    syscall: str
    path: str
    program: str
    ok: bool
    #: The open flags, for an open.
    flags: str = ""
    #: Why it failed (``EEXIST``), for a call that did.
    error: str = ""


@dataclass
class Trace:
    execs: list[Exec] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)


@dataclass
class _Process:
    cwd: str
    program: str


_FORKS = ("clone", "clone3", "fork", "vfork")
Call = tuple[int, str, list[str], str]


def read_trace(text: str, *, cwd: str) -> Trace:
    """The programs started and files changed in one strace output; ``cwd``: where it began.

    A child's first calls may be written before its parent's ``clone`` returns: they wait for
    that line, so the child starts from its parent's folder and program as they were then."""
    calls = list(_calls(text))
    children = {int(r.strip()) for _, name, _, r in calls if name in _FORKS and r.strip().isdigit()}
    reader = _Reader(Trace(), {}, cwd)
    waiting: dict[int, list[Call]] = {}
    for call in calls:
        if call[0] in children and call[0] not in reader.processes:
            waiting.setdefault(call[0], []).append(call)
        else:
            reader.read(call, waiting)
    for held in waiting.values():  # a parent's clone never written: start from the defaults
        for call in held:
            reader.read(call, {})
    return reader.trace


@dataclass
class _Reader:
    trace: Trace
    processes: dict[int, _Process]
    cwd: str

    def read(self, call: Call, waiting: dict[int, list[Call]]) -> None:
        pid, name, args, result = call
        process = self.processes.setdefault(pid, _Process(self.cwd, "bash"))
        ok, fd_path = _outcome(result)
        trace, before = self.trace, len(self.trace.changes)
        if name in _FORKS and ok and result.strip().isdigit():
            child = int(result.strip())
            self.processes[child] = _Process(process.cwd, process.program)
            for held in waiting.pop(child, []):
                self.read(held, waiting)
        elif name in ("execve", "execveat"):
            path = _decode(args[1] if name == "execveat" else args[0])
            argv = tuple(_decode(a) for a in _list(args[2 if name == "execveat" else 1]))
            trace.execs.append(Exec(pid, _absolute(path, process.cwd), argv, ok))
            if ok:
                process.program = posixpath.basename(path)
        elif name in ("chdir", "fchdir") and ok:
            process.cwd = _fd_path(args[0]) or _absolute(_decode(args[0]), process.cwd)
        elif name in ("open", "openat", "openat2", "creat"):
            trace.changes.extend(_open(pid, name, args, ok, fd_path, process))
        elif name in _CHANGES:
            trace.changes.extend(_changed(pid, name, args, ok, process))
        elif name in _SYSTEM:
            trace.changes.append(Change(pid, name, "", process.program, ok))
        elif name == "bind" and (path := _socket_path(args)):
            trace.changes.append(Change(pid, name, _absolute(path, process.cwd), process.program,
                                        ok))  # fmt: skip
        if not ok and (error := re.match(r"\s*-1 (E[A-Z]+)", result)):
            trace.changes[before:] = [replace(c, error=error[1]) for c in trace.changes[before:]]


def _calls(text: str) -> Iterator[Call]:
    """(pid, syscall, arguments, result) per finished call, unfinished parts joined."""
    pending: dict[int, tuple[str, str]] = {}
    for line in text.splitlines():
        match = _LINE.match(line)
        if match is None:  # a signal, an exit, strace's own notes
            continue
        pid, resumed, name, rest = int(match[1]), match[2], match[3], match[4]
        if resumed is None and pid in pending:  # killed inside the call: count it as done
            yield _unresumed(pid, pending.pop(pid))
        if resumed is not None:
            name, head = pending.pop(pid, (resumed, ""))
            rest = head + rest
        if rest.endswith("<unfinished ...>"):
            pending[pid] = (name, rest[: -len("<unfinished ...>")].rstrip())
            continue
        args_text, result = _split_result(rest)
        yield pid, name, _arguments(args_text), result
    for pid, call in pending.items():
        yield _unresumed(pid, call)


def _unresumed(pid: int, call: tuple[str, str]) -> Call:
    """A call whose end strace never wrote (the process was killed in it)."""
    return pid, call[0], _arguments(call[1]), "?"


def _split_result(rest: str) -> tuple[str, str]:
    """The arguments' text and what follows their ``) = `` (hex strings hold no ``)``)."""
    ends = list(_RESULT.finditer(rest))
    if not ends:
        return rest, ""
    return rest[: ends[-1].start()], rest[ends[-1].end() :]


def _arguments(text: str) -> list[str]:
    """Top-level arguments of a call, split on commas outside quotes and brackets."""
    args, depth, start, quoted, index = [], 0, 0, False, 0
    while index < len(text):
        char = text[index]
        if quoted:
            if char == "\\":
                index += 1
            elif char == '"':
                quoted = False
        elif char == '"':
            quoted = True
        elif char in "([{<":
            depth += 1
        elif char in ")]}>":
            depth -= 1
        elif char == "," and depth == 0:
            args.append(text[start:index].strip())
            start = index + 1
        index += 1
    args.append(text[start:].strip())
    return args


def _outcome(result: str) -> tuple[bool, str | None]:
    """Whether the call succeeded, and the file its returned descriptor names (``-y``)."""
    match = re.match(r"\s*(-?\d+|\?)(?:<([^>]*)>)?", result)
    if match is None or match[1] == "?":
        return True, None  # the process ended inside the call: count it as done
    return int(match[1]) >= 0, (_decode(match[2]) if match[2] else None)


def _decode(arg: str) -> str:
    """A ``-xx`` string argument (``"\\x2f..."``, maybe ``...``-cut) as text."""
    arg = arg.strip()
    if arg.startswith('"'):
        arg = arg[1 : arg.rindex('"')] if arg.count('"') >= 2 else arg[1:]
    raw = _HEX.sub(lambda m: bytes([int(m[1], 16)]), arg.encode())
    return raw.decode(errors="surrogateescape")


def _fd_path(arg: str) -> str | None:
    """The path in a ``-y`` descriptor (``AT_FDCWD</x>``, ``3</x>``); None if it has none."""
    match = re.search(r"<(.*)>(?:\(deleted\))?$", arg.strip())
    return _decode(match[1]) if match else None


def _list(arg: str) -> list[str]:
    inner = arg.strip()
    inner = inner[1:-1] if inner.startswith("[") and inner.endswith("]") else inner
    return [a for a in _arguments(inner) if a.startswith('"')]


def _absolute(path: str, cwd: str) -> str:
    return posixpath.normpath(posixpath.join(cwd, path)) if path else cwd


def _at(args: list[str], dirfd: int, index: int, process: _Process) -> str:
    folder = _fd_path(args[dirfd]) or process.cwd
    if "AT_EMPTY_PATH" in " ".join(args) and args[index].strip() in ('""', "NULL"):
        return folder  # the descriptor itself
    if args[index].strip() == "NULL":
        return folder
    return _absolute(_decode(args[index]), folder)


def _open(pid: int, name: str, args: list[str], ok: bool, fd_path: str | None,
          process: _Process) -> Iterator[Change]:  # fmt: skip
    if name == "creat":
        flags = "O_CREAT|O_WRONLY|O_TRUNC"
        path = _absolute(_decode(args[0]), process.cwd)
    else:
        at = name != "open"
        flags = args[2 if at else 1]
        path = _at(args, 0, 1, process) if at else _absolute(_decode(args[0]), process.cwd)
    if any(flag in flags for flag in _WRITE_FLAGS):
        yield Change(pid, name, fd_path if ok and fd_path else path, process.program, ok, flags)


def _changed(pid: int, name: str, args: list[str], ok: bool,
             process: _Process) -> Iterator[Change]:  # fmt: skip
    for where in _CHANGES[name]:
        if isinstance(where, tuple):
            path = _at(args, where[0], where[1], process)
        elif name.startswith("f") and name not in ("futimesat",):  # a descriptor
            path = _fd_path(args[where]) or f"<fd {args[where]}>"
        else:
            path = _absolute(_decode(args[where]), process.cwd)
        yield Change(pid, name, path, process.program, ok)


def _socket_path(args: list[str]) -> str | None:
    match = re.search(r'sun_path="([^"]*)"', ",".join(args))
    return _decode(match[1]) if match and match[1] else None
