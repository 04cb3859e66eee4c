"""The audit log's JSONL file: an append-only file with its own hash chain, shared through flock.

Each append is one ``write(2)`` of whole lines under ``flock`` (the line format is in
``hookline.audit._chain``), followed, when asked, by an ``fsync`` that puts it on disk; the next
writer cuts off a last line a crash left without its newline. The file notes how far the store
has it (``stored``), and copies to the store what the store lacks (``rows_after``).
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import suppress
from pathlib import Path
from typing import Any, NamedTuple

from hookline._support.private import open_private, write_all
from hookline.audit._chain import AuditError, Encoded, canonical, line_record
from hookline.audit._heads import Keeper, note_line
from hookline.audit._keyed import KeyedMac, Unkeyed, chain_key, hashed, intact
from hookline.audit._marks import Mark, stored_path
from hookline.storage._base import AuditRow, follows


class ChainedFile:
    """An append-only JSONL file with its own hash chain, shared by processes through flock."""

    def __init__(self, path: str | os.PathLike[str], *, key: bytes | None = None) -> None:
        self.path = Path(path)
        #: The chain key (the per-user one, made if missing, when the file is first opened).
        self.key = key
        self._keeper: Keeper | None = None  # the heads kept beside the key
        self._keyed: KeyedMac | None = None  # the key's MAC, made on first use
        self._fd = -1
        self._seen = 0  # the size when the lock was taken
        self._size = -1  # the end of the last line this object wrote or read ...
        self._last: tuple[int, str | None] = (0, None)  # ... and that line's seq and hash
        #: How many times the file was opened: a new count, a new file (or the same, let go).
        self.opened = 0

    def locked(self) -> _Locked:
        """Hold the file's exclusive lock (reopening it if it was removed or replaced), while a
        ``with`` block runs."""
        return _Locked(self)

    def _lock(self) -> None:
        while True:
            if self._fd < 0:
                self._open()
            fcntl.flock(self._fd, fcntl.LOCK_EX)
            stat = os.fstat(self._fd)
            if stat.st_nlink:
                self._seen = stat.st_size
                return
            self.close()  # unlinked: deleted, or another file renamed over it

    def append(self, records: Sequence[Encoded], *, sync: bool = False) -> list[Link]:
        """Chain and append encoded records, under ``locked()``; where each one went.
        ``sync``: on disk (``fsync``) before this returns; a write or an fsync that fails
        takes the records back out, so the file never keeps what it did not acknowledge."""
        size = self._end()
        seq, prev = self._last
        lines, links = [], []
        key = self._mac()
        for record in records:
            seq += 1
            this = hashed(prev, record.body, key, record.form)
            after = f'"{prev}"' if prev else "null"
            head = f'{{"seq":{seq},"prev_hash":{after},"hash":"{this}",'
            lines.append(head.encode() + _one_line(record.body[1:]) + b"\n")
            links.append(Link(seq, this, prev))
            prev = this
        data = b"".join(lines)
        try:
            write_all(self._fd, data)
            if sync:
                os.fsync(self._fd)
        except BaseException:
            with suppress(OSError):
                os.ftruncate(self._fd, size)  # no half record left behind
            raise
        self._size, self._last = size + len(data), (seq, prev)
        if prev is not None:
            self._kept().keep("file", seq, prev)
        return links

    def rows_after(self, mark: Mark | None) -> Iterator[list[AuditRow]] | None:
        """Under ``locked()``: the records after ``mark`` (all of them for None), in batches,
        each record checked against its hash and its link as it is read; None when ``mark``
        is not in the file. AuditError, from the batch it would be in, for a record edited."""
        end = self._seen if self._seen == self._size else _tail(self._fd, self._seen)[0]
        start = self._after(mark, end) if mark is not None else 0  # a partial last line stays
        return None if start is None else self._batches(start, end, mark)

    def _after(self, mark: Mark, end: int) -> int | None:
        """Where the line after ``mark``'s begins, or None if ``mark`` is not in the file."""
        for start, line in _lines_back(self._fd, end):
            place = _HEAD.match(line)
            if place is not None and int(place[1]) <= mark.seq:
                record = line_record(line)
                found = record is not None and (record["seq"], record["hash"]) == tuple(mark)
                return start + len(line) + 1 if found else None
        return None

    def _batches(self, start: int, end: int, mark: Mark | None) -> Iterator[list[AuditRow]]:
        last = (mark.seq, mark.hash) if mark is not None else None
        batch: list[AuditRow] = []
        for line in _lines_from(self._fd, start, end):
            record = line_record(line) or {}
            row = _row(record)
            if row is None or not follows(last, row) or not self._holds(row, record):
                raise AuditError(
                    f"{self.path}: the record after seq {last[0] if last else 0} was edited or "
                    "moved (run `hookline audit verify`)"
                )
            batch.append(row)
            last = (row.seq, row.hash)
            if len(batch) == _BATCH:
                yield batch
                batch = []
        if batch:
            yield batch

    def _holds(self, row: AuditRow, record: Mapping[str, Any]) -> bool:
        try:
            body = canonical(record, row.hash)
            return intact(row.hash, row.prev_hash, body, self.signing_key()) is None
        except (Unkeyed, TypeError):
            return False

    def stored(self, mark: Mark) -> None:
        """Under ``locked()``: note that the store holds every record through ``mark`` (in
        ``<name>.stored`` beside the file, MAC'd, and beside the key), so a record cut from the
        store alone after its copy is told apart from one not copied yet (``stored_note``)."""
        fd = open_private(stored_path(self.path), os.O_WRONLY | os.O_NOFOLLOW)
        try:  # one size: no old tail
            os.pwrite(fd, note_line(self.signing_key(), mark.seq, mark.hash), 0)
        finally:
            os.close(fd)
        self._kept().keep("stored", mark.seq, mark.hash)

    def signing_key(self) -> bytes:
        """The chain key: the one given, else the per-user one (made if missing)."""
        if self.key is None:
            self.key = chain_key(create=True)
        assert self.key is not None  # made when missing
        return self.key

    def _mac(self) -> KeyedMac:
        """The chain key's MAC, its key's part worked out once."""
        if self._keyed is None:
            self._keyed = KeyedMac(self.signing_key())
        return self._keyed

    def _kept(self) -> Keeper:
        if self._keeper is None:
            self._keeper = Keeper(self.path, self.signing_key())
        return self._keeper

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        if self._keeper is not None:
            self._keeper.close()
            self._keeper = None

    def _open(self) -> None:
        """Open the file itself, never through a link: a link put in its place would have the
        writers append to (and cut the last line of) whatever file it names."""
        try:
            self._fd = open_private(self.path, os.O_RDWR | os.O_APPEND | os.O_NOFOLLOW)
        except OSError as exc:
            if exc.errno != errno.ELOOP:
                raise
            raise AuditError(
                f"{self.path} is a symbolic link: the audit is written to its own file only "
                "(remove the link: the audit file is the one in the project's .hookline/state)"
            ) from None
        self._size = -1
        self.opened += 1

    def _end(self) -> int:
        """The file's size, once a partial last line is cut off; ``_last`` describes its end."""
        size = self._seen
        if size == self._size:  # nobody else wrote since: what we know is still the end
            return size
        end, line = _tail(self._fd, size)
        record: dict[str, Any] | None = (
            {"seq": 0, "hash": None} if line is None else line_record(line)
        )
        if record is None:  # checked before anything is cut: an edited file stays as it is
            raise AuditError(
                f"the last line of {self.path} is not an audit record: the file was edited "
                "(run `hookline audit verify`)"
            )
        if end < size:
            os.ftruncate(self._fd, end)
        self._size, self._last = end, (record["seq"], record["hash"])
        return end


