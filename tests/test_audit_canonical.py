"""A record's canonical bytes (what its hash covers) are those of encoding it as one sorted
dict, in the encoding its format names, over a corpus of awkward values: formats 1 and 2 as
every older chain was hashed (any change that would make old logs fail to verify fails here
first), format 3 by orjson. The writer encodes each record once, in format 3 unless orjson
cannot, and a chain of every kind verifies. And the writer keeps a lone surrogate out of the
text columns while ``data`` keeps it."""

from __future__ import annotations

import enum
import hmac
import itertools
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson
import pytest

from hookline.audit._chain import (
    canonical,
    canonical_json,
    encoded,
    keyed_link,
    link,
    verify_jsonl,
    verify_rows,
)
from hookline.audit._keyed import COMPACT, KEYED, KeyedMac, hashed, mac
from hookline.audit._writer import AuditWriter
from hookline.storage._base import (
    ENTRY_FIELDS,
    LATER_FIELDS,
    AuditEntry,
    AuditRow,
    dump_json,
    place,
)
from hookline.storage._sqlite import SqliteStore


def _one_dict(entry: AuditEntry | AuditRow) -> dict[str, Any]:
    fields = {name: getattr(entry, name) for name in ENTRY_FIELDS}
    for name in LATER_FIELDS:
        if (value := getattr(entry, name)) is not None:
            fields[name] = value
    return fields


def _as_one_dict(entry: AuditEntry | AuditRow) -> bytes:
    """The record as the first layout hashed it: a dict of its fields, encoded whole."""
    return canonical_json(_one_dict(entry))


def _as_one_dict_compact(entry: AuditEntry | AuditRow) -> bytes:
    """The record as format 3 hashes it: the same dict, encoded whole by orjson."""
    return orjson.dumps(_one_dict(entry), option=orjson.OPT_SORT_KEYS)


class Said(enum.StrEnum):
    ALLOW = "allow"


class Name(str):
    pass


TEXTS: list[Any] = [
    None, "", "allow", "Read", 'quote " and \\ backslash', "tab\tnew\nline\r", "\x00\x1f\x7f",
    "é 中文 🙂", "\u2028\u2029\x85", "\ud800 lone", "x\udcff", Name("sub"), Said.ALLOW,
]  # fmt: skip
TIMES: list[Any] = [
    1700000000.123456, 0.0, -0.0, 1e-7, 1e22, 5, True, float("nan"), float("inf"),
    float("-inf"), 1.0000000000000002,
]  # fmt: skip
DATA: list[Any] = [
    {},
    {"user": "root", "tenant": None, "hook": "gate", "duration_ms": 0.123},
    {"z": 1, "a": {"y": [3, {"b": 2, "a": 1}], "x": "\ud83d"}, "m": [None, True, 1.5, "é"]},
    {"input": {"file_path": "/tmp/\u2028x", "n": float("nan")}, "1": 1, "10": 2, "2": 3},
]


def _entries() -> list[AuditEntry]:
    columns = itertools.cycle(TEXTS)
    found = []
    for time, data in itertools.product(TIMES, DATA):
        names = {n: next(columns) for n in ("session_id", "tool_use_id", "event", "tool")}
        kind, decision, permission = next(columns) or "hook", next(columns), next(columns)
        entry = AuditEntry(kind=kind, time=time, data=data, decision=decision, **names)
        found.append(replace(entry, permission=permission))
    for text in TEXTS:  # every tricky text in every column once
        for name in ("kind", "session_id", "tool_use_id", "event", "tool", "decision"):
            found.append(AuditEntry(**{"kind": "hook", name: text}))
        found.append(AuditEntry(kind="hook", permission=text))
    return found


ENTRIES = _entries()


def test_the_corpus_reaches_every_kind_of_value() -> None:
    assert any(e.permission is None for e in ENTRIES)
    assert any(e.permission is not None for e in ENTRIES)
    assert {type(e.time) for e in ENTRIES} == {float, int, bool}


@pytest.mark.parametrize("entry", ENTRIES)
def test_canonical_bytes_are_those_of_the_whole_dict(entry: AuditEntry) -> None:
    assert canonical(entry) == _as_one_dict(entry)


