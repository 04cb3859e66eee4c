"""The audit log's hash chains: the store's rows and the JSONL file, each linked to the last.

A record's hash is ``HMAC-SHA256(chain key, prev_hash + canonical(record))`` (``""`` before the
first record; the formats, and the plain sha256 of logs written before keyed chains, are in
``hookline.audit.keyed``), so editing a record breaks its own hash, and deleting, inserting or
moving one breaks the ``prev_hash`` of the record after it. Both chains use ``link``; the file
keeps its own ``seq`` and ``prev_hash`` on every line, so several processes can share one file
and one store.

A line is ``{"seq":N,"prev_hash":...,"hash":...,`` followed by the canonical JSON of the record
(every field but those three, keys sorted), so the line *is* what was hashed, except that
U+2028, U+2029 and U+0085 are ``\\u`` escapes on the line (``str.splitlines`` and JavaScript
would break it there; JSON reads the escape back as the character). Lone surrogates are
``\\u`` escapes in the hashed text too (``canonical_json``). Each append is one
``write(2)`` of whole lines under ``flock``. A last line without its newline is what a write cut
short by a crash (or a full disk) leaves: ``verify_jsonl`` reports it as ``truncated``, which is
not tampering, and the next writer cuts it off before appending.

The two copies are compared record by record (``compare``: same seq, same hash), so a record cut
from one copy only is found. Deleting the newest records of both together cannot be told from a
log that ended there, unless a head kept elsewhere (``Mark``: seq and hash) is no longer in the
chain at its place (``missing_head``): each writer keeps the file's head, and how far the store
has it, beside the key (``hookline.audit.heads``).
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import re
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, NamedTuple

from hookline._support.jsontext import canonical as canonical_text
from hookline._support.jsontext import strict_sorted
from hookline._support.private import open_private
from hookline.audit.heads import Keeper, Noted, note_line, read_note
from hookline.audit.keyed import Unkeyed, chain_key, hashed, intact, is_keyed
from hookline.errors import RecordError
from hookline.storage.base import (
    ENTRY_FIELDS,
    LATER_FIELDS,
    AuditEntry,
    AuditRow,
    Chain,
    follows,
)

#: The fields a chain adds to a record; everything else is hashed.
HASH_FIELDS = frozenset({"seq", "prev_hash", "hash"})
Kind = Literal["edited", "deleted", "reordered", "malformed", "truncated", "unverifiable"]


class AuditError(RecordError):
    """The audit log could not be written: the run stops rather than go on unrecorded."""


def canonical(entry: AuditEntry | AuditRow | Mapping[str, Any]) -> bytes:
    """Sorted-key compact JSON (UTF-8) of every field but the hash fields; a field added since
    the first layout (``LATER_FIELDS``) only when set, so older records hash as they did."""
    if isinstance(entry, Mapping):
        return canonical_json({k: v for k, v in entry.items() if k not in HASH_FIELDS})
    fields = {name: getattr(entry, name) for name in ENTRY_FIELDS}
    for name in LATER_FIELDS:
        if (value := getattr(entry, name)) is not None:
            fields[name] = value
    return canonical_json(fields)


def canonical_parts(entry: AuditEntry) -> tuple[str, bytes]:
    """``entry.data`` as a store keeps it (``dump_json`` refuses what it refuses) and
    ``canonical(entry)``, encoded once: the record's first key is ``data``, so its text is the
    data's sorted-key text as it is."""
    data = strict_sorted(entry.data)
    fields = {name: getattr(entry, name) for name in ENTRY_FIELDS if name != "data"}
    for name in LATER_FIELDS:
        if (value := getattr(entry, name)) is not None:
            fields[name] = value
    return data, b'{"data":' + data.encode() + b"," + canonical_json(fields)[1:]


def canonical_json(value: Any) -> bytes:
    """Sorted-key compact JSON of any JSON value, as UTF-8."""
    return canonical_text(value).encode("utf-8", "backslashreplace")


def digest(value: Any) -> str:
    """SHA-256 (hex) of a JSON value's canonical form."""
    return hashlib.sha256(canonical_json(value)).hexdigest()


def link(
    prev_hash: str | None,
    entry: AuditEntry | AuditRow | Mapping[str, Any],
    key: bytes | None = None,
) -> str:
    """The hash of ``entry`` placed after a record whose hash is ``prev_hash``: keyed with
    ``key``, plain sha256 without (how logs were chained before keyed chains)."""
    return hashed(prev_hash, canonical(entry), key)