class _Locked:
    """``ChainedFile.locked``'s block: a ``with`` of its own, not a generator's (one per
    write)."""

    __slots__ = ("_file",)

    def __init__(self, file: ChainedFile) -> None:
        self._file = file

    def __enter__(self) -> None:
        self._file._lock()

    def __exit__(self, *exc: object) -> None:
        fcntl.flock(self._file._fd, fcntl.LOCK_UN)


class Link(NamedTuple):
    """Where an appended record went in a chain."""

    seq: int
    hash: str
    prev_hash: str | None


_HEAD = re.compile(rb'\{"seq":(\d+),')
#: Records copied to a store per transaction when catching up from the file.
_BATCH = 1000


def _row(record: Mapping[str, Any]) -> AuditRow | None:
    """The row a file's record holds, or None if a field is missing."""
    try:
        return AuditRow(
            record["seq"],
            record["hash"],
            record["prev_hash"],
            record["time"],
            record["session_id"],
            record["tool_use_id"],
            record["event"],
            record["kind"],
            record["tool"],
            record["decision"],
            record["data"],
            record.get("permission"),
        )
    except KeyError:
        return None


def _lines_back(fd: int, size: int) -> Iterator[tuple[int, bytes]]:
    """The file's lines with where each begins, from the last (ending at ``size``) back."""
    rest, pos = b"", size
    while pos > 0:
        step = min(1 << 16, pos)
        pos -= step
        lines = (os.pread(fd, step, pos) + rest).split(b"\n")
        starts, at = [], pos
        for line in lines:
            starts.append(at)
            at += len(line) + 1
        rest = lines[0]
        for begins, line in zip(reversed(starts[1:]), reversed(lines[1:]), strict=True):
            if line:
                yield begins, line
    if rest:
        yield 0, rest


def _lines_from(fd: int, start: int, end: int) -> Iterator[bytes]:
    """The file's lines between ``start`` and ``end`` (both where a line begins)."""
    rest, pos = b"", start
    while pos < end:
        data = os.pread(fd, min(1 << 16, end - pos), pos)
        if not data:
            break
        pos += len(data)
        *lines, rest = (rest + data).split(b"\n")
        yield from (line for line in lines if line)
    if rest:
        yield rest


#: Line breaks to ``str.splitlines`` that JSON leaves raw, as UTF-8, and their JSON escapes.
_BREAKS = ((b"\xe2\x80\xa8", b"\\u2028"), (b"\xe2\x80\xa9", b"\\u2029"), (b"\xc2\x85", b"\\u0085"))


def _one_line(body: bytes) -> bytes:
    """Canonical JSON with the breaks in ``_BREAKS`` escaped: the same value, on one line.

    In UTF-8 these byte sequences are only ever those characters, and in canonical JSON any
    character other than ASCII is inside a string, where the escape means the same."""
    if body.isascii():
        return body
    for raw, escape in _BREAKS:
        body = body.replace(raw, escape)
    return body


def _tail(fd: int, size: int) -> tuple[int, bytes | None]:
    """Where the last complete line ends, and that line (None if there is none)."""
    buf, pos = b"", size
    while True:
        nl = buf.rfind(b"\n")
        if nl >= 0:
            start = buf.rfind(b"\n", 0, nl)
            if start >= 0 or pos == 0:
                return pos + nl + 1, buf[start + 1 : nl]
        elif pos == 0:
            return 0, None
        step = min(1 << 16, pos)
        pos -= step
        buf = os.pread(fd, step, pos) + buf
