"""Signed one-time links: one call of one pause, one answer, until a time.

    /link?t=TOKEN     TOKEN = base64url(JSON {s, c, a, e, p}) "." HMAC-SHA256 (hex)

``s`` the session, ``c`` the call, ``a`` the answer (approve or deny), ``e`` when it expires,
``p`` when the session paused (the record's ``updated_at``). A link to a live ask (a host's
call waiting on its hook, ``hookline._inbox.live``) has ``k`` ``ask``, ``s`` the ask's id and
``p`` when it was made. The key is derived from the per-user
key that seals paused sessions and keys the audit chain (``~/.hookline/keys/state.key``, or
``$HOOKLINE_STATE_KEY_FILE``), so links outlive a restart and machines that share the key
check each other's. Opening a link (GET) only shows the call and a button; the POST answers it.
Single use is the store's: the answer claims the session (first answer wins) and moves it out
of that pause, and a link names the pause, so once anything answered it, the link no longer
matches what waits, even if the session pauses again on the same call.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from dataclasses import dataclass
from typing import Final

from hookline._agent.saved.seal import load_key

_DERIVE: Final = b"hookline inbox links\0"
#: What a link may answer (an edit needs the page).
LINK_ACTIONS: Final = ("approve", "deny")


@dataclass(frozen=True, slots=True)
class Link:
    """What a valid link says."""

    session_id: str
    call_id: str
    action: str
    expires: float
    paused_at: float
    #: ``session`` (a paused session's call) or ``ask`` (a live ask).
    kind: str = "session"


class BadLink(Exception):
    """A link that is forged, expired or malformed; the message says which, for people."""


def link_key() -> bytes:
    """The links' key, derived from the per-user key (made 0600 on first use)."""
    user_key = load_key(create=True) or b""  # made when missing: never empty
    return hmac.new(user_key, _DERIVE, hashlib.sha256).digest()


def make(key: bytes, link: Link) -> str:
    """The token of ``link``."""
    body = {
        "s": link.session_id,
        "c": link.call_id,
        "a": link.action,
        "e": link.expires,
        "p": link.paused_at,
    }
    if link.kind != "session":
        body["k"] = link.kind
    text = base64.urlsafe_b64encode(json.dumps(body).encode()).decode().rstrip("=")
    return f"{text}.{_mac(key, text)}"


def read(key: bytes, token: str, *, now: float | None = None) -> Link:
    """The link ``token`` carries; BadLink when it is forged, malformed or expired."""
    text, _, mac = token.partition(".")
    if not mac or not hmac.compare_digest(mac, _mac(key, text)):
        raise BadLink("this link is not one hookline signed (or it was changed)")
    try:
        data = json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
        link = Link(
            str(data["s"]),
            str(data["c"]),
            str(data["a"]),
            float(data["e"]),
            float(data["p"]),
            str(data.get("k", "session")),
        )
    except (ValueError, KeyError, TypeError):
        raise BadLink("this link is damaged") from None
    if link.kind not in ("session", "ask"):
        raise BadLink("this link is damaged")
    if link.action not in LINK_ACTIONS:
        raise BadLink("this link names no answer a link can give")
    if link.expires <= (now or time.time()):
        raise BadLink("this link has expired")
    return link


def _mac(key: bytes, text: str) -> str:
    return hmac.new(key, text.encode(), hashlib.sha256).hexdigest()
