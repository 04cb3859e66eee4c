"""What every framework script in this folder shares: the tool, the gate, the observers, the
timing, and the JSON each prints.

A framework script defines ``agent(calls, hooks)``: a context manager (async; or plain, for a
driver that runs its own event loop) that builds a fresh agent whose scripted model makes
``calls`` calls of one async tool, ``noop(x)`` with ``x`` = 0, 1, ..., and then answers
``FINAL``, with ``hooks`` hooks shaped by ``SHAPE``, and yields the function that runs it.
Building is not timed; running is. Every run is checked before its numbers count: the final
text, the calls executed, and the gates and observers that saw them (``TALLY``).

Each script runs as ``python bench/peers/NAME.py MODE`` and prints one JSON object: ``calls``
(peak memory of one 200-call run in a fresh process, then the cost per tool call) or
``scale`` (many sessions at once in one process). compare.py starts one per framework, so a
missing framework is skipped and each figure of memory is that framework's alone.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.metadata
import json
import resource
import statistics
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from time import perf_counter
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # benchkit, beside compare.py
import benchkit

#: hooks -> (gates before the tool, observers after it): the same work in every framework.
SHAPE = {0: (0, 0), 1: (1, 0), 5: (2, 3)}
FINAL = "done"
TOOL = "noop"
#: A run: build with ``agent(calls, hooks)``; what it yields runs the agent, returning its text.
Factory = Callable[[int, int], Any]


@dataclass
class Tally:
    """What the tool body, the gates and the observers saw, summed over the runs being checked."""

    executed: int = 0
    gated: int = 0
    observed: int = 0
    body_seconds: float = 0.0
    #: Scale mode: the body yields to the event loop, as a real tool waiting on I/O would, so
    #: the sessions really interleave.
    yields: bool = False


TALLY = Tally()


async def noop(x: int) -> str:
    """The tool body every framework wraps; it times itself, and that time is taken out."""
    start = perf_counter()
    TALLY.executed += 1
    if TALLY.yields:
        await asyncio.sleep(0)
    TALLY.body_seconds += perf_counter() - start
    return "ok"


def allowed(x: int) -> bool:
    """The gate's rule: small inputs pass (every input here is small)."""
    TALLY.gated += 1
    return x < 1_000_000


def observed(result: object) -> None:
    """An observer after the tool: it only counts."""
    TALLY.observed += 1


def reset(*, yields: bool = False) -> None:
    global TALLY
    TALLY = Tally(yields=yields)


def check(calls: int, hooks: int, texts: list[object], sessions: int = 1) -> None:
    """Exit with an error unless every run ended with ``FINAL`` and the tool, the gates and the
    observers each saw every call."""
    gates, observers = SHAPE[hooks]
    total = calls * sessions
    seen = (TALLY.executed, TALLY.gated, TALLY.observed)
    if seen != (total, total * gates, total * observers) or any(t != FINAL for t in texts):
        raise SystemExit(
            f"bench run went wrong: {calls} calls x {sessions}, {hooks} hooks: executed, gated, "
            f"observed = {seen}; final texts {sorted(set(map(str, texts)))[:3]}"
        )


class Driver:
    """Runs one framework's agents: async ones on one event loop kept for the whole process
    (as bench_tool_calls.py keeps one per configuration), plain ones as they are."""

    def __init__(self, agent: Factory) -> None:
        self.agent = agent
        self.loop = asyncio.new_event_loop()

    def timed(self, calls: int, hooks: int) -> tuple[float, float]:
        """One checked run: (wall seconds of running it, seconds inside the tool body)."""
        reset()
        made = self.agent(calls, hooks)
        if hasattr(made, "__aenter__"):
            wall, text = self.loop.run_until_complete(_timed_async(made))
        else:
            with made as run:
                start = perf_counter()
                text = run()
                wall = perf_counter() - start
        check(calls, hooks, [text])
        return wall, TALLY.body_seconds

    def concurrent(self, sessions: int, calls: int, hooks: int) -> float:
        """``sessions`` agents built, then all run at once; wall seconds of the running."""
        reset(yields=True)
        wall, texts = self.loop.run_until_complete(_all_at_once(self.agent, sessions, calls, hooks))
        check(calls, hooks, texts, sessions)
        return wall


async def _timed_async(made: Any) -> tuple[float, object]:
    async with made as run:
        start = perf_counter()
        text = await run()
        return perf_counter() - start, text


async def _all_at_once(
    agent: Factory, sessions: int, calls: int, hooks: int
) -> tuple[float, list[object]]:
    async with contextlib.AsyncExitStack() as stack:
        runs: list[Callable[[], Awaitable[object]]] = [
            await stack.enter_async_context(agent(calls, hooks)) for _ in range(sessions)
        ]
        start = perf_counter()
        texts = await asyncio.gather(*(run() for run in runs))
        return perf_counter() - start, list(texts)


def per_call(
    driver: Driver, calls: list[int], hooks: list[int], quick: bool
) -> tuple[list[dict[str, Any]], str | None]:
    """For each run length, rounds of one run per hook count (rotating, so drift hits all
    alike) after ``warmup`` rounds, at least ``least`` and at most ``most`` of them, none
    started after ``budget`` seconds (``plan_for``). Cost per call = (run - body) / calls, µs.
    A run that fails ends the measuring there: the rows of the shorter runs, and why."""
    rows = []
    for n in calls:
        try:
            rows += _lengthwise(driver, n, hooks, quick)
        except Exception as exc:  # a framework that cannot make a run this long
            return rows, f"a run of {n} calls failed: {type(exc).__name__}: {exc}"[:300]
    return rows, None


