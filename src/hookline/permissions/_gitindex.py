"""What a git repository tracks, read from its index file without running git.

``repository(folder)`` finds the work tree and the index of the repository ``folder`` lies in
(``.git`` a folder, or a file naming a linked worktree's). ``tracked(index)`` lists the paths the
index holds (``git ls-files``), as git writes it: versions 2, 3 and 4 (paths compressed against
the one before), SHA-1 or SHA-256 object names (told apart by each entry's recorded name
length), sparse-index folders (``dir/``). A split index (``link`` extension), an unknown
version or a file that does not read to its end is None: what it tracks cannot be known.
Results are kept per file and its size, time and inode, so a judge reads each index once.
"""

from __future__ import annotations

import os
import posixpath
import struct
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["Repository", "repository", "tracked"]

#: ctime, mtime (seconds, nanoseconds each), dev, ino, mode, uid, gid, size: 32 bits each.
_STAT = 40
_NAME_MASK = 0x0FFF
_EXTENDED = 0x4000
#: Indexes bigger than this are not read: what they track counts as unknown.
MAX_INDEX = 64 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Repository:
    """A work tree's top folder and the index file git keeps for it."""

    top: str
    index: str


def repository(folder: str) -> Repository | None:
    """The repository ``folder`` (absolute) lies in; None when there is none, or its ``.git``
    file cannot be read."""
    where = posixpath.normpath(folder)
    while True:
        dot_git = posixpath.join(where, ".git")
        if os.path.isdir(dot_git):
            return Repository(where, posixpath.join(dot_git, "index"))
        if os.path.isfile(dot_git):
            gitdir = _linked(dot_git)
            return None if gitdir is None else Repository(where, posixpath.join(gitdir, "index"))
        parent = posixpath.dirname(where)
        if parent == where:
            return None
        where = parent


def _linked(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as file:
            text = file.read(4096)
    except (OSError, UnicodeDecodeError):
        return None
    if not text.startswith("gitdir:"):
        return None
    return posixpath.normpath(posixpath.join(posixpath.dirname(path), text[7:].strip()))


def tracked(index: str) -> tuple[str, ...] | None:
    """The paths the index file ``index`` tracks (``()`` when there is no index yet); None when
    it cannot be read."""
    try:
        found = os.stat(index)
    except FileNotFoundError:
        return ()
    except OSError:
        return None
    if found.st_size > MAX_INDEX:
        return None
    return _read(index, found.st_size, found.st_mtime_ns, found.st_ino)


@lru_cache(maxsize=16)
def _read(index: str, size: int, mtime: int, inode: int) -> tuple[str, ...] | None:
    try:
        with open(index, "rb") as file:
            data = file.read(size + 1)
    except OSError:
        return None
    if len(data) != size:
        return None  # it changed while it was read
    for hash_size in (20, 32):
        try:
            paths = _entries(data, hash_size)
        except (struct.error, ValueError, IndexError):
            continue
        if paths is not None:
            return paths
    return None


def _entries(data: bytes, hash_size: int) -> tuple[str, ...] | None:
    signature, version, count = struct.unpack_from(">4sII", data, 0)
    if signature != b"DIRC" or version not in (2, 3, 4):
        return None
    position, previous, found = 12, b"", []  # after the signature, version and count
    for _ in range(count):
        flags_at = position + _STAT + hash_size
        (flags,) = struct.unpack_from(">H", data, flags_at)
        start = flags_at + 2 + (2 if flags & _EXTENDED and version >= 3 else 0)
        if version == 4:
            strip, start = _varint(data, start)
            end = data.index(b"\0", start)
            if strip > len(previous):
                return None
            name = previous[: len(previous) - strip] + data[start:end]
            position = end + 1
        else:
            end = data.index(b"\0", start)
            name = data[start:end]
            position += ((end - position) // 8 + 1) * 8  # 1 to 8 NULs keep it 8-aligned
        length = flags & _NAME_MASK
        if length != min(len(name), _NAME_MASK) or position > len(data):
            return None  # not this hash size, or not an index
        found.append(name.decode("utf-8", errors="surrogateescape").rstrip("/"))
        previous = name
    if _split(data, position, hash_size):
        return None
    return tuple(found)


def _varint(data: bytes, at: int) -> tuple[int, int]:
    """git's offset varint (``decode_varint``): the value, and where it ends."""
    byte = data[at]
    value, at = byte & 0x7F, at + 1
    while byte & 0x80:
        byte = data[at]
        value = ((value + 1) << 7) | (byte & 0x7F)
        at += 1
    return value, at


def _split(data: bytes, position: int, hash_size: int) -> bool:
    """Whether the extensions after the entries hold ``link``: a split index, whose other
    entries are in a shared file."""
    end = len(data) - hash_size
    while position + 8 <= end:
        signature = data[position : position + 4]
        (size,) = struct.unpack_from(">I", data, position + 4)
        if signature == b"link":
            return True
        position += 8 + size
    return False
