"""Harness cost per tool call: wall time of ``Agent.run`` minus tool-body time, over calls.

Run ``python bench/bench_tool_calls.py`` (``--quick`` for a smoke check, ``--json`` for JSON).
The method is written down in bench/README.md.
"""

from __future__ import annotations

import asyncio
import itertools
import statistics
import tempfile
from collections import Counter
from time import perf_counter
from typing import Any

import benchkit  # beside this script; puts ../src on sys.path when needed
import hookline
from benchkit import SCRATCH, p90
from hookline import Agent, Decision, HookEngine, HookRegistry, PreToolUse, ScriptedModel
from hookline._events import Scope

_body_seconds = 0.0  # time spent inside the tool body, summed by the body itself
_starts: list[float] = []  # when each call entered the tool body


@hookline.tool
def noop(x: int) -> str:
    """Do nothing and say so."""
    global _body_seconds
    start = perf_counter()
    _starts.append(start)
    _body_seconds += perf_counter() - start
    return "ok"


def gate(event: PreToolUse) -> Decision | None:
    """A PreToolUse gate: allow small inputs, no opinion otherwise."""
    return Decision.allow() if event.tool_input.get("x", 0) < 1_000_000 else None


def bump(event: PreToolUse) -> Decision:
    """A PreToolUse transformer that rewrites one key of the input."""
    return Decision.rewrite({**event.tool_input, "x": event.tool_input["x"] + 1})


def five_hooks(log: list[Any], counts: Counter[str]) -> HookRegistry:
    """A fresh registry: the PreToolUse gate and rewrite, then three trivial PostToolUse observers.

    The observers only append to a list, so what is measured is the harness, not hook bodies.
    """
    registry = HookRegistry()
    registry.add("PreToolUse", gate, matcher="noop", kind="gate")
    registry.add("PreToolUse", bump, matcher="noop", kind="transformer")
    registry.add("PostToolUse", lambda e: log.append(e.tool_response), kind="observer")
    registry.add("PostToolUse", lambda e: log.append(e.tool_use_id), kind="observer")
    registry.add("PostToolUse", lambda e: counts.__setitem__("calls", counts["calls"] + 1),
                 kind="observer")  # fmt: skip
    return registry


async def one_run(calls: int, hooks: int, turns: list[dict[str, Any]]) -> tuple[float, float]:
    """One fresh agent in a fresh temp dir; returns (wall seconds of ``run``, tool-body seconds)."""
    global _body_seconds
    counts: Counter[str] = Counter()
    registry = five_hooks([], counts) if hooks else HookRegistry()
    with tempfile.TemporaryDirectory(dir=SCRATCH) as tmp:
        model = ScriptedModel(turns)
        agent = Agent(model, tools=[noop], hooks=registry, cwd=tmp, max_turns=calls + 1)
        _body_seconds = 0.0
        _starts.clear()
        start = perf_counter()
        result = await agent.run("call noop")
        wall = perf_counter() - start
        await agent.close()
    executed = sum(r.status == "executed" for r in result.tool_calls)
    hooks_ran = not hooks or (counts["calls"] == calls and result.tool_calls[0].input["x"] == 1)
    if result.stop_reason != "end_turn" or executed != calls or not hooks_ran:  # not what we time
        raise SystemExit(f"bench run went wrong: {result.stop_reason}, {executed}/{calls} ran")
    return wall, _body_seconds


