"""The lines ``hookline audit`` prints: which records a filter keeps, and each as a row.

A call's ``tool_started`` record with no result after it is ``started, not finished``
(``unfinished_calls``); ``--decision`` keeps the records that say it (``saying``); each record is
one line of aligned columns (``cells``) or one JSON object (``as_dict``).
"""

from __future__ import annotations

from dataclasses import fields
from datetime import datetime
from typing import TYPE_CHECKING, Any

from hookline._cli.audit_verify import all_rows
from hookline._decisions import HOOK_ORIGINS
from hookline._support.display import shown

if TYPE_CHECKING:
    from hookline.storage import AuditRow, Store

UNFINISHED = "started, not finished"
#: The columns of ``hookline audit``; a session is shown by its first ``SHORT_ID`` characters.
COLUMNS = ("TIME", "SESSION", "TOOL", "EVENT", "BY", "DECISION", "REASON")
SHORT_ID = 8


def saying(lines: list[AuditRow], decision: str) -> list[AuditRow]:
    """The lines that say ``decision``: in their decision column (a hook's answer, an
    approval, a resume, a call's outcome), or a call's record whose permission says it while
    no other line of that call does (a rule's, the mode's or a tier's refusal). A shadow
    hook's run says what it would have decided, which nobody did: it is not among them."""
    lines = [line for line in lines if not line.data.get("shadow")]
    said = [line for line in lines if line.decision == decision]
    calls = {(line.session_id, line.tool_use_id) for line in said}

    def by_permission(line: AuditRow) -> bool:
        call = (line.session_id, line.tool_use_id)
        return line.kind == "tool" and line.permission == decision and call not in calls

    return [line for line in lines if line.decision == decision or by_permission(line)]


def unfinished_calls(store: Store, rows: list[AuditRow]) -> set[int]:
    """The seqs of the ``tool_started`` records among ``rows`` that no result follows."""
    started = {(r.session_id, r.tool_use_id): r.seq for r in rows if r.kind == "tool_started"}
    if not started:
        return set()
    sessions = {session for session, _ in started}
    only = next(iter(sessions)) if len(sessions) == 1 else None
    for row in all_rows(store, after=min(started.values()), session_id=only):
        if row.kind == "tool":
            started.pop((row.session_id, row.tool_use_id), None)
    return set(started.values())


def cut_off_call(row: AuditRow, cut_off: set[int]) -> bool:
    """A ``tool_started`` record with no result after it."""
    return row.kind == "tool_started" and row.seq in cut_off


def as_dict(row: AuditRow, cut_off: set[int]) -> dict[str, Any]:
    shown = {field.name: getattr(row, field.name) for field in fields(row)}
    if row.kind == "tool_started":
        shown["finished"] = row.seq not in cut_off
    return shown


def cells(row: AuditRow, cut_off: set[int]) -> tuple[str, ...]:
    """time, session (its first ``SHORT_ID`` characters), tool, event (or kind), hook (or who
    answered, or where a call's permission came from: rule, mode, tier, ...), decision, reason;
    every recorded value ``shown``, so one record is one line."""
    data = row.data
    when = datetime.fromtimestamp(row.time).isoformat(timespec="seconds")
    who = decided_by(data)
    reason = str(data.get("reason") or data.get("message") or data.get("error") or "").rstrip()
    reason = _cut(reason) if reason else shown(data.get("allowed", ""))
    reason = UNFINISHED if cut_off_call(row, cut_off) else reason
    values = (
        (row.session_id or "-")[:SHORT_ID],
        row.tool or "-",
        row.event or row.kind,
        who or "-",
        row.decision or "-",
    )
    return (when, *map(shown, values), reason)


#: The most of a hook's name (a command line, a URL) the BY column shows.
HOOK_CHARS = 48


def decided_by(data: dict[str, Any]) -> str | None:
    """Who a record's decision is from, said one way for all records: ``hook NAME``,
    ``approver WHO``, ``permission rule`` (or ``mode``, ``tier``, ``sandbox``), ``unanswered``;
    ``shadow NAME`` for a shadow hook, whose decision is what it would have decided."""
    if data.get("hook"):
        name = str(data["hook"])
        kind = "shadow" if data.get("shadow") else "hook"  # it decided nothing
        return f"{kind} {name if len(name) <= HOOK_CHARS else name[: HOOK_CHARS - 3] + '...'}"
    who = data.get("answered_by") or data.get("approver")
    if who:
        return f"approver {who}"
    origin = data.get("origin")
    if origin in HOOK_ORIGINS:
        return "hook"
    if origin in ("approver", "unanswered"):
        return str(origin)
    return f"permission {origin}" if origin else None


def _cut(reason: str, limit: int = 100) -> str:
    """The first ``limit`` characters of a reason, ``shown``; ``...`` if there are more."""
    return shown(reason[:limit]) + ("..." if len(reason) > limit else "")
