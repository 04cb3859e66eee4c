"""Live asks: with ``--asks inbox``, a tool call the policy asks about waits for a person in the
inbox while the host waits on its hook, instead of going back to the host's own prompt.

    hookline serve --asks inbox [--ask-wait 25] [--ask-expiry deny|ask] [--inbox]

A PreToolUse ruling of ``ask`` (from any host: Claude Code, Gemini CLI, Codex, Cursor; each
hook of theirs that hookline installs waits ``HOOK_TIMEOUT`` seconds) becomes a ``LiveAsk`` in
the store (``hookline.storage``): the tool, its final input (after any hook's rewrite), who
asked and why, who the caller is, and a deadline ``wait`` seconds after the request came in,
shorter than the host's hook timeout. The request then waits for the ask's answer slot: woken
at once by an answer given in this process (``Asks.answered``), else by looking at the store
every ``POLL`` seconds (an answer given by another worker, or another server on the same
PostgreSQL). The host gets allow (with any rewrite of the input) or deny (the approver's
message, for the model) in its own words. At the deadline the server fills the slot itself
with the configured answer (``deny``, saying when the deadline was; or ``ask``: the host's own
prompt); of that and a person's answer, whichever the store took first is the answer, and an
expiry is a ``live_ask`` audit record. A call's ``served`` record says which ask it waited on
and how it was answered.

Claude Code's PermissionRequest (its own permission prompt) that the server would hand back
waits the same way, answered in its words (``hookline._serve.permission_asks``).

A live ask also keeps its host session's recent steps, the last hook events the server judged
of it (``hookline._serve.recent``), which the inbox shows above the call.

An ask of the tiers offers a session grant (``ask["grant"]``, ``hookline._serve.grants``); a
person who approves it for the session (``for_session``) gives it to the ask's host session:
from then on, the judge applies it to that session's calls, and a call it lets run is allowed
with no live ask, its ``served`` record saying so (``session_grant``), for the grant's
lifetime (``AskSettings.grant_life``; ``hookline._serve.retention`` drops old asks and grants).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Final

from hookline._decisions import Decision
from hookline._events import PermissionRequest, PreToolUse
from hookline._hooks.wire import answer_for
from hookline._hosts import claude_code, curl_hook
from hookline._serve import permission_asks
from hookline._serve.grants import LIFE, Grants, session_key
from hookline._serve.judge import REFUSING, SESSION, HostSession
from hookline._serve.permission_asks import HOST_RULES, HandedBack
from hookline._serve.recent import steps_of
from hookline._serve.record import hook_run
from hookline._serve.retention import Retention
from hookline.storage import AskStore, AuditEntry, LiveAsk

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Mapping

    from hookline._serve.gate import Caller
    from hookline._serve.judge import Rules, Ruling
    from hookline.audit._writer import AuditWriter
    from hookline.permissions._session import SessionGrant
    from hookline.storage._asks import SessionKey

#: What an ask becomes: the host's own prompt (as before), or a wait for the inbox.
MODES: Final = ("host", "inbox")
#: What a live ask nobody answered in time gets.
ON_EXPIRY: Final = ("deny", "ask")
#: Seconds the hooks hookline installs wait for the server (Claude Code's HTTP hook, the
#: curl line of the others): a live ask must be answered well before.
HOOK_TIMEOUT: Final = min(claude_code.TIMEOUT, curl_hook.SECONDS)
#: The margin left for judging, recording and the answer's way back to the host.
MARGIN: Final = 5.0
DEFAULT_WAIT: Final = HOOK_TIMEOUT - MARGIN
#: Seconds between looks at the store while a live ask waits.
POLL: Final = 0.2
#: The ``kind`` of a live ask's expiry record.
KIND: Final = "live_ask"
#: A hook run's decisions that put a call before a person.
_ASKING: Final = ("ask", "defer")


@dataclass(frozen=True, slots=True)
class AskSettings:
    """What an ask becomes (``mode``), how long a live ask waits, what its expiry answers."""

    mode: str = "host"
    wait: float = DEFAULT_WAIT
    on_expiry: str = "deny"
    #: Seconds a session grant holds after a person gave it.
    grant_life: float = LIFE


@dataclass(eq=False)
class Asks:
    """The live asks of one server process: where they are kept and recorded, who is told of a
    new one (``told``: the inbox's notifier), and the requests waiting here."""

    settings: AskSettings
    store: AskStore
    audit: AuditWriter
    told: Callable[[LiveAsk], Awaitable[object]] | None = None
    poll: float = POLL
    #: The session grants of host sessions (made over ``store`` when not given).
    grants: Grants | None = None
    #: The PreToolUse asks lately handed to Claude Code's prompt (``permission_asks``).
    handed: HandedBack = field(default_factory=HandedBack)
    _woken: dict[str, asyncio.Event] = field(default_factory=dict)
    _telling: set[asyncio.Future[object]] = field(default_factory=set)

    def __post_init__(self) -> None:
        if self.grants is None:
            self.grants = Grants(self.store, life=self.settings.grant_life)
        self.retention = Retention(self.store, self.settings.grant_life)

    def around(self, rules: Rules, caller: Caller, host: str) -> Rules:
        """``rules`` for one request: with ``mode`` inbox, its asks wait for the inbox, all
        before one deadline (a Codex patch's changes share it)."""
        if self.settings.mode != "inbox":
            return rules
        return Asking(rules, self, caller, host, time.time() + self.settings.wait)

    def answered(self, id: str) -> None:
        """Wake the request waiting on ask ``id`` here, if any (its answer is in the store)."""
        woken = self._woken.get(id)
        if woken is not None:
            woken.set()

    async def wait(
        self,
        ruling: Ruling,
        payload: Mapping[str, Any],
        asker: Asking,
        offered: tuple[SessionKey, SessionGrant] | None = None,
    ) -> Ruling:
        """``ruling`` (an ask) once the inbox answered it, or its deadline passed; when the
        store fails meanwhile, the expiry's answer saying so (nobody could answer it).
        ``offered``: the grant the ask offers its host session, given when a person approves
        it for the session."""
        grant = offered[1] if offered is not None else None
        steps = await steps_of(self.audit, session_key(payload, asker.caller, asker.host))
        ask = live_ask(
            ruling, payload, asker.caller, asker.host, asker.deadline, grant=grant, steps=steps
        )
        await self.retention.tidy()
        woken = self._woken[ask.id] = asyncio.Event()
        try:
            await asyncio.to_thread(self.store.put_ask, ask)
            if self.told is not None:
                telling = asyncio.ensure_future(self.told(ask))
                self._telling.add(telling)
                telling.add_done_callback(self._telling.discard)
            answer, expired = await self._answer(ask, woken)
        except Exception as exc:
            asker.asked = {"id": ask.id, "deadline": ask.deadline, "failure": str(exc)}
            return self._expired(ruling, ask, f"the store failed while it waited: {exc}")
        finally:
            self._woken.pop(ask.id, None)
        asker.asked = {"id": ask.id, "deadline": ask.deadline, **answer}
        if expired:
            return self._expired(ruling, ask, None)
        edited = answer.get("edited")
        if answer.get("permission") == "allow" and isinstance(edited, dict):
            again = await asker.rules.rule({**payload, "tool_input": edited})
            return edited_ruling(again, edited, answer)
        if (
            offered is not None
            and answer.get("permission") == "allow"
            and answer.get("for_session")
        ):
            await self._give(ask, offered, asker)
        return answered(ruling, answer)

    async def _give(
        self, ask: LiveAsk, offered: tuple[SessionKey, SessionGrant], asker: Asking
    ) -> None:
        """Give the grant ``ask`` offered to its host session; when the store fails, the call
        still runs (it was approved) and its record says the grant was not kept."""
        assert self.grants is not None
        try:
            await self.grants.give(offered[0], ask.id, offered[1])
        except Exception as exc:
            if asker.asked is not None:
                asker.asked["grant_failure"] = str(exc)

    async def _answer(self, ask: LiveAsk, woken: asyncio.Event) -> tuple[dict[str, Any], bool]:
        """The ask's answer once given, and whether it is the expiry this process wrote (the
        deadline passed first)."""
        while (left := ask.deadline - time.time()) > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(woken.wait(), min(self.poll, left))
            found = await asyncio.to_thread(self.store.get_ask, ask.id)
            if found is not None and found.answer is not None:
                return found.answer, False
        expiry = {"permission": self.settings.on_expiry, "via": "expiry", "at": time.time()}
        if await asyncio.to_thread(self.store.answer_ask, ask.id, expiry):
            return expiry, True
        found = await asyncio.to_thread(self.store.get_ask, ask.id)  # a person came first
        if found is None or found.answer is None:
            raise RuntimeError(f"live ask {ask.id} has no answer and took none")
        return found.answer, False

    def _expired(self, ruling: Ruling, ask: LiveAsk, failed: str | None) -> Ruling:
        """The configured answer of an ask nobody answered, on record."""
        when = time.strftime("%H:%M:%S UTC", time.gmtime(ask.deadline))
        why = failed or f"nobody answered it in the inbox by its deadline ({when})"
        said = f"hookline asked a person about this call and {why}: " + (
            "it is refused" if self.settings.on_expiry == "deny" else "the host asks"
        )
        made = expiry_entry(ask, self.settings.on_expiry, said, failed=failed)
        self.audit.add(replace(made, data=self.audit.redactor.redact(made.data)))
        self.audit.flush()
        if self.settings.on_expiry != "deny":
            return ruling
        decision = Decision("deny", said, origin="unanswered")
        answer = answer_for(ruling.event, decision)
        return replace(ruling, decision=decision, answer=answer, origin="unanswered")


class Asking:
    """The ``Rules`` of one request whose asks wait for the inbox; ``asked`` says the last one
    waited on and its answer, for the call's record."""

    def __init__(self, rules: Rules, asks: Asks, caller: Caller, host: str, deadline: float):
        self.rules, self.asks, self.caller, self.host = rules, asks, caller, host
        self.deadline = deadline
        self.asked: dict[str, Any] | None = None
        #: The session grants that let the call run with no ask (None: none did).
        self.granted: dict[str, Any] | None = None

    async def rule(self, payload: Mapping[str, Any]) -> Ruling:
        """The ruling of ``payload``, judged with its host session's grants; an ask waits for
        the inbox (offering the grant the tiers' ask has, if any)."""
        key = session_key(payload, self.caller, self.host)
        if key is None or payload.get("hook_event_name") not in REFUSING:
            return await self._waited(await self.rules.rule(payload), payload, None)
        assert self.asks.grants is not None
        session = HostSession(await self.asks.grants.of(key))
        token = SESSION.set(session)
        try:
            ruling = await self.rules.rule(payload)
            if session.lifted:
                grants = [grant.to_dict() for grant in session.grants]
                self.granted = {"grants": grants, "host": key[1]}
            offered = (key, session.offered) if session.offered is not None else None
            return await self._waited(ruling, payload, offered)
        finally:
            SESSION.reset(token)

    async def _waited(
        self,
        ruling: Ruling,
        payload: Mapping[str, Any],
        offered: tuple[SessionKey, SessionGrant] | None,
    ) -> Ruling:
        if permission_asks.asks_about(ruling, self.host):  # Claude Code's own prompt
            return await permission_asks.waited(self, ruling, payload, offered)
        if ruling.event != PreToolUse.name or ruling.decision.permission != "ask":
            return ruling
        made = await self.asks.wait(ruling, payload, self, offered)
        permission_asks.handed_back(self, made, payload)
        return made


def live_ask(
    ruling: Ruling,
    payload: Mapping[str, Any],
    caller: Caller,
    host: str,
    deadline: float,
    *,
    grant: SessionGrant | None = None,
    steps: Mapping[str, Any] | None = None,
) -> LiveAsk:
    """What the approver must see of an asked call: the final input (a hook's rewrite
    applied), exactly, who asked and why, what approving it for the session allows, and
    ``steps``: its host session's recent steps (``hookline._serve.recent``)."""
    decision = ruling.decision
    given = payload.get("tool_input")
    final = decision.updated_input if decision.updated_input is not None else given
    hooks = [hook_run(run) for run in ruling.runs if run.decision in _ASKING]
    said = {
        "host": host,
        "session_id": ruling.session_id,
        "tool_use_id": ruling.tool_use_id,
        "cwd": ruling.cwd,
        "tool": ruling.tool,
        "input": final if isinstance(final, dict) else {},
        "original_input": given if decision.updated_input is not None else None,
        "reason": decision.reason,
        "origin": _who_asked(ruling),
        "hooks": hooks,
        "grant": grant.to_dict() if grant is not None else None,
        **caller.fields(),
        **(steps or {}),
    }
    kept = {key: value for key, value in said.items() if value not in (None, [], "")}
    return LiveAsk(secrets.token_hex(12), time.time(), deadline, kept)


def _who_asked(ruling: Ruling) -> str | None:
    """Who asked about a call: a PermissionRequest is the host's own permission prompt; the
    judge hands the permission layer's own asks (a rule, the mode, a tier) to the host as an
    ask nobody here answered."""
    if ruling.event == PermissionRequest.name:
        return HOST_RULES
    return "permission" if ruling.origin == "unanswered" else ruling.origin


def answered(ruling: Ruling, answer: Mapping[str, Any]) -> Ruling:
    """``ruling`` (an ask) as a person answered it: allow (the input as the hooks left it) or
    deny with their message; an expiry's ``ask`` leaves it to the host."""
    permission = answer.get("permission")
    by = f"{answer.get('by', 'someone')} ({answer.get('via', 'inbox')})"
    if permission == "allow":
        decision = replace(ruling.decision, permission="allow", reason=f"approved by {by}")
    elif permission == "deny":
        message = answer.get("message") or f"denied by {by}"
        decision = Decision("deny", str(message))
    else:
        return ruling
    decision = replace(decision, origin="approver")
    return replace(
        ruling, decision=decision, answer=answer_for(ruling.event, decision), origin="approver"
    )


def edited_ruling(again: Ruling, edited: dict[str, Any], answer: Mapping[str, Any]) -> Ruling:
    """The ruling of an input a person edited, judged ``again`` by the hooks and rules: it
    runs as edited (the person approved it) unless they refuse or defer it, or a hook
    rewrites it into something the person did not see."""
    by = f"{answer.get('by', 'someone')} ({answer.get('via', 'inbox')})"
    decision = again.decision
    refused = None
    if decision.permission in ("deny", "defer"):
        refused = f"the input {by} edited was refused: {decision.reason or decision.permission}"
    elif decision.updated_input is not None and decision.updated_input != edited:
        refused = f"a PreToolUse hook changed the input {by} edited; approve what will run"
    if refused is not None:
        denied = Decision("deny", refused, origin=decision.origin or "hook")
        return replace(
            again, decision=denied, answer=answer_for(again.event, denied), origin=denied.origin
        )
    ran = replace(
        decision,
        permission="allow",
        reason=f"edited and approved by {by}",
        updated_input=edited,
        origin="approver",
    )
    return replace(again, decision=ran, answer=answer_for(again.event, ran), origin="approver")


def expiry_entry(ask: LiveAsk, answer: str, said: str, *, failed: str | None) -> AuditEntry:
    """The ``live_ask`` record of an ask nobody answered in time (or that could not be kept)."""
    data = {
        "ask": ask.id,
        "host": ask.ask.get("host"),
        "deadline": ask.deadline,
        "answer": answer,
        "said": said,
        "by": "hookline serve",
        "via": "expiry",
    }
    for key in ("agent", "tenant", "user", "peer"):
        if ask.ask.get(key):
            data[key] = ask.ask[key]
    if failed:
        data["failure"] = failed
    return AuditEntry(
        kind=KIND,
        session_id=ask.ask.get("session_id"),
        tool_use_id=ask.ask.get("tool_use_id"),
        event=PermissionRequest.name if ask.ask.get("origin") == HOST_RULES else PreToolUse.name,
        tool=ask.ask.get("tool"),
        decision="expired" if failed is None else "failed",
        permission=answer,
        data=data,
    )