async def measure(calls: int, hooks: int, runs: int, warmup: int) -> dict[str, Any]:
    """Warm up, then ``runs`` timed runs; per-call costs in µs."""
    turns: list[dict[str, Any]] = [
        {"tool_calls": [{"id": f"t{i}", "name": "noop", "input": {"x": i}}]} for i in range(calls)
    ]
    turns.append({"text": "done"})  # the final text after ``calls`` turns of one noop call
    for _ in range(warmup):
        await one_run(calls, hooks, turns)
    per_call, walls, bodies, drifts = [], [], [], []
    for _ in range(runs):
        wall, body = await one_run(calls, hooks, turns)
        per_call.append((wall - body) / calls * 1e6)
        walls.append(wall)
        bodies.append(body / calls * 1e6)
        gaps = [b - a for a, b in itertools.pairwise(_starts)]
        drifts.append(statistics.median(gaps[-100:]) / statistics.median(gaps[:100]))
    return {
        "hooks": hooks,
        "calls": calls,
        "runs": runs,
        "median_us": statistics.median(per_call),
        "p90_us": p90(per_call),
        "median_run_ms": statistics.median(walls) * 1e3,
        "tool_body_us": statistics.median(bodies),
        "late_over_early": statistics.median(drifts),  # call gaps: last 100 / first 100
    }


async def dispatch_micro(batches: int, per_batch: int) -> float:
    """µs per ``HookEngine.dispatch`` of one PreToolUse event to the gate and the rewrite."""
    engine = HookEngine(five_hooks([], Counter()))  # the observers are PostToolUse: not selected
    scope = Scope("bench", "/tmp/bench.jsonl", "/tmp")
    event = scope.event(PreToolUse, tool_name="noop", tool_input={"x": 1}, tool_use_id="t1")
    times = []
    for _ in range(batches + 1):  # the first batch is the warm-up
        start = perf_counter()
        for _ in range(per_batch):
            await engine.dispatch(event)
        times.append((perf_counter() - start) / per_batch * 1e6)
    return statistics.median(times[1:])


def run_all(quick: bool) -> dict[str, Any]:
    """Every configuration, each under its own ``asyncio.run``."""
    plan = [(10, 30, 5), (1000, 3, 1)] if quick else [(10, 300, 30), (1000, 15, 2)]
    rows = [
        asyncio.run(measure(calls, hooks, runs, warmup))
        for calls, runs, warmup in plan
        for hooks in (0, 5)
    ]
    dispatch_us = asyncio.run(dispatch_micro(5 if quick else 21, 2000))
    return {"rows": rows, "flat": flatness(rows), "dispatch_us": dispatch_us}


def flatness(rows: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Median cost at N=1000 over N=10, and a two-point fit: fixed per run + marginal per call."""
    out = {}
    for small, big in zip(rows[:2], rows[2:], strict=True):  # N=10 then N=1000, 0 and 5 hooks
        marginal = (big["median_run_ms"] - small["median_run_ms"]) / 990 * 1e3
        out[str(big["hooks"])] = {
            "ratio_1000_over_10": big["median_us"] / small["median_us"],
            "late_over_early_1000": big["late_over_early"],
            "marginal_us_per_call": marginal,
            "fixed_us_per_run": small["median_run_ms"] * 1e3 - 10 * marginal,
        }
    return out


HEADER = "hooks  calls/run  runs  median µs/call  p90 µs/call  body µs/call"
ROW = (
    "{hooks:>5}  {calls:>9}  {runs:>4}  {median_us:>14.1f}  {p90_us:>11.1f}  {tool_body_us:>12.2f}"
)


def table(results: dict[str, Any]) -> str:
    """The results as a small plain-text table."""
    lines = [HEADER, *(ROW.format(**r) for r in results["rows"])]
    for hooks, f in results["flat"].items():
        lines.append(
            f"{hooks} hooks: N=1000/N=10 {f['ratio_1000_over_10']:.2f}; in a 1000-call run, "
            f"last/first 100 calls {f['late_over_early_1000']:.2f}; fit "
            f"{f['marginal_us_per_call']:.1f} µs/call + {f['fixed_us_per_run']:.0f} µs/run"
        )
    lines.append(f"dispatch(PreToolUse), gate + rewrite: {results['dispatch_us']:.1f} µs")
    return "\n".join(lines)


if __name__ == "__main__":
    benchkit.main(__doc__, run_all, table)
