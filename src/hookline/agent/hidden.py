"""A saved session's conversation, encrypted under the per-user key before it reaches the store.

    state = hidden(dump_state(...))     # on every save: "messages" and "turn" become "conversation"
    state = revealed(record.state)      # on every read: back as they were

The transcript (``<state>/transcripts/ID.jsonl``, private, out of reach of the tools) is the one
place the raw conversation lives. The store keeps a session's state (for a resume, a checkpoint,
and after the run, its record), and the state holds the conversation and the turn in progress:
prompts, tool inputs and outputs, the model's text, whatever secrets they carry. A store is
often shared (a PostgreSQL server, a backup, a teammate with the database), so in it they are
ciphertext: ``conversation`` holds the canonical JSON of ``{"messages", "turn"}``, compressed,
XORed with a SHAKE-256 keystream of (encryption key, a fresh 16-byte nonce), and an HMAC-SHA256
of nonce and ciphertext (encrypt-then-MAC). Both keys are derived from the per-user key that
seals paused sessions (``hookline.agent.seal``), which the seal of the whole state also covers.

A state saved before this (``messages`` and ``turn`` in clear) is read as it is. Resuming on
another machine needs the same key file there, as the seal does.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import zlib
from typing import Any

from hookline.agent.seal import key_id, key_path, load_key
from hookline.errors import ConfigError

ALGORITHM = "shake256-xor+hmac-sha256"
#: The parts of a state that carry the conversation.
PARTS = ("messages", "turn")
FIELD = "conversation"


def hidden(state: dict[str, Any]) -> dict[str, Any]:
    """``state`` with its conversation (``PARTS``) replaced by their ciphertext."""
    key = load_key(create=True)
    assert key is not None  # made when missing
    text = json.dumps({part: state[part] for part in PARTS}, separators=(",", ":"))
    plain = zlib.compress(text.encode("ascii"), 1)  # ensure_ascii: lone surrogates survive
    nonce = secrets.token_bytes(16)
    cipher = _xor(plain, _stream(key, nonce, len(plain)))
    kept = {name: value for name, value in state.items() if name not in PARTS}
    kept[FIELD] = {
        "alg": ALGORITHM,
        "key": key_id(key),
        "nonce": nonce.hex(),
        "data": base64.b64encode(cipher).decode("ascii"),
        "mac": _mac(key, nonce, cipher),
    }
    return kept


def revealed(state: Any, *, where: str = "the saved session") -> Any:
    """``state`` with its conversation decrypted (``state`` itself when it holds none); a
    ConfigError naming ``where`` when it cannot be."""
    if not isinstance(state, dict) or not isinstance(box := state.get(FIELD), dict):
        return state
    key = load_key(create=False)
    if key is None or box.get("key") != key_id(key):
        raise _cannot(where, f"its conversation was made with another key than {key_path()}")
    try:
        nonce, cipher = bytes.fromhex(box["nonce"]), base64.b64decode(box["data"], validate=True)
        if not hmac.compare_digest(str(box.get("mac")), _mac(key, nonce, cipher)):
            raise _cannot(where, "its conversation was edited outside hookline")
        text = zlib.decompress(_xor(cipher, _stream(key, nonce, len(cipher))))
        parts = json.loads(text)
    except (KeyError, TypeError, ValueError, zlib.error) as exc:
        raise _cannot(where, f"its conversation cannot be read ({exc})") from None
    if not isinstance(parts, dict) or set(parts) != set(PARTS):
        raise _cannot(where, "its conversation is not one hookline saved")
    return {**{k: v for k, v in state.items() if k != FIELD}, **parts}


def _stream(key: bytes, nonce: bytes, size: int) -> bytes:
    seed = hmac.new(key, b"hookline state encryption\0", hashlib.sha256).digest()
    return hashlib.shake_256(seed + nonce).digest(size)


def _mac(key: bytes, nonce: bytes, cipher: bytes) -> str:
    mac_key = hmac.new(key, b"hookline state mac\0", hashlib.sha256).digest()
    return hmac.new(mac_key, nonce + cipher, hashlib.sha256).hexdigest()


def _xor(data: bytes, stream: bytes) -> bytes:
    size = len(data)
    return (int.from_bytes(data, "big") ^ int.from_bytes(stream, "big")).to_bytes(size, "big")


def _cannot(where: str, why: str) -> ConfigError:
    return ConfigError(
        f"{where} cannot be read: {why}",
        file=str(key_path()),
        fix="resume it where it was saved, or point HOOKLINE_STATE_KEY_FILE at that key",
    )
