"""The people who may sign in to the inbox: a JSON file of names, roles and hashed passwords.

    {"version": 1, "users": {"ann": {"role": "approver", "password": "scrypt$16384$8$1$...$..."}}}

A password is kept as scrypt (``hashlib.scrypt``: memory-hard, a fresh 16-byte salt per
user), never in clear. ``approver`` may answer a call; ``viewer`` may only look. The file is
written 0600; one that cannot be read is a ConfigError naming it and the fix.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from hookline._errors import ConfigError
from hookline._support.private import replace_private

ROLES: Final = ("approver", "viewer")
#: scrypt's cost: 16 MiB and tens of milliseconds a try, as OWASP's guidance asks.
_N, _R, _P = 2**14, 8, 1
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$")
_FIX = "make it again with: hookline inbox user add NAME --role approver"


@dataclass(frozen=True, slots=True)
class User:
    """One person who may sign in."""

    name: str
    role: str
    password: str  # scrypt$N$r$p$salt$hash, base64

    @property
    def may_answer(self) -> bool:
        return self.role == "approver"


def default_path() -> Path:
    """``$HOOKLINE_INBOX_USERS``, else ``~/.hookline/inbox-users.json``."""
    given = os.environ.get("HOOKLINE_INBOX_USERS")
    return Path(given) if given else Path.home() / ".hookline" / "inbox-users.json"


def hash_password(password: str, *, salt: bytes | None = None) -> str:
    """The stored form of ``password``: scrypt under a fresh salt."""
    salt = os.urandom(16) if salt is None else salt
    digest = hashlib.scrypt(password.encode(), salt=salt, n=_N, r=_R, p=_P, dklen=32)
    return f"scrypt${_N}${_R}${_P}${_b64(salt)}${_b64(digest)}"


def check_password(user: User, password: str) -> bool:
    """Whether ``password`` is ``user``'s, in constant time."""
    try:
        kind, n, r, p, salt, digest = user.password.split("$")
        made = hashlib.scrypt(
            password.encode(), salt=_unb64(salt), n=int(n), r=int(r), p=int(p), dklen=32
        )
    except (ValueError, TypeError):
        return False
    return kind == "scrypt" and hmac.compare_digest(made, _unb64(digest))


def load_users(path: Path) -> dict[str, User]:
    """The users in ``path``; an empty dict when there is no file yet."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError(f"cannot be read ({exc.strerror or exc})", file=str(path)) from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ConfigError(f"not valid JSON ({exc})", file=str(path), fix=_FIX) from None
    entries = data.get("users") if isinstance(data, dict) else None
    if not isinstance(entries, dict):
        raise ConfigError('no "users" object', file=str(path), key="users", fix=_FIX)
    return {name: _user(path, name, entry) for name, entry in entries.items()}


def add_user(path: Path, name: str, role: str, password: str) -> User:
    """Add ``name`` (or replace its role and password) in ``path``, written 0600."""
    if not _NAME.match(name):
        raise ConfigError(
            f"{name!r} is not a user name",
            key="NAME",
            fix="use letters, digits and . _ @ - (at most 64), starting with a letter or digit",
        )
    if not password:
        raise ConfigError("the password is empty", key="password", fix="give a password")
    users = load_users(path)
    users[name] = User(name, role, hash_password(password))
    data = {
        "version": 1,
        "users": {u.name: {"role": u.role, "password": u.password} for u in users.values()},
    }
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    replace_private(path, (json.dumps(data, indent=2) + "\n").encode())
    return users[name]


def _user(path: Path, name: str, entry: object) -> User:
    key = f"users.{name}"
    if not isinstance(entry, dict):
        raise ConfigError("must be an object", file=str(path), key=key, fix=_FIX)
    role, password = entry.get("role"), entry.get("password")
    if role not in ROLES:
        raise ConfigError(
            f"role {role!r} is not one of {', '.join(ROLES)}",
            file=str(path),
            key=f"{key}.role",
            fix=f"set it to {' or '.join(repr(r) for r in ROLES)}",
        )
    if not isinstance(password, str) or not password.startswith("scrypt$"):
        raise ConfigError(
            "password is not a scrypt hash", file=str(path), key=f"{key}.password", fix=_FIX
        )
    return User(name, str(role), password)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _unb64(text: str) -> bytes:
    return base64.b64decode(text.encode(), validate=True)
