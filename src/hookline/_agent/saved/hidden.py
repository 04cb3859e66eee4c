"""A saved session's conversation, encrypted under the per-user key before it reaches the store.

    state = hidden(dump_state(...))     # on every save: "messages" and "turn" become "conversation"
    state = revealed(record.state)      # on every read: back as they were

The transcript (``<state>/transcripts/ID.jsonl``, private, out of reach of the tools) is the one
place the raw conversation lives. The store keeps a session's state (for a resume, a checkpoint,
and after the run, its record), and the state holds the conversation and the turn in progress:
prompts, tool inputs and outputs, the model's text, whatever secrets they carry. A store is
often shared (a PostgreSQL server, a backup, a teammate with the database), so in it they are
ciphertext: ``conversation`` holds ``{"alg": "aes-256-gcm", "key", "nonce", "data"}``, the
canonical JSON of ``{"messages", "turn"}`` sealed with AES-256-GCM (the ``cryptography``
package) and bound to the session's id (associated data), so a conversation moved to another
session's row does not decrypt.

Keys and nonces. The cipher's key is derived from the per-user key that seals paused sessions
(``hookline._agent.saved.seal``) by HMAC-SHA256 with a label of its own, as the audit chain's key is
with another label: the three never share a key. Each save draws a fresh random 96-bit nonce;
that stays safe for 2**32 saves under one key, far more than a user makes. Nothing is
compressed first: a compressed length would say how much of a secret matches text a tool
brought in (a web page, a file) when both are in one conversation.

A state saved before this (``messages`` and ``turn`` in clear, or the first format,
``shake256-xor+hmac-sha256``) is read as it is, never written again. Resuming on another machine
needs the same key file there, as the seal does.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import zlib
from typing import TYPE_CHECKING, Any

from hookline._agent.saved.seal import key_id, key_path, load_key
from hookline._errors import ConfigError

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

ALGORITHM = "aes-256-gcm"
#: The first format, read and never written: a SHAKE-256 keystream and an HMAC-SHA256.
FIRST_ALGORITHM = "shake256-xor+hmac-sha256"
#: The parts of a state that carry the conversation.
PARTS = ("messages", "turn")
FIELD = "conversation"
#: cryptography is one of hookline's dependencies: only a broken install lacks it.
INSTALL_HINT = "pip install 'cryptography>=42'"
_LABEL = b"hookline conversation aes-256-gcm\0"
_NONCE_BYTES = 12


def hidden(state: dict[str, Any]) -> dict[str, Any]:
    """``state`` with its conversation (``PARTS``) replaced by their ciphertext."""
    key = load_key(create=True)
    assert key is not None  # made when missing
    text = json.dumps({part: state[part] for part in PARTS}, separators=(",", ":"))
    nonce = secrets.token_bytes(_NONCE_BYTES)
    sealed = _cipher(key).encrypt(nonce, text.encode("ascii"), _bound(state))  # ensure_ascii
    kept = {name: value for name, value in state.items() if name not in PARTS}
    kept[FIELD] = {
        "alg": ALGORITHM,
        "key": key_id(key),
        "nonce": nonce.hex(),
        "data": base64.b64encode(sealed).decode("ascii"),
    }
    return kept


def revealed(state: Any, *, where: str = "the saved session") -> Any:
    """``state`` with its conversation decrypted (``state`` itself when it holds none); a
    ConfigError naming ``where`` when it cannot be."""
    if not isinstance(state, dict) or not isinstance(box := state.get(FIELD), dict):
        return state
    alg = box.get("alg")
    if alg not in (ALGORITHM, FIRST_ALGORITHM):
        raise _cannot(
            where,
            f"its conversation is sealed with {alg!r}, which this hookline does "
            "not know (saved by a newer one?)",
        )
    key = load_key(create=False)
    if key is None or box.get("key") != key_id(key):
        raise _cannot(where, f"its conversation was made with another key than {key_path()}")
    try:
        nonce, data = bytes.fromhex(box["nonce"]), base64.b64decode(box["data"], validate=True)
        if alg == ALGORITHM:
            text = _opened(key, nonce, data, _bound(state))
        else:
            text = _first_opened(key, nonce, data, str(box.get("mac")))
        parts = json.loads(text) if text is not None else None
    except (KeyError, TypeError, ValueError, zlib.error) as exc:
        raise _cannot(where, f"its conversation cannot be read ({exc})") from None
    if text is None:
        raise _cannot(
            where, "its conversation was edited outside hookline, or moved from another session"
        )
    if not isinstance(parts, dict) or set(parts) != set(PARTS):
        raise _cannot(where, "its conversation is not one hookline saved")
    return {**{k: v for k, v in state.items() if k != FIELD}, **parts}


def _cipher(key: bytes) -> AESGCM:
    """AES-256-GCM under the conversation's key, derived from the per-user ``key``."""
    try:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    except ImportError:
        raise ConfigError(
            "saved sessions are encrypted with the cryptography package, which is not installed",
            key="store",
            fix=INSTALL_HINT,
        ) from None
    return AESGCM(hmac.new(key, _LABEL, hashlib.sha256).digest())


def _bound(state: dict[str, Any]) -> bytes:
    """The associated data: the session the conversation belongs to."""
    session = state.get("session")
    found = session.get("id") if isinstance(session, dict) else None
    return f"hookline session {found}".encode("utf-8", "surrogatepass")


def _opened(key: bytes, nonce: bytes, data: bytes, bound: bytes) -> bytes | None:
    """The plaintext; None when the tag does not hold (edited, or another session's)."""
    from cryptography.exceptions import InvalidTag

    try:
        return _cipher(key).decrypt(nonce, data, bound)
    except InvalidTag:
        return None


def _first_opened(key: bytes, nonce: bytes, data: bytes, mac: str) -> bytes | None:
    """The first format's plaintext (XOR with a SHAKE-256 keystream, then an HMAC-SHA256 of
    nonce and ciphertext, the text zlib-compressed first); None when the MAC does not hold."""
    mac_key = hmac.new(key, b"hookline state mac\0", hashlib.sha256).digest()
    if not hmac.compare_digest(mac, hmac.new(mac_key, nonce + data, hashlib.sha256).hexdigest()):
        return None
    stream_key = hmac.new(key, b"hookline state encryption\0", hashlib.sha256).digest()
    stream = hashlib.shake_256(stream_key + nonce).digest(len(data))
    plain = (int.from_bytes(data, "big") ^ int.from_bytes(stream, "big")).to_bytes(len(data), "big")
    return zlib.decompress(plain)


def _cannot(where: str, why: str) -> ConfigError:
    return ConfigError(
        f"{where} cannot be read: {why}",
        file=str(key_path()),
        fix="resume it where it was saved, or point HOOKLINE_STATE_KEY_FILE at that key",
    )
