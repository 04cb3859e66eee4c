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
    folder = Path(path)
    missing: list[Path] = []
    while not folder.is_dir() and folder.parent != folder:
        missing.append(folder)
        folder = folder.parent
    for made in reversed(missing):
        with suppress(FileExistsError):  # another process made it first
            os.mkdir(made, DIR_MODE)
        _narrow(made, DIR_MODE)
    root = _hookline_root(Path(path))
    if root is not None:
        _keep_out_of_git(root, Path(path))
    return Path(path)


def open_private(path: str | os.PathLike[str], flags: int) -> int:
    """A descriptor on the file ``path``, created 0600 (its folder 0700) if it is missing."""
    file = Path(path)
    private_dir(file.parent)
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


def touch_private(path: str | os.PathLike[str]) -> None:
    """Make sure the file ``path`` exists, private (for files another library opens)."""
    os.close(open_private(path, os.O_RDONLY))


def _hookline_root(path: Path) -> Path | None:
    """The nearest folder named ``.hookline`` that holds ``path`` (or is it), else None."""
    for folder in (path, *path.parents):
        if folder.name == FOLDER:
            return folder
    return None


def _keep_out_of_git(root: Path, path: Path) -> None:
    """Narrow the folders from ``root`` down to ``path``; write ``root/.gitignore`` once."""
    folder = root
    _narrow(folder, DIR_MODE)
    for part in path.relative_to(root).parts:
        folder /= part
        _narrow(folder, DIR_MODE)
    ignore = root / ".gitignore"
    if ignore.exists():
        return
    with suppress(FileExistsError):
        fd = os.open(ignore, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, FILE_MODE)
        try:
            os.fchmod(fd, FILE_MODE)
            os.write(fd, GITIGNORE.encode())
        finally:
            os.close(fd)


def _narrow(path: Path, mode: int) -> None:
    """Set ``path``'s mode to ``mode`` if it differs and it is ours to change."""
    with suppress(FileNotFoundError, PermissionError):
        if stat.S_IMODE(os.stat(path).st_mode) != mode:
            os.chmod(path, mode)
