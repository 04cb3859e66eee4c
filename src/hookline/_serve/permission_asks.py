"""Claude Code's own permission prompts as live asks (``hookline serve --asks inbox``).

Claude Code sends PermissionRequest when its own permission system would show a dialog (in
``-p`` too, where nobody answers it and the call is denied). The server judges it by the
permission step alone (``hookline._serve.judge``); what nobody there answers (no decision: the
host's dialog) becomes a live ask like a PreToolUse one (``hookline._serve.asks``): who asked
is Claude Code's permission rules (``HOST_RULES``), why is the permission step's reason when it
asked. The answer is in PermissionRequest's words (``decision.behavior``): approve allows, a
deny carries the person's message to the model, approve for the session gives the grant the
judge offered (none offered: refused, as for any ask), and the expiry gives the configured
answer (deny with its message; ``ask``: no decision, Claude Code's dialog).

An edit must pass what a PreToolUse of it would: the call is waited on as the PreToolUse
payload Claude Code would have sent (``tool_call``), so the edited input is judged again by
the PreToolUse hooks and the rules (``edited_ruling``: a deny refuses it, a hook that rewrites
it again refuses it), and that ruling is said back in PermissionRequest's words
(``in_its_words``: allow with ``updatedInput``, or deny).

One call is not asked about twice: when a PreToolUse live ask expires with ``ask`` (handed to
Claude Code's prompt), ``HandedBack`` remembers it for ``KEEP`` seconds (its host session, the
tool and the input, at most ``MOST`` calls), and the PermissionRequest Claude Code sends next
for that call is handed to its dialog too, its record naming the earlier ask. The memory is
the server process's: with ``--workers``, a PermissionRequest that reaches another worker than
its PreToolUse did opens a second ask.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Final, TypeAlias

from hookline._events import PermissionRequest, PreToolUse
from hookline._hooks.wire import answer_for
from hookline._hosts import claude_code
from hookline._serve.grants import session_key

if TYPE_CHECKING:
    from collections.abc import Mapping

    from hookline._serve.asks import Asking
    from hookline._serve.judge import Ruling
    from hookline.permissions._session import SessionGrant
    from hookline.storage._asks import SessionKey

#: The host whose PermissionRequest becomes a live ask (its ``served`` records' host).
HOST: Final = "claude-code"
#: Who asked, on a live ask of a PermissionRequest: Claude Code's own permission rules.
HOST_RULES: Final = "host_permission"
#: The call id of the PreToolUse an edit is judged again as (PermissionRequest sends none).
CALL_ID: Final = "permission-request"
#: Seconds a PreToolUse ask handed to Claude Code's prompt is remembered: its
#: PermissionRequest follows at once, well within a hook's timeout.
KEEP: Final = float(claude_code.TIMEOUT)
#: The most calls remembered at once (past that, the oldest are forgotten).
MOST: Final = 256
#: Why a call is asked about when only Claude Code's own rules asked.
_DIALOG: Final = "Claude Code's permission rules would show its dialog for this call"
#: What a PermissionRequest carries that a PreToolUse does not.
_PERMISSION_ONLY: Final = ("permission_suggestions",)

#: A call remembered: its host session, tool and input.
_Key: TypeAlias = "tuple[SessionKey, str, str]"


def asks_about(ruling: Ruling, host: str) -> bool:
    """Whether ``ruling`` is a PermissionRequest of Claude Code's handed back to its dialog:
    nothing here decided it, and nothing failed."""
    return (
        host == HOST
        and ruling.event == PermissionRequest.name
        and ruling.decision.permission is None
        and ruling.decision.continue_
        and ruling.failure is None
    )


async def waited(
    asker: Asking,
    ruling: Ruling,
    payload: Mapping[str, Any],
    offered: tuple[SessionKey, SessionGrant] | None,
) -> Ruling:
    """``ruling`` (a PermissionRequest handed back) once a person answered it in the inbox or
    its deadline passed; handed back at once when its PreToolUse's live ask was just handed to
    Claude Code's prompt."""
    key = session_key(payload, asker.caller, asker.host)
    earlier = asker.asks.handed.taken(key, ruling.tool, payload.get("tool_input"))
    if earlier is not None:
        asker.asked = {**earlier, "earlier": PreToolUse.name}
        return ruling
    if ruling.decision.reason is None:  # nothing here asked: only Claude Code's rules did
        ruling = replace(ruling, decision=replace(ruling.decision, reason=_DIALOG))
    made = await asker.asks.wait(ruling, tool_call(payload), asker, offered)
    return in_its_words(made, ruling)


