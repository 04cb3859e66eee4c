"""One run of hookline's library loop with N ``noop`` calls in this process, for counting
instructions beside ``cli_once.py``.

    valgrind --tool=callgrind --callgrind-out-file=/dev/null python bench/loop_once.py 120
    valgrind --tool=callgrind --callgrind-out-file=/dev/null python bench/loop_once.py 20

Per call = (instructions of the 120-call run - those of the 20-call run) / 100, as for
``cli_once.py``. The run is compare.py's library-loop row (peers/hookline_lib.py): a fresh
``Agent`` with ``ScriptedModel``, five Python hooks (two PreToolUse gates, three PostToolUse
observers; ``HOOKS=0`` for none), its transcript in a temporary folder; ``HOOKS=sdk``: the same
five as Claude Agent SDK callbacks (``HookMatcher``, compare.py's SDK row, peers/hookline_sdk.py).
The run is checked: every call executed, every gate and observer ran.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "peers"))  # peerkit, hookline_lib

import peerkit
from hookline_lib import agent, registry
from hookline_sdk import matchers

import benchkit  # noqa: F401  (puts ../src on sys.path when needed)


async def run(calls: int, hooks: int, *, sdk: bool = False) -> None:
    async with agent(calls, hooks, make_hooks=matchers if sdk else registry) as go:
        text = await go()
    gates, observers = peerkit.SHAPE[hooks]
    tally = peerkit.TALLY
    seen = (tally.executed, tally.gated, tally.observed)
    if text != peerkit.FINAL or seen != (calls, calls * gates, calls * observers):
        raise SystemExit(f"expected {calls} calls, each gated and observed; got {text!r} {seen}")


if __name__ == "__main__":
    shape = os.environ.get("HOOKS")
    asyncio.run(run(int(sys.argv[1]), 0 if shape == "0" else 5, sdk=shape == "sdk"))
