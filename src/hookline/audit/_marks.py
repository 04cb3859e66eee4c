"""A record's place in a chain (``Mark``: seq and hash), and comparing two copies of the log.

The two copies are compared record by record (``compare``: same seq, same hash), so a record cut
from one copy only is found. Deleting the newest records of both together cannot be told from a
log that ended there, unless a head kept elsewhere is no longer in the chain at its place
(``missing_head``): each writer keeps the file's head, and how far the store has it, beside the
key (``hookline.audit._heads``; ``stored_mark`` reads the second). A store several servers share
(each with its own file) holds every server's records on one chain of its own; there a file is
compared with it by content (``compare_shared``): each of the file's records must be in it.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from hookline.audit._chain import canonical, line_record
from hookline.audit._heads import Noted, read_note
from hookline.audit._keyed import chain_key

if TYPE_CHECKING:
    from hookline.storage._base import AuditRow


class Mark(NamedTuple):
    """A record's place in a chain: its seq and hash (a chain's head, kept elsewhere)."""

    seq: int
    hash: str

    def __str__(self) -> str:
        return f"{self.seq} {self.hash}"


@dataclass(frozen=True, slots=True)
class Mismatch:
    """The first record where two copies of the log differ."""

    seq: int
    detail: str
    #: The store ends before this record (the file has it and every later one).
    behind: bool = False

    def __str__(self) -> str:
        return f"record {self.seq}: {self.detail}"


def marks_jsonl(path: str | os.PathLike[str]) -> Iterator[Mark]:
    """The seq and hash of each complete audit line of a file (other lines are skipped)."""
    with open(path, "rb") as file:
        fcntl.flock(file, fcntl.LOCK_SH)
        for text in file:
            record = line_record(text) if text.endswith(b"\n") else None
            if record is not None:
                yield Mark(record["seq"], record["hash"])


def compare(file: Iterable[Mark], store: Iterable[Mark]) -> Mismatch | None:
    """The first record (in seq order) missing from one copy or different in the two, or None."""
    files, stores = iter(file), iter(store)
    a, b = next(files, _END), next(stores, _END)
    while a is not _END or b is not _END:
        if a.seq < b.seq:
            return Mismatch(a.seq, "in the file, missing from the store", behind=b is _END)
        if b.seq < a.seq:
            return Mismatch(b.seq, "in the store, missing from the file")
        if a.hash != b.hash:
            return Mismatch(a.seq, "differs between the file and the store")
        a, b = next(files, _END), next(stores, _END)
    return None


_END = Mark(sys.maxsize, "")  # after every record


@dataclass(frozen=True, slots=True)
class Shared:
    """A file compared by content with a store: how many of the file's records the store holds
    at another place than the file's (``moved``: a store other servers share, which holds them
    on a chain of its own), how many of its records are not the file's (``others``), the first
    record of the file it lacks (None: none), and whether every record after that one is missing
    too (the file's newest, not copied yet)."""

    moved: int
    others: int
    missing: int | None = None
    only_newest: bool = True


def compare_shared(path: str | os.PathLike[str], store: Iterable[AuditRow]) -> Shared:
    """Each record of the file at ``path`` looked for in ``store`` by its content."""
    held = {hashlib.sha256(canonical(row)).digest(): Mark(row.seq, row.hash) for row in store}
    moved, matched, first, newest = 0, 0, None, True
    with open(path, "rb") as file:
        fcntl.flock(file, fcntl.LOCK_SH)
        for text in file:
            record = line_record(text) if text.endswith(b"\n") else None
            if record is None:
                continue
            place = held.get(hashlib.sha256(canonical(record)).digest())
            if place is None:
                first = record["seq"] if first is None else first
                continue
            moved += place != (record["seq"], record["hash"])
            matched += 1
            newest = first is None
    return Shared(moved, len(held) - matched, first, newest)


def missing_head(marks: Iterable[Mark], hash: str, seq: int | None = None) -> str | None:
    """Why the head ``hash`` (at ``seq``, if given) is not in the chain ``marks``, or None."""
    last: Mark | None = None
    for mark in marks:
        if mark.hash == hash and seq in (None, mark.seq):
            return None
        if mark.seq == seq:
            return f"record {seq} is not the head that was kept: the chain was rewritten"
        last = mark
    kept = f"the head that was kept{f' (record {seq})' if seq is not None else ''}"
    newest = f"the newest record is {last.seq}" if last else "there are no records"
    return f"{kept} is not in the chain: {newest}; records after it were cut"


def stored_path(path: Path) -> Path:
    """Where the file's writers note how far the store has it."""
    return path.with_suffix(".stored")


def stored_mark(path: str | os.PathLike[str]) -> Mark | None:
    """The newest record the writers copied to the store (``ChainedFile.stored``) by a note
    whose MAC holds (or one from before keyed chains), or None (also for a note that is not
    one: a folder, bytes that are not text)."""
    noted = stored_note(path, chain_key(create=False))
    return Mark(noted.seq, noted.hash) if noted is not None and noted.forged is None else None


def stored_note(path: str | os.PathLike[str], key: bytes | None) -> Noted | None:
    """The ``audit.stored`` note beside ``path``, checked under ``key``; None when there is
    none (or it is not a note)."""
    try:
        with open(path, "rb") as file:
            fcntl.flock(file, fcntl.LOCK_SH)  # no writer is half way through noting it
            text = stored_path(Path(path)).read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError):
        return None
    return read_note(text, key)
