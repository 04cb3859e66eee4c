"""Notifications: a webhook told when a call starts to wait for a person.

    hookline inbox --notify slack=https://hooks.slack.com/services/... --notify json=https://...

Each target is ``FORMAT=URL``: ``slack`` (an incoming webhook: ``text`` and Block Kit
``blocks``), ``teams`` (a Workflows webhook: an Adaptive Card), ``discord`` (a webhook:
``content`` and an embed, with every mention switched off) or ``json`` (hookline's own object,
``{"event": "approval.waiting", ...}``). A notification names the session, each waiting call
(its tool, its input as the audit would keep it: redacted, clipped), why it waits and who asked,
and, when the inbox has an address, a link to it and signed approve and deny links that open
the call in the inbox (a link never answers on its own: ``hookline._inbox.links``).

A live ask (a host's call waiting on its hook, ``hookline._inbox.live``) is told as a pause
is, its links naming the ask. A pause is told once (by its session and the time it paused; a
live ask by its id), and each telling is on record (an ``inbox_notify`` record: which calls,
which formats, how many were delivered), so an inbox started again does not tell again what it
told before. A send that fails (no answer, a 5xx, a 429) is tried again with growing waits
(tenacity), a bounded number of times; one that still fails is said on stderr and dropped: a
notification is a courtesy, the inbox and the store are the record. Nothing a webhook is sent
has a secret the audit would keep out: every value passes the redactor, and the text that
reaches a chat is inert there: Slack's ``&``, ``<``, ``>`` escaped (no ``<!channel>``) and the
calls in plain text; Teams' calls in text runs, which render no markdown; Discord's markdown
escaped (no masked link a tool input could forge) and its mentions parsing nothing.
"""

from __future__ import annotations

import json
import math
import re
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

import httpx
from tenacity import (
    AsyncRetrying,
    RetryError,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
)

from hookline._agent.saved.deadline import when
from hookline._errors import ConfigError
from hookline._inbox.links import Link, make
from hookline._support.display import shown
from hookline.audit._redact import Redactor, clip
from hookline.storage._base import AuditEntry

if TYPE_CHECKING:
    from hookline._inbox.pending import Pending, Waiting
    from hookline.audit._writer import AuditWriter

#: The formats a target may name, and the body each builds.
FORMATS: Final = ("slack", "teams", "discord", "json")
#: How long a link in a notification stays good.
LINK_LIFE: Final = 24 * 3600.0
#: The most characters of one input value a notification carries.
PREVIEW: Final = 200
_ATTEMPTS: Final = 5
_ACTIONS: Final = ("approve", "deny")
#: The audit record of a telling, and its decision when a target received it.
NOTIFY_KIND: Final = "inbox_notify"
NOTIFIED: Final = "notified"
#: What Discord's markdown reads as formatting, a link or a heading: escaped with a backslash.
_DISCORD_MARKS: Final = re.compile(r"([\\*_~`|>\[\]()#:-])")


@dataclass(frozen=True, slots=True)
class Target:
    """Where a notification goes, and in which shape."""

    format: str
    url: str

    @classmethod
    def parse(cls, text: str) -> Target:
        """``FORMAT=URL``; a ConfigError naming the fix for anything else."""
        name, _, url = text.partition("=")
        if name not in FORMATS or not url.startswith(("https://", "http://")):
            raise ConfigError(
                f"--notify {text!r} is not FORMAT=URL",
                key="--notify",
                fix=f"write e.g. slack=https://hooks.slack.com/services/..., FORMAT one of "
                f"{', '.join(FORMATS)}",
            )
        return cls(name, url)


@dataclass(frozen=True, slots=True)
class Told:
    """One call, as a notification tells it (every value redacted and clipped)."""

    tool: str
    input: Any
    reason: str
    asked_by: str
    approve: str | None
    deny: str | None


