"""The approver protocol on the wire, version 1: the request hookline sends, the answer it reads.

The JSON schemas ship with the package (``hookline/schemas/approval-request.v1.json`` and
``approval-answer.v1.json``; ``schema(name)`` reads one) and say the same as the code here:
``request_json`` writes a request the request schema accepts, and ``read_answer`` accepts an
answer exactly when the answer schema does (``tests/test_approval_wire.py`` holds them to each
other). The check is written out by hand, so reading an answer needs no schema library.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any, Final, Literal

if TYPE_CHECKING:
    from hookline._tools.approvals import ApprovalRequest

#: The protocol version hookline writes and reads.
VERSION: Final = 1
IDENTITY_MAX: Final = 200  # characters of the approver an answer names
#: What an approver's name may not hold: control, format, private-use and invisible space
#: characters, and lone surrogates (the answer schema's ``not`` ``pattern``, verbatim).
INVISIBLE: Final = (
    "[\\u0000-\\u001f\\u007f-\\u00a0\\u00ad\\u061c\\u1680\\u180e\\u2000-\\u200f"
    "\\u2028-\\u202f\\u205f-\\u206f\\u3000\\ud800-\\uf8ff\\ufeff\\ufff9-\\ufffb]"
)
_INVISIBLE = re.compile(INVISIBLE)
Behavior = Literal["allow", "deny", "pending"]
Lasting = Literal["once", "session"]


class AnswerRefused(ValueError):
    """An answer that is not one; the message says why, in words for the log and the model."""


@dataclass(frozen=True, slots=True)
class Reading:
    """An answer, read: what it says and who gave it."""

    behavior: Behavior
    message: str | None = None
    updated_input: dict[str, Any] | None = None
    approver: str | None = None
    scope: Lasting = "once"


def schema(name: str) -> dict[str, Any]:
    """A schema shipped with hookline: ``"approval-request"`` or ``"approval-answer"``."""
    text = resources.files("hookline").joinpath(f"schemas/{name}.v{VERSION}.json").read_text()
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def request_json(request: ApprovalRequest) -> dict[str, Any]:
    """The body of the POST for ``request``."""
    grant = request.session_grant
    return {
        "version": VERSION,
        "session_id": request.session_id,
        "tool_use_id": request.tool_use_id,
        "tool_name": request.tool_name,
        "tool_input": request.tool_input,
        "original_input": request.original_input,
        "reason": request.reason,
        "source": request.source,
        "user": request.user,
        "tenant": request.tenant,
        "cwd": request.cwd,
        "session_scope": grant.to_dict() if grant is not None else None,
    }


def read_answer(data: Any) -> Reading:
    """The answer in ``data`` (parsed JSON); AnswerRefused saying why it is not one."""
    if not isinstance(data, dict):
        raise AnswerRefused("a body that is not a JSON object")
    wrapper = data.get("hookSpecificOutput")
    if isinstance(wrapper, dict) and "decision" in wrapper:
        data = wrapper["decision"]  # as Claude Code's PermissionRequest hooks answer
        if not isinstance(data, dict):
            raise AnswerRefused("a hookSpecificOutput.decision that is not a JSON object")
    version = data.get("version", VERSION)
    if type(version) not in (int, float) or version != VERSION:
        raise AnswerRefused(f"version {version!r}; this hookline reads version {VERSION}")
    behavior = data.get("behavior")
    if behavior not in ("allow", "deny", "pending"):
        raise AnswerRefused(f'behavior {behavior!r}, not "allow", "deny" or "pending"')
    message, edited, scope = (data.get(k) for k in ("message", "updatedInput", "scope"))
    if not isinstance(message, str | None):
        raise AnswerRefused("a message that is not a string")
    if not isinstance(edited, dict | None):
        raise AnswerRefused("an updatedInput that is not a JSON object")
    if scope not in ("once", "session", None):
        raise AnswerRefused(f'scope {scope!r}, not "once" or "session"')
    if scope == "session" and (behavior != "allow" or edited is not None):
        raise AnswerRefused('scope "session" with something other than an allow of the input')
    return Reading(behavior, message, edited, _identity(data.get("approver")), scope or "once")


def _identity(identity: Any) -> str | None:
    if identity is None:
        return None
    if not isinstance(identity, str) or not 0 < len(identity) <= IDENTITY_MAX:
        raise AnswerRefused(f"an approver that is not a string of 1-{IDENTITY_MAX} characters")
    if _INVISIBLE.search(identity):
        raise AnswerRefused("an approver with control or invisible characters")
    return identity
