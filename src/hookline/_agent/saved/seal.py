"""A keyed hash of a paused session's state, so a resume notices a state edited outside hookline.

    state["seal"] = seal(state, record)        # on every save
    changed(record)                            # on resume: [] when intact, else what differs

The state sits in the store, which anyone who can write the database can change: a permission
mode set to ``bypassPermissions``, a workspace root widened to ``/``, a hook file swapped in
the launch. The seal is an HMAC-SHA256, under a per-user key kept outside every workspace, of
the state's canonical JSON and of the row's id, status, user and tenant. Besides the whole, each
part is sealed on its own (each field of the session and of the launch; the conversation; the
turn; ...), so a mismatch names what was edited.

The key: ``$HOOKLINE_STATE_KEY_FILE``, else ``~/.hookline/keys/state.key``; 32 random bytes
(hex), created 0600 in a 0700 folder on the first save. What it protects against: edits by
whoever can write the store (a shared database, a backup restored, a teammate's script, a
model's file tools, which stay inside the workspace and keep out of ``.hookline/``) but cannot
read the key. What it does not: anyone who can read the key, such as a process of the same
user, a model running Bash without the sandbox included, can seal whatever it likes; a copy of
an earlier, sealed row of the same session put back (a replay) is not detected. Several
machines resuming each other's sessions must share one key.

Canonical JSON: sorted keys, compact, and every integral float written as the integer it is,
so the numbers PostgreSQL's JSONB gives back (``1e16`` comes back as ``10000000000000000``)
hash as they were saved.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from collections.abc import Mapping
from contextlib import suppress
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hookline._errors import ConfigError
from hookline._support.jsontext import canonical
from hookline._support.private import FOLDER, open_private

if TYPE_CHECKING:
    from hookline._agent.saved.store import SessionRecord

#: Where the key is, when ``$HOOKLINE_STATE_KEY_FILE`` does not say.
KEY_ENV = "HOOKLINE_STATE_KEY_FILE"
ALGORITHM = "hmac-sha256"
_KEY_BYTES = 32
#: The parts of a state sealed field by field, so a mismatch can name the field.
_BY_FIELD = ("session", "launch")


def key_path() -> Path:
    """The key's file: ``$HOOKLINE_STATE_KEY_FILE``, else ``~/.hookline/keys/state.key``."""
    given = os.environ.get(KEY_ENV)
    return Path(given) if given else Path.home() / FOLDER / "keys" / "state.key"


def load_key(*, create: bool) -> bytes | None:
    """The key; made (0600) when missing and ``create``, else None when missing."""
    path = key_path()
    found = _read(path)
    if found is None and create:
        return _create(path)
    return found


def seal(state: Mapping[str, Any], record: SessionRecord) -> dict[str, Any]:
    """The seal of ``state`` (without any seal it holds) saved as ``record``'s state."""
    path = key_path()
    key = _read(path) or _create(path)
    parts = _part_macs(key, state, record)
    return {"alg": ALGORITHM, "key": key_id(key), "mac": _mac(key, parts), "parts": parts}


class Unverifiable(ValueError):
    """The state cannot be checked: it has no seal, or no key here can check it."""


def changed(record: SessionRecord) -> list[str]:
    """The parts of ``record`` that differ from what hookline sealed ([]: it is intact);
    Unverifiable when there is no seal, or the key here is not the one that made it."""
    found = record.state.get("seal")
    if found is None:
        raise Unverifiable("it has no keyed hash")
    if not isinstance(found, dict) or not isinstance(found.get("parts"), dict):
        return ["seal"]
    key = load_key(create=False)
    if key is None:
        raise Unverifiable(f"there is no key at {key_path()} to check its keyed hash with")
    if found.get("key") != key_id(key):
        raise Unverifiable(f"its keyed hash was made with another key than {key_path()}")
    parts = _part_macs(key, record.state, record)
    if hmac.compare_digest(str(found.get("mac")), _mac(key, parts)):
        return []
    saved: dict[str, Any] = found["parts"]
    names = sorted(set(saved) | set(parts))
    edited = [n for n in names if not hmac.compare_digest(str(saved.get(n)), parts.get(n, ""))]
    return edited or ["seal"]


def key_id(key: bytes) -> str:
    """A short name for a key, saved with a seal: tells "another key" from "edited"."""
    return hashlib.sha256(b"hookline state key\0" + key).hexdigest()[:16]


def _part_macs(key: bytes, state: Mapping[str, Any], record: SessionRecord) -> dict[str, str]:
    named: dict[str, Any] = {
        "row.id": record.id,
        "row.status": record.status,
        "row.user": record.user,
        "row.tenant": record.tenant,
    }
    for name, value in state.items():
        if name == "seal":
            continue
        if name in _BY_FIELD and isinstance(value, dict):
            named.update({f"{name}.{field}": v for field, v in value.items()})
            named[name] = sorted(value)  # which fields there are
        else:
            named[name] = value
    return {name: _mac(key, [name, value]) for name, value in named.items()}


def _mac(key: bytes, value: Any) -> str:
    text = canonical(_settled(value)).encode("utf-8", "surrogatepass")
    return hmac.new(key, text, hashlib.sha256).hexdigest()


def _settled(value: Any) -> Any:
    """``value`` with every integral float as the integer its JSON text denotes. The exact
    types come first: a state is mostly strings, and a run's state is walked at every save."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is dict:
        return {k: _settled(v) for k, v in value.items()}
    if kind is list:
        return [_settled(v) for v in value]
    if isinstance(value, float):
        return int(Decimal(repr(value))) if value.is_integer() else value
    if isinstance(value, dict):
        return {k: _settled(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_settled(v) for v in value]
    return value


def _read(path: Path) -> bytes | None:
    try:
        text = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise _bad_key(path, str(exc)) from None
    try:
        key = bytes.fromhex(text)
    except ValueError:
        raise _bad_key(path, "it is not hex") from None
    if len(key) < 16:
        raise _bad_key(path, f"{len(key)} bytes is too short")
    return key


def _create(path: Path) -> bytes:
    """A new random key at ``path``, whole or not at all (written aside, then linked in); when
    another process made one first, theirs."""
    key = secrets.token_bytes(_KEY_BYTES)
    aside = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    try:
        with os.fdopen(open_private(aside, os.O_WRONLY | os.O_EXCL), "w") as file:
            file.write(key.hex() + "\n")
        os.link(aside, path)
    except FileExistsError:
        return _read(path) or key
    except OSError as exc:
        raise _bad_key(path, f"it cannot be created: {exc.strerror}") from None
    finally:
        with suppress(OSError):
            os.unlink(aside)
    return key


def _bad_key(path: Path, why: str) -> ConfigError:
    return ConfigError(
        f"the per-user key (it seals sessions, keys the audit chain) cannot be used: {why}",
        file=str(path),
        fix=f"point {KEY_ENV} at a private file of 64 hex digits, or remove it to make a new one",
    )
