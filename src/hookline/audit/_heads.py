"""How far a log went, noted under the key: in the state folder, and out of every project.

Two kinds of note, each one fixed-width line rewritten in place (one ``pwrite``: no old tail):

- ``audit.stored``, beside the file: the newest record copied to the store, with a MAC under
  the chain key, so a note rewritten by someone without the key (to hide rows cut from the
  store) is found. A note from before keyed chains has no MAC and is read as it was;
- the kept heads, beside the per-user key (``~/.hookline/keys/heads/<name>.file`` and
  ``.stored``, the name a digest of the log file's real path): the file's newest record and the
  newest copied to the store, MAC'd with the log's path. ``audit verify`` requires both to be
  still in the chain at their place, so a log cut or emptied, file and store alike, and the note
  beside it deleted or replayed, is found.

Why the kept heads hold against whoever can write the state folder: they live where the key
lives, outside every project, where the file tools do not reach (they stay inside the
workspace, and never into a ``.hookline`` folder), which the permission layer protects and the
read-only tier never touches; and a head someone writes there without the key has no valid MAC.
Whoever holds the key (a process of the same user, a model running unsandboxed Bash the person
approved) can rewrite log, notes and heads alike: only a head kept elsewhere (``audit head``
printed, or sent to another machine) finds that.
"""

from __future__ import annotations

import hashlib
import os
from contextlib import suppress
from pathlib import Path
from typing import Literal, NamedTuple

from hookline._agent.saved.seal import key_path
from hookline._support.private import replace_private
from hookline.audit._keyed import HASH_WIDTH, KeyedMac, is_keyed, mac, same

Which = Literal["file", "stored"]
_NOTE = "hookline audit stored"
_HEAD = "hookline audit head"


class Noted(NamedTuple):
    """A note's seq and hash, and why it cannot be trusted (None: its MAC holds, or it is a
    note from before keyed chains, which had none)."""

    seq: int
    hash: str
    forged: str | None = None


def note_line(key: bytes, seq: int, hash: str) -> bytes:
    """``audit.stored``'s line for the store holding every record through ``seq``."""
    return f"{seq:>20} {hash:>{HASH_WIDTH}} {mac(key, _NOTE, seq, hash)}\n".encode()


def read_note(text: str, key: bytes | None) -> Noted | None:
    """The mark an ``audit.stored`` note holds, checked under ``key``; None for text that is
    not a note."""
    words = text.split()
    if len(words) not in (2, 3) or not words[0].isdigit():
        return None
    seq, hash = int(words[0]), words[1]
    if len(words) == 2:  # written before keyed chains
        keyed = is_keyed(hash)
        return Noted(seq, hash, "a keyed log's note without its MAC" if keyed else None)
    if key is None:
        return Noted(seq, hash, f"no key at {key_path()} to check its MAC with")
    if same(words[2], mac(key, _NOTE, seq, hash)):
        return Noted(seq, hash)
    return Noted(seq, hash, "its MAC does not match: rewritten by someone without the key")


def heads_folder() -> Path:
    """Where the kept heads are: beside the per-user key."""
    return key_path().parent / "heads"


def head_path(log: str | os.PathLike[str], which: Which) -> Path:
    real = os.path.realpath(log)
    name = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return heads_folder() / f"{name}.{which}"


class Keeper:
    """Keeps one log's heads beside the key, each file opened once and rewritten in place."""

    def __init__(self, log: str | os.PathLike[str], key: bytes) -> None:
        self.log, self.key = os.path.realpath(log), key
        self._mac = KeyedMac(key)
        self._fds: dict[Which, int] = {}

    def keep(self, which: Which, seq: int, hash: str) -> None:
        signed = mac(self._mac, _HEAD, which, self.log, seq, hash)
        line = f"{seq:>20} {hash:>{HASH_WIDTH}} {signed}\n".encode()
        fd = self._fds.get(which)
        if fd is None:
            fd = self._fds[which] = _rewritable(head_path(self.log, which), line)
        os.pwrite(fd, line, 0)

    def close(self) -> None:
        for fd in self._fds.values():
            with suppress(OSError):
                os.close(fd)
        self._fds.clear()


def _rewritable(path: Path, line: bytes) -> int:
    """A descriptor to rewrite the head at ``path`` in place (one fixed-width ``pwrite``). A
    missing head is made whole first, written beside it and renamed into place, so a process
    killed while making it never leaves an empty head, which ``audit verify`` would call forged."""
    flags = os.O_WRONLY | os.O_NOFOLLOW | os.O_CLOEXEC
    with suppress(FileNotFoundError):
        return os.open(path, flags)
    replace_private(path, line)
    return os.open(path, flags)


def kept_head(log: str | os.PathLike[str], which: Which, key: bytes) -> Noted | None:
    """The head kept for ``log`` (its ``which``), checked under ``key``; None when none is kept
    (a log written before keyed chains, or moved from the folder it was written in)."""
    path = head_path(log, which)
    try:
        text = path.read_text(encoding="ascii")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        return Noted(0, "", f"{path} cannot be read: {exc}")
    words = text.split()
    if len(words) != 3 or not words[0].isdigit():
        return Noted(0, "", f"{path} is not a kept head")
    seq, hash = int(words[0]), words[1]
    if same(words[2], mac(key, _HEAD, which, os.path.realpath(log), seq, hash)):
        return Noted(seq, hash)
    return Noted(seq, hash, f"{path}: its MAC does not match (written without the key)")
