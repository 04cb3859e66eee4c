"""What ``hookline sessions list`` and ``sessions show`` print: status words, rows, details.

A stored status becomes one word of one vocabulary (``STATUS_WORDS``; ``crashed`` for a running
session whose process is gone), used alike by the list, ``--json``, ``--status`` and hints.
"""

from __future__ import annotations

import json
import time
import warnings
from collections.abc import Mapping
from typing import Any, Final

from hookline._agent.saved.deadline import expired
from hookline._agent.saved.owners import claim_of, owner_alive
from hookline._agent.saved.pause import resumable
from hookline._agent.saved.state import load_state
from hookline._cli.paused import resume_lines
from hookline._cli.render import echo, say
from hookline._errors import ConfigError
from hookline._support.display import compact, shown
from hookline.storage import CorruptRecordWarning, SessionRecord, Store

#: A stored status in the one vocabulary the list, ``--json``, ``--status`` and hints use.
STATUS_WORDS: Final = {
    "deferred": "paused",
    "done": "finished",
    "started": "running",
    "running": "running",  # checkpointed: a crashed one can be resumed
    "resuming": "resuming",
    "interrupted": "interrupted",  # a Ctrl-C or an error: resumable when it was checkpointed
}
#: The statuses ``--status`` takes: the words above, and ``crashed`` (a running session whose
#: process is gone from this host).
STATUSES: Final = ("paused", "running", "crashed", "resuming", "interrupted", "finished")
_TIME = "%Y-%m-%d %H:%M:%S"
#: How many sessions ``--status resuming`` looks through for claims (each names its process).
_CLAIMS_SCAN: Final = 10_000


def listed(store: Store, status: str | None, tenant: str | None, limit: int) -> list[SessionRecord]:
    """The records whose status word is ``status`` (any, if None), newest first; a warning on
    stderr for each that cannot be read."""
    word = status.lower() if status else None
    looked_for = "running" if word == "crashed" else word
    stored: list[str | None] = [key for key, w in STATUS_WORDS.items() if w == looked_for]
    with warnings.catch_warnings(record=True) as corrupt:
        warnings.simplefilter("always", CorruptRecordWarning)
        found = [
            r
            for s in stored or [None]
            for r in store.list_sessions(status=s, tenant=tenant, limit=limit)
        ]
        if word in ("resuming", "crashed"):  # a claim's status names its process: read them
            every = store.list_sessions(tenant=tenant, limit=_CLAIMS_SCAN)
            found += [r for r in every if claim_of(r.status) is not None]
    if word is not None:
        found = [record for record in found if status_word(record) == word]
    for w in corrupt:
        if issubclass(w.category, CorruptRecordWarning):
            echo(f"warning: {shown(w.message)}", err=True)
        else:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    found.sort(key=lambda r: (-r.created_at, r.id))
    return found[:limit]


def summary_of(record: SessionRecord) -> dict[str, Any]:
    claimed = claim_of(record.status)
    summary: dict[str, Any] = {
        "session_id": record.id,
        "status": status_word(record),
        "resumable": _resumable(record),
        "user": record.user,
        "tenant": record.tenant,
        "created_at": record.created_at,
        "updated_at": record.updated_at,
        "waiting": [],
    }
    if record.status in ("started", "running"):  # its process may be gone
        summary["alive"] = owner_alive(record.state.get("owner"))
    elif claimed is not None:  # so may the process that claimed it
        summary["alive"] = not claimed.stale
    try:
        _, messages, turn = load_state(record.state, where=f"session {record.id}")
    except ConfigError as exc:
        summary["problem"] = str(exc)
        return summary
    summary["prompt"] = turn.prompt
    summary["messages"] = len(messages)
    summary["waiting"] = [
        {"id": call.id, "name": call.name, "input": call.input} for call in turn.waiting
    ]
    summary["done"] = [r.to_dict() for _, r in turn.batch if r is not None]
    summary["interrupted"] = [
        {"id": call.id, "name": call.name, "input": call.input} for call in turn.interrupted
    ]
    summary["reason"] = turn.detail
    summary["deadline"] = turn.deadline if turn.waiting else None
    plain: dict[str, Any] = json.loads(json.dumps(summary, default=str))
    return plain


