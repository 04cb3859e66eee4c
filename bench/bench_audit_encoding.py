"""What a record costs the audit to encode and write, in format 3 (orjson) and format 2 (the
standard library's encoder, which the audit wrote before format 3, and still writes for a record
orjson cannot encode).

Per record: ``encoding`` is the writer's one encoding (the store's text of the data and the
canonical bytes the hash covers); ``write ahead`` is ``add`` then ``write_ahead`` (encode, chain
under the key, append to the file, keep the head) of a tool call's result record with five hook
runs in it, to a file on tmpfs where there is one. Run ``python bench/bench_audit_encoding.py``
(``--quick`` for a smoke check, ``--json`` for JSON).
"""

from __future__ import annotations

import statistics
import tempfile
from collections.abc import Callable
from pathlib import Path
from time import perf_counter, time
from typing import Any
from unittest import mock

import benchkit  # puts ../src on sys.path when needed
from benchkit import SCRATCH
from hookline.audit import _writer
from hookline.audit._chain import Encoded, _standard, encoded
from hookline.audit._writer import AuditWriter
from hookline.storage import AuditEntry

HOOK = {"decision": "allow", "duration_ms": 0.095, "event": "PreToolUse", "handler": "sdk",
        "hook": "guard.check", "hook_kind": "gate",
        "source": "python:/work/shop/hooks.py"}  # fmt: skip
DATA = {
    "duration_ms": 0.4, "hooks": [HOOK] * 5, "input": {"file_path": "/work/shop/notes.txt"},
    "input_digest": "72b168f7dc6f51455c9330671a44e5640fb70bc8b859036b9f488243ea45e4f5",
    "origin": "json", "output_digest": "1cd7f28988a7bb21ca5c6a700bf7474abb14c868ab6b8815c00758c8",
    "permission": "allow", "status": "executed", "tenant": None, "user": None,
}  # fmt: skip
FORMATS: dict[str, Callable[[AuditEntry], Encoded]] = {"format 3": encoded, "format 2": _standard}


def entry(n: int) -> AuditEntry:
    return AuditEntry(kind="tool", time=time(), session_id="s", tool_use_id=f"t{n}", tool="Read",
                      decision="executed", permission="allow", data=dict(DATA))  # fmt: skip


def encoding_us(encode: Callable[[AuditEntry], Encoded], calls: int, rounds: int) -> float:
    one = entry(0)
    times = []
    for _ in range(rounds):
        start = perf_counter()
        for _ in range(calls):
            encode(one)
        times.append((perf_counter() - start) / calls * 1e6)
    return statistics.median(times)


def write_ahead_us(encode: Callable[[AuditEntry], Encoded], calls: int, rounds: int) -> float:
    times = []
    with mock.patch.object(_writer, "encoded", encode):
        for _ in range(rounds):
            with tempfile.TemporaryDirectory(dir=SCRATCH) as tmp:
                log = AuditWriter(None, jsonl_path=Path(tmp) / "audit.jsonl")
                made = [entry(n) for n in range(calls)]
                start = perf_counter()
                for one in made:
                    log.add(one)
                    log.write_ahead()
                times.append((perf_counter() - start) / calls * 1e6)
                log.close()
    return statistics.median(times)


def run_all(quick: bool) -> dict[str, Any]:
    calls, rounds = (200, 3) if quick else (5000, 11)
    return {
        name: {
            "encoding_us": encoding_us(encode, calls, rounds),
            "write_ahead_us": write_ahead_us(encode, calls // 5, rounds),
        }
        for name, encode in FORMATS.items()
    }


def table(results: dict[str, Any]) -> str:
    rows = ["             encoding   write ahead (µs a record)"]
    for name, got in results.items():
        rows.append(f"{name:10} {got['encoding_us']:10.1f} {got['write_ahead_us']:12.1f}")
    return "\n".join(rows)


if __name__ == "__main__":
    benchkit.main(__doc__ or "", run_all, table)
