"""Per-agent tokens of ``hookline serve``: who is asking, stored hashed, listed, revocable.

    hookline serve token add NAME [--tenant T] [--user U]   the secret printed once
    hookline serve token list                               names, never secrets
    hookline serve token revoke NAME                        refused from the next request

A token is ``hl_`` and 43 random URL-safe characters (``secrets.token_urlsafe(32)``). The
server's state folder keeps only its SHA-256 (a secret this random needs no slow hash), with
the name, tenant and user it stands for, when it was made and when revoked, in ``tokens.json``
(0600, replaced whole). The server reads the file again whenever it changes (``TokenFile``), so
a token added or revoked counts from the next request, without a restart. A revoked entry
stays listed: its name on the old records still says who it was, and a name is made again
only once its token is revoked.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
import time
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any, Final

from hookline._errors import ConfigError
from hookline._support.private import replace_private

if TYPE_CHECKING:
    from pathlib import Path

TOKENS_FILE: Final = "tokens.json"
#: The version of the file's layout; a file of another is refused, not guessed at.
VERSION: Final = 1
PREFIX: Final = "hl_"
_NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}")
_ADD_HINT: Final = "hookline serve token add NAME"


@dataclass(frozen=True, slots=True)
class Token:
    """One token as stored: who it stands for, never the token itself."""

    name: str
    sha256: str
    tenant: str | None = None
    user: str | None = None
    created: float = 0.0
    revoked: float | None = None

    @property
    def active(self) -> bool:
        return self.revoked is None


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def tokens_path(state_dir: Path) -> Path:
    return state_dir / TOKENS_FILE


def read(path: Path) -> list[Token]:
    """The tokens in ``path`` (none when it is missing); a ConfigError when it is not a
    tokens file hookline can read."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as exc:
        raise _unreadable(path, str(exc)) from None
    if not isinstance(data, dict) or data.get("version") != VERSION:
        raise _unreadable(path, f"not a tokens file of version {VERSION}")
    try:
        return [Token(**entry) for entry in data["tokens"]]
    except (KeyError, TypeError) as exc:
        raise _unreadable(path, f"an entry is not a token ({exc})") from None


def _unreadable(path: Path, why: str) -> ConfigError:
    return ConfigError(
        f"cannot read the tokens: {why}",
        file=str(path),
        fix="restore it, or move it away and add the tokens again",
    )


def _write(path: Path, tokens: list[Token]) -> None:
    body = {"version": VERSION, "tokens": [asdict(token) for token in tokens]}
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_private(path, (json.dumps(body, indent=2) + "\n").encode())


def add(path: Path, name: str, *, tenant: str | None = None, user: str | None = None) -> str:
    """A new token for ``name``, stored hashed; the secret, which is nowhere else."""
    if _NAME.fullmatch(name) is None:
        raise ConfigError(
            f"{name!r} is not a token name",
            key="NAME",
            fix="use letters, digits and . _ @ - (at most 64), starting with a letter or digit",
        )
    tokens = read(path)
    if any(token.name == name and token.active for token in tokens):
        raise ConfigError(
            f"a token named {name} exists",
            key="NAME",
            fix=f"revoke it first (hookline serve token revoke {name}), or choose another name",
        )
    secret = PREFIX + secrets.token_urlsafe(32)
    made = Token(name, digest(secret), tenant, user, created=time.time())
    _write(path, [token for token in tokens if token.name != name] + [made])
    return secret


def revoke(path: Path, name: str) -> Token:
    """Revoke the token named ``name``: refused from the next request on. The token."""
    tokens = read(path)
    found = next((token for token in tokens if token.name == name), None)
    if found is None:
        raise ConfigError(f"no token is named {name}", key="NAME", fix="hookline serve token list")
    if not found.active:
        return found
    gone = replace(found, revoked=time.time())
    _write(path, [gone if token is found else token for token in tokens])
    return gone


def find(tokens: list[Token], secret: str) -> Token | None:
    """The token whose hash is ``secret``'s (revoked or not), each compared in constant time."""
    wanted = digest(secret)
    found = None
    for token in tokens:
        if hmac.compare_digest(token.sha256, wanted):
            found = token
    return found


class TokenFile:
    """The tokens of a server's state folder, read again whenever the file changes (a
    ``stat`` per request). A file that cannot be read is ``broken``: the gate then refuses
    every request, rather than let one through it cannot check."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._seen: Any = None
        self._tokens: list[Token] = []
        self.broken: str | None = None

    def tokens(self) -> list[Token]:
        try:
            info = os.stat(self.path)
            seen: Any = (info.st_ino, info.st_mtime_ns, info.st_size)
        except FileNotFoundError:
            seen = None
        except OSError as exc:
            self.broken = str(exc)
            return []
        if seen != self._seen or self.broken is not None:
            self._load(seen)
        return self._tokens

    def _load(self, seen: object) -> None:
        try:
            self._tokens, self.broken = read(self.path), None
        except ConfigError as exc:
            self._tokens, self.broken = [], exc.message
        self._seen = seen


def no_active_token(path: Path) -> ConfigError:
    """Why a server listening beyond loopback does not start without a token."""
    return ConfigError(
        f"a server other machines can reach needs a token, and {path} has none active",
        key="--host",
        fix=f"{_ADD_HINT} --state-dir {path.parent} (then install the hooks with --token-env)",
    )