@dataclass(slots=True)
class Notifier:
    """Tells ``targets`` of each pause it has not told yet (``newly``)."""

    targets: tuple[Target, ...]
    redactor: Redactor = field(default_factory=Redactor)
    #: The inbox's address (links go there), and the key links are signed with.
    inbox: str | None = None
    key: bytes | None = None
    client: httpx.AsyncClient | None = None
    #: Seconds of the first wait between tries (then doubling): short in the tests.
    backoff: float = 1.0
    say: Callable[[str], None] = lambda text: print(text, file=sys.stderr)
    #: Where each telling is recorded, and read back from when the inbox starts again.
    audit: AuditWriter | None = None
    _told: set[tuple[str, float]] = field(default_factory=set)
    _recalled: bool = False

    async def newly(self, found: Iterable[Pending]) -> int:
        """Tell of each pause in ``found`` not told before; how many notifications went out."""
        found = [pause for pause in found if pause.calls]
        self._recall(found)
        sent = 0
        for pause in found:
            key = _key(pause)
            if key in self._told:
                continue
            self._told.add(key)
            calls = self.told(pause)
            delivered = 0
            for target in self.targets:
                delivered += await self._send(target, body(target.format, calls, pause, self.inbox))
            self._record(pause, delivered)
            sent += delivered
        return sent

    def _recall(self, found: list[Pending]) -> None:
        """Once, before the first telling: the pauses among ``found`` told before, by the
        audit's ``inbox_notify`` records (a telling nobody received is not one)."""
        if self._recalled or self.audit is None or not found:
            return
        self._recalled = True
        self.audit.flush(copy=True)  # what this process told is in the store too
        store = self.audit.store_of()
        if store is None:
            return
        since = min(pause.paused_at for pause in found)
        for row in store.audit_rows(decision=NOTIFIED, since=since):
            data = row.data or {}
            if row.kind == NOTIFY_KIND and isinstance(data.get("paused_at"), (int, float)):
                self._told.add((str(data.get("ask") or row.session_id), float(data["paused_at"])))

    def _record(self, pause: Pending, delivered: int) -> None:
        """The ``inbox_notify`` record of one telling."""
        if self.audit is None:
            return
        data = {
            "ask": pause.live.id if pause.live else None,
            "paused_at": pause.paused_at,
            "calls": [waiting.request.tool_use_id for waiting in pause.calls],
            "formats": [target.format for target in self.targets],
            "delivered": delivered,
        }
        said = NOTIFIED if delivered else "not_delivered"
        entry = AuditEntry(kind=NOTIFY_KIND, session_id=pause.session_id, decision=said, data=data)
        self.audit.add(entry)
        # in the store at once: a process that tells next (a worker taking over) reads it there
        self.audit.flush(copy=True)

    def told(self, pause: Pending) -> list[Told]:
        return [self._call(pause, waiting) for waiting in pause.calls]

    def _call(self, pause: Pending, waiting: Waiting) -> Told:
        request, redact = waiting.request, self.redactor.redact
        links = {action: self._link(pause, request.tool_use_id, action) for action in _ACTIONS}
        return Told(
            redact(request.tool_name),
            clip(redact(request.tool_input), PREVIEW),
            redact(request.reason or ""),
            redact(request.source or ""),
            links["approve"],
            links["deny"],
        )

    def _link(self, pause: Pending, call: str, action: str) -> str | None:
        if self.inbox is None or self.key is None:
            return None
        expires = min(time.time() + LINK_LIFE, pause.answer_by or math.inf)
        if pause.live is not None:  # no use after the host stopped waiting
            made = Link(pause.live.id, call, action, pause.live.deadline, pause.paused_at, "ask")
        else:
            made = Link(pause.session_id, call, action, expires, pause.paused_at)
        token = make(self.key, made)
        return f"{self.inbox.rstrip('/')}/link?t={token}"

    async def _send(self, target: Target, payload: dict[str, Any]) -> int:
        client = self.client or httpx.AsyncClient(timeout=10.0)
        try:
            async for attempt in AsyncRetrying(
                stop=stop_after_attempt(_ATTEMPTS),
                wait=wait_exponential(multiplier=self.backoff, max=30 * self.backoff),
                retry=retry_if_exception(_worth_again),
            ):
                with attempt:
                    answer = await client.post(target.url, json=payload)
                    answer.raise_for_status()
        except (RetryError, httpx.HTTPError) as exc:
            self.say(f"hookline inbox: the {target.format} notification was not delivered: {exc}")
            return 0
        finally:
            if self.client is None:
                await client.aclose()
        return 1


def _key(pause: Pending) -> tuple[str, float]:
    """What a pause is told by once: the live ask's id or the session's, and when it paused."""
    return (pause.live.id if pause.live else pause.session_id, pause.paused_at)


def _worth_again(exc: BaseException) -> bool:
    """A send that may work later: no answer, or the server's trouble (5xx, 429)."""
    if isinstance(exc, httpx.HTTPStatusError):
        code = exc.response.status_code
        return code == 429 or code >= 500
    return isinstance(exc, httpx.TransportError)


