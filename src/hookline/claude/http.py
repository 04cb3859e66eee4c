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

Connections: an ``HttpClients`` keeps one pooled keep-alive ``httpx.AsyncClient`` per event loop,
made on first use; its owner closes it on that loop before the loop ends (``aclose``). Each agent
owns one (``hookline.agent.runtime.Runtime``) and lends it to the hooks its engine runs
(``hookline.claude.resources``); closing one agent closes no other's. A hook given ``client``
uses that pool wherever it runs; one run with no pool at all (``run`` outside an engine) sends
through a client of its own, closed after the request. There is no process-wide pool.
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import AsyncIterator, Awaitable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from hookline._support.http_body import BodyRefused, read_capped
from hookline._support.process import STREAM_CAP
from hookline.claude.resources import lent
from hookline.errors import ConfigError, HookFailure, HookTimeout, InvalidHookOutput
from hookline.hooks.protocol import answer_text, decision_from_output, loads
from hookline.hooks.runners import HookRunner

if TYPE_CHECKING:
    import httpx

    from hookline.decisions import Decision
    from hookline.events import HookEvent

#: Bytes of an HTTP hook's answer read (after decompression), as for a command hook's stdout.
MAX_ANSWER_BYTES = STREAM_CAP
#: Hook servers are few and mostly local: a small pool, and idle connections kept across model
#: turns (httpx's default 5 s expiry would drop them between most tool calls).
DEFAULT_POOL: Final = {
    "max_connections": 64,
    "max_keepalive_connections": 16,
    "keepalive_expiry": 60,
}

_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")
_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_HEADER_VALUE = re.compile(r"[\t\x20-\x7e]*")  # printable ASCII: no line breaks, no controls


class HttpHookFailure(HookFailure):
    """An HTTP hook did not answer usefully."""


class HttpStatusFailure(HttpHookFailure):
    """The server answered with a status outside 2xx."""

    kind = "http_status"


class HttpConnectionFailure(HttpHookFailure):
    """The request did not get an answer: refused, DNS, TLS or protocol errors."""

    kind = "connection"


class BlockedUrl(HttpHookFailure):
    """The URL is not allowed by ``allowedHttpHookUrls``; nothing was sent."""

    kind = "blocked_url"


class AnswerOverCap(HttpHookFailure):
    """The answer is larger than hookline reads (once inflated), or in an encoding it does not
    read: it cannot be a decision."""

    kind = "output_over_cap"


class HttpClients:
    """One pooled ``httpx.AsyncClient`` per running event loop, made on first use (httpx is
    imported then: a program that sends no HTTP request never loads it)."""

    def __init__(self, *, limits: httpx.Limits | None = None) -> None:
        self.limits = limits
        self._clients: dict[asyncio.AbstractEventLoop, httpx.AsyncClient] = {}

    def client(self) -> httpx.AsyncClient:
        """The running loop's client."""
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None or client.is_closed:
            import httpx

            self._forget_closed_loops()
            limits = self.limits or httpx.Limits(**DEFAULT_POOL)
            client = httpx.AsyncClient(limits=limits, timeout=None, follow_redirects=False)
            self._clients[loop] = client
        return client

    async def aclose(self) -> None:
        """Close the running loop's client; forget those of loops already closed."""
        client = self._clients.pop(asyncio.get_running_loop(), None)
        self._forget_closed_loops()
        if client is not None:
            await client.aclose()

    def _forget_closed_loops(self) -> None:
        for loop in list(self._clients):  # a copy: other threads' loops may add clients
            if loop.is_closed():
                self._clients.pop(loop, None)


@asynccontextmanager
async def pooled_or_once(clients: HttpClients | None) -> AsyncIterator[httpx.AsyncClient]:
    """The running loop's client of ``clients``; with no pool, a client for this one request,
    closed after it (so nothing is left open that nobody owns)."""
    if clients is not None:
        yield clients.client()
        return
    import httpx

    async with httpx.AsyncClient(
        limits=httpx.Limits(**DEFAULT_POOL), timeout=None, follow_redirects=False
    ) as client:
        yield client


