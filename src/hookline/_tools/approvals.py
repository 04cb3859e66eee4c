"""Approvals: who answers when a tool call needs a person's yes or no, and what they said.

An ``Approver`` answers an ``ApprovalRequest`` with one of four things, each a frozen value:

* ``Approval.allow()`` (or ``Approval.edit(new_input)``): run it (the edit is judged again);
  ``Approval.allow(scope="session")`` also runs, for the rest of the session, what the
  request's ``session_grant`` names (``hookline.permissions._session``) without asking;
* ``Approval.deny(message)``: refuse it, with a message for the model;
* ``Approval.defer()``: the approver holds the request and someone answers later, on resume;
* ``Unavailable(why)``: it cannot answer (no terminal, no connection, a bad reply).

``request_approval`` is the policy: an answer stands; a deferral in a run that can wait pauses
it (then resume with the answer); everything else is a deny that says why, with origin
``unanswered``. A run that cannot wait never waits, and nothing unanswered ever runs.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from hookline._decisions import Answer, Origin
from hookline._errors import ConfigError
from hookline._hooks.spec import HANDLER_TIMEOUT
from hookline._support.http_body import BodyRefused, read_capped
from hookline._support.http_pool import HttpClients, pooled_or_once
from hookline._support.url_allow import url_allowed
from hookline._tools.approval_wire import (
    IDENTITY_MAX,
    AnswerRefused,
    Lasting,
    read_answer,
)
from hookline._tools.approval_wire import request_json as _request_json

if TYPE_CHECKING:
    import httpx

    from hookline.permissions._session import SessionGrant

__all__ = [
    "IDENTITY_MAX",
    "Approval",
    "ApprovalRequest",
    "Approver",
    "ChainApprover",
    "HttpApprover",
    "NoApprover",
    "Unavailable",
    "request_approval",
]

logger = logging.getLogger(__name__)

#: Seconds the HTTP approver waits for an answer: as long as Claude Code waits for a handler.
APPROVER_TIMEOUT: Final = HANDLER_TIMEOUT
DEFAULT_MAX_BYTES = 1 << 20  # an approver's answer, decompressed: 1 MiB
#: Where the CLI reads the HTTP approver's bearer token when ``--approver-token`` is not given.
TOKEN_ENV = "HOOKLINE_APPROVER_TOKEN"
#: Who "gave" the refusal of a request nobody answered, in ``Approval.approver`` and the audit.
NOBODY = "none"


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    """A call waiting for an answer: what would run, why it was asked, and who asked."""

    session_id: str
    tool_use_id: str
    tool_name: str
    tool_input: dict[str, Any]  # as it would run
    original_input: dict[str, Any] | None = None  # the model's, when a hook rewrote it
    reason: str | None = None
    source: str = ""  # the hook, rule or mode that asked
    user: str | None = None
    tenant: str | None = None
    #: What an allow for the rest of the session would allow; None: only this call can be.
    session_grant: SessionGrant | None = None
    #: The folder the call runs in (the shell's, after a ``cd``), when known.
    cwd: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The request as the approver protocol sends it (``approval-request.v1.json``)."""
        return _request_json(self)


@dataclass(frozen=True, slots=True)
class Approval:
    """An answer: allow (perhaps an edited input), deny (with a message for the model), or
    defer (someone answers later, on resume). ``approver`` is who gave it, for people and the
    audit: terminal, ``http:<url>``, ``hook:<name>``, cli, none."""

    permission: Answer
    message: str | None = None  # for the model, on deny; on defer, where the request waits
    updated_input: dict[str, Any] | None = None  # the whole input to run instead, on allow
    approver: str = ""
    #: Where it came from: an approver, a PermissionRequest hook's answer, or nobody
    #: (``unanswered``). Not part of what it says, like ``Decision.origin``.
    origin: Origin = field(default="approver", compare=False)
    #: ``session``: an allow that also runs, for the rest of the session, what the request's
    #: ``session_grant`` names; ``once``: this call only.
    scope: Lasting = "once"

    @classmethod
    def allow(
        cls,
        *,
        updated_input: dict[str, Any] | None = None,
        approver: str = "",
        scope: Lasting = "once",
    ) -> Approval:
        return cls("allow", None, updated_input, approver, scope=scope)

    @classmethod
    def deny(cls, message: str, *, approver: str = "") -> Approval:
        return cls("deny", message, None, approver)

    @classmethod
    def edit(cls, new_input: dict[str, Any], *, approver: str = "") -> Approval:
        return cls("allow", None, new_input, approver)

    @classmethod
    def defer(cls, message: str | None = None, *, approver: str = "") -> Approval:
        """The request is held; the answer comes later, given to ``Agent.resume``."""
        return cls("defer", message, None, approver)

    @property
    def behavior(self) -> Answer:
        """The former name of ``permission``, kept for code written against it."""
        return self.permission


@dataclass(frozen=True, slots=True)
class Unavailable:
    """An approver could not answer; ``why`` says why, in words for the model and the log."""

    why: str


