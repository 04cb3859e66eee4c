"""One session as its steps: prompts, model calls, tool calls, approvals and resumes, each with
the hooks that ran at it, their decisions, reasons and latency.

    steps = timeline(rows, transcript)      # rows: the session's audit records, oldest first
    seen = sessions_seen(rows)              # rows: any records: one summary per session

The audit says what was decided: a tool call's two records (``tool_started``, ``tool``) become
one step with the hook runs they carry, its permission, where that came from and its outcome;
a hook run of any other event (a prompt's, a stop's) is a step of its own; an approval says who
answered; an event ``hookline serve`` judged for a host (a ``served`` record) is a step with
the hooks that judged it, what was answered and where that came from. The transcript (when
there is one) adds what the audit does not keep: each prompt's text, and each model reply (what
it said, which calls it asked for); without one, a ``model`` record (which model, how many
tokens) is the model call's step. Everything is shown as recorded: redacted as the audit
redacts.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from hookline._decisions import HOOK_ORIGINS
from hookline.audit._callers import CALLER_FIELDS

if TYPE_CHECKING:
    from hookline.storage import AuditRow

#: The most characters of an input or a prompt a step keeps.
PREVIEW: Final = 300


@dataclass(frozen=True, slots=True)
class HookMark:
    """One hook run at a step."""

    event: str
    hook: str
    decision: str | None
    reason: str | None
    ms: float | None
    failure: str | None = None
    shadow: bool = False

    @classmethod
    def of(cls, run: Mapping[str, Any], event: str | None = None) -> HookMark:
        ms = run.get("duration_ms")
        return cls(
            str(run.get("event") or event or ""),
            str(run.get("hook") or "?"),
            _text(run.get("decision")),
            _text(run.get("reason") or run.get("error")),
            float(ms) if isinstance(ms, int | float) and not isinstance(ms, bool) else None,
            _text(run.get("failure")),
            bool(run.get("shadow")),
        )


@dataclass(slots=True)
class Step:
    """One thing the session did, at ``time``: its kind, what it was, and what was decided."""

    time: float
    kind: str  # prompt, model, tool, hook, approval, resume
    title: str
    detail: str = ""
    decision: str | None = None
    reason: str | None = None
    who: str | None = None
    ms: float | None = None
    hooks: list[HookMark] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "time": self.time,
            "at": datetime.fromtimestamp(self.time).isoformat(timespec="milliseconds"),
            "kind": self.kind,
            "title": self.title,
            "detail": self.detail,
            "decision": self.decision,
            "reason": self.reason,
            "who": self.who,
            "ms": self.ms,
            "hooks": [_marked(mark) for mark in self.hooks],
        }


def _marked(mark: HookMark) -> dict[str, Any]:
    return {name: getattr(mark, name) for name in HookMark.__slots__}


def timeline(rows: Iterable[AuditRow], transcript: Path | None = None) -> list[Step]:
    """The session's steps, oldest first."""
    steps: list[Step] = list(_said(transcript)) if transcript is not None else []
    calls: dict[str, Step] = {}
    for row in rows:
        if row.kind in ("tool_started", "tool") and row.tool_use_id:
            step = calls.get(row.tool_use_id)
            if step is None:
                step = calls[row.tool_use_id] = _call(row)
                steps.append(step)
            _called(step, row)
        else:
            step = _step_of(row, told=transcript is not None)
            if step is not None:
                steps.append(step)
    return sorted(steps, key=lambda step: step.time)


def _step_of(row: AuditRow, *, told: bool) -> Step | None:
    """The step a record outside a tool call's two is: a hook run of another event, an
    approval, a resume, a model call (None: a kind a timeline does not show)."""
    data, at = row.data, row.time
    if row.kind == "hook":
        mark = HookMark.of(data, row.event)
        title = f"{row.event} hook {mark.hook}"
        return Step(at, "hook", title, decision=mark.decision, reason=mark.reason, ms=mark.ms,
                    hooks=[mark])  # fmt: skip
    if row.kind == "approval":
        return Step(at, "approval", f"approval of {row.tool or 'a call'}",
                    _preview(data.get("input")), _text(data.get("behavior")) or row.decision,
                    _text(data.get("message") or data.get("reason")),
                    _text(data.get("answered_by")))  # fmt: skip
    if row.kind == "resume":
        return Step(at, "resume", f"resumed {row.tool or 'a call'}",
                    decision=_text(data.get("answer")), who=_text(data.get("user")))  # fmt: skip
    if row.kind == "served":
        return _served(row)
    if row.kind == "model" and not told:  # a transcript tells each reply, and more
        usage = data.get("usage") or {}
        tokens = ", ".join(f"{k} {v}" for k, v in usage.items() if isinstance(v, int))
        return Step(at, "model", f"model {data.get('model') or '?'}", tokens)
    return None


