"""The audit log's hash chains: the store's rows and the JSONL file, each linked to the last.

A record's hash is ``HMAC-SHA256(chain key, prev_hash + canonical(record))`` (``""`` before the
first record; the formats, and the plain sha256 of logs written before keyed chains, are in
``hookline.audit._keyed``), so editing a record breaks its own hash, and deleting, inserting or
moving one breaks the ``prev_hash`` of the record after it. Its canonical bytes are encoded as
its hash's format says: by orjson (format 3, what is written now; ``encoded``) or by the
standard library's encoder (formats 1 and 2, and a record orjson cannot encode). Both chains
use ``link``; the file keeps its own ``seq`` and ``prev_hash`` on every line, so several
processes can share one file and one store.

A line is ``{"seq":N,"prev_hash":...,"hash":...,`` followed by the canonical JSON of the record
(every field but those three, keys sorted), so the line *is* what was hashed, except that
U+2028, U+2029 and U+0085 are ``\\u`` escapes on the line (``str.splitlines`` and JavaScript
would break it there; JSON reads the escape back as the character). Lone surrogates are
``\\u`` escapes in the hashed text too (``canonical_json``). Each append is one
``write(2)`` of whole lines under ``flock``. A last line without its newline is what a write cut
short by a crash (or a full disk) leaves: ``verify_jsonl`` reports it as ``truncated``, which is
not tampering, and the next writer cuts it off before appending.

The file itself is ``hookline.audit._chained_file``; comparing the two copies is
``hookline.audit._marks``.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

import orjson

from hookline._errors import RecordError
from hookline._support.jsontext import canonical as canonical_text
from hookline._support.jsontext import strict_sorted
from hookline.audit._keyed import (
    COMPACT,
    KEYED,
    Unkeyed,
    chain_key,
    form_of,
    hashed,
    intact,
    is_keyed,
)
from hookline.storage._base import (
    ENTRY_FIELDS,
    LATER_FIELDS,
    AuditEntry,
    AuditRow,
    Chain,
)

#: The fields a chain adds to a record; everything else is hashed.
HASH_FIELDS = frozenset({"seq", "prev_hash", "hash"})
Kind = Literal["edited", "deleted", "reordered", "malformed", "truncated", "unverifiable"]


class AuditError(RecordError):
    """The audit log could not be written: the run stops rather than go on unrecorded."""


class Encoded(NamedTuple):
    """A record as the writer encodes it, once: its data as a store keeps it, its canonical
    bytes (what its hash covers), and the prefix of the format they are in."""

    text: str
    body: bytes
    form: str


def canonical(entry: AuditEntry | AuditRow | Mapping[str, Any], hash: str | None = None) -> bytes:
    """Sorted-key compact JSON (UTF-8) of every field but the hash fields; a field added since
    the first layout (``LATER_FIELDS``) only when set, so older records hash as they did.
    Encoded as the format of ``hash`` (the record's own) says; the standard library's way
    (formats 1 and 2) without one. Format 3 raises ``TypeError`` for what orjson cannot
    encode."""
    fields = _fields(entry)
    if form_of(hash) == COMPACT:
        return orjson.dumps(fields, option=orjson.OPT_SORT_KEYS)
    return canonical_json(fields)


def _fields(entry: AuditEntry | AuditRow | Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(entry, Mapping):
        return {k: v for k, v in entry.items() if k not in HASH_FIELDS}
    fields = {name: getattr(entry, name) for name in ENTRY_FIELDS}
    for name in LATER_FIELDS:
        if (value := getattr(entry, name)) is not None:
            fields[name] = value
    return fields


def encoded(entry: AuditEntry) -> Encoded:
    """``entry`` encoded once for the file, the hash and the store: in format 3, or in format 2
    when orjson cannot encode it (then ``dump_json`` refuses what it refuses)."""
    fields = _fields(entry)
    try:
        data = orjson.dumps(fields.pop("data"), option=orjson.OPT_SORT_KEYS)
        rest = orjson.dumps(fields, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        return _standard(entry)
    # the record's first key is ``data``: its bytes are the data's as they are
    return Encoded(data.decode(), b'{"data":' + data + b"," + rest[1:], COMPACT)


def _standard(entry: AuditEntry) -> Encoded:
    """Format 2's encoding, with the store's strict text of the data."""
    data = strict_sorted(entry.data)
    fields = _fields(entry)
    del fields["data"]
    return Encoded(data, b'{"data":' + data.encode() + b"," + canonical_json(fields)[1:], KEYED)


def canonical_json(value: Any) -> bytes:
    """Sorted-key compact JSON of any JSON value, as UTF-8."""
    return canonical_text(value).encode("utf-8", "backslashreplace")


def digest(value: Any) -> str:
    """SHA-256 (hex) of a JSON value in sorted-key compact form, as orjson writes it (the
    standard library's canonical form for what orjson refuses)."""
    try:
        data = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        data = canonical_json(value)
    return hashlib.sha256(data).hexdigest()


def link(
    prev_hash: str | None,
    entry: AuditEntry | AuditRow | Mapping[str, Any],
    key: bytes | None = None,
) -> str:
    """The hash of ``entry`` placed after a record whose hash is ``prev_hash``: keyed with
    ``key``, in the format written now (format 3, else 2), plain sha256 without (how logs
    were chained before keyed chains)."""
    if key is None:
        return hashed(prev_hash, canonical(entry))
    fields = _fields(entry)
    try:
        return hashed(prev_hash, orjson.dumps(fields, option=orjson.OPT_SORT_KEYS), key, COMPACT)
    except TypeError:
        return hashed(prev_hash, canonical_json(fields), key, KEYED)


def keyed_link(key: bytes) -> Chain:
    """``link`` under ``key``, as a chain function for ``Store.append_audit``."""

    def chain(prev_hash: str | None, entry: AuditEntry) -> str:
        return link(prev_hash, entry, key)

    return chain


def store_chain(entries: Sequence[AuditEntry], made: Sequence[Encoded], key: bytes) -> Chain:
    """A keyed chain function for ``Store.append_audit`` reusing the encodings already made."""
    known = {id(entry): each for entry, each in zip(entries, made, strict=True)}

    def chain(prev_hash: str | None, entry: AuditEntry) -> str:
        each = known.get(id(entry))
        if each is None:
            return link(prev_hash, entry, key)
        return hashed(prev_hash, each.body, key, each.form)

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
    links = (_Link(r.seq, r.hash, r.prev_hash, _body(r, r.hash)) for r in rows)
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
        record = line_record(text)
        if record is None:
            yield Problem("malformed", "not an audit record (JSON with seq and hash)", line=number)
            return
        body = _body(record, record["hash"])
        yield _Link(record["seq"], record["hash"], record["prev_hash"], body, number)


def _body(record: AuditRow | Mapping[str, Any], hash: str) -> bytes:
    """The canonical bytes of a record read back; none (so its hash fails) for one its
    format cannot hold: a record edited to hold what its format never wrote."""
    try:
        return canonical(record, hash)
    except (TypeError, ValueError):
        return b""


def line_record(text: bytes) -> dict[str, Any] | None:
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
