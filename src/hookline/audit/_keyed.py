"""The audit chain's formats, and the key that makes the later ones unforgeable.

A record's ``hash`` says its format, which says how it was hashed and how its canonical bytes
were encoded (``hookline.audit._chain``):

- format 1, plain: 64 hex digits, ``sha256(prev_hash + canonical(record))``, the record encoded
  by the standard library's JSON encoder. Logs written before keyed chains hold these; they
  still verify, and ``audit verify`` says they are plain (anyone who can write the log could
  have rewritten them and hashed again);
- format 2, keyed: ``hmac:`` and 64 hex digits, ``HMAC-SHA256(chain key, prev_hash +
  canonical(record))``, encoded as format 1;
- format 3, keyed and compact: ``v3:`` and 64 hex digits, ``HMAC-SHA256(chain key, "v3:" +
  prev_hash + canonical(record))`` (the format under the MAC too), the record encoded by
  orjson: sorted keys, the same JSON but for how a few floats are spelled (``1e-7``, and a
  NaN or infinity as ``null``), several times faster. Every record hookline writes now is
  format 3, except one orjson cannot encode (an integer beyond 64 bits, a lone surrogate, a
  key that is not a string), which is written in format 2.

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

#: What starts a keyed hash: format 2's, and format 3's (compact).
KEYED = "hmac:"
COMPACT = "v3:"
#: The width of the widest hash: a note or a kept head pads the others to it.
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


class KeyedMac:
    """HMAC-SHA256 under one key, the key's part worked out once: for a writer that signs
    every record it writes (``hmac.digest`` works it out again for each). The same MACs."""

    __slots__ = ("_base",)

    def __init__(self, key: bytes) -> None:
        self._base = hmac.new(key, digestmod=hashlib.sha256)

    def digest(self, data: bytes) -> bytes:
        each = self._base.copy()
        each.update(data)
        return each.digest()


def _digest(key: bytes | KeyedMac, data: bytes) -> bytes:
    if isinstance(key, KeyedMac):
        return key.digest(data)
    return hmac.digest(key, data, "sha256")


def hashed(
    prev_hash: str | None, body: bytes, key: bytes | KeyedMac | None = None, form: str = KEYED
) -> str:
    """The hash of a canonical record ``body`` after ``prev_hash``: keyed when ``key`` is
    given, its format's prefix ``form`` first (``KEYED`` or ``COMPACT``, the format ``body``
    was encoded in), plain sha256 otherwise (format 1)."""
    data = (prev_hash or "").encode() + body
    if key is None:
        return hashlib.sha256(data).hexdigest()
    if form == COMPACT:  # the format is under the MAC too: no record changes format unseen
        data = COMPACT.encode() + data
    return form + _digest(key, data).hex()


def form_of(hash: str | None) -> str:
    """The prefix of the format ``hash`` is in: ``COMPACT``, ``KEYED``, or ``""`` (plain)."""
    if hash is None:
        return ""
    if hash.startswith(COMPACT):
        return COMPACT
    return KEYED if hash.startswith(KEYED) else ""


def is_keyed(hash: str | None) -> bool:
    return form_of(hash) != ""


def mac(key: bytes | KeyedMac, *parts: object) -> str:
    """HMAC-SHA256 (hex) of ``parts``, each as text, NUL between them (a note, a kept head)."""
    text = "\0".join(str(part) for part in parts).encode("utf-8", "surrogatepass")
    return _digest(key, text).hex()


def same(a: str, b: str) -> bool:
    """Whether two MACs or hashes are equal, in constant time."""
    return hmac.compare_digest(a.encode(), b.encode())


class Unkeyed(Exception):
    """A keyed record, and no key here to check it with."""


def intact(hash: str, prev_hash: str | None, body: bytes, key: bytes | None) -> str | None:
    """Why a record's ``hash`` does not hold for its content and place (None: it holds);
    ``Unkeyed`` when it is keyed and ``key`` is None."""
    form = form_of(hash)
    if form:
        if key is None:
            raise Unkeyed
        if same(hash, hashed(prev_hash, body, key, form)):
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