def status_word(record: SessionRecord) -> str:
    """The record's status in the one vocabulary (``STATUSES``): a running one whose process is
    gone from this host is ``crashed``, and so is one a resume claimed before its process was
    killed (``hookline._agent.saved.owners``)."""
    claimed = claim_of(record.status)
    if claimed is not None:
        return "crashed" if claimed.stale else "resuming"
    word = STATUS_WORDS.get(record.status, record.status)
    if word == "running" and not owner_alive(record.state.get("owner")):
        return "crashed"
    return word


def _resumable(record: SessionRecord) -> bool:
    try:
        resumable(record)
    except ConfigError:
        return False
    return True


def _local(seconds: float) -> str:
    return time.strftime(_TIME, time.localtime(seconds))


def _until(deadline: float) -> str:
    """A pause's deadline, said as what it means now: answer by it, or it passed (denied)."""
    if expired(deadline, time.time()):
        return f"deadline passed {_local(deadline)}: a resume denies the waiting calls"
    return f"answer by {_local(deadline)}"


def row(summary: Mapping[str, Any]) -> tuple[str, ...]:
    """One session in ``sessions list``: every cell ``shown``, so one line."""
    waiting = ", ".join(f"{shown(w['name'])} ({shown(w['id'])})" for w in summary["waiting"])
    prompt = shown(summary.get("prompt") or summary.get("problem") or "")
    last = f"waits: {waiting}" if waiting else prompt[:60] + ("..." if len(prompt) > 60 else "")
    if waiting and summary.get("deadline") is not None:
        last += f"; {_until(summary['deadline'])}"
    word = summary["status"]
    if word in ("crashed", "interrupted") and summary["resumable"]:
        word += " (resumable)"
    return (
        shown(summary["session_id"]),
        shown(word),
        _local(summary["created_at"]),
        _local(summary["updated_at"]),
        shown(summary["user"] or "-"),
        last,
    )


def print_details(details: Mapping[str, Any], record: SessionRecord) -> None:
    """``sessions show`` for people: one ``name  value`` line each, then how to go on."""
    resumable_now = " (resumable)" if details["resumable"] and details["waiting"] == [] else ""
    lines = [
        ("session", shown(record.id)),
        ("status", shown(details["status"]) + resumable_now),
        ("user", shown(record.user or "-")),
        ("tenant", shown(record.tenant or "-")),
        ("started", _local(record.created_at)),
        ("updated", _local(record.updated_at)),
    ]
    for key in ("problem", "prompt", "messages", "reason"):
        if details.get(key) not in (None, ""):
            lines.append((key, shown(details[key])))
    if details.get("deadline") is not None:
        lines.append(("deadline", _until(details["deadline"])))
    lines += [("done", _done(d)) for d in details.get("done", [])]
    lines += [
        ("waiting", f"{shown(w['name'])} ({shown(w['id'])}) {compact(w['input'])}")
        for w in details["waiting"]
    ]
    lines += [
        (
            "interrupted",
            f"{shown(w['name'])} ({shown(w['id'])}) {compact(w['input'])}"
            " (outcome unknown; --rerun-interrupted runs it again)",
        )
        for w in details.get("interrupted", [])
    ]
    if record.status in ("deferred", "running", "interrupted") or claim_of(record.status):
        # what a resume would use
        lines += _plan_lines(details.get("resume", {}))
    width = max(len(name) for name, _ in lines) + 2
    for name, value in lines:
        echo(f"{name:<{width}}{value}")
    if details["waiting"] and record.status == "deferred":
        say("note", "run one of these to go on:")
        for line in resume_lines(record.id, details["waiting"], record.state.get("launch")):
            say("note", f"  {line}")


def _done(result: Mapping[str, Any]) -> str:
    name, status = shown(result.get("name", "?")), shown(result.get("status", "?"))
    return f"{name} ({shown(result.get('tool_use_id') or result.get('id') or '?')}): {status}"


def _plan_lines(plan: Mapping[str, Any]) -> list[tuple[str, str]]:
    """What a resume would use, one line each (its hook sources, one line per file)."""
    lines = []
    for key, value in plan.items():
        if key in ("user", "tenant"):
            continue  # shown above
        label = "resume: " + key.replace("_", " ")
        if key == "hook_sources" and isinstance(value, list):
            lines += [(label, f"{shown(s['path'])} {shown(s['status'])}") for s in value]
        elif isinstance(value, list):
            lines.append((label, ", ".join(shown(v) for v in value)))
        else:
            lines.append((label, shown("-" if value is None else value)))
    return lines