def _finite(value: Any) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except ValueError:
        return False
    return True


def _compact_encodes(entry: AuditEntry) -> bool:
    try:
        _as_one_dict_compact(entry)
    except TypeError:
        return False
    return True


@pytest.mark.parametrize("entry", ENTRIES)
def test_a_record_is_encoded_once_for_its_hash_its_line_and_the_store(entry: AuditEntry) -> None:
    """Format 3 unless orjson cannot encode the record (a lone surrogate, here); then format 2,
    whose store text refuses what the store would, before anything is written."""
    if not _compact_encodes(entry) and not _finite(entry.data):
        with pytest.raises(ValueError, match="JSON compliant"):
            encoded(entry)
        return
    made = encoded(entry)
    if _compact_encodes(entry):
        assert made.form == COMPACT
        assert made.body == canonical(entry, COMPACT + "0" * 64) == _as_one_dict_compact(entry)
    else:
        assert made.form == KEYED
        assert made.body == canonical(entry) == _as_one_dict(entry)
        assert json.loads(made.text) == json.loads(dump_json(entry.data))
    assert made.text.encode() in made.body
    assert json.loads(made.body)["data"] == json.loads(made.text)


def test_the_corpus_has_records_of_both_formats() -> None:
    forms = {_compact_encodes(entry) for entry in ENTRIES}
    assert forms == {True, False}


def test_rows_hash_as_entries_and_a_chain_of_them_verifies() -> None:
    rows = place(ENTRIES, link, None)
    for row, entry in zip(rows, ENTRIES, strict=True):
        assert canonical(row) == _as_one_dict(row) == canonical(entry)
    assert verify_rows(rows) is None


def test_a_keyed_chain_of_every_record_verifies_each_in_its_format() -> None:
    key = b"k" * 32
    rows = place(ENTRIES, keyed_link(key), None)
    assert {row.hash.split(":")[0] + ":" for row in rows} == {COMPACT, KEYED}
    assert verify_rows(rows, key=key) is None
    edited = list(rows)
    first = next(i for i, row in enumerate(rows) if row.hash.startswith(COMPACT) and row.data)
    edited[first] = replace(rows[first], data={**rows[first].data, "added": 1})
    problem = verify_rows(edited, key=key)
    assert problem is not None and problem.kind == "edited" and problem.seq == rows[first].seq


def test_the_formats_spell_some_floats_apart_and_each_record_verifies_in_its_own(
    tmp_path: Path,
) -> None:
    """Why the format is on the record: the same value is other bytes in format 2 and 3."""
    entry = AuditEntry(kind="hook", time=1.0, data={"duration_ms": 1e-7})
    assert b"1e-7" in encoded(entry).body and b"1e-07" in canonical(entry)
    with AuditWriter(SqliteStore(tmp_path / "a.db"), jsonl_path=tmp_path / "a.jsonl") as log:
        log.add(entry)
        log.add(replace(entry, data={"said": "\ud800"}))  # orjson cannot: format 2
        log.add(entry)
        log.flush(copy=True)
        rows = log.store_of().audit_rows()  # type: ignore[union-attr]
    assert [row.hash[:3] for row in rows] == ["v3:", "hma", "v3:"]
    assert verify_rows(rows) is None and verify_jsonl(tmp_path / "a.jsonl") is None


def _format_2_line(seq: int, prev: str | None, fields: dict[str, Any], key: bytes) -> str:
    """A line as hookline wrote it before format 3."""
    this = hashed(prev, canonical_json(fields), key, KEYED)
    return json.dumps({"seq": seq, "prev_hash": prev, "hash": this, **fields}) + "\n"