def keyed_link(key: bytes) -> Chain:
    """``link`` under ``key``, as a chain function for ``Store.append_audit``."""

    def chain(prev_hash: str | None, entry: AuditEntry) -> str:
        return hashed(prev_hash, canonical(entry), key)

    return chain


def store_chain(entries: Sequence[AuditEntry], bodies: Sequence[bytes], key: bytes) -> Chain:
    """A keyed chain function for ``Store.append_audit`` reusing canonical bytes already made."""
    known = {id(entry): body for entry, body in zip(entries, bodies, strict=True)}

    def chain(prev_hash: str | None, entry: AuditEntry) -> str:
        body = known.get(id(entry))
        return hashed(prev_hash, body if body is not None else canonical(entry), key)

    return chain


@dataclass(frozen=True, slots=True)
class Problem:
    """The first break in a chain: where (``seq``, and ``line`` in a file), what, and why."""

    kind: Kind
    detail: str
    seq: int | None = None
    line: int | None = None

    @property
    def tampered(self) -> bool:
        """False for a truncated last line, which a crash leaves, not an edit, and for a keyed
        record with no key here to check it (which is no proof either way)."""
        return self.kind not in ("truncated", "unverifiable")

    def __str__(self) -> str:
        where = f"seq {self.seq}" if self.seq is not None else ""
        if self.line is not None:
            where = f"line {self.line}" + (f" ({where})" if where else "")
        return f"{where}: {self.kind}: {self.detail}"


@dataclass(frozen=True, slots=True)
class _Link:
    seq: int
    hash: str
    prev_hash: str | None
    body: bytes
    line: int | None = None


@dataclass(slots=True)
class Tally:
    """How many records of each format a verify read (keyed, and plain: written before keyed
    chains)."""

    keyed: int = 0
    plain: int = 0


def verify_rows(
    rows: Iterable[AuditRow], *, key: bytes | None = None, tally: Tally | None = None
) -> Problem | None:
    """The first problem in a whole chain of store rows (in ``seq`` order), or None; keyed
    records are checked under ``key`` (the chain key here when None)."""
    links = (_Link(r.seq, r.hash, r.prev_hash, canonical(r)) for r in rows)
    return _verify(links, _key(key), tally or Tally())


def verify_jsonl(
    path: str | os.PathLike[str], *, key: bytes | None = None, tally: Tally | None = None
) -> Problem | None:
    """The first problem in an audit JSONL file, or None. Raises OSError if it cannot be read."""
    with open(path, "rb") as file:
        fcntl.flock(file, fcntl.LOCK_SH)  # no writer is half way through an append
        return _verify(_lines(file), _key(key), tally or Tally())


def _key(given: bytes | None) -> bytes | None:
    return given if given is not None else chain_key(create=False)


def _lines(file: Iterable[bytes]) -> Iterator[_Link | Problem]:
    for number, text in enumerate(file, 1):
        if not text.endswith(b"\n"):
            why = "no newline at the end: a write cut short by a crash, not an edit"
            yield Problem("truncated", why, line=number)
            return
        record = _record(text)
        if record is None:
            yield Problem("malformed", "not an audit record (JSON with seq and hash)", line=number)
            return
        yield _Link(record["seq"], record["hash"], record["prev_hash"], canonical(record), number)


def _record(text: bytes) -> dict[str, Any] | None:
    """The JSON object on a line if it has a chain's fields, else None."""
    try:
        record = json.loads(text)
    except ValueError:
        return None
    if not isinstance(record, dict) or type(record.get("seq")) is not int:
        return None
    linked = isinstance(record.get("prev_hash"), str | None) and "prev_hash" in record
    return record if linked and isinstance(record.get("hash"), str) else None


def _verify(links: Iterable[_Link | Problem], key: bytes | None, tally: Tally) -> Problem | None:
    """Walk a chain with one record of lookahead (to tell a swap from a deletion)."""
    before: _Link | None = None
    items = iter(links)
    current = next(items, None)
    while current is not None:
        if isinstance(current, Problem):
            return current
        after = next(items, None)
        try:
            why = intact(current.hash, current.prev_hash, current.body, key)
        except Unkeyed:
            why = f"it is keyed, and there is no key here to check it ({_NO_KEY})"
            return Problem("unverifiable", why, current.seq, current.line)
        if why is not None:
            return Problem("edited", why, current.seq, current.line)
        if is_keyed(current.hash):
            tally.keyed += 1
        else:
            tally.plain += 1
        problem = _linkage(before, current, after if isinstance(after, _Link) else None)
        if problem is not None:
            return problem
        before, current = current, after
    return None


