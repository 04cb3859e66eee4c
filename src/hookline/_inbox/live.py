"""Live asks in the inbox: a host's call that waits on its hook for a person's answer.

``hookline serve --asks inbox`` keeps each ask it hands to people in the store
(``hookline.storage.LiveAsk``: the tool, its final input, who asked and why, the caller, the
deadline, the host session's recent steps). The inbox lists the ones still waiting beside the
paused sessions, each as a ``Pending`` whose one call is an ``ApprovalRequest``, so the page
draws it with the terminal prompt's rows (every value escaped, look-alikes flagged) as it
draws a paused call, and its steps as a paused session's.

An answer (approve; deny with a message for the model; or an edited input, which the server
judges again before the host may run it) fills the ask's answer slot in the store: of the
inbox, a signed link and every other server on that store, the first answer
wins, and none is taken after the deadline (the server gives the host its expiry answer
then). The server waiting on it is woken (``wake``: at once in the same process, else by its
next look at the store) and answers its host. The ``inbox_answer`` record names the ask.

An ask that offers a session grant (``ask["grant"]``) may be approved for the session: the
answer slot says ``for_session`` and the grant, and the waiting server gives the grant to the
ask's host session (``hookline._serve.grants``).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Final

from hookline._inbox.answer import Outcome
from hookline._inbox.pending import (
    Live,
    Pending,
    Waiting,
    asked_by,
    hooks_asking,
    pending_sessions,
)
from hookline._support.display import shown
from hookline._tools.approvals import ApprovalRequest
from hookline.audit._steps import STEPS
from hookline.storage import AskStore

if TYPE_CHECKING:
    from collections.abc import Callable

    from hookline._inbox.answer import Answer
    from hookline.storage import LiveAsk, Store


def live_asks(store: Store, *, limit: int = 200) -> list[Pending]:
    """The live asks still waiting (none when the store keeps none), newest first."""
    if not isinstance(store, AskStore):
        return []
    return [pending_of(ask) for ask in store.waiting_asks(limit=limit)]


def waiting(store: Store, *, named: bool = True) -> list[Pending]:
    """Everything waiting for a person: the live asks (their hosts wait), then the paused
    sessions."""
    return live_asks(store) + pending_sessions(store, named=named)


def pending_of(ask: LiveAsk) -> Pending:
    """``ask`` as the inbox shows a waiting call."""
    said = ask.ask

    def text(key: str) -> str | None:
        value = said.get(key)
        return value if isinstance(value, str) and value else None

    tool_input = said.get("input")
    original = said.get("original_input")
    request = ApprovalRequest(
        session_id=text("session_id") or "",
        tool_use_id=text("tool_use_id") or ask.id,
        tool_name=text("tool") or "?",
        tool_input=dict(tool_input) if isinstance(tool_input, dict) else {},
        original_input=dict(original) if isinstance(original, dict) else None,
        reason=text("reason"),
        source=asked_by(text("origin"), hooks_asking(said.get("hooks"))),
        user=text("user"),
        tenant=text("tenant"),
        cwd=text("cwd"),
    )
    live = Live(
        ask.id, text("host") or "?", ask.deadline, text("agent"), text("peer"), grant_of(ask)
    )
    return Pending(
        text("session_id") or "",
        ask.created,
        text("user"),
        text("tenant"),
        "",
        (Waiting(request),),
        steps_of(ask),
        live=live,
    )


def steps_of(ask: LiveAsk) -> tuple[str, ...]:
    """The recent steps of ``ask``'s host session as the server kept them (one shown line
    each, ``hookline._serve.recent``), or why they could not be read."""
    failed = ask.ask.get("steps_failure")
    if failed:
        return (f"the session's recent steps could not be read: {shown(failed)}",)
    steps = ask.ask.get("steps")
    kept = steps if isinstance(steps, list) else []
    return tuple(shown(step) for step in kept if isinstance(step, str))[-STEPS:]


def grant_of(ask: LiveAsk) -> str | None:
    """What approving ``ask`` for the session allows, in a few words (None: nothing)."""
    grant = ask.ask.get("grant")
    said = grant.get("description") if isinstance(grant, dict) else None
    return said if isinstance(said, str) and said else None


def answer_live(
    store: Store, id: str, given: Answer, *, wake: Callable[[str], None] | None = None
) -> tuple[Outcome, LiveAsk | None]:
    """Give ``given`` (approve, deny or edit) to live ask ``id``: the outcome (applied only for the
    answer the store took), and the ask as it was found."""
    if not isinstance(store, AskStore):
        return Outcome(False, "this store keeps no live asks"), None
    found = store.get_ask(id)
    if found is None:
        return Outcome(False, "no such live ask: nothing waits there"), None
    if given.for_session and grant_of(found) is None:
        said = "this ask offers nothing for the rest of the session: approve it once"
        return Outcome(False, said), found
    now = time.time()
    if found.answer is None and now < found.deadline:
        grant = found.ask.get("grant") if given.for_session else None
        if store.answer_ask(id, slot(given, now, grant), before=now):
            if wake is not None:
                wake(id)
            return Outcome(True, _SAID["session" if grant else given.action]), found
        found = store.get_ask(id) or found
    return Outcome(False, too_late(found, now)), found


def slot(given: Answer, now: float, grant: dict[str, Any] | None = None) -> dict[str, Any]:
    """What fills a live ask's answer slot for ``given`` (``grant``: what the ask offered,
    given for the rest of the session)."""
    said = {
        "permission": "deny" if given.action == "deny" else "allow",
        "edited": given.edited if given.action == "edit" else None,
        "by": given.by,
        "role": given.role,
        "via": given.via,
        "message": given.message if given.action == "deny" else None,
        "why": given.why or None,
        "for_session": True if grant is not None else None,
        "grant": grant,
        "at": now,
    }
    return {key: value for key, value in said.items() if value is not None}


#: What the page says of an answer the ask took.
_SAID: Final = {
    "approve": "answered; the host is told allow",
    "session": "answered; the host is told allow, and its session is allowed what the ask "
    "offered from now on",
    "deny": "answered; the host is told deny",
    "edit": "answered; the edit is judged again by the hooks and rules, and the host is told "
    "what comes of it",
}


def too_late(ask: LiveAsk, now: float) -> str:
    """Why an answer to ``ask`` was not taken: answered already, or past its deadline."""
    answer = ask.answer
    if answer is not None and answer.get("via") == "expiry":
        return f"this ask expired at {_clock(ask.deadline)}: nobody may answer it now"
    if answer is not None:
        by = f"{answer.get('by', 'someone')} ({answer.get('via', 'inbox')})"
        return f"it was answered already: {answer.get('permission')} by {by}"
    if now >= ask.deadline:
        return f"this ask expired at {_clock(ask.deadline)}: nobody may answer it now"
    return "it was answered already"


def _clock(at: float) -> str:
    return time.strftime("%H:%M:%S UTC", time.gmtime(at))