def _lengthwise(driver: Driver, n: int, hooks: list[int], quick: bool) -> list[dict[str, Any]]:
    warmup, least, most, budget = plan_for(n, quick)
    samples: dict[int, list[tuple[float, float]]] = {h: [] for h in hooks}
    started = perf_counter()
    for i in range(warmup + most):
        if i >= warmup + least and perf_counter() - started > budget:
            break
        for h in hooks[i % len(hooks) :] + hooks[: i % len(hooks)]:
            timing = driver.timed(n, h)
            if i >= warmup:
                samples[h].append(timing)
    return [_row(n, h, samples[h]) for h in hooks]


def _row(calls: int, hooks: int, samples: list[tuple[float, float]]) -> dict[str, Any]:
    costs = [(wall - body) / calls * 1e6 for wall, body in samples] if calls else []
    walls = [wall * 1e3 for wall, _ in samples]
    return {
        "calls": calls,
        "hooks": hooks,
        "runs": len(samples),
        "median_us": statistics.median(costs) if costs else None,
        "p90_us": benchkit.p90(costs) if costs else None,
        "median_run_ms": statistics.median(walls),
        "body_us": statistics.median(b / calls * 1e6 for _, b in samples) if calls else 0.0,
    }


def peak_rss_mib() -> float:
    """This process's peak resident memory so far (VmHWM), in MiB."""
    status = Path("/proc/self/status")
    for line in status.read_text().splitlines() if status.exists() else []:
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux


def version(dist: str) -> str | None:
    with contextlib.suppress(importlib.metadata.PackageNotFoundError):
        return importlib.metadata.version(dist)
    return None


def plan_for(calls: int, quick: bool) -> tuple[int, int, int, float]:
    """(warm-up rounds, least rounds, most rounds, seconds after which no round starts once the
    least are done) for runs of ``calls`` calls; the long runs of slow peers take minutes."""
    if quick:
        return (1, 2, 4, 0.3) if calls <= 10 else (0, 1, 2, 0.3)
    if calls <= 10:
        return 10, 30, 300, 8.0
    return (1, 3, 50, 15.0) if calls <= 200 else (0, 1, 15, 30.0)


def main(agent: Factory, *, dist: str, hook: str, subtract_empty_run: bool = False) -> None:
    """The command line of a framework script; prints one JSON object.

    ``calls`` first makes one run of ``--memory-calls`` calls with 5 hooks and takes the
    process's peak memory (import and that run, nothing else yet), then times the runs.
    ``subtract_empty_run``: the cost per call is (run of N calls - run of none) / N, for a
    driver whose runs carry a fixed cost the others do not time (the CLI builds its agent)."""
    parser = argparse.ArgumentParser(description="One framework's figures, as JSON.")
    parser.add_argument("mode", choices=["calls", "scale"])
    parser.add_argument("--calls", default="10,200,1000", help="run lengths (scale: the first)")
    parser.add_argument("--hooks", default="0,1,5", help="hook counts (scale: the last)")
    parser.add_argument("--memory-calls", type=int, default=200, help="calls: the memory run")
    parser.add_argument("--sessions", type=int, default=1000, help="scale: sessions at once")
    parser.add_argument("--quick", action="store_true", help="few repetitions: a smoke check")
    args = parser.parse_args()
    calls = [int(c) for c in args.calls.split(",")]
    hooks = [int(h) for h in args.hooks.split(",")]
    driver = Driver(agent)
    out: dict[str, Any] = {"version": version(dist), "hook": hook}
    if args.mode == "calls":
        out["memory"] = {"import_rss_mib": peak_rss_mib(), "calls": args.memory_calls, "hooks": 5}
        driver.timed(args.memory_calls, 5)
        out["memory"]["peak_rss_mib"] = peak_rss_mib()
        lengths = ([0] if subtract_empty_run else []) + calls
        rows, failed = per_call(driver, lengths, hooks, args.quick)
        out["rows"] = _less_empty_run(rows) if subtract_empty_run else rows
        if failed:
            out["failed"] = failed
        out["method"] = (
            "(run - empty run) / calls" if subtract_empty_run else "(run - body) / calls"
        )
    else:
        n, h = calls[0], hooks[-1]  # by default 10 calls, 5 hooks
        driver.timed(n, h)  # warm-up: what a run loads once
        wall = driver.concurrent(args.sessions, n, h)
        out.update(
            sessions=args.sessions, calls=n, hooks=h, wall_s=wall,
            calls_per_s=args.sessions * n / wall, peak_rss_mib=peak_rss_mib(),
        )  # fmt: skip
    json.dump(out, sys.stdout)


def _less_empty_run(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows with the empty run's median taken out of each run's median, per hook count."""
    empty = {r["hooks"]: r["median_run_ms"] for r in rows if r["calls"] == 0}
    kept = [r for r in rows if r["calls"]]
    for r in kept:
        r["empty_run_ms"] = empty[r["hooks"]]
        r["median_us"] = (r["median_run_ms"] - empty[r["hooks"]]) / r["calls"] * 1e3
        r["p90_us"] = None  # a difference of medians has no p90 of its own
    return kept