def test_a_log_of_format_2_records_goes_on_in_format_3_and_verifies(tmp_path: Path) -> None:
    from hookline.audit._keyed import chain_key

    key = chain_key(create=True)
    assert key is not None
    path, prev, lines = tmp_path / "a.jsonl", None, []
    for n in range(3):
        fields = _one_dict(AuditEntry(kind="hook", time=1.0 + n, data={"n": n, "f": 1e-7}))
        lines.append(_format_2_line(n + 1, prev, fields, key))
        prev = json.loads(lines[-1])["hash"]
    path.write_text("".join(lines))
    assert verify_jsonl(path) is None
    with AuditWriter(None, jsonl_path=path) as log:
        log.add(AuditEntry(kind="hook", time=9.0, data={"n": 3, "f": 1e-7}))
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert [r["hash"][:3] for r in records] == ["hma", "hma", "hma", "v3:"]
    assert records[3]["prev_hash"] == records[2]["hash"]
    assert verify_jsonl(path) is None


def test_a_format_3_record_relabelled_as_format_2_does_not_verify(tmp_path: Path) -> None:
    """Whoever cannot hash under the key cannot move a record to another format either."""
    path = tmp_path / "a.jsonl"
    with AuditWriter(None, jsonl_path=path) as log:
        log.add(AuditEntry(kind="hook", time=1.0, data={"n": 1}))
    text = path.read_text()
    assert '"hash":"v3:' in text
    path.write_text(text.replace('"hash":"v3:', '"hash":"hmac:'))
    problem = verify_jsonl(path)
    assert problem is not None and problem.kind == "edited"


def test_a_value_json_cannot_hold_is_refused_as_before() -> None:
    entry = AuditEntry(kind="hook", data={"x": object()})
    with pytest.raises(TypeError, match="object"):
        _as_one_dict(entry)
    with pytest.raises(TypeError, match="object"):
        canonical(entry)
    with pytest.raises(TypeError, match="object"):
        canonical(AuditEntry(kind="hook", tool=object()))  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["tool_use_id", "tool", "event", "permission"])
def test_a_lone_surrogate_in_a_column_is_stored_as_ufffd_and_kept_in_the_data(
    tmp_path: Path, name: str
) -> None:
    made_up = "caf\u00e9 \ud800"  # non-ASCII beside it: the one-text test does not decide
    columns: dict[str, Any] = {name: made_up}
    entry = replace(AuditEntry(kind="hook", data={"said": made_up}), **columns)
    with AuditWriter(SqliteStore(tmp_path / "a.db"), jsonl_path=tmp_path / "a.jsonl") as log:
        log.add(entry)
        log.flush(copy=True)
        (row,) = log.store_of().audit_rows()  # type: ignore[union-attr]
    assert getattr(row, name) == "caf\u00e9 \ufffd"
    assert row.data == {"said": made_up}
    assert verify_rows([row]) is None and verify_jsonl(tmp_path / "a.jsonl") is None


def test_ascii_columns_leave_the_entry_as_it_is(tmp_path: Path) -> None:
    entry = AuditEntry(kind="hook", tool="Read", event="PreToolUse", data={"x": "\ud800"})
    with AuditWriter(None, jsonl_path=tmp_path / "a.jsonl") as log:
        log.add(entry)
        assert log._pending[0] is entry


def test_canonical_spells_out_every_field_a_record_has() -> None:
    """A field added to the layout must be added to ``canonical`` too (else it goes unhashed)."""
    entry = AuditEntry(kind="hook", session_id="s", tool_use_id="t", event="e", tool="Read",
                       decision="allow", permission="allow", data={"x": 1})  # fmt: skip
    assert set(json.loads(canonical(entry))) == {*ENTRY_FIELDS, *LATER_FIELDS}


def test_a_writers_keyed_mac_is_the_keys_hmac() -> None:
    key, other = b"k" * 32, b"o" * 32
    keyed = KeyedMac(key)
    for body in (b"", b"{}", b'{"data":"\xc3\xa9"}' * 50):
        for form in (KEYED, COMPACT):
            assert hashed("v3:" + "0" * 64, body, keyed, form) == hashed(
                "v3:" + "0" * 64, body, key, form
            )
        assert mac(keyed, "head", 3, body) == mac(key, "head", 3, body)
        assert mac(keyed, "head", 3, body) != mac(other, "head", 3, body)
    assert mac(key, "x") == hmac.new(key, b"x", "sha256").hexdigest()