def _served(row: AuditRow) -> Step:
    """An event a server judged: a call's (``tool``) or another event's (``hook``)."""
    data = row.data
    answered = row.permission or (None if row.decision == "none" else row.decision)
    return Step(
        row.time,
        "tool" if row.tool else "hook",
        f"{row.tool or row.event} from {data.get('host') or '?'}",
        _preview(data.get("input")),
        decision=answered,
        reason=_text(data.get("reason") or data.get("failure")),
        who=_origin(data.get("origin")),
        hooks=[HookMark.of(run) for run in data.get("hooks") or [] if isinstance(run, Mapping)],
    )


@dataclass(slots=True)
class SessionSeen:
    """One session as the audit saw it: when, how many records and calls, and who made them."""

    id: str
    first: float
    last: float
    records: int = 0
    calls: set[str] = field(default_factory=set)
    callers: dict[str, set[str]] = field(default_factory=dict)

    def add(self, row: AuditRow) -> None:
        self.first, self.last = min(self.first, row.time), max(self.last, row.time)
        self.records += 1
        if row.tool_use_id:
            self.calls.add(row.tool_use_id)
        for name in CALLER_FIELDS:
            value = row.data.get(name)
            if isinstance(value, str) and value:
                self.callers.setdefault(name, set()).add(value)

    def said(self, name: str) -> str:
        """Every value of caller field ``name`` its records give, comma-separated."""
        return ",".join(sorted(self.callers.get(name, ())))

    def to_dict(self) -> dict[str, Any]:
        return {
            "session": self.id,
            "first": datetime.fromtimestamp(self.first).isoformat(timespec="seconds"),
            "last": datetime.fromtimestamp(self.last).isoformat(timespec="seconds"),
            "records": self.records,
            "calls": len(self.calls),
            **{name: sorted(self.callers.get(name, ())) for name in CALLER_FIELDS},
        }


def sessions_seen(rows: Iterable[AuditRow]) -> list[SessionSeen]:
    """Each session the rows are of, the one seen last first."""
    seen: dict[str, SessionSeen] = {}
    for row in rows:
        if not row.session_id:
            continue
        found = seen.get(row.session_id)
        if found is None:
            found = seen[row.session_id] = SessionSeen(row.session_id, row.time, row.time)
        found.add(row)
    return sorted(seen.values(), key=lambda one: one.last, reverse=True)


def _call(row: AuditRow) -> Step:
    return Step(row.time, "tool", row.tool or "?", _preview(row.data.get("input")))


def _called(step: Step, row: AuditRow) -> None:
    """What a call's record adds to its step: its hook runs, and (the result) its outcome."""
    data = row.data
    step.hooks += [HookMark.of(run) for run in data.get("hooks") or [] if isinstance(run, Mapping)]
    origin = _origin(data.get("origin"))
    if row.kind == "tool_started":
        step.decision, step.who = "allow", origin
        step.reason = _text(data.get("allowed") or data.get("reason"))
        return
    status, permission = _text(data.get("status")), row.permission
    step.decision = status if permission in (None, "allow") else f"{permission} ({status})"
    step.reason = _text(data.get("reason")) or step.reason
    step.who = origin or step.who
    ms = data.get("duration_ms")
    step.ms = float(ms) if isinstance(ms, int | float) and not isinstance(ms, bool) else None


def _said(transcript: Path) -> Iterable[Step]:
    """Each prompt of a transcript (a ``user`` entry whose content is text) and each model
    reply (its ``assistant`` entries, one per content block, share the reply's id), at its
    time: the text said and the calls asked for."""
    try:
        lines = transcript.read_text(encoding="utf-8", errors="replace").split("\n")
    except OSError:
        return
    replies: dict[str, Step] = {}
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        message = entry.get("message") if isinstance(entry, dict) else None
        if not isinstance(message, dict):
            continue
        content, at = message.get("content"), _when(entry.get("timestamp"))
        if entry.get("type") == "user" and isinstance(content, str) and not entry.get("isMeta"):
            yield Step(at, "prompt", "prompt", _preview(content))
        elif entry.get("type") == "assistant" and isinstance(content, list):
            said = "; ".join(_part(block) for block in content if isinstance(block, dict))
            reply = replies.get(str(message.get("id")))
            if reply is None:
                title = f"model {message.get('model') or '?'}"
                reply = replies[str(message.get("id"))] = Step(at, "model", title)
                yield reply
            reply.detail = _preview("; ".join(p for p in (reply.detail, said) if p))


def _part(block: Mapping[str, Any]) -> str:
    if block.get("type") == "text":
        return str(block.get("text") or "")
    if block.get("type") == "tool_use":
        return f"asks for {block.get('name')}"
    return ""


def _origin(origin: object) -> str | None:
    """Where a call's permission came from, in a person's words: any hook's answer is a hook's."""
    if origin == "hook_failure":
        return "hook failure"
    return "hook" if origin in HOOK_ORIGINS else _text(origin)


def _when(stamp: object) -> float:
    try:
        return datetime.fromisoformat(str(stamp).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return 0.0


def _preview(value: object) -> str:
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= PREVIEW else text[: PREVIEW - 1] + "…"


def _text(value: object) -> str | None:
    return None if value is None or value == "" else str(value)
