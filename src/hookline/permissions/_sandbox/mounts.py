"""What a sandbox mounts where: the writable places, the protected set read-only, ``.git`` pinned.

The protected set (``hookline.permissions._protected``: each root's ``.claude/``, ``.hookline/``,
``.mcp.json``, the code parts of ``.git`` and of its submodules and linked worktrees, the home
folder's ``.claude`` and ``.hookline``, the state key, the files the settings name as code) is
bound read-only over whatever the sandbox may write. An entry that does not exist yet, in a
place the sandbox may write, gets a **placeholder** first (``Placeholders``), so the command
cannot make it: an empty folder (``.claude``, ``.git/hooks``), an empty file (``.git/config``,
a code file), ``{"mcpServers": {}}`` for ``.mcp.json`` and ``.`` for ``commondir`` (git reads
it as "the common folder is this one": no change). Placeholders live while a sandbox that needs
them runs; the last one removes them unless someone changed them or another process may have
them mounted (``Placeholders``). Empty folders are kept (nothing reads them, and git does not
show them), but for a root's ``.git``, which would look like a repository; ``.hookline/`` is
made private, as hookline makes it.

Each root's ``.git`` is **pinned**: a folder is bound onto itself (a mount point cannot be
renamed, removed or replaced, so ``mv .git x; mkdir .git`` fails) and stays writable inside, so
``git add`` and ``git commit`` work; a ``.git`` file (a linked worktree's) is bound read-only;
a missing one gets an empty read-only folder, so no repository can be planted there. An entry
that is a symbolic link in a place the sandbox may write cannot be pinned (the link itself could
be replaced): the sandbox does not start, and the error names it.
"""

from __future__ import annotations

import fcntl
import os
import stat
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from hookline._support.private import FOLDER, open_private, private_dir

_CONTENT: Final = {"commondir": b".\n", ".mcp.json": b'{"mcpServers": {}}\n'}
_FILES: Final = frozenset({"config", "config.worktree", "commondir", "gitdir", ".mcp.json", "HEAD"})


class MountError(Exception):
    """The protected set cannot be kept here; the message names the path and why."""


@dataclass(slots=True)
class Plan:
    """The binds of one sandbox, in bwrap's order (later mounts win)."""

    writable: list[str] = field(default_factory=list)
    #: Each root's ``.git`` folder, bound onto itself (writable).
    pinned: list[str] = field(default_factory=list)
    #: Bound read-only; those that do not exist when bwrap starts are left out.
    read_only: list[str] = field(default_factory=list)
    #: Entries to make as placeholders first: path, and whether a folder.
    missing: list[tuple[str, bool]] = field(default_factory=list)


def plan(
    writable: Sequence[str], read_only: Sequence[str], protected: Sequence[str], git: Sequence[str]
) -> Plan:
    """The binds for ``writable`` (real, existing), ``read_only`` (``denyWrite``, real), the
    protected entries and the ``.git`` of each root; MountError for a link that cannot be
    pinned."""
    found = Plan(writable=sorted(set(writable), key=depth))
    for path in git:
        if (place := _place(path, found.writable)) is None:
            continue
        if os.path.isdir(place) and not os.path.islink(place):
            _refuse_links(place, found.writable)
            found.pinned.append(place)
        else:
            _keep(found, place)
    for path in protected:
        if (place := _place(path, found.writable)) is not None:
            _keep(found, place)
    found.read_only = sorted({*found.read_only, *read_only}, key=depth)
    return found


def _place(path: str, writable: Sequence[str]) -> str | None:
    """``path`` as it lies in a writable place (its folder's real path tried too); None when
    it lies in none (then the sandbox cannot write it anyway)."""
    path = os.path.normpath(path)
    if _may_write(path, writable):
        return path
    folder, name = os.path.split(path)
    resolved = os.path.join(os.path.realpath(folder), name)
    return resolved if _may_write(resolved, writable) else None


def _keep(found: Plan, path: str) -> None:
    """Bind ``path`` read-only; when it is missing, plan its placeholder (or that of its first
    missing folder, which then keeps everything below it from being made)."""
    _refuse_links(path, found.writable)
    found.read_only.append(path)
    if os.path.lexists(path):
        return
    top = path
    while not os.path.lexists(parent := os.path.dirname(top)) and _may_write(
        parent, found.writable
    ):
        top = parent
    if not os.path.isdir(os.path.dirname(top)):
        return  # under a file (a worktree's .git): nothing can be made there
    if any(top == held or top.startswith(held + "/") for held, _ in found.missing):
        return
    found.missing.append((top, top != path or _folder(path)))
    found.read_only.append(top)


def _folder(path: str) -> bool:
    name = os.path.basename(path)
    return name not in _FILES and not os.path.splitext(name)[1]


def depth(path: str) -> tuple[int, str]:
    """Parents before children."""
    return path.rstrip("/").count("/"), path


