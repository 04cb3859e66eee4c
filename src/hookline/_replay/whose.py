"""One caller's recorded calls: ``hookline replay --tenant/--agent/--user/--host``.

    events = whose(recorded(paths), Callers(tenant="payments"))

Only the audit says who made a call (``hookline.audit._callers``): an event read from an audit
is kept when its own record's data names the callers; one of a hookline transcript when the
audit beside it (``<state>/audit.jsonl``) has such a record of its session; a host's own
transcript (Claude Code's, Codex's, Gemini CLI's) does not say who, so none of its events.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import orjson

from hookline._replay.audited import is_audit
from hookline._replay.recorded import Recorded
from hookline.audit._callers import Callers
from hookline.audit._writer import JSONL_NAME


def whose(events: Iterable[Recorded], callers: Callers) -> list[Recorded]:
    """The events ``callers`` made, in their order (every event when no filter is given)."""
    if not callers:
        return list(events)

    @cache
    def records(path: Path) -> dict[int, Any]:
        return dict(_records(path))

    @cache
    def sessions(audit: Path) -> frozenset[str]:
        said = records(audit).values()
        return frozenset(str(r.get("session_id")) for r in said if callers.keeps(r.get("data")))

    kept = []
    for event in events:
        name, _, line = event.source.rpartition(":")
        path = Path(name)
        if event.redacted:  # read from an audit: its own record says who
            record = records(path).get(int(line)) if line.isdigit() else None
            if isinstance(record, dict) and callers.keeps(record.get("data")):
                kept.append(event)
            continue
        beside = path.parent.parent / JSONL_NAME
        transcript = path.parent.name == "transcripts" and beside.is_file()
        if transcript and event.session_id in sessions(beside):
            kept.append(event)
    return kept


def _records(path: Path) -> Iterator[tuple[int, Any]]:
    """Each line's audit record, by its number (numbered as the history reader numbers them)."""
    try:
        lines = path.read_bytes().split(b"\n")
    except OSError:
        return
    for number, line in enumerate(lines, 1):
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(record, dict) and is_audit(record):
            yield number, record
