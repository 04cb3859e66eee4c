"""The ASGI app of ``hookline serve`` (Starlette): HTTP in, ``Judge.rule``, the answer out.

    POST /claude-code    a Claude Code HTTP hook (``type: "http"``): the body is the hook's
                         event JSON, the answer the JSON decision Claude Code reads (200)
    POST /gemini         a Gemini CLI hook, posted by the command ``hookline install gemini``
                         writes: Gemini's event JSON in, the JSON Gemini reads out (200);
                         any other status makes that command exit 2, which blocks
    POST /codex          a Codex CLI hook, posted by the command ``hookline install codex``
                         writes, as /gemini: Codex's event JSON in, the JSON Codex reads out
    POST /cursor         a Cursor hook, posted by the command ``hookline install cursor``
                         writes, as /gemini
    GET  /health         200 ``{"ok": true, "token": ...}`` while the server answers: what it
                         makes of the request's token (``accepted``, ``none``: none sent or
                         needed, else why a hook call with it is refused: ``missing``,
                         ``unknown``, ``revoked``; to a caller from elsewhere without a valid
                         token, ``refused``), and ``break_glass`` (``{"until":
                         SECONDS}``) while a glass holds, shown only to this machine and to a
                         valid token (``hookline doctor``)
    GET  /policy         the policy serving now, as JSON or in words (``_serve.policy_page``),
                         shown only to this machine and to a valid token
    /inbox/...           with ``--inbox``, the browser inbox (``hookline._inbox``): the live
                         asks (``hookline._serve.asks``) and the store's paused sessions;
                         its lifespan (the webhooks' telling loop) runs with the server's

Each hook request passes the gate first (``hookline._serve.gate``: its token, its rate); one
turned away is answered and recorded by ``hookline._serve.refused``, and nothing is judged.

Claude Code reads an HTTP hook's decision only from a 2xx JSON body: a status code cannot block.
So a refusing event (PreToolUse, PermissionRequest) that goes wrong here is still a 200 with a
deny saying what went wrong, never a 500; a body that is not an event at all is a 400 with one
line saying so (with ``onFailure: "block"`` on the hook, the host blocks the call on it too).
Every ruling is on record (``hookline._serve.record``) before it is answered, with the digest
of the policy that decided it; a record that cannot be written turns a refusing event's answer
into a deny. Each request is judged under the policy current when it began (``_serve.policies``),
whatever a reload (``_serve.reload``) swaps in meanwhile. With ``projects``, the policy of the
event's project, when the user trusts its folder, tightens the server's (``_serve.floor``):
on /claude-code only what Claude Code cannot run itself, on the other routes all of it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import (
    AbstractAsyncContextManager,
    AsyncExitStack,
    asynccontextmanager,
    nullcontext,
)
from typing import TYPE_CHECKING, Any, Final

from starlette.applications import Starlette
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route

from hookline._errors import ConfigError
from hookline._hooks.protocol import answer_text, loads
from hookline._hosts.claude_code import CLAUDE_CODE_PATH
from hookline._hosts.codex import CODEX_PATH
from hookline._hosts.cursor import CURSOR_PATH
from hookline._hosts.gemini import GEMINI_PATH
from hookline._serve import codex, cursor, gemini, refused
from hookline._serve.asks import Asking
from hookline._serve.break_glass import Glass, holding
from hookline._serve.floor import Floored
from hookline._serve.gate import Caller, Gate, Refusal
from hookline._serve.judge import REFUSING, Judge, failed_closed
from hookline._serve.policies import Policies
from hookline._serve.policy_page import policy_page
from hookline._serve.projects import HOOKLINE_ONLY, WHOLE
from hookline._serve.record import record
from hookline._serve.traced import Traced
from hookline._support import jsontext

if TYPE_CHECKING:
    from pathlib import Path

    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import BaseRoute

    from hookline._serve.adapted import Adapter
    from hookline._serve.asks import Asks
    from hookline._serve.judge import Rules
    from hookline._serve.policies import Active
    from hookline._serve.projects import Projects
    from hookline._serve.reload import Watcher
    from hookline._serve.traced import ServedTracing
    from hookline.audit._writer import AuditWriter

#: The host named on each record of Claude Code's HTTP hooks (which post to CLAUDE_CODE_PATH).
CLAUDE_CODE: Final = "claude-code"
#: The largest body read: a hook event with a large tool input (a Write's content) fits.
MAX_BODY: Final = 16 << 20


def create_app(
    judge: Judge | Policies,
    audit: AuditWriter,
    *,
    glass_dir: Path | None = None,
    gate: Gate | None = None,
    watcher: Watcher | None = None,
    projects: Projects | None = None,
    tracing: ServedTracing | None = None,
    asks: Asks | None = None,
    mounts: Sequence[BaseRoute] = (),
) -> Starlette:
    """The app that answers hook events with ``judge`` (or the policy ``Policies`` hold now)
    and records each in ``audit``; a glass broken in ``glass_dir``
    (``hookline._serve.break_glass``) makes its answers ask-only; ``gate`` says who may ask
    (None: anyone); ``watcher`` reloads the policy while the app serves; ``projects``: the
    trusted projects whose policies tighten the server's (``hookline._serve.floor``);
    ``tracing``: each ruling as spans (``hookline._serve.traced``; None: not traced);
    ``asks``: where asks wait for a person (``hookline._serve.asks``; None: the host's prompt);
    ``mounts``: more routes (the inbox, under ``/inbox``)."""
    gate = gate or Gate(None)
    policies = Policies(judge) if isinstance(judge, Judge) else judge

    def rules(active: Active, part: str, host: str, caller: Caller, glass: Glass | None) -> Rules:
        judged: Rules = active.judge if projects is None else Floored(active.judge, projects, part)
        if asks is not None and glass is None:  # under a glass, every answer is the host's
            judged = asks.around(judged, caller, host)
        if tracing is not None:  # the span of a live ask lasts its wait, and has its answer
            judged = tracing.rules(judged, host=host, caller=caller, policy=active.digest.sha256)
        return judged

    async def claude_code(request: Request) -> Response:
        caller = _admitted(request, gate)
        if isinstance(caller, Refusal):
            return refused.answer(caller, await request.body(), audit, gate, host=CLAUDE_CODE)
        glass = holding(glass_dir) if glass_dir is not None else None
        async with policies.using() as active:
            rules_now = rules(active, HOOKLINE_ONLY, CLAUDE_CODE, caller, glass)
            return await _answer(
                request, active, rules_now, audit, host=CLAUDE_CODE, glass=glass, caller=caller
            )

    def adapted(host: Adapter) -> Callable[[Request], Awaitable[Response]]:
        async def answer(request: Request) -> Response:
            caller = _admitted(request, gate)
            if isinstance(caller, Refusal):
                return refused.answer(caller, await request.body(), audit, gate, host=host.HOST)
            glass = holding(glass_dir) if glass_dir is not None else None
            async with policies.using() as active:
                judged = rules(active, WHOLE, host.HOST, caller, glass)
                return await _answer_adapted(
                    request, active, judged, audit, host, glass=glass, caller=caller
                )

        return answer

    def seen(request: Request) -> bool:
        return gate.trusted(request.headers.get("authorization"), _peer(request))

    async def health(request: Request) -> Response:
        glass = holding(glass_dir) if glass_dir is not None and seen(request) else None
        held = {} if glass is None else {"break_glass": {"until": glass.until}}
        token = _token_said(request, gate, shown=seen(request))
        return JSONResponse({"ok": True, "token": token, **held})

    routes = [
        Route(CLAUDE_CODE_PATH, claude_code, methods=["POST"]),
        Route(GEMINI_PATH, adapted(gemini), methods=["POST"]),
        Route(CODEX_PATH, adapted(codex), methods=["POST"]),
        Route(CURSOR_PATH, adapted(cursor), methods=["POST"]),
        Route("/health", health, methods=["GET"]),
        Route("/policy", policy_page(policies, may_see=seen, projects=projects), methods=["GET"]),
        *mounts,
    ]
    lifespan = _closing(policies, watcher, projects, mounts)
    return Starlette(routes=routes, lifespan=lifespan)


def _closing(
    policies: Policies,
    watcher: Watcher | None,
    projects: Projects | None,
    mounts: Sequence[BaseRoute] = (),
) -> Callable[[Starlette], AbstractAsyncContextManager[None]]:
    """The app's lifespan: ``watcher`` reloads while it serves, and each mounted app's own
    lifespan runs (Starlette runs none of a mounted app's: the inbox's tells its webhooks
    there); the judges' connections are closed when the server stops."""

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        async with AsyncExitStack() as mounted:
            for route in mounts:
                app = getattr(route, "app", None)
                if isinstance(app, Starlette):
                    await mounted.enter_async_context(app.router.lifespan_context(app))
            async with watcher.running() if watcher is not None else nullcontext():
                try:
                    yield
                finally:
                    await policies.aclose()
                    if projects is not None:
                        await projects.aclose()

    return lifespan


def _admitted(request: Request, gate: Gate) -> Caller | Refusal:
    return gate.admit(request.headers.get("authorization"), _peer(request))


def _token_said(request: Request, gate: Gate, *, shown: bool) -> str:
    """What the gate makes of the request's token, as ``/health`` says it: ``accepted``, or
    ``none`` (none sent, none needed), or why a hook call with it would be refused; to whom
    may not see the server's state (``shown`` False), only ``refused``: whether a token was
    ever one of the server's is not said to just anyone."""
    checked = gate.checked(request.headers.get("authorization"), _peer(request))
    if isinstance(checked, Refusal):
        return checked.reason if shown else "refused"
    return "none" if checked.token is None else "accepted"


def _peer(request: Request) -> str | None:
    return request.client.host if request.client is not None else None


async def _answer(
    request: Request,
    active: Active,
    rules: Rules,
    audit: AuditWriter,
    *,
    host: str,
    glass: Glass | None,
    caller: Caller,
) -> Response:
    """One hook call: the body read, judged, recorded, answered (under a glass, ask-only: what
    hookline decided is on record, a person decides)."""
    try:
        payload = _event_json(await request.body())
        ruling = await rules.rule(payload)
    except ConfigError as exc:
        return _bad_request(str(exc))
    try:
        who, policy, asking = caller.fields(), active.digest.sha256, asked_by(rules)
        asked, granted = (asking.asked, asking.granted) if asking is not None else (None, None)
        record(
            audit,
            ruling,
            payload,
            host=host,
            glass=glass,
            caller=who,
            policy=policy,
            asked=asked,
            granted=granted,
        )
    except Exception as exc:
        if glass is not None:  # a person decides each call: the way out holds even so
            return Answer(glass.answer(ruling.event))
        if ruling.event not in REFUSING:
            raise
        what = f"its audit record could not be written: {exc}"
        ruling = failed_closed(ruling.event, payload, what)
    return Answer(ruling.answer if glass is None else glass.answer(ruling.event))


async def _answer_adapted(
    request: Request,
    active: Active,
    rules: Rules,
    audit: AuditWriter,
    host: Adapter,
    *,
    glass: Glass | None,
    caller: Caller,
) -> Response:
    """One hook call of a host whose hooks are not Claude Code's (Gemini CLI, Codex, Cursor), as
    ``_answer``; under a glass, no decision (the host's own confirmation decides: neither has
    an ask a hook can give)."""
    try:
        payload = _event_json(await request.body())
        ruled = await host.rule(rules, payload)
    except ConfigError as exc:
        return _bad_request(str(exc))
    if ruled is None:  # an event of the host's that hookline does not judge
        return Answer({})
    ruling = ruled.ruling
    under_glass = dict(host.NO_ANSWER) if glass is not None else None
    try:
        who, policy, asking = caller.fields(), active.digest.sha256, asked_by(rules)
        record(
            audit,
            ruling,
            ruled.event,
            host=host.HOST,
            glass=glass,
            answer=under_glass,
            caller=who,
            policy=policy,
            asked=asking.asked if asking is not None else None,
            granted=asking.granted if asking is not None else None,
        )
    except Exception as exc:
        if under_glass is not None:
            return Answer(under_glass)
        if ruling.event not in REFUSING:
            raise
        what = f"its audit record could not be written: {exc}"
        ruling = host.answered(failed_closed(ruling.event, payload, what), payload)
    return Answer(ruling.answer if under_glass is None else under_glass)


def asked_by(rules: Rules) -> Asking | None:
    """A request's live asks, inside its tracing when it is traced (None: its asks are the
    host's)."""
    inner = rules.inner if isinstance(rules, Traced) else rules
    return inner if isinstance(inner, Asking) else None


def _event_json(body: bytes) -> dict[str, Any]:
    """The body as a JSON object; a ConfigError saying why it is not one."""
    if len(body) > MAX_BODY:
        raise ConfigError(f"the body is over {MAX_BODY} bytes", fix="send one hook event")
    try:
        value = loads(answer_text(body, errors="strict"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise ConfigError(
            f"the body is not JSON: {exc}", fix="send the hook's event JSON"
        ) from None
    if not isinstance(value, dict):
        raise ConfigError(
            f"the body must be a JSON object, not {type(value).__name__}",
            fix="send the hook's event JSON",
        )
    return value


class Answer(JSONResponse):
    """A hook's JSON answer: the bytes ``JSONResponse`` writes, by an encoder made once
    (``JSONResponse.render`` makes one for every answer)."""

    def render(self, content: Any) -> bytes:
        return jsontext.response(content)


def _bad_request(message: str) -> Response:
    return PlainTextResponse(message + "\n", status_code=400)