def body(format: str, calls: list[Told], pause: Pending, inbox: str | None) -> dict[str, Any]:
    """The webhook body of one pause in ``format``."""
    return _BODIES[format](calls, pause, inbox)


def _headline(calls: list[Told], pause: Pending) -> str:
    tools = ", ".join(dict.fromkeys(call.tool for call in calls))
    waiting = f"{len(calls)} call(s) wait for approval ({tools})"
    by = f", answer by {when(pause.answer_by)}" if pause.answer_by is not None else ""
    return shown(f"hookline: {waiting}, session {pause.session_id[:8]}{by}")


def _line(call: Told) -> str:
    """One call as a chat reads it, with what could deceive a reader written out (``shown``:
    bidi overrides, zero-width and control characters), as the prompt and the inbox show it."""
    said = f"{call.tool} {_compact(call.input)} — {call.reason or 'no reason given'}"
    return shown(f"{said} ({call.asked_by})")


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _slack_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _slack(calls: list[Told], pause: Pending, inbox: str | None) -> dict[str, Any]:
    headline = _slack_escape(_headline(calls, pause))
    blocks: list[dict[str, Any]] = [
        {"type": "section", "text": {"type": "mrkdwn", "text": headline}}
    ]
    for call in calls:
        blocks.append({"type": "section", "text": {"type": "plain_text", "text": _line(call)}})
        buttons = [
            {"type": "button", "text": {"type": "plain_text", "text": label}, "url": url}
            for label, url in (("Approve…", call.approve), ("Deny…", call.deny))
            if url
        ]
        if buttons:
            blocks.append({"type": "actions", "elements": buttons})
    return {"text": headline, "blocks": blocks}


def _teams(calls: list[Told], pause: Pending, inbox: str | None) -> dict[str, Any]:
    texts = [_text_run(_headline(calls, pause), weight="Bolder")]
    actions = []
    for call in calls:
        texts.append(_text_run(_line(call)))
        actions += [
            {"type": "Action.OpenUrl", "title": f"{label} {call.tool}", "url": url}
            for label, url in (("Approve…", call.approve), ("Deny…", call.deny))
            if url
        ]
    card = {"type": "AdaptiveCard", "version": "1.4", "body": texts, "actions": actions,
            "$schema": "http://adaptivecards.io/schemas/adaptive-card.json"}  # fmt: skip
    attachment = {"contentType": "application/vnd.microsoft.card.adaptive", "content": card}
    return {"type": "message", "attachments": [attachment]}


def _text_run(text: str, **style: str) -> dict[str, Any]:
    """A Teams card's paragraph of ``text`` as it is: a text run renders no markdown."""
    run = {"type": "TextRun", "text": text, **style}
    return {"type": "RichTextBlock", "inlines": [run]}


def _discord(calls: list[Told], pause: Pending, inbox: str | None) -> dict[str, Any]:
    lines = [_discord_escape(_line(call)) for call in calls]
    links = [f"[{label}]({url})" for call in calls
             for label, url in (("approve", call.approve), ("deny", call.deny)) if url]  # fmt: skip
    headline = _discord_escape(_headline(calls, pause))
    embed = {"title": headline[:256], "description": "\n".join(lines + links)[:4000]}
    if inbox:
        embed["url"] = inbox
    return {"content": headline[:2000], "embeds": [embed], "allowed_mentions": {"parse": []}}


def _discord_escape(text: str) -> str:
    """``text`` with each character Discord's markdown acts on escaped."""
    return _DISCORD_MARKS.sub(r"\\\1", text)


def _json(calls: list[Told], pause: Pending, inbox: str | None) -> dict[str, Any]:
    return {
        "event": "approval.waiting",
        "session_id": pause.session_id,
        "paused_at": pause.paused_at,
        "answer_by": pause.answer_by,
        "inbox": inbox,
        "calls": [
            {
                "tool": c.tool,
                "input": c.input,
                "reason": c.reason,
                "asked_by": c.asked_by,
                "approve_url": c.approve,
                "deny_url": c.deny,
            }
            for c in calls
        ],
    }


_BODIES: Final[Mapping[str, Callable[[list[Told], Pending, str | None], dict[str, Any]]]] = {
    "slack": _slack,
    "teams": _teams,
    "discord": _discord,
    "json": _json,
}