class Approver:
    """Answers approval requests: subclass it and implement ``approve``."""

    async def approve(self, request: ApprovalRequest) -> Approval | Unavailable:
        raise NotImplementedError


class NoApprover(Approver):
    """Never answers: a headless run with no approver."""

    async def approve(self, request: ApprovalRequest) -> Approval | Unavailable:
        return Unavailable(_NOT_CONFIGURED)


class ChainApprover(Approver):
    """Asks each in turn: the first answer wins (a deferral too); an unavailable one passes on."""

    def __init__(self, *approvers: Approver) -> None:
        self.approvers = approvers

    async def approve(self, request: ApprovalRequest) -> Approval | Unavailable:
        reasons: list[str] = []
        for approver in self.approvers:
            answer = await approver.approve(request)
            if isinstance(answer, Approval):
                return answer
            reasons.append(answer.why)
        return Unavailable("; ".join(reasons) or _NOT_CONFIGURED)


async def request_approval(
    approver: Approver, request: ApprovalRequest, *, can_defer: bool = False
) -> Approval:
    """The answer; a deferral when the run can wait (nobody could answer now: the run pauses
    and a resume answers); otherwise a deny, saying why nobody gave an answer. A reply that is
    neither an Approval nor Unavailable (an approver written for another API) is unavailable."""
    answer = await approver.approve(request)
    if not isinstance(answer, Approval | Unavailable):
        answer = Unavailable(f"{type(approver).__name__} replied {answer!r}, not an Approval")
    if isinstance(answer, Approval):
        if answer.permission != "defer" or can_defer:
            return answer
        why = _PENDING
    elif can_defer:
        return Approval("defer", answer.why, approver=NOBODY, origin="unanswered")
    else:
        why = answer.why
    asked = f" ({request.reason})" if request.reason else ""
    said = f"{request.tool_name} was not run: it needs approval{asked} and nobody gave it: {why}."
    return Approval("deny", said, approver=NOBODY, origin="unanswered")


_NOT_CONFIGURED = "no approver is configured"
_PENDING = "the answer is pending and this run cannot wait for it"


class _NoAnswer(Exception):
    """An approver got no answer (private to this module); the message says why."""


class HttpApprover(Approver):
    """POSTs ``request.to_dict()`` as JSON; reads the answer. Through ``clients`` when given
    (their owner closes them), else through a client of its own for each request, closed after it.

    The protocol is versioned, with a JSON schema for each side shipped in the package
    (``hookline._tools.approval_wire``). A 2xx ``{"behavior": "allow"|"deny", "message"?,
    "updatedInput"?, "approver"?, "scope"?}`` (Claude Code's PermissionRequest decision, also
    read inside a whole hook answer) is the answer; ``approver`` names the person who gave it,
    recorded as ``"<approver> via http:<host>"``; ``"scope": "session"`` allows what the
    request's ``session_scope`` names for the rest of the session. 202, 204 or
    ``{"behavior": "pending"}`` defers: the service holds the request. Any other status (a
    redirect too: none is followed), body or encoding, an answer the schema refuses, one over
    ``max_bytes`` once decompressed, no connection or the timeout is ``Unavailable`` saying
    which (also logged): never an allow.

    Trust: ``token`` goes as ``Authorization: Bearer <token>`` and is never shown; the URL must
    be https, or http to a loopback host, and carry no userinfo. The body is read and inflated
    a piece at a time, so a small compressed answer cannot fill memory.
    """

    def __init__(
        self,
        url: str,
        *,
        token: str | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = APPROVER_TIMEOUT,
        max_bytes: int = DEFAULT_MAX_BYTES,
        allowed_urls: Sequence[str] | None = None,
        clients: HttpClients | None = None,
    ) -> None:
        import httpx  # here, not at import: only an HTTP approver needs it

        try:
            parsed, self.headers = httpx.URL(url), httpx.Headers(headers or {})
        except (httpx.InvalidURL, UnicodeEncodeError) as exc:
            raise ConfigError(
                f"approver URL or header cannot be sent: {exc}", key=URL_FLAG
            ) from exc
        _check_url(parsed)
        self._token = _checked_token(token)
        if self._token is not None:
            self.headers["Authorization"] = f"Bearer {self._token}"
        self.headers["Accept-Encoding"] = "gzip, deflate"  # what _read_capped can inflate
        if timeout is not None and not timeout > 0:
            fix = f"give seconds, more than 0 (default {APPROVER_TIMEOUT:g})"
            raise ConfigError(f"timeout {timeout!r} is not positive", key=TIMEOUT_FLAG, fix=fix)
        if max_bytes < 1:
            raise ConfigError(f"max_bytes {max_bytes!r} is not positive", key="max_bytes")
        self.url, self.timeout, self.max_bytes = url, timeout, max_bytes
        self.allowed = url_allowed(url, allowed_urls)
        #: For messages, logs and ``Approval.approver``: no credentials, query or fragment.
        self.host = parsed.netloc.decode()
        self.shown = f"{parsed.scheme}://{self.host}{parsed.path}"
        self.clients = clients

    async def approve(self, request: ApprovalRequest) -> Approval | Unavailable:
        try:
            return await self._ask(request)
        except _NoAnswer as exc:
            why = self._masked(f"the approver at {self.shown} {exc}")
            logger.warning("%s (tool_use_id %s)", why, request.tool_use_id)
            return Unavailable(why)

    async def _ask(self, request: ApprovalRequest) -> Approval:
        if not self.allowed:
            raise _NoAnswer("is not allowed by allowedHttpHookUrls; nothing was sent")
        import httpx

        body = request.to_dict()
        try:
            async with (
                asyncio.timeout(self.timeout),
                pooled_or_once(self.clients) as client,
                client.stream(
                    "POST", self.url, json=body, headers=self.headers, follow_redirects=False
                ) as response,
            ):
                status = _status(response)
                if response.status_code in (202, 204):
                    return Approval.defer(approver=f"http:{self.shown}")
                content = await read_capped(response, self.max_bytes)
        except BodyRefused as exc:
            raise _NoAnswer(str(exc)) from None
        except TimeoutError:
            raise _NoAnswer(f"did not answer within {self.timeout:g}s") from None
        except httpx.HTTPError as exc:
            raise _NoAnswer(f"could not be reached ({type(exc).__name__}: {exc})") from exc
        return self._answer(status, content)

    def _answer(self, status: str, content: bytes) -> Approval:
        try:
            data = json.loads(content)
        except ValueError:
            data = None
        try:
            said = read_answer(data)
        except AnswerRefused as exc:
            raise _NoAnswer(f"answered {status} with {exc}") from None
        if said.behavior == "pending":
            return Approval.defer(approver=f"http:{self.shown}")
        who = f"http:{self.shown}"  # and the person the answer names, if it names one
        who = who if said.approver is None else f"{said.approver} via http:{self.host}"
        if said.behavior == "allow":
            return Approval.allow(updated_input=said.updated_input, approver=who, scope=said.scope)
        return Approval.deny(said.message or "Denied by the approver.", approver=who)

    def _masked(self, text: str) -> str:
        return text.replace(self._token, "[token]") if self._token else text


