"""The file tools' reads and writes: they open the file ``resolve`` checked and nothing else.

``resolve`` judged a real path; a link put on that path since then must not lead elsewhere. So
the last part of the path is never followed (``O_NOFOLLOW``) and the file opened is checked to
be the real path (``_opened_as``). What fails comes back as a ToolError the model can act on.

Most of this blocks, and runs in a worker thread (``BlockingTool``). One read does not: a small
regular file (``read_small``), which Read reads on the event loop, where handing it to a thread
would cost more than the read. Any other file (a large one, a FIFO, a device, a ``/proc`` file)
is left to ``read_text`` in a thread, where the tool's timeout applies while it waits.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Final

from hookline._errors import ToolError
from hookline._tools.base import ToolContext
from hookline.permissions._protected import is_key_file

#: The largest regular file ``read_small`` reads on the event loop.
INLINE_READ_BYTES: Final = 256 * 1024


def read_text(real: str | Path, ctx: ToolContext, *, errors: str = "replace") -> str:
    """The text of the file at ``real`` (checked by ``resolve``), whatever it is: this may wait
    (a FIFO with no writer, a hung network mount), so it runs in a worker thread."""
    with _reading(real, ctx), open(real, "rb", opener=_not_following) as file:
        _opened_as(file.fileno(), real)
        return file.read().decode("utf-8", errors)


def read_small(real: str | Path, ctx: ToolContext) -> str | None:
    """The text of the file at ``real`` (checked by ``resolve``) if reading it cannot wait, so
    it may be read on the event loop (``_small``); else None, for ``read_text``. The open
    itself does not wait: a FIFO's waits for no writer (``O_NONBLOCK``)."""
    with _reading(real, ctx), open(real, "rb", opener=_not_waiting) as file:
        if not _small(_opened_as(file.fileno(), real)):
            return None
        return file.read().decode("utf-8", "replace")


def _small(opened: os.stat_result) -> bool:
    """Whether the open file is a regular file of known size, at most ``INLINE_READ_BYTES``,
    kept on a disk. A FIFO or a device may wait; ``/proc`` gives a size of 0 and sysfs one of
    a page to files the kernel makes up as they are read (no disk blocks): their size is not
    known, and reading them may wait or go on. An empty file has a size of 0 too: it is read
    in the thread, as a file of unknown size."""
    regular = stat.S_ISREG(opened.st_mode)
    return regular and 0 < opened.st_size <= INLINE_READ_BYTES and opened.st_blocks > 0


def _not_following(path: str, flags: int) -> int:
    return os.open(path, flags | os.O_NOFOLLOW)


def _not_waiting(path: str, flags: int) -> int:
    return os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK)


@contextmanager
def _reading(real: str | Path, ctx: ToolContext) -> Iterator[None]:
    """What reading ``real`` raised, as the ToolError the model reads."""
    try:
        yield
    except FileNotFoundError:
        raise ToolError(
            f"File does not exist. Note: your current working directory is {ctx.cwd}."
        ) from None
    except IsADirectoryError:
        raise ToolError(f"{real} is a directory, not a file; use Glob to list it.") from None
    except UnicodeDecodeError:
        raise ToolError(f"{real} is not UTF-8 text; it cannot be edited as text.") from None
    except OSError as exc:
        raise ToolError(f"Cannot read {real}: {exc.strerror}") from None


def write_text(real: Path, content: str) -> None:
    """Write ``content`` as UTF-8 to the file at ``real`` (checked by ``resolve``), creating
    parent folders; a ToolError when that fails. The folder is opened and checked to be
    ``real``'s (``_opened_as``), and the file is opened in that folder without following a
    link: what is written is ``real``."""
    try:
        real.parent.mkdir(parents=True, exist_ok=True)
        folder = os.open(real.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            _opened_as(folder, real.parent)
            flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
            with open(os.open(real.name, flags, 0o666, dir_fd=folder), "wb") as file:
                if stat.S_ISREG(_opened_as(file.fileno(), real).st_mode):  # checked, then cut
                    file.truncate(0)
                file.write(content.encode("utf-8"))
        finally:
            os.close(folder)
    except IsADirectoryError:
        raise ToolError(f"{real} is a directory; give a file path.") from None
    except OSError as exc:
        raise ToolError(f"Cannot write {real}: {exc.strerror}") from None


def _opened_as(fd: int, real: str | Path) -> os.stat_result:
    """The open file ``fd``'s status; a ToolError unless it is ``real``, and not one of
    hookline's per-user keys under another name. ``resolve`` checked ``real`` against the
    rules; a folder on it replaced by a link before the open would have led elsewhere. Linux
    names an open file in ``/proc/self/fd``; where that is missing, that check is not made (the
    file's last part is still not followed: ``O_NOFOLLOW``)."""
    with suppress(OSError):
        opened = os.readlink(f"/proc/self/fd/{fd}")
        if opened != str(real):
            raise ToolError(
                f"{real} changed while it was being opened (it led to {opened}): nothing was "
                "read or written. Do not retry it; tell the user the file moved under you."
            )
    found = os.fstat(fd)
    if is_key_file(found):
        raise ToolError(
            f"{real} is a hard link to hookline's private key (the rules judge names, and a hard "
            "link is the same file under another one): nothing was read or written. Do not "
            "retry it; tell the user."
        )
    return found
