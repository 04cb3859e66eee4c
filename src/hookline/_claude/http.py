"""HTTP hooks (Claude Code ``"type": "http"``): POST the event's payload, read the answer.

The request body is ``event.to_payload()`` as JSON. The answer, as Claude Code reads it: a 2xx with
an empty body is no decision; a 2xx with a JSON object is read like a command hook's stdout; any
other 2xx body is invalid. An HTTP hook cannot block with a status code: a non-2xx status, like
an unreachable server, is a failure, which is no decision unless the hook fails closed. httpx's
exceptions are translated here, so only hookline's own tree leaves this module::

    HookFailure
    ├── HookTimeout          httpx timed out (the engine's own deadline gives "timeout" too)
    ├── InvalidHookOutput    2xx whose body is not a JSON object, or cannot be decoded
    └── HttpHookFailure
        ├── HttpStatusFailure      "http_status": a non-2xx answer (redirects are not followed)
        ├── HttpConnectionFailure  "connection": refused, DNS, TLS or protocol errors
        └── BlockedUrl             "blocked_url": outside ``allowedHttpHookUrls``, or a URL
                                   with userinfo (``url_refusal``); nothing sent

Timeouts: the engine awaits each hook under ``asyncio.timeout(spec.timeout)``; that is the one
deadline (cancelling the request closes its connection). The pooled client sets no httpx timeout:
it serves hooks with different timeouts, and the runner is not told its own. Outside the engine,
await ``run`` under a timeout of your own.

Connections: an ``HttpClients`` (``hookline._support.http_pool``) keeps one pooled keep-alive
``httpx.AsyncClient`` per event loop, made on first use; its owner closes it on that loop before
the loop ends (``aclose``). Each agent owns one (``hookline._agent.runtime.Runtime``) and lends it
to the hooks its engine runs (``hookline._hooks.resources``); closing one agent closes no
other's. A hook given ``client`` uses that pool wherever it runs; one run with no pool at all
(``run`` outside an engine) sends through a client of its own, closed after the request. There
is no process-wide pool.
"""

from __future__ import annotations

import os
import re
from collections.abc import Awaitable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from hookline._errors import ConfigError, HookFailure, HookTimeout, InvalidHookOutput
from hookline._hooks.protocol import answer_text, decision_from_output, loads
from hookline._hooks.resources import lent
from hookline._hooks.runners import HookRunner
from hookline._support.http_body import BodyRefused, read_capped
from hookline._support.http_pool import DEFAULT_POOL as DEFAULT_POOL
from hookline._support.http_pool import HttpClients as HttpClients
from hookline._support.http_pool import pooled_or_once
from hookline._support.process import STREAM_CAP
from hookline._support.url_allow import listed, url_refusal
from hookline._support.url_allow import url_allowed as url_allowed

if TYPE_CHECKING:
    import httpx

    from hookline._decisions import Decision
    from hookline._events import HookEvent

#: Bytes of an HTTP hook's answer read (after decompression), as for a command hook's stdout.
MAX_ANSWER_BYTES = STREAM_CAP
_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")
_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_HEADER_VALUE = re.compile(r"[\t\x20-\x7e]*")  # printable ASCII: no line breaks, no controls


class HttpHookFailure(HookFailure):
    """An HTTP hook did not answer usefully."""


class HttpStatusFailure(HttpHookFailure):
    """The server answered with a status outside 2xx."""

    kind = "http_status"
    failed = "answered with an HTTP error status"


class HttpConnectionFailure(HttpHookFailure):
    """The request did not get an answer: refused, DNS, TLS or protocol errors."""

    kind = "connection"
    failed = "could not be reached"


class BlockedUrl(HttpHookFailure):
    """The URL is not allowed by ``allowedHttpHookUrls``; nothing was sent."""

    kind = "blocked_url"
    failed = "is not at an allowed URL"


class AnswerOverCap(HttpHookFailure):
    """The answer is larger than hookline reads (once inflated), or in an encoding it does not
    read: it cannot be a decision."""

    kind = "output_over_cap"
    failed = "gave an answer too long to read"


