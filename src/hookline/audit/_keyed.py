"""The audit chain's two formats, and the key that makes the second one unforgeable.

A record's ``hash`` says its format:

- format 1, plain: 64 hex digits, ``sha256(prev_hash + canonical(record))``. Logs written
  before keyed chains hold these; they still verify, and ``audit verify`` says they are plain
  (anyone who can write the log could have rewritten them and hashed again);
- format 2, keyed: ``hmac:`` and 64 hex digits, ``HMAC-SHA256(chain key, prev_hash +
  canonical(record))``. Every record hookline writes now is keyed.

A plain record never follows a keyed one (``intact``): an append by someone without the key,
hashed the plain way, breaks the chain there. The chain key is derived from the per-user key
that seals paused sessions (``hookline._agent.saved.seal``: ``~/.hookline/keys/state.key``, 0600,
made on first use, outside every project), so one key serves both and machines that share a store
share that one file.
"""

from __future__ import annotations

import hashlib
import hmac

from hookline._agent.saved.seal import key_path, load_key

#: What starts a keyed (format 2) hash.
KEYED = "hmac:"
#: The width of a keyed hash: a note or a kept head pads the plain ones to it.
HASH_WIDTH = len(KEYED) + 64
_DERIVE = b"hookline audit chain\0"


def chain_key(*, create: bool) -> bytes | None:
    """The key of the audit chain (made with the per-user key when ``create``); None when
    there is no per-user key and ``create`` is false."""
    user_key = load_key(create=create)
    if user_key is None:
        return None
    return hmac.new(user_key, _DERIVE, hashlib.sha256).digest()


def where_key() -> str:
    """The per-user key's file, for messages."""
    return str(key_path())


def hashed(prev_hash: str | None, body: bytes, key: bytes | None = None) -> str:
    """The hash of a canonical record ``body`` after ``prev_hash``: keyed when ``key`` is
    given (format 2), plain sha256 otherwise (format 1)."""
    data = (prev_hash or "").encode() + body
    if key is None:
        return hashlib.sha256(data).hexdigest()
    return KEYED + hmac.digest(key, data, "sha256").hex()


def is_keyed(hash: str | None) -> bool:
    return hash is not None and hash.startswith(KEYED)


def mac(key: bytes, *parts: object) -> str:
    """HMAC-SHA256 (hex) of ``parts``, each as text, NUL between them (a note, a kept head)."""
    text = "\0".join(str(part) for part in parts).encode("utf-8", "surrogatepass")
    return hmac.digest(key, text, "sha256").hex()


def same(a: str, b: str) -> bool:
    """Whether two MACs or hashes are equal, in constant time."""
    return hmac.compare_digest(a.encode(), b.encode())


class Unkeyed(Exception):
    """A keyed record, and no key here to check it with."""


def intact(hash: str, prev_hash: str | None, body: bytes, key: bytes | None) -> str | None:
    """Why a record's ``hash`` does not hold for its content and place (None: it holds);
    ``Unkeyed`` when it is keyed and ``key`` is None."""
    if is_keyed(hash):
        if key is None:
            raise Unkeyed
        if same(hash, hashed(prev_hash, body, key)):
            return None
        return (
            f"its keyed hash does not match its content (edited, or written under another key "
            f"than {where_key()})"
        )
    if is_keyed(prev_hash):
        return (
            "a plain-hash record after a keyed one: added or rewritten by someone without the key"
        )
    if same(hash, hashed(prev_hash, body)):
        return None
    return "its hash does not match its content"
