"""The audit record of each ruling: who asked (session, folder, host; the token's agent, tenant
and user, and the address), about what, and the answer.

One ``served`` record per hook event the server judged, with the hook runs that judged it in
``data["hooks"]`` (as a run's call records keep theirs), through the audit writer ``hookline run``
writes with (``hookline.audit._writer``): redacted, hash-chained, in ``<state>/audit.jsonl`` and
the store, so ``hookline audit`` shows them beside a run's. ``record`` returns once the record is
written; a record that cannot be written raises ``AuditError`` (the app then refuses what it
would have let run).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from hookline.audit._records import shown_input
from hookline.storage._base import AuditEntry

if TYPE_CHECKING:
    from hookline._hooks.engine import HookRun
    from hookline._serve.break_glass import Glass
    from hookline._serve.judge import Ruling
    from hookline.audit._writer import AuditWriter

#: The ``kind`` of a ruling's record.
KIND: Final = "served"


def record(
    writer: AuditWriter,
    ruling: Ruling,
    payload: Mapping[str, Any],
    *,
    host: str,
    glass: Glass | None = None,
    answer: dict[str, Any] | None = None,
    caller: Mapping[str, str] | None = None,
    policy: str | None = None,
    asked: Mapping[str, Any] | None = None,
    granted: Mapping[str, Any] | None = None,
) -> None:
    """Write the record of ``ruling`` (for ``payload``, from ``host``, by ``caller``: its
    ``Caller.fields``) now; under ``glass``, the answer given instead is on it too (``answer``:
    when it is not the glass's own); ``policy``: the digest of the policy that decided
    (``hookline._policy.digest``); ``asked``: the live ask it waited on and its answer
    (``hookline._serve.asks``); ``granted``: the host session's grants that let it run with
    no ask (``hookline._serve.grants``)."""
    made = entry(
        writer,
        ruling,
        payload,
        host=host,
        glass=glass,
        answer=answer,
        caller=caller,
        policy=policy,
        asked=asked,
        granted=granted,
    )
    writer.add(made)
    writer.flush()


def hook_run(run: HookRun) -> dict[str, Any]:
    """One hook run, as a run's audit keeps it inside a call's record (``data["hooks"]``, which
    ``hookline.audit.unfolded`` and ``hookline hooks stats`` read): redacted with the record."""
    said = {
        "event": run.event,
        "hook": run.hook,
        "source": run.source,
        "handler": run.handler,
        "hook_kind": run.kind,
        "decision": run.decision,
        "permission": run.answer.permission,
        "duration_ms": round(run.duration_ms, 3),
        "reason": run.reason,
        "failure": run.failure,
        "error": run.error,
    }
    return {key: value for key, value in said.items() if value is not None and value != ""}


def entry(
    writer: AuditWriter,
    ruling: Ruling,
    payload: Mapping[str, Any],
    *,
    host: str,
    glass: Glass | None = None,
    answer: dict[str, Any] | None = None,
    caller: Mapping[str, str] | None = None,
    policy: str | None = None,
    asked: Mapping[str, Any] | None = None,
    granted: Mapping[str, Any] | None = None,
) -> AuditEntry:
    """The record of ``ruling``, redacted as every audit record is."""
    decision = ruling.decision
    data: dict[str, Any] = {"host": host, "cwd": ruling.cwd, **(caller or {})}
    if policy is not None:
        data["policy"] = policy
    if glass is not None:
        answered = glass.answer(ruling.event) if answer is None else answer
        data["break_glass"] = {"until": glass.until, "by": glass.by, "answer": answered}
    said = {"origin": ruling.origin, "reason": decision.reason, "failure": ruling.failure}
    data |= {key: value for key, value in said.items() if value}
    if ruling.project is not None:
        data["project"] = dict(ruling.project)
    if ruling.ignored:
        data["ignored"] = list(ruling.ignored)
    if isinstance(payload.get("tool_input"), dict):
        data |= shown_input(writer.redactor, payload["tool_input"])
    if ruling.runs:
        data["hooks"] = [hook_run(run) for run in ruling.runs]
    if asked is not None:
        data["live_ask"] = dict(asked)
    if granted is not None:
        data["session_grant"] = dict(granted)
    return AuditEntry(
        kind=KIND,
        session_id=ruling.session_id,
        tool_use_id=ruling.tool_use_id,
        event=ruling.event,
        tool=ruling.tool,
        decision=decision.label or "none",
        permission=decision.permission,
        data=writer.redactor.redact(data),
    )
