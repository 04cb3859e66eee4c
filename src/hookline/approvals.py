"""Approvals: who answers when a tool call needs a person's yes or no, and what they said.

An ``Approver`` answers an ``ApprovalRequest`` with an ``Approval`` (allow, deny with a message
for the model, or allow with an edited input), or with None: it took the request and answers
later (pending, ``last_error`` None), or it cannot answer (``last_error`` says why).
``request_approval`` is the policy: pending in a run that can wait is None (defer, then resume
with ``answer_from_cli``); everything else is a deny that says why. A failure never allows and
never defers: nobody holds the request, so the run would wait for an answer that is not coming.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

import httpx

from hookline.errors import ConfigError
from hookline.hooks.http import HTTP_CLIENTS, HttpClients, url_allowed

logger = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 600.0  # seconds: the protocol's default for an HTTP handler


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

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Approval:
    """An answer; ``approver`` is who gave it: terminal, http:<url>, hook:<name>, cli, none."""

    behavior: Literal["allow", "deny"]
    message: str | None = None  # for the model, on deny
    updated_input: dict[str, Any] | None = None  # the whole input to run instead, on allow
    approver: str = ""

    @classmethod
    def allow(cls, *, updated_input: dict[str, Any] | None = None, approver: str = "") -> Approval:
        return cls("allow", None, updated_input, approver)

    @classmethod
    def deny(cls, message: str, *, approver: str = "") -> Approval:
        return cls("deny", message, None, approver)

    @classmethod
    def edit(cls, new_input: dict[str, Any], *, approver: str = "") -> Approval:
        return cls("allow", None, new_input, approver)


class Approver:
    """Answers approval requests. Set ``last_error`` after the last ``await`` of ``approve``, so
    a caller reading it as soon as ``approve`` returns reads the reason for its own request."""

    last_error: str | None = None

    async def approve(self, request: ApprovalRequest) -> Approval | None:
        raise NotImplementedError


class NoApprover(Approver):
    """Never answers: a headless run with no approver."""

    last_error = "no approver is configured"

    async def approve(self, request: ApprovalRequest) -> Approval | None:
        return None


class ChainApprover(Approver):
    """Asks each in turn: the first answer wins, and a pending one ends the chain."""

    def __init__(self, *approvers: Approver) -> None:
        self.approvers = approvers

    async def approve(self, request: ApprovalRequest) -> Approval | None:
        errors: list[str] = []
        for approver in self.approvers:
            answer = await approver.approve(request)
            if answer is not None or approver.last_error is None:
                self.last_error = None
                return answer
            errors.append(approver.last_error)
        self.last_error = "; ".join(errors) or NoApprover.last_error
        return None


async def request_approval(
    approver: Approver, request: ApprovalRequest, *, can_defer: bool = False
) -> Approval | None:
    """The answer; or None (defer) when it is pending and the run can wait; or a deny saying why."""
    answer = await approver.approve(request)
    if answer is not None or (approver.last_error is None and can_defer):
        return answer
    why = approver.last_error or "the answer is pending and this run cannot wait for it"
    asked = f" ({request.reason})" if request.reason else ""
    return Approval.deny(
        f"{request.tool_name} was not run: it needs approval{asked} and nobody gave it: {why}.",
        approver="none",
    )


class _NoAnswer(Exception):
    """An approver got no answer (private to this module); the message says why."""


class HttpApprover(Approver):
    """POSTs ``request.to_dict()`` as JSON through the pooled ``HTTP_CLIENTS``; reads the answer.

    A 2xx ``{"behavior": "allow"|"deny", "message"?, "updatedInput"?}`` (Claude Code's
    PermissionRequest decision, also read inside a whole hook answer) is the answer; 202, 204 or
    ``{"behavior": "pending"}`` is pending. Any other status or body, no connection or the timeout
    is None with ``last_error`` (also logged): never an allow.
    """

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = DEFAULT_TIMEOUT,
        allowed_urls: Sequence[str] | None = None,
        clients: HttpClients | None = None,
    ) -> None:
        try:
            parsed, self.headers = httpx.URL(url), httpx.Headers(headers or {})
        except (httpx.InvalidURL, UnicodeEncodeError) as exc:
            raise ConfigError(f"approver URL or header cannot be sent: {exc}", key="url") from exc
        if parsed.scheme not in ("http", "https"):
            fix = "write http://host/path"
            raise ConfigError(f"approver URL {url!r} is not an http(s) URL", key="url", fix=fix)
        self.url, self.timeout, self.allowed = url, timeout, url_allowed(url, allowed_urls)
        #: For messages, logs and ``Approval.approver``: no credentials, query or fragment.
        self.shown = f"{parsed.scheme}://{parsed.netloc.decode()}{parsed.path}"
        self.clients = clients if clients is not None else HTTP_CLIENTS

    async def approve(self, request: ApprovalRequest) -> Approval | None:
        try:
            answer = self._answer(await self._post(request))
        except _NoAnswer as exc:
            self.last_error = f"the approver at {self.shown} {exc}"
            logger.warning("%s (tool_use_id %s)", self.last_error, request.tool_use_id)
            return None
        self.last_error = None
        return answer

    async def _post(self, request: ApprovalRequest) -> httpx.Response:
        if not self.allowed:
            raise _NoAnswer("is not allowed by allowedHttpHookUrls; nothing was sent")
        try:
            async with asyncio.timeout(self.timeout):
                body, client = request.to_dict(), self.clients.client()
                return await client.post(self.url, json=body, headers=self.headers)
        except TimeoutError:
            raise _NoAnswer(f"did not answer within {self.timeout:g}s") from None
        except httpx.HTTPError as exc:
            raise _NoAnswer(f"could not be reached ({type(exc).__name__}: {exc})") from exc

    def _answer(self, response: httpx.Response) -> Approval | None:
        status = f"HTTP {response.status_code} {response.reason_phrase}"
        if response.status_code in (202, 204):
            return None
        if not response.is_success:
            raise _NoAnswer(f"answered {status}")
        try:
            data = json.loads(response.content)
        except ValueError:
            data = None
        specific = data.get("hookSpecificOutput") if isinstance(data, dict) else None
        data = specific.get("decision", data) if isinstance(specific, dict) else data
        if not isinstance(data, dict):
            raise _NoAnswer(f"answered {status} with a body that is not a JSON object")
        behavior, message, edited = (data.get(k) for k in ("behavior", "message", "updatedInput"))
        if behavior == "pending":
            return None
        if behavior not in ("allow", "deny"):
            raise _NoAnswer(f'answered behavior {behavior!r}, not "allow", "deny" or "pending"')
        if not isinstance(message, str | None) or not isinstance(edited, dict | None):
            raise _NoAnswer("answered a message that is not a string or an input not an object")
        if behavior == "allow":
            return Approval.allow(updated_input=edited, approver=f"http:{self.shown}")
        return Approval.deny(message or "Denied by the approver.", approver=f"http:{self.shown}")


def answer_from_cli(approve: bool, deny: str | None, edit: str | None) -> Approval:
    """The answer given to ``hookline sessions resume ID``: exactly one of the three flags."""
    flags = (("--approve", approve), ("--deny", deny is not None), ("--edit", edit is not None))
    given = [flag for flag, present in flags if present]
    if len(given) != 1:
        said = " and ".join(given) + " were given together" if given else "no answer was given"
        fix = "give exactly one of --approve, --deny MESSAGE or --edit JSON"
        raise ConfigError(said, key="--approve/--deny/--edit", fix=fix)
    if deny is not None and not deny.strip():
        fix = "say why, for the model: --deny 'use the staging database instead'"
        raise ConfigError("the message is empty", key="--deny", fix=fix)
    if edit is None:
        return (
            Approval.deny(deny.strip(), approver="cli") if deny else Approval.allow(approver="cli")
        )
    fix = """pass the whole input as a JSON object: --edit '{"command": "ls"}'"""
    try:
        value = json.loads(edit)
    except ValueError as exc:
        raise ConfigError(f"not valid JSON ({exc})", key="--edit", fix=fix) from exc
    if not isinstance(value, dict):
        raise ConfigError(f"must be a JSON object, not {json_kind(value)}", key="--edit", fix=fix)
    return Approval.edit(value, approver="cli")


def json_kind(value: Any) -> str:
    """A JSON value's type in JSON's words."""
    names = {list: "an array", str: "a string", bool: "a boolean", dict: "an object"}
    return "null" if value is None else names.get(type(value), "a number")
