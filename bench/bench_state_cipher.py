"""What encrypting a saved session's conversation costs per save and per read, and its size in
the store: AES-256-GCM (``hookline._agent.saved.hidden``) against the first format (zlib, a
SHAKE-256 keystream and an HMAC, rebuilt here as it was written) and against no encryption at all.

Run ``python bench/bench_state_cipher.py`` (``--quick`` for a smoke check, ``--json`` for
JSON). The method is written down in bench/README.md.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
import statistics
import tempfile
import zlib
from collections.abc import Callable
from time import perf_counter
from typing import Any

import benchkit  # puts ../src on sys.path when needed
from benchkit import p90
from hookline._agent.saved import hidden as cipher
from hookline._agent.saved.seal import KEY_ENV, key_id, load_key

SIZES = (10, 200, 1000)


def state(calls: int) -> dict[str, Any]:
    """A state of ``calls`` tool calls: a Bash line in, 1 kB of output back, per call."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "fix the build"}]
    for n in range(calls):
        line = f"grep -rn 'TODO' src/module_{n}.py | head -40"
        call = {"type": "tool_use", "id": f"t{n}", "name": "Bash", "input": {"command": line}}
        out = "\n".join(f"src/module_{n}.py:{i}: # TODO tidy this {i}" for i in range(30))[:1024]
        messages += [{"role": "assistant", "content": [call]},
                     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{n}",
                                                   "content": out}]}]  # fmt: skip
    return {"version": 3, "session": {"id": "bench"}, "messages": messages, "turn": {"steps": 1}}


def first_format(saved: dict[str, Any]) -> dict[str, Any]:
    """The first format's save, as it was written: zlib level 1, XOR with a SHAKE-256
    keystream, an HMAC-SHA256 of nonce and ciphertext."""
    key = load_key(create=True)
    assert key is not None
    text = json.dumps({p: saved[p] for p in cipher.PARTS}, separators=(",", ":"))
    plain, nonce = zlib.compress(text.encode("ascii"), 1), secrets.token_bytes(16)
    seed = hmac.new(key, b"hookline state encryption\0", hashlib.sha256).digest()
    stream = hashlib.shake_256(seed + nonce).digest(len(plain))
    data = (int.from_bytes(plain, "big") ^ int.from_bytes(stream, "big")).to_bytes(len(plain))
    mac_key = hmac.new(key, b"hookline state mac\0", hashlib.sha256).digest()
    box = {"alg": cipher.FIRST_ALGORITHM, "key": key_id(key), "nonce": nonce.hex(),
           "data": base64.b64encode(data).decode(),
           "mac": hmac.new(mac_key, nonce + data, hashlib.sha256).hexdigest()}  # fmt: skip
    kept = {k: v for k, v in saved.items() if k not in cipher.PARTS}
    return {**kept, cipher.FIELD: box}


def clear(saved: dict[str, Any]) -> dict[str, Any]:
    return saved


#: (name, how a state is saved): each save's result is encoded as the store encodes it.
FORMATS: list[tuple[str, Callable[[dict[str, Any]], dict[str, Any]]]] = [
    ("clear", clear), ("first", first_format), ("aes-gcm", cipher.hidden)]  # fmt: skip


def timed(fn: Callable[[], Any], repeat: int) -> float:
    start = perf_counter()
    for _ in range(repeat):
        fn()
    return (perf_counter() - start) / repeat * 1e3


def run_all(quick: bool) -> dict[str, Any]:
    rounds, repeat = (5, 3) if quick else (31, 10)
    rows = []
    for calls in SIZES:
        saved = state(calls)
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name, _ in FORMATS}
        for r in range(rounds):  # the formats interleaved, the order rotating each round
            for name, save in FORMATS[r % 3 :] + FORMATS[: r % 3]:
                stored = json.dumps(save(saved))  # what the store writes
                write = timed(lambda save=save, saved=saved: json.dumps(save(saved)), repeat)
                read = timed(lambda stored=stored: cipher.revealed(json.loads(stored)), repeat)
                samples[name].append((write, read))
        for name, got in samples.items():
            writes, reads = [g[0] for g in got], [g[1] for g in got]
            rows.append({"calls": calls, "format": name, "kB": len(json.dumps(
                dict(FORMATS)[name](saved))) / 1024, "save_ms": statistics.median(writes),
                "save_p90": p90(writes), "read_ms": statistics.median(reads)})  # fmt: skip
    return {"rows": rows}


def table(results: dict[str, Any]) -> str:
    lines = ["calls  format      kB in store  save median ms  save p90 ms  read median ms"]
    for r in results["rows"]:
        lines.append(f"{r['calls']:>5}  {r['format']:<8}  {r['kB']:>13.1f}  {r['save_ms']:>14.3f}"
                     f"  {r['save_p90']:>11.3f}  {r['read_ms']:>14.3f}")  # fmt: skip
    return "\n".join(lines)


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(dir=benchkit.SCRATCH) as scratch:
        os.environ[KEY_ENV] = os.path.join(scratch, "state.key")  # a key of its own
        benchkit.main(__doc__, run_all, table)