def _may_write(path: str, writable: Sequence[str]) -> bool:
    return any(path == place or path.startswith(place.rstrip("/") + "/") for place in writable)


def _refuse_links(path: str, writable: Sequence[str]) -> None:
    """MountError when ``path`` or a folder on its way from the writable place holding it is a
    symbolic link: the link could be replaced, and the mount would not follow."""
    place = max((p for p in writable if _may_write(path, [p])), key=len)
    current = place.rstrip("/")
    for part in filter(None, path[len(current) :].split("/")):
        current = f"{current}/{part}"
        if os.path.islink(current):
            raise MountError(
                f"{current} is a symbolic link in a folder the sandbox may write, so it could "
                "be replaced; make it a real folder or file, or set sandbox.enabled to false"
            )


class Placeholders:
    """The placeholders in use, counted, so that sandboxes running at once share them: one
    registry per process (``PLACEHOLDERS``), and across processes a shared lock on a file
    (``lock``) held while any is in use. The last holder removes them only when it can take
    that lock alone: while another process's sandbox may have one mounted, they stay (an
    unlinked mount point would be detached inside it, and the path free to make)."""

    def __init__(self, lock: str) -> None:
        self.lock = lock
        self._lock = threading.Lock()
        self._held: dict[str, tuple[int, os.stat_result]] = {}
        #: Placeholders no sandbox of this process holds now, to remove with the last one.
        self._idle: dict[str, os.stat_result] = {}
        self._users = 0
        self._fd: int | None = None

    def acquire(self, paths: Sequence[tuple[str, bool]]) -> list[str]:
        """Make each missing path, a folder or a file (kept while any holder runs); the paths
        now held. Every call must be matched by a ``release``."""
        held: list[str] = []
        with self._lock:
            if self._users == 0:
                self._fd = _shared(self.lock)
            self._users += 1
            for path, folder in paths:
                if path in self._idle:
                    self._held[path] = (0, self._idle.pop(path))
                if path in self._held:
                    count, first = self._held[path]
                    self._held[path] = (count + 1, first)
                    held.append(path)
                elif (made := _make(Path(path), folder=folder)) is not None:
                    self._held[path] = (1, made)
                    held.append(path)
        return held

    def release(self, paths: Sequence[str]) -> None:
        """Let go of ``paths``; the last holder of the process removes each one nobody
        changed, when no other process holds the lock."""
        with self._lock:
            self._users -= 1
            for path in paths:
                count, made = self._held.pop(path)
                if count > 1:
                    self._held[path] = (count - 1, made)
                else:
                    self._idle[path] = made
            if self._users > 0:
                return
            fd, self._fd = self._fd, None
            if fd is None:
                return
            if _alone(fd):  # else kept, for a later last holder to remove
                idle, self._idle = self._idle, {}
                for path in sorted(idle, key=depth, reverse=True):
                    _remove(path, idle[path])
            os.close(fd)


def _shared(lock: str) -> int | None:
    """A descriptor holding a shared lock on ``lock`` (None when it cannot be had: then no
    placeholder is ever removed)."""
    try:
        fd = open_private(lock, os.O_RDWR)
    except OSError:
        return None
    fcntl.flock(fd, fcntl.LOCK_SH)
    return fd


def _alone(fd: int) -> bool:
    """Whether no other process holds the lock (taken exclusively, without waiting)."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


#: The process's placeholders; the lock file is private to the user, in the temp folder.
PLACEHOLDERS: Final = Placeholders(
    os.path.join(tempfile.gettempdir(), f"hookline-{os.getuid()}", "sandbox-placeholders.lock")
)


def _make(path: Path, *, folder: bool) -> os.stat_result | None:
    """Create the placeholder; its stat to recognise it by, None for one kept for good (or one
    that could not be made, which the command, the same user, cannot make either)."""
    try:
        if path.name == FOLDER and folder:
            private_dir(path)  # 0700, with its .gitignore: kept
            return None
        if not folder:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
            with os.fdopen(fd, "wb") as file:
                file.write(_CONTENT.get(path.name, b""))
        else:
            path.mkdir(mode=0o755)
            if path.name != ".git":
                return None  # an empty folder is kept: nothing reads it, git does not show it
        return path.lstat()
    except FileExistsError:
        return None  # made meanwhile by someone else: theirs, and it is mounted as it is
    except OSError:
        return None


def _remove(path: str, made: os.stat_result) -> None:
    """Remove the placeholder if it is still the one made (same file, unchanged)."""
    try:
        now = os.lstat(path)
    except OSError:
        return
    same = (now.st_ino, now.st_dev, now.st_mtime_ns, now.st_size) == (
        made.st_ino,
        made.st_dev,
        made.st_mtime_ns,
        made.st_size,
    )
    if not same:
        return
    try:
        if stat.S_ISDIR(now.st_mode):
            os.rmdir(path)  # only when still empty
        else:
            os.unlink(path)
    except OSError:
        pass