def __getattr__(name: str) -> Any:
    """``HTTP_CLIENTS``, the pool every HTTP hook once shared, is gone: one agent closing it cut
    another's hooks mid-request. The name still imports, as a new pool of the caller's own on
    each use (closing it closes nothing anyone else uses), with a DeprecationWarning."""
    if name == "HTTP_CLIENTS":
        import warnings

        warnings.warn(
            "hookline._claude.http.HTTP_CLIENTS is no longer shared: each agent owns its HTTP "
            "pool (Agent.runtime.http); this is a new HttpClients of your own, to close yourself",
            DeprecationWarning,
            stacklevel=2,
        )
        return HttpClients()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class HttpHook(HookRunner):
    """POSTs the event's protocol payload to ``url`` and reads the JSON answer.

    Header values fill ``$VAR`` / ``${VAR}`` from ``env`` (default ``os.environ``) for names in
    ``allowed_env_vars``; other references become empty. They are filled once, here: a bad
    value is a ConfigError when the hook is loaded, and each request does no extra work.
    """

    handler = "http"
    in_process = False
    inline = False

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        allowed_env_vars: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        allowed_urls: Sequence[str] | None = None,
        client: HttpClients | None = None,
    ) -> None:
        _check_url(url)
        self.url = url
        self.key = ("http", url)
        self.refusal = url_refusal(url, allowed_urls)
        self.allowed = self.refusal is None
        #: The pool this hook always posts through; None: its engine's (``run_with``).
        self.clients = client
        names, source = listed(allowed_env_vars), os.environ if env is None else env
        filled = {k: interpolate(v, names, source) for k, v in (headers or {}).items()}
        self._headers = _checked_headers(filled)

    async def run(self, event: HookEvent) -> Decision | None:
        return await self._run(event, self.clients)

    def run_with(self, event: HookEvent, resources: object) -> Awaitable[Decision | None]:
        """Posts through this hook's own pool if it was given one, else through the pool of
        the agent whose engine runs it."""
        return self._run(event, self.clients if self.clients is not None else lent(resources).http)

    def describe(self) -> str:
        return self.url

    async def _run(self, event: HookEvent, clients: HttpClients | None) -> Decision | None:
        if self.refusal is not None:
            raise BlockedUrl(f"{self.refusal}; nothing was sent")
        return read_answer(event.name, await self._post(event.to_payload(), clients))

    async def _post(self, payload: dict[str, Any], clients: HttpClients | None) -> bytes:
        """The body of a 2xx answer, read under ``MAX_ANSWER_BYTES`` (after decompression)."""
        import httpx

        try:
            async with (
                pooled_or_once(clients) as client,
                client.stream(
                    "POST", self.url, json=payload, headers=self._headers, follow_redirects=False
                ) as response,
            ):
                if not response.is_success:
                    raise HttpStatusFailure(
                        f"answered HTTP {response.status_code} {response.reason_phrase}; an HTTP "
                        "hook blocks with a 2xx JSON decision, not with a status"
                    )
                return await read_capped(response, MAX_ANSWER_BYTES)
        except BodyRefused as exc:
            raise AnswerOverCap(str(exc)) from None
        except httpx.TimeoutException as exc:
            raise HookTimeout(f"timed out ({_named(exc)})") from exc
        except httpx.DecodingError as exc:
            raise InvalidHookOutput(f"answered a body that cannot be decoded ({exc})") from exc
        except httpx.HTTPError as exc:
            raise HttpConnectionFailure(f"no answer ({_named(exc)})") from exc


def read_answer(event_name: str, body: bytes) -> Decision | None:
    """A 2xx body: empty or ``{}`` is no decision; a JSON object is a decision; else invalid.
    The body is JSON text in UTF-8, -16 or -32, a byte-order mark allowed (``answer_text``)."""
    try:
        text = answer_text(body, errors="strict")
        data = loads(text) if text else {}
    except ValueError as exc:  # UnicodeDecodeError, JSONDecodeError, nested too deep
        why = str(exc).partition(":")[0]
        raise InvalidHookOutput(
            f"answered 2xx with a body that is not JSON ({why}): {body[:80]!r}"
        ) from None
    if not isinstance(data, dict):
        raise InvalidHookOutput(f"answered 2xx with a JSON {type(data).__name__}, not an object")
    return decision_from_output(event_name, data) if data else None


def interpolate(value: str, allowed: Sequence[str], env: Mapping[str, str]) -> str:
    """``value`` with ``$VAR`` / ``${VAR}`` filled for allowed names; others become empty."""

    def fill(ref: re.Match[str]) -> str:
        name = ref.group(1) or ref.group(2)
        return env.get(name, "") if name in allowed else ""

    return _ENV_REF.sub(fill, value)


def _check_url(url: str) -> None:
    import httpx

    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL as exc:
        raise ConfigError(f"invalid hook URL {url!r}: {exc}", key="url") from exc
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise ConfigError(
            f"hook URL {url!r} is not an http(s) URL", key="url", fix="write http://host/path"
        )


def _checked_headers(headers: Mapping[str, str]) -> httpx.Headers:
    """The headers as httpx sends them; a name or value it cannot send is a ConfigError
    (the value is not shown: it may hold a secret)."""
    for name, value in headers.items():
        if not (_HEADER_NAME.fullmatch(name) and _HEADER_VALUE.fullmatch(value)):
            raise ConfigError(
                f"header {name!r} cannot be sent (a line break or non-ASCII character?)",
                key="headers",
                fix="use an ASCII header name and value",
            )
    import httpx

    return httpx.Headers(headers)


def _named(exc: Exception) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
