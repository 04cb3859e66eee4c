"""A record's canonical bytes (what its hash covers) are those of encoding it as one sorted
dict, the form every existing chain was hashed in, over a corpus of awkward values: any change
to ``canonical`` that would make old logs fail to verify fails here first. And the writer keeps
a lone surrogate out of the text columns while ``data`` keeps it."""

from __future__ import annotations

import enum
import itertools
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from hookline.audit._chain import (
    canonical,
    canonical_json,
    canonical_parts,
    link,
    verify_jsonl,
    verify_rows,
)
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


def _as_one_dict(entry: AuditEntry | AuditRow) -> bytes:
    """The record as the first layout hashed it: a dict of its fields, encoded whole."""
    fields = {name: getattr(entry, name) for name in ENTRY_FIELDS}
    for name in LATER_FIELDS:
        if (value := getattr(entry, name)) is not None:
            fields[name] = value
    return canonical_json(fields)


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


@pytest.mark.parametrize("entry", ENTRIES)
def test_the_data_and_the_record_encoded_once_are_the_bytes_of_encoding_each(
    entry: AuditEntry,
) -> None:
    """The writer encodes a record once for the file's hash and the store's data column."""
    if not _finite(entry.data):
        with pytest.raises(ValueError, match="JSON compliant"):
            canonical_parts(entry)  # what the store would refuse, before anything is written
        return
    text, body = canonical_parts(entry)
    assert body == canonical(entry) == _as_one_dict(entry)
    assert json.loads(text) == json.loads(dump_json(entry.data))
    assert text.encode() in body


def test_rows_hash_as_entries_and_a_chain_of_them_verifies() -> None:
    rows = place(ENTRIES, link, None)
    for row, entry in zip(rows, ENTRIES, strict=True):
        assert canonical(row) == _as_one_dict(row) == canonical(entry)
    assert verify_rows(rows) is None


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