def _linkage(before: _Link | None, row: _Link, after: _Link | None) -> Problem | None:
    if before is None:
        if row.prev_hash is None:
            return None
        why = "it comes first but links to an earlier record: records before it were deleted"
        return Problem("deleted", why, row.seq, row.line)
    expected = before.seq + 1
    if row.seq < expected or (row.seq > expected and after is not None and after.seq == expected):
        why = f"it follows seq {before.seq}: records were moved"
        return Problem("reordered", why, row.seq, row.line)
    if row.seq > expected:
        why = f"it follows seq {before.seq}: seq {expected} is missing"
        return Problem("deleted", why, row.seq, row.line)
    if row.prev_hash != before.hash:
        why = f"it does not link to seq {before.seq}: a record was replaced, inserted or moved"
        return Problem("deleted", why, row.seq, row.line)
    return None


_NO_KEY = "set HOOKLINE_STATE_KEY_FILE to the key of the user who wrote it"


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
            record = _record(text) if text.endswith(b"\n") else None
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


class ChainedFile:
    """An append-only JSONL file with its own hash chain, shared by processes through flock."""

    def __init__(self, path: str | os.PathLike[str], *, key: bytes | None = None) -> None:
        self.path = Path(path)
        #: The chain key (the per-user one, made if missing, when the file is first opened).
        self.key = key
        self._keeper: Keeper | None = None  # the heads kept beside the key
        self._fd = -1
        self._seen = 0  # the size when the lock was taken
        self._size = -1  # the end of the last line this object wrote or read ...
        self._last: tuple[int, str | None] = (0, None)  # ... and that line's seq and hash
        #: How many times the file was opened: a new count, a new file (or the same, let go).
        self.opened = 0

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the file's exclusive lock (reopening it if it was removed or replaced)."""
        while True:
            if self._fd < 0:
                self._open()
            fcntl.flock(self._fd, fcntl.LOCK_EX)
            stat = os.fstat(self._fd)
            if stat.st_nlink:
                self._seen = stat.st_size
                break
            self.close()  # unlinked: deleted, or another file renamed over it
        try:
            yield
        finally:
            fcntl.flock(self._fd, fcntl.LOCK_UN)

    def append(self, bodies: Sequence[bytes]) -> list[Link]:
        """Chain and append canonical records, under ``locked()``; where each one went."""
        size = self._end()
        seq, prev = self._last
        lines, links = [], []
        key = self.signing_key()
        for body in bodies:
            seq += 1
            this = hashed(prev, body, key)
            after = f'"{prev}"' if prev else "null"
            head = f'{{"seq":{seq},"prev_hash":{after},"hash":"{this}",'
            lines.append(head.encode() + _one_line(body[1:]) + b"\n")
            links.append(Link(seq, this, prev))
            prev = this
        data = b"".join(lines)
        try:
            written = 0
            while written < len(data):  # one write(2) unless the disk is nearly full
                written += os.write(self._fd, data[written:])
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
                record = _record(line)
                found = record is not None and (record["seq"], record["hash"]) == tuple(mark)
                return start + len(line) + 1 if found else None
        return None

    def _batches(self, start: int, end: int, mark: Mark | None) -> Iterator[list[AuditRow]]:
        last = (mark.seq, mark.hash) if mark is not None else None
        batch: list[AuditRow] = []
        for line in _lines_from(self._fd, start, end):
            record = _record(line) or {}
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
            return intact(row.hash, row.prev_hash, canonical(record), self.signing_key()) is None
        except Unkeyed:
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
        record: dict[str, Any] | None = {"seq": 0, "hash": None} if line is None else _record(line)
        if record is None:  # checked before anything is cut: an edited file stays as it is
            raise AuditError(
                f"the last line of {self.path} is not an audit record: the file was edited "
                "(run `hookline audit verify`)"
            )
        if end < size:
            os.ftruncate(self._fd, end)
        self._size, self._last = end, (record["seq"], record["hash"])
        return end


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
