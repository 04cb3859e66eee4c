"""A command's call, start to end: what ``run_process`` costs per call, next to a bare spawn.

Run ``python bench/bench_process.py`` (``--quick`` for a smoke check, ``--json`` for JSON).
``run_process`` starts each command through the watchdog's keeper of the call, which ends
whatever the command leaves running; this prices that per call. The same script runs against
an older ``src`` (``PYTHONPATH=old/src``) for a before-and-after pair: it uses only what both
have. The method is written down in bench/README.md.
"""

from __future__ import annotations

import asyncio
import os
import platform
import statistics
from collections.abc import Awaitable, Callable
from subprocess import PIPE
from time import perf_counter
from typing import Any

import benchkit  # beside this script; puts ../src on sys.path when needed
from benchkit import p90
from hookline._support.process import run_process

TRUE = ["/bin/sh", "-c", "true"]
#: A command that leaves a child running when it exits: the keeper ends it.
LEAVES = ["/bin/sh", "-c", "sleep 30 > /dev/null 2>&1 &"]
LABELS = {
    "bare": "spawn, asyncio.create_subprocess_exec",
    "call": "call, run_process (sh -c true)",
    "call_leaves": "call that leaves a child running",
    "call_x5": "5 calls at once, run_process",
}


async def bare() -> int | None:
    """``sh -c true`` as asyncio offers it: three pipes, stdin closed, output read."""
    process = await asyncio.create_subprocess_exec(*TRUE, stdin=PIPE, stdout=PIPE, stderr=PIPE)
    await process.communicate(b"")
    return process.returncode


async def call(argv: list[str]) -> int:
    done = await run_process(argv, stdin=b"", cwd="/", env=os.environ, kill_grace=1)
    return done.returncode


async def five() -> int:
    codes = await asyncio.gather(*(call(TRUE) for _ in range(5)))
    return max(codes)


async def measure(rounds: int, warmup: int) -> dict[str, list[float]]:
    """Interleaved rounds, the order rotating, each job checked (exit 0) outside the clock."""
    jobs: dict[str, Callable[[], Awaitable[Any]]] = {
        "bare": bare,
        "call": lambda: call(TRUE),
        "call_leaves": lambda: call(LEAVES),
        "call_x5": five,
    }
    names = list(jobs)
    times: dict[str, list[float]] = {name: [] for name in names}
    for index in range(warmup + rounds):
        for name in names[index % len(names) :] + names[: index % len(names)]:
            start = perf_counter()
            code = await jobs[name]()
            seconds = perf_counter() - start
            if code != 0:
                raise SystemExit(f"{name} went wrong: exit {code}")
            if index >= warmup:
                times[name].append(seconds * 1000)
    return times


def run_all(quick: bool) -> dict[str, Any]:
    rounds, warmup = (20, 3) if quick else (300, 20)
    times = asyncio.run(measure(rounds, warmup))  # an older src leaves the sleeps to its exit
    machine = f"{os.cpu_count()} CPUs, Python {platform.python_version()}, {platform.platform()}"
    return {
        "machine": machine,
        "rounds": rounds,
        "warmup": warmup,
        "results": {
            name: {"n": len(ms), "median_ms": statistics.median(ms), "p90_ms": p90(ms)}
            for name, ms in times.items()
        },
    }


def table(results: dict[str, Any]) -> str:
    lines = [f"{results['machine']}; {results['rounds']} interleaved rounds after "
             f"{results['warmup']} warm-up",
             f"{'what':40} {'n':>5} {'median ms':>10} {'p90 ms':>8}"]  # fmt: skip
    for name, row in results["results"].items():
        lines.append(f"{LABELS[name]:40} {row['n']:>5} {row['median_ms']:>10.3f} "
                     f"{row['p90_ms']:>8.3f}")  # fmt: skip
    base = results["results"]["bare"]["median_ms"]
    lines.append(
        f"{'call / bare spawn':40} {results['results']['call']['median_ms'] / base:>16.2f}x"
    )
    return "\n".join(lines)


if __name__ == "__main__":
    benchkit.main(__doc__ or "", run_all, table)