URL_FLAG, TOKEN_FLAG, TIMEOUT_FLAG = "--approver-url", "--approver-token", "--approver-timeout"
_LOOPBACK_NAMES = frozenset({"localhost"})


def _check_url(parsed: httpx.URL) -> None:
    """A ConfigError unless ``url`` is https, or http to a loopback host, without userinfo.
    Messages show it without userinfo, query or fragment, where secrets are put."""
    shown = _without_secrets(parsed)
    if parsed.scheme not in ("http", "https") or not parsed.host:
        fix = "write https://host/path"
        raise ConfigError(f"approver URL {shown!r} is not an http(s) URL", key=URL_FLAG, fix=fix)
    if parsed.userinfo:
        fix = f"drop the user:password@ part and pass a token with {TOKEN_FLAG} or {TOKEN_ENV}"
        raise ConfigError(f"approver URL {shown} carries userinfo", key=URL_FLAG, fix=fix)
    if parsed.scheme == "http" and not is_loopback(parsed.host):
        https = parsed.copy_with(scheme="https", query=None, fragment=None)
        fix = f"use {https} (plain http only to 127.0.0.1, ::1 or localhost)"
        raise ConfigError(
            f"approver URL {shown} is plain http to another host: the answer and the token "
            "could be read or forged on the way",
            key=URL_FLAG,
            fix=fix,
        )


def is_loopback(host: str) -> bool:
    """Whether ``host`` (as httpx parses it: no brackets) is 127.0.0.0/8, ::1 or localhost."""
    if host.lower() in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _without_secrets(parsed: httpx.URL) -> str:
    return str(parsed.copy_with(username=None, password=None, query=None, fragment=None))


_TOKEN = re.compile(r"[\x21-\x7e]+")  # printable ASCII, no spaces: what a header can carry


def _checked_token(token: str | None) -> str | None:
    """The token, if it can be sent as a bearer token; the message never shows it."""
    if token is None:
        return None
    if not _TOKEN.fullmatch(token):
        raise ConfigError(
            "the approver token is empty, or has a space, line break or non-ASCII character (the "
            "token is not shown)",
            key=TOKEN_FLAG,
            fix=f"pass the token as issued, with {TOKEN_FLAG} or {TOKEN_ENV}",
        )
    return token


def _status(response: httpx.Response) -> str:
    """The status line, for messages; _NoAnswer unless it is a 2xx."""
    status = f"HTTP {response.status_code} {response.reason_phrase}".rstrip()
    if 300 <= response.status_code < 400:
        raise _NoAnswer(f"answered {status}, a redirect, which is never followed for an approver")
    if not response.is_success:
        raise _NoAnswer(f"answered {status}")
    return status
