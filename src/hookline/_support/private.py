"""hookline's private files and folders: state that no other user, no tool and no commit sees.

    private_dir(state / "transcripts")            # made 0700, parents too
    fd = open_private(path, os.O_WRONLY | os.O_APPEND)   # made 0600
    touch_private(state / "hookline.db")          # made 0600 (SQLite's -wal and -shm follow it)

Modes are given to mkdir(2) and open(2), so a file is never readable by others, not even for a
moment. The umask can only take bits away; where it took the owner's, they are set again on
the open descriptor (``fchmod``), so the result does not depend on it. A file or folder inside
a ``.hookline`` folder found with wider bits (made before hookline kept them private) is
narrowed when hookline opens it. Every ``.hookline`` folder gets a ``.gitignore`` of ``*``, as
pytest's cache folder does, written once, so ``git status`` never shows the state; it keeps
``settings.json``, the team's project settings, in view.
"""

from __future__ import annotations

import os
import stat
from contextlib import suppress
from pathlib import Path

#: The name of hookline's folder in a project (and in the home folder).
FOLDER = ".hookline"
DIR_MODE = 0o700
FILE_MODE = 0o600
GITIGNORE = (
    "# hookline's private state (transcripts, the store, the audit): never committed.\n"
    "# Created by hookline; settings.json, the project's shared settings, stays in view.\n"
    "*\n"
    "!settings.json\n"
)


def private_dir(path: str | os.PathLike[str]) -> Path:
    """``path``, a folder, made 0700 with any missing parents; in a ``.hookline`` folder, the
    folders from it down narrowed to 0700 and its ``.gitignore`` written."""
    target = path if isinstance(path, Path) else Path(path)
    _make_private(str(target))
    return target


def open_private(path: str | os.PathLike[str], flags: int) -> int:
    """A descriptor on the file ``path``, created 0600 (its folder 0700) if it is missing."""
    file = str(path if isinstance(path, Path) else Path(path))
    _make_private(os.path.dirname(file) or ".")
    fd = os.open(file, flags | os.O_CREAT | os.O_CLOEXEC, FILE_MODE)
    try:
        info = os.fstat(fd)
        if stat.S_IMODE(info.st_mode) != FILE_MODE and (
            info.st_size == 0 or _hookline_root(file) is not None
        ):
            with suppress(PermissionError):  # not ours: leave it as its owner set it
                os.fchmod(fd, FILE_MODE)
    except BaseException:
        os.close(fd)
        raise
    return fd


def write_all(fd: int, data: bytes) -> None:
    """All of ``data`` written at ``fd``: one ``write(2)`` unless the disk is nearly full."""
    written = 0
    while written < len(data):
        written += os.write(fd, data[written:])


def replace_private(path: Path, data: bytes) -> None:
    """The file ``path`` holding ``data`` whole: written beside it (0600), on disk, then renamed
    into its place, so no reader and no crash ever finds it empty or half written."""
    fresh = path.with_name(f".{path.name}.{os.getpid()}")
    fd = open_private(fresh, os.O_WRONLY | os.O_TRUNC | os.O_NOFOLLOW)
    try:
        write_all(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(fresh, path)


def touch_private(path: str | os.PathLike[str]) -> None:
    """Make sure the file ``path`` exists, private (for files another library opens). A file
    that exists is narrowed by its path, never opened: closing a descriptor of a file drops
    every POSIX lock this process holds on it, SQLite's included, and a store this process has
    open already (a server's, and its checkpointer's connection) would lose them: another
    process could then delete the WAL from under its connections."""
    file = os.fspath(path)
    if not os.path.exists(file):
        os.close(open_private(file, os.O_RDONLY))
        return
    _make_private(os.path.dirname(file) or ".")
    info = os.stat(file)
    if stat.S_IMODE(info.st_mode) != FILE_MODE and (
        info.st_size == 0 or _hookline_root(file) is not None
    ):
        with suppress(PermissionError):  # not ours: leave it as its owner set it
            os.chmod(file, FILE_MODE)


def _make_private(folder: str) -> None:
    """``private_dir`` on a normalised path, in strings: every session opens its transcript
    through here, and building a ``Path`` for every parent cost more than the open."""
    missing: list[str] = []
    below = folder
    while not os.path.isdir(below) and (parent := os.path.dirname(below)) != below:
        missing.append(below)
        below = parent or "."
    for made in reversed(missing):
        with suppress(FileExistsError):  # another process made it first
            os.mkdir(made, DIR_MODE)
        _narrow(made, DIR_MODE)
    if (root := _hookline_root(folder)) is not None:
        _keep_out_of_git(root, folder, narrowed=missing)


def _hookline_root(path: str) -> str | None:
    """The nearest folder named ``.hookline`` that holds ``path`` (or is it), else None."""
    parts = path.split(os.sep)
    for index in range(len(parts) - 1, -1, -1):
        if parts[index] == FOLDER:
            return os.sep.join(parts[: index + 1])
    return None


def _keep_out_of_git(root: str, path: str, *, narrowed: list[str]) -> None:
    """Narrow the folders from ``root`` down to ``path`` (but those just ``narrowed``); write
    ``root/.gitignore`` once."""
    folders = [root]
    for part in path[len(root) :].split(os.sep)[1:]:  # "/state/transcripts": state, transcripts
        folders.append(os.path.join(folders[-1], part))
    for folder in folders:
        if folder not in narrowed:
            _narrow(folder, DIR_MODE)
    ignore = os.path.join(root, ".gitignore")
    if os.path.exists(ignore):
        return
    with suppress(FileExistsError):
        fd = os.open(ignore, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, FILE_MODE)
        try:
            os.fchmod(fd, FILE_MODE)
            os.write(fd, GITIGNORE.encode())
        finally:
            os.close(fd)


def _narrow(path: str, mode: int) -> None:
    """Set ``path``'s mode to ``mode`` if it differs and it is ours to change."""
    with suppress(FileNotFoundError, PermissionError):
        if stat.S_IMODE(os.stat(path).st_mode) != mode:
            os.chmod(path, mode)