def tool_call(payload: Mapping[str, Any]) -> dict[str, Any]:
    """The PreToolUse Claude Code would send for the call of PermissionRequest ``payload``: what
    an edit of it is judged again as."""
    said = {key: value for key, value in payload.items() if key not in _PERMISSION_ONLY}
    return {**said, "hook_event_name": PreToolUse.name, "tool_use_id": CALL_ID}


def in_its_words(made: Ruling, ruling: Ruling) -> Ruling:
    """``made`` (the answer to the ask of PermissionRequest ``ruling``; for an edit, the
    PreToolUse ruling of the edited input) as PermissionRequest's answer."""
    if made.event == PermissionRequest.name:
        return made
    decision = made.decision
    return replace(
        ruling,
        decision=decision,
        answer=answer_for(PermissionRequest.name, decision),
        origin=made.origin,
        failure=made.failure,
        runs=ruling.runs + made.runs,
    )


def handed_back(asker: Asking, made: Ruling, payload: Mapping[str, Any]) -> None:
    """Remember PreToolUse ``made`` when its live ask was handed to Claude Code's prompt (its
    expiry's ``ask``): the PermissionRequest that follows is not asked about again."""
    if asker.host != HOST or made.decision.permission != "ask" or asker.asked is None:
        return
    key = session_key(payload, asker.caller, asker.host)
    given = payload.get("tool_input")
    inputs = [given, made.decision.updated_input]
    asker.asks.handed.remember(key, made.tool, [i for i in inputs if i is not None], asker.asked)


@dataclass(eq=False)
class HandedBack:
    """The PreToolUse live asks of one server process lately handed to Claude Code's prompt,
    by host session, tool and input; each is taken once."""

    keep: float = KEEP
    most: int = MOST
    _by: dict[_Key, _Handed] = field(default_factory=dict)

    def remember(
        self,
        session: SessionKey | None,
        tool: str | None,
        inputs: list[Any],
        asked: Mapping[str, Any],
    ) -> None:
        """Remember the ask ``asked`` of a call (``inputs``: as sent, and as a hook left it)."""
        if session is None or tool is None:
            return
        now = time.monotonic()
        self._by = {key: kept for key, kept in self._by.items() if kept.until > now}
        keys = tuple(dict.fromkeys((session, tool, _text(given)) for given in inputs))
        while self._by and len(self._by) + len(keys) > self.most:
            del self._by[next(iter(self._by))]
        kept = _Handed(now + self.keep, keys, dict(asked))
        for key in keys:
            self._by[key] = kept

    def taken(
        self, session: SessionKey | None, tool: str | None, given: Any
    ) -> dict[str, Any] | None:
        """The ask remembered for this call, forgotten now (None: none, or too long ago)."""
        if session is None or tool is None:
            return None
        kept = self._by.get((session, tool, _text(given)))
        if kept is None:
            return None
        for key in kept.keys:
            self._by.pop(key, None)
        return kept.asked if kept.until > time.monotonic() else None


@dataclass(frozen=True, slots=True)
class _Handed:
    until: float
    keys: tuple[_Key, ...]
    asked: dict[str, Any]


def _text(given: Any) -> str:
    """An input as one canonical string (the same input, the same string)."""
    return json.dumps(given, sort_keys=True, ensure_ascii=False, default=str)
