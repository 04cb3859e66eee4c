"""A request the gate turned away (``hookline._serve.gate``): answered so the host blocks, and
on record, without judging anything.

Nothing of the policy runs for it: no hook, no rule. A tool call (PreToolUse and
PermissionRequest; Gemini CLI's BeforeTool) gets the 200 deny the host reads, saying why,
as the server's own failures do (Claude Code reads a decision only from a 2xx body). Any other
event, or a body that is not one, gets ``401`` (``429`` over the rate, with ``Retry-After``):
nothing to decide, and the host's ``onFailure: "block"`` or the curl line's exit 2 blocks.

Each refusal is a ``refused`` record: the host, the address, the reason, the token's name
when it was one of the server's, and what the body said it was (session, event, tool). A
flood of them is on record once per reason and caller every few seconds, with how many were
left off (``left_off``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from starlette.responses import JSONResponse, PlainTextResponse

from hookline._decisions import Decision
from hookline._hooks.protocol import answer_text, loads
from hookline._hooks.wire import answer_for
from hookline._hosts import codex, gemini
from hookline._serve.judge import REFUSING
from hookline.storage._base import AuditEntry

if TYPE_CHECKING:
    from starlette.responses import Response

    from hookline._serve.gate import Gate, Refusal
    from hookline.audit._writer import AuditWriter

#: The ``kind`` of a refusal's record.
KIND: Final = "refused"
_STATUS: Final = {"rate-limited": 429, "unreadable": 503}


def answer(refusal: Refusal, body: bytes, audit: AuditWriter, gate: Gate, *, host: str) -> Response:
    """The answer to a request ``gate`` refused, its record written first (when due)."""
    payload = _payload(body)
    said = f"hookline serve refused this call: {refusal.why}"
    left_off = gate.on_record(refusal)
    if left_off is not None:
        try:
            audit.add(entry(refusal, payload, host=host, left_off=left_off))
            audit.flush()
        except Exception:  # refused either way; the audit's own failure is its log's
            pass
    denied = _deny(host, payload, Decision.deny(said))
    if denied is not None:
        return JSONResponse(denied)
    status = _STATUS.get(refusal.reason, 401)
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else {}
    if refusal.retry_after:
        headers["Retry-After"] = str(refusal.retry_after)
    return PlainTextResponse(said + "\n", status_code=status, headers=headers)


def entry(
    refusal: Refusal, payload: Mapping[str, Any], *, host: str, left_off: int = 0
) -> AuditEntry:
    """The record of ``refusal``: who, why, and what the body said it was."""

    def text(key: str) -> str | None:
        value = payload.get(key)
        return value if isinstance(value, str) else None

    data: dict[str, Any] = {"host": host, "reason": refusal.reason, "why": refusal.why}
    data |= refusal.caller.fields()
    if refusal.detail:
        data["detail"] = refusal.detail
    if left_off:
        data["left_off"] = left_off
    event = text("hook_event_name")
    return AuditEntry(
        kind=KIND,
        session_id=text("session_id"),
        tool_use_id=text("tool_use_id"),
        event=event,
        tool=text("tool_name"),
        decision="refused",
        permission="deny",
        data=data,
    )


def _deny(host: str, payload: Mapping[str, Any], deny: Decision) -> dict[str, Any] | None:
    """The deny ``host`` reads for the tool call ``payload`` is; None for any other event."""
    name = payload.get("hook_event_name")
    if host == gemini.HOST:
        return gemini.answer(payload, deny) if name == gemini.REFUSING else None
    if name not in REFUSING:
        return None
    if host == codex.HOST:
        return codex.answer(str(name), payload.get("tool_name"), deny)
    return answer_for(str(name), deny)


def _payload(body: bytes) -> dict[str, Any]:
    """The body as a JSON object, or ``{}``: a refused request's body is only described."""
    try:
        value = loads(answer_text(body, errors="strict"))
    except (ValueError, UnicodeDecodeError):
        return {}
    return value if isinstance(value, dict) else {}