def __getattr__(name: str) -> Any:
    """``HTTP_CLIENTS``, the pool every HTTP hook once shared, is gone: one agent closing it cut
    another's hooks mid-request. The name still imports, as a new pool of the caller's own on
    each use (closing it closes nothing anyone else uses), with a DeprecationWarning."""
    if name == "HTTP_CLIENTS":
        import warnings

        warnings.warn(
            "hookline.claude.http.HTTP_CLIENTS is no longer shared: each agent owns its HTTP "
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
        names, source = _listed(allowed_env_vars), os.environ if env is None else env
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


def url_allowed(url: str, patterns: Sequence[str] | None) -> bool:
    """Whether ``allowedHttpHookUrls`` lets ``url`` through.

    With ``patterns`` None every URL is allowed, with ``[]`` none, with ``["*"]`` every one. A
    pattern (``scheme://host[:port][/path]``, ``*`` standing for any run of characters inside
    one part) is matched part by part on the parsed URL, never on its text: scheme and host
    ignoring case, the port (a pattern without one allows only the scheme's default port), and
    the path (a pattern without one allows any path; one with a ``..`` segment, even encoded,
    never matches). So ``http://localhost:1@127.0.0.1/`` goes to 127.0.0.1 and does not match
    ``http://localhost:*``."""
    if patterns is None:
        return True
    import httpx

    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL:
        return False
    if ".." in parsed.path.split("/"):
        return False
    return any(p == "*" or _UrlPattern.parse(p).matches(parsed) for p in _listed(patterns))


def url_refusal(url: str, patterns: Sequence[str] | None) -> str | None:
    """Why an HTTP hook may not POST to ``url``; None when it may. Besides ``url_allowed``, a
    URL carrying userinfo (``http://user@host/``) is always refused: a reader, or a loose
    pattern, takes the text before the ``@`` for the host."""
    import httpx

    try:
        userinfo = httpx.URL(url).userinfo
    except httpx.InvalidURL:
        return "the URL cannot be parsed"
    if userinfo:
        return "the URL carries userinfo (user:password@), which hookline refuses"
    if not url_allowed(url, patterns):
        return "the URL does not match allowedHttpHookUrls"
    return None


@dataclass(frozen=True, slots=True)
class _UrlPattern:
    """One ``allowedHttpHookUrls`` entry, split into the parts a URL is matched on."""

    scheme: str
    host: str
    port: str | None
    path: str | None

    @classmethod
    def parse(cls, pattern: str) -> _UrlPattern:
        """The parts of ``pattern``; one that is not ``scheme://host[:port][/path]`` (with
        userinfo, say) matches nothing."""
        found = _URL_PATTERN.fullmatch(pattern)
        if found is None or "@" in found["host"]:
            return _NOTHING
        host = found["host"].removeprefix("[").removesuffix("]")
        return cls(found["scheme"].lower(), host.lower(), found["port"], found["path"])

    def matches(self, url: httpx.URL) -> bool:
        if self is _NOTHING or not _glob(self.scheme).fullmatch(url.scheme):
            return False
        if not _glob(self.host).fullmatch(url.host.lower()):
            return False
        port = url.port if url.port is not None else _DEFAULT_PORTS.get(url.scheme)
        wanted = _DEFAULT_PORTS.get(url.scheme) if self.port is None else self.port
        if not _glob(str(wanted)).fullmatch(str(port)):
            return False
        return self.path is None or _glob(self.path).fullmatch(url.path) is not None


_URL_PATTERN = re.compile(
    r"(?P<scheme>[A-Za-z*][A-Za-z0-9+.*-]*)://(?P<host>\[[^\]/]*\]|[^:/]+)"
    r"(?::(?P<port>[0-9*]+))?(?P<path>/.*)?",
    re.DOTALL,
)
_NOTHING = _UrlPattern("", "", None, None)
_DEFAULT_PORTS: Final = {"http": 80, "https": 443}


def interpolate(value: str, allowed: Sequence[str], env: Mapping[str, str]) -> str:
    """``value`` with ``$VAR`` / ``${VAR}`` filled for allowed names; others become empty."""

    def fill(ref: re.Match[str]) -> str:
        name = ref.group(1) or ref.group(2)
        return env.get(name, "") if name in allowed else ""

    return _ENV_REF.sub(fill, value)


def _listed(names: Sequence[str]) -> tuple[str, ...]:
    """A bare string is one entry, not a list of characters (``"*"`` would allow everything)."""
    return (names,) if isinstance(names, str) else tuple(names)


def _glob(pattern: str) -> re.Pattern[str]:
    return re.compile(".*".join(re.escape(part) for part in pattern.split("*")))


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
