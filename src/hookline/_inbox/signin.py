"""Who is signed in: a signed cookie, and the CSRF token every form posts back.

Each browser gets a cookie (``hookline_inbox``: HttpOnly, SameSite=Strict, Secure over TLS)
holding a random ``nonce``, the signed-in user (none before sign-in) and an expiry, signed
with HMAC-SHA256 under a key made when the server starts (a restart signs everyone out). Every
form carries ``csrf``, an HMAC of the nonce: a POST without the token of its own cookie is
refused, before sign-in too, and signing in issues a new nonce (no session fixation).
``Tries`` refuses a name for a while after wrong passwords in a row.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import time
from dataclasses import dataclass, field
from typing import Final

COOKIE: Final = "hookline_inbox"
#: Wrong passwords in a row after which a name is refused for ``LOCKED`` seconds.
TRIES: Final = 5
LOCKED: Final = 300.0
#: How long a sign-in lasts.
LIFETIME: Final = 12 * 3600


@dataclass(frozen=True, slots=True)
class Visit:
    """What a valid cookie says: its nonce, the user signed in (None: nobody), until when."""

    nonce: str
    user: str | None
    expires: float


class Signer:
    """Makes and reads the cookie, and the CSRF token bound to it."""

    def __init__(self, key: bytes | None = None) -> None:
        self._key = key or secrets.token_bytes(32)

    def issue(self, user: str | None, *, now: float | None = None) -> tuple[Visit, str]:
        """A fresh visit for ``user`` and its cookie value."""
        visit = Visit(secrets.token_urlsafe(18), user, (now or time.time()) + LIFETIME)
        body = json.dumps({"n": visit.nonce, "u": visit.user, "e": visit.expires}).encode()
        text = base64.urlsafe_b64encode(body).decode().rstrip("=")
        return visit, f"{text}.{self._mac('cookie', text)}"

    def read(self, value: str | None, *, now: float | None = None) -> Visit | None:
        """The visit a cookie value holds; None when absent, forged or expired."""
        if not value or value.count(".") != 1:
            return None
        text, mac = value.split(".")
        if not hmac.compare_digest(mac, self._mac("cookie", text)):
            return None
        try:
            data = json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
            visit = Visit(str(data["n"]), data["u"], float(data["e"]))
        except (ValueError, KeyError, TypeError):
            return None
        return visit if visit.expires > (now or time.time()) else None

    def csrf(self, visit: Visit) -> str:
        """The token forms of ``visit`` carry."""
        return self._mac("csrf", visit.nonce)

    def csrf_ok(self, visit: Visit | None, token: object) -> bool:
        return (
            visit is not None
            and isinstance(token, str)
            and hmac.compare_digest(token, self.csrf(visit))
        )

    def _mac(self, purpose: str, text: str) -> str:
        return hmac.new(self._key, f"{purpose}\0{text}".encode(), hashlib.sha256).hexdigest()


@dataclass
class Tries:
    """Wrong passwords per name, in this process: after ``TRIES`` in a row, the name is
    refused (right password or not) for ``LOCKED`` seconds, so a password is not guessed here
    at the speed of scrypt."""

    wrong: dict[str, tuple[int, float]] = field(default_factory=dict)

    def locked(self, name: str, *, now: float | None = None) -> bool:
        count, since = self.wrong.get(name, (0, 0.0))
        return count >= TRIES and (now or time.time()) - since < LOCKED

    def failed(self, name: str, *, now: float | None = None) -> None:
        count, _ = self.wrong.get(name, (0, 0.0))
        self.wrong[name] = (count + 1, now or time.time())

    def passed(self, name: str) -> None:
        self.wrong.pop(name, None)
