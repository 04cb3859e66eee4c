"""The inbox's Starlette app: sign-in, the list, answers, signed links and the live stream.

    GET  /            the calls waiting (signed in), else to /login
    GET  /fragment    the list alone, for the live update
    GET  /events      server-sent events: ``pending`` with the list's state whenever it changes
    POST /answer      approve, deny or edit one session's waiting calls (or one of them), or
                      a live ask (``ask=ID``: a host's call, ``live``) (an approver only)
    GET  /link?t=...  a signed link: the call and one button; POST /link answers it
    GET|POST /login, POST /logout

Every POST carries the CSRF token of its cookie (``signin``). A viewer who posts an answer is
refused (403) and that is recorded; nobody answers without signing in as an approver. The
pages link to each other by relative URLs and redirect under the app's ``root_path``, so the
same app serves on its own (``hookline inbox``) and mounted under ``/inbox`` (``hookline serve
--inbox``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, cast

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

from hookline._errors import ConfigError
from hookline._inbox import links, pages
from hookline._inbox.answer import (
    ACTIONS,
    Action,
    Answer,
    Outcome,
    Resumer,
    record,
    signin_record,
)
from hookline._inbox.forms import Asker, answer_of, local, read_form
from hookline._inbox.live import answer_live, live_asks, waiting
from hookline._inbox.pending import Pending, pending
from hookline._inbox.signin import COOKIE, Signer, Tries, Visit
from hookline._inbox.telling import notifying
from hookline._inbox.users import User, check_password, load_users
from hookline._inbox.web import HEADERS, root, static, to_login, with_cookie
from hookline.audit._redact import Redactor

if TYPE_CHECKING:
    from pathlib import Path

    from hookline._inbox.notify import Notifier
    from hookline.audit._writer import AuditWriter
    from hookline.storage import Store


@dataclass
class Inbox:
    """What the app serves from: the store, the audit, the users, the keys."""

    audit: AuditWriter
    users_file: Path
    resumer: Resumer
    signer: Signer
    link_key: bytes
    #: Seconds between the live stream's looks at the store.
    refresh: float = 1.0
    #: A header a trusted reverse proxy sets to the signed-in user's name (None: off).
    trust_header: str | None = None
    #: What the inbox's records mask (the built-in forms of secrets).
    redactor: Redactor = field(default_factory=Redactor)
    #: Wrong passwords per name (a name is refused for a while after too many).
    tries: Tries = field(default_factory=Tries)
    #: Who is told when a call starts to wait (None: nobody); of live asks too unless
    #: ``tell_live`` is False (the server that makes one tells of it: ``hookline._inbox.telling``).
    notifier: Notifier | None = None
    tell_live: bool = True
    #: Wakes a request of this process waiting on a live ask once it is answered (None: the
    #: server waiting on it finds the answer in the store).
    wake: Callable[[str], None] | None = None

    @property
    def store(self) -> Store:
        store = self.audit.store_of()
        if store is None:
            raise ConfigError("the inbox has no store")
        return store


def create_app(inbox: Inbox) -> Starlette:
    routes = Routes(inbox)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        telling = asyncio.ensure_future(notifying(inbox)) if inbox.notifier else None
        try:
            yield
        finally:
            if telling is not None:
                telling.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await telling

    return Starlette(
        lifespan=lifespan,
        routes=[
            Route("/", routes.home),
            Route("/fragment", routes.fragment),
            Route("/events", routes.events),
            Route("/answer", routes.answer, methods=["POST"]),
            Route("/link", routes.link, methods=["GET"]),
            Route("/link", routes.link_answer, methods=["POST"]),
            Route("/login", routes.login_page, methods=["GET"]),
            Route("/login", routes.login, methods=["POST"]),
            Route("/logout", routes.logout, methods=["POST"]),
            Route("/static/inbox.css", static(pages.CSS, "text/css")),
            Route("/static/inbox.js", static(pages.JS, "text/javascript")),
        ],
    )


class Routes:
    """The endpoints, over one ``Inbox``."""

    def __init__(self, inbox: Inbox) -> None:
        self.inbox = inbox

    # -- looking ------------------------------------------------------------------------------

    async def home(self, request: Request) -> Response:
        visit, user = self._who(request)
        if user is None:
            return to_login(request, visit)
        found = await run_in_threadpool(waiting, self.inbox.store)
        body = pages.pending_list(found, csrf=self._csrf(visit), may_answer=user.may_answer)
        html = pages.page("hookline inbox", body, user=user.name, csrf=self._csrf(visit))
        return self._html(request, html, visit)

    async def fragment(self, request: Request) -> Response:
        visit, user = self._who(request)
        if user is None:
            return self._html(request, pages.message("Sign in first."), visit, status=401)
        found = await run_in_threadpool(waiting, self.inbox.store)
        html = pages.pending_list(found, csrf=self._csrf(visit), may_answer=user.may_answer)
        return self._html(request, html, visit)

    async def events(self, request: Request) -> Response:
        _, user = self._who(request)
        if user is None:
            return Response("sign in first", status_code=401, headers=HEADERS)
        stream = self._changes(request)
        headers = {**HEADERS, "X-Accel-Buffering": "no"}
        return StreamingResponse(stream, media_type="text/event-stream", headers=headers)

    async def _changes(self, request: Request) -> AsyncIterator[str]:
        """``pending`` events: the list's state now, then each time it changes."""
        said = None
        while not await request.is_disconnected():
            found = await run_in_threadpool(waiting, self.inbox.store, named=False)
            state = pages.state_of(found)
            if state != said:
                said = state
                yield f"event: pending\ndata: {state}\n\n"
            else:
                yield ": still here\n\n"
            await asyncio.sleep(self.inbox.refresh)

    # -- signing in ---------------------------------------------------------------------------

    async def login_page(self, request: Request) -> Response:
        visit = self._visit(request)
        next = local(request.query_params.get("next", root(request) + "/"))
        return self._html(request, pages.login(self._csrf(visit), next=next), visit)

    async def login(self, request: Request) -> Response:
        """Sign in: a new cookie for the name whose password matches; every try on record."""
        visit = self._visit(request)
        form = await read_form(request)
        if not self.inbox.signer.csrf_ok(visit, form.get("csrf")):
            return self._stale(request, visit)
        name, password = form.get("name", ""), form.get("password", "")
        found = self._users().get(name)
        if self.inbox.tries.locked(name):
            self._record(signin_record(name, "refused", "too many wrong passwords"))
            html = pages.login(self._csrf(visit), error="Too many wrong passwords: wait.")
            return self._html(request, html, visit, status=429)
        if found is None or not await run_in_threadpool(check_password, found, password):
            self.inbox.tries.failed(name)
            self._record(signin_record(name, "refused", "wrong name or password"))
            html = pages.login(self._csrf(visit), error="Wrong name or password.")
            return self._html(request, html, visit, status=401)
        self.inbox.tries.passed(name)
        self._record(signin_record(name, "signed_in", found.role))
        _, cookie = self.inbox.signer.issue(name)  # a new nonce: no fixation
        home = root(request) + "/"
        response = RedirectResponse(local(form.get("next", home)), status_code=303)
        return with_cookie(request, response, cookie)

    async def logout(self, request: Request) -> Response:
        visit = self._visit(request)
        form = await read_form(request)
        if not self.inbox.signer.csrf_ok(visit, form.get("csrf")):
            return self._stale(request, visit)
        _, cookie = self.inbox.signer.issue(None)
        to_login = RedirectResponse(root(request) + "/login", status_code=303)
        return with_cookie(request, to_login, cookie)

    # -- answering ----------------------------------------------------------------------------

    async def answer(self, request: Request) -> Response:
        asker = await self._answerer(request)
        if isinstance(asker, Response):
            return asker
        visit = asker.visit
        session_id, action = asker.form.get("session", ""), asker.form.get("action", "")
        if action not in ACTIONS:
            return self._html(request, pages.message(f"No such answer: {action!r}."), visit, 400)
        action = cast("Action", action)
        try:
            given = answer_of(asker.user, action, asker.form, via="inbox")
        except ConfigError as exc:
            return self._html(request, pages.message(str(exc)), visit, status=400)
        if asker.form.get("ask"):
            return await self._apply_live(request, visit, asker.form["ask"], given)
        return await self._apply(request, visit, session_id, None, given)

    async def link(self, request: Request) -> Response:
        """A signed link opened: the call and one button; nothing is answered here."""
        visit, user = self._who(request)
        if user is None:
            return to_login(request, visit)
        token = request.query_params.get("t", "")
        try:
            link = links.read(self.inbox.link_key, token)
        except links.BadLink as exc:
            return self._html(request, pages.message(str(exc)), visit, status=400)
        if not user.may_answer:
            said = pages.message("You may look; only an approver answers.")
            return self._html(request, said, visit, status=403)
        if link.kind == "ask":
            found = await run_in_threadpool(self._live, link.session_id)
        else:
            found = await run_in_threadpool(self._waiting, link.session_id, link.paused_at)
        calls = [w for w in found.calls if w.request.tool_use_id == link.call_id] if found else []
        if found is None or not calls:
            said = pages.message("This link was used, or its call was answered: nothing waits.")
            return self._html(request, said, visit, status=409)
        csrf = self._csrf(visit)
        body = pages.link_page(found, calls[0], link, token, csrf)
        html = pages.page("hookline inbox: one call", body, user=user.name, csrf=csrf)
        return self._html(request, html, visit)

    async def link_answer(self, request: Request) -> Response:
        asker = await self._answerer(request)
        if isinstance(asker, Response):
            return asker
        visit = asker.visit
        try:
            link = links.read(self.inbox.link_key, asker.form.get("t", ""))
            given = answer_of(asker.user, cast("Action", link.action), asker.form, via="link")
        except (links.BadLink, ConfigError) as exc:
            return self._html(request, pages.message(str(exc)), visit, status=400)
        if link.kind == "ask":
            return await self._apply_live(request, visit, link.session_id, given)
        given = replace(given, call=link.call_id)  # a link answers its one call, not its pause's
        return await self._apply(request, visit, link.session_id, link, given)

    async def _apply_live(
        self, request: Request, visit: Visit, ask_id: str, given: Answer
    ) -> Response:
        """Answer live ask ``ask_id`` when nothing answered it and its deadline is ahead."""
        store, wake = self.inbox.store, self.inbox.wake
        outcome, found = await run_in_threadpool(answer_live, store, ask_id, given, wake=wake)
        said = found.ask if found is not None else {}
        tool, call = said.get("tool"), said.get("tool_use_id")
        session = said.get("session_id")
        entry = record(
            given,
            session_id=session if isinstance(session, str) else None,
            call=(str(call), str(tool)) if call and tool else None,
            outcome=outcome,
            redactor=self.inbox.redactor,
            ask=ask_id,
            grant=said.get("grant") if isinstance(said.get("grant"), dict) else None,
        )
        self._record(entry)
        html = pages.page("hookline inbox: answered", pages.result(outcome))
        return self._html(request, html, visit, status=200 if outcome.applied else 409)

    async def _apply(
        self,
        request: Request,
        visit: Visit,
        session_id: str,
        link: links.Link | None,
        given: Answer,
    ) -> Response:
        """Apply ``given`` when the session still waits (at the link's pause, for a link)."""
        paused_at = link.paused_at if link is not None else None
        found = await run_in_threadpool(self._waiting, session_id, paused_at)
        waiting = [w.request for w in found.calls] if found is not None else []
        named = [r for r in waiting if given.call in (None, r.tool_use_id)][:1]
        if not named:  # nothing waits, or not the call answered (a link names its call)
            outcome = Outcome(False, "nothing waits there now: it was answered already")
        else:  # past the pause's deadline: refused, and resumed with no answer (denied)
            late = found is not None and found.expired()
            outcome = await self.inbox.resumer.apply(session_id, given, expired=late)
        call = (named[0].tool_use_id, named[0].tool_name) if named else None
        entry = record(
            given, session_id=session_id, call=call, outcome=outcome, redactor=self.inbox.redactor
        )
        self._record(entry)
        html = pages.page("hookline inbox: answered", pages.result(outcome))
        return self._html(request, html, visit, status=200 if outcome.applied else 409)

    async def _answerer(self, request: Request) -> Asker | Response:
        """Who posts an answer and the form; the refusal when they may not answer."""
        visit, user = self._who(request)
        form = await read_form(request)
        if not self.inbox.signer.csrf_ok(visit, form.get("csrf")):
            return self._stale(request, visit)
        if user is None:
            return to_login(request, visit)
        if not user.may_answer:
            why = "a viewer may look, not answer"
            entry = record(
                None,
                session_id=form.get("session") or None,
                call=None,
                outcome=None,
                redactor=self.inbox.redactor,
                by=user.name,
                role=user.role,
                refused=why,
                ask=form.get("ask") or None,
            )
            self._record(entry)
            said = pages.message(f"Refused: {why}. Ask an approver.")
            return self._html(request, said, visit, status=403)
        return Asker(visit, user, form)

    # -- helpers ------------------------------------------------------------------------------

    def _live(self, ask_id: str) -> Pending | None:
        """Live ask ``ask_id`` when it still waits."""
        found = [p for p in live_asks(self.inbox.store) if p.live and p.live.id == ask_id]
        return found[0] if found else None

    def _waiting(self, session_id: str, paused_at: float | None) -> Pending | None:
        """The session when it still waits (and, given ``paused_at``, at that same pause)."""
        found = self.inbox.store.get_session(session_id)
        if found is None or found.status != "deferred":
            return None
        if paused_at is not None and found.updated_at != paused_at:
            return None
        return pending(found)

    def _record(self, entry: Any) -> None:
        self.inbox.audit.add(entry)
        self.inbox.audit.flush()

    def _users(self) -> dict[str, User]:
        return load_users(self.inbox.users_file)

    def _visit(self, request: Request) -> Visit:
        """The cookie's visit; a fresh anonymous one (set on the response) when there is none."""
        found = self.inbox.signer.read(request.cookies.get(COOKIE))
        if found is None:
            found, value = self.inbox.signer.issue(None)
            request.state.new_cookie = value
        return found

    def _who(self, request: Request) -> tuple[Visit, User | None]:
        visit = self._visit(request)
        name = visit.user
        if self.inbox.trust_header is not None:
            name = request.headers.get(self.inbox.trust_header) or None
        return visit, (self._users().get(name) if name else None)

    def _csrf(self, visit: Visit) -> str:
        return self.inbox.signer.csrf(visit)

    def _stale(self, request: Request, visit: Visit) -> Response:
        said = pages.message("This form is stale or came from elsewhere: reload the page.")
        return self._html(request, said, visit, status=403)

    def _html(self, request: Request, html: str, visit: Visit, status: int = 200) -> Response:
        response = HTMLResponse(html, status_code=status, headers=HEADERS)
        new = getattr(request.state, "new_cookie", None)
        return with_cookie(request, response, new) if new else response
