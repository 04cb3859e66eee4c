"""What hooks add to one tool call's two dispatches: Agent SDK callbacks and Python hooks.

Run ``python bench/bench_dispatch.py`` (``--quick`` for a smoke check, ``--json`` for JSON).

One "call" here is what the tool pipeline does around a body for its hooks: build the
PreToolUse event and dispatch it, build the PostToolUse event and dispatch it. Three
configurations, each a fresh ``HookEngine``:

- **none**: no hook registered (the events are still built and dispatched);
- **sdk**: five Claude Agent SDK callbacks (``async def f(input_data, tool_use_id, context)``
  answering ``{}``), registered as a user's ``HOOKS`` file does: two PreToolUse (matcher
  ``Read``), three PostToolUse;
- **python**: five plain Python hooks: two PreToolUse gates answering ``Decision.allow()``,
  three PostToolUse observers answering None; **python-1**: one such gate alone.

When Strands Agents is installed (the ``bench`` group), the same is measured for its hooks, as
its tool executor fires them: a ``BeforeToolCallEvent`` built and handed to
``HookRegistry.invoke_callbacks_async``, then an ``AfterToolCallEvent`` with the result, for no
callback (**strands-none**), one gate (**strands-1**) and two gates and three observers
(**strands-5**). Its "added" is against strands-none. This is the cheapest peer's hook cost
without the noise of its own loop, which in a whole run is larger than the hooks.

**Added per call** = the median with hooks minus the median with none. Each configuration runs
batches of 2,000 calls (the first batch a warm-up), the configurations taking turns batch by
batch so that a shared machine's drift hits them alike. Every dispatch is checked: as many runs
as hooks, none failed. ``HOOKLINE_SRC=DIR`` runs another checkout's ``src`` (bench_startup.py).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from time import perf_counter
from typing import Any

if os.environ.get("HOOKLINE_SRC"):  # before benchkit imports the checkout's own
    sys.path.insert(0, os.environ["HOOKLINE_SRC"])

import benchkit  # beside this script; puts ../src on sys.path when needed

sys.path.insert(0, str(Path(__file__).parent / "peers"))
from benchkit import p90
from hookline import Decision, HookEngine, HookMatcher, HookRegistry, PostToolUse, PreToolUse
from hookline._events import Scope

SCOPE = Scope("bench", "/tmp/bench.jsonl", "/tmp")


async def gate(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> dict:
    return {}


async def watch(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> dict:
    return {}


def sdk() -> HookRegistry:
    registry = HookRegistry()
    registry.add_matchers(
        {
            "PreToolUse": [HookMatcher(matcher="Read", hooks=[gate, watch])],
            "PostToolUse": [HookMatcher(hooks=[watch, watch, watch])],
        }
    )
    return registry


def python() -> HookRegistry:
    registry = HookRegistry()
    for _ in range(2):
        registry.add("PreToolUse", lambda e: Decision.allow(), matcher="Read")
    for _ in range(3):
        registry.add("PostToolUse", lambda e: None, kind="observer")
    return registry


def python_1() -> HookRegistry:
    registry = HookRegistry()
    registry.add("PreToolUse", lambda e: Decision.allow(), matcher="Read")
    return registry


CONFIGS = {"none": HookRegistry, "sdk": sdk, "python": python, "python-1": python_1}
HOOKS = {"none": 0, "sdk": 5, "python": 5, "python-1": 1}


async def batch(engine: HookEngine, calls: int, hooks: int) -> float:
    """µs per call: both events built and dispatched, every dispatch checked."""
    start = perf_counter()
    runs = 0
    for i in range(calls):
        pre = SCOPE.event(
            PreToolUse, tool_name="Read", tool_input={"file_path": "x"}, tool_use_id=f"t{i}"
        )
        before = await engine.dispatch(pre)
        post = SCOPE.event(
            PostToolUse,
            tool_name="Read",
            tool_input={"file_path": "x"},
            tool_use_id=f"t{i}",
            tool_response={"ok": 1},
        )
        after = await engine.dispatch(post)
        runs += len(before.runs) + len(after.runs)
        if any(run.failure for run in (*before.runs, *after.runs)):
            raise SystemExit(f"a hook failed: {before.runs + after.runs}")
    elapsed = (perf_counter() - start) / calls * 1e6
    if runs != hooks * calls:
        raise SystemExit(f"expected {hooks * calls} hook runs, saw {runs}")
    return elapsed


async def measure(batches: int, calls: int) -> dict[str, list[float]]:
    runners: dict[str, Callable[[], Awaitable[float]]] = {}
    for name, make in CONFIGS.items():
        engine = HookEngine(make())
        runners[name] = partial(batch, engine, calls, HOOKS[name])
    runners.update(strands_runners(calls))
    times: dict[str, list[float]] = {name: [] for name in runners}
    for index in range(batches + 1):
        for name, run in runners.items():
            figure = await run()
            if index:
                times[name].append(figure)
    return times


def strands_runners(calls: int) -> dict[str, Callable[[], Awaitable[float]]]:
    """Strands' hooks fired as its tool executor fires them, when Strands is installed."""
    try:
        import strands_dispatch  # in peers/: imports strands
    except ImportError:
        return {}
    return {
        f"strands-{label}": partial(strands_dispatch.batch, calls, hooks)
        for label, hooks in (("none", 0), ("1", 1), ("5", 5))
    }


def run_all(quick: bool) -> dict[str, Any]:
    times = asyncio.run(measure(3 if quick else 21, 2000))
    rows = []
    for name, values in times.items():
        base = statistics.median(times["strands-none" if name.startswith("strands") else "none"])
        median = statistics.median(values)
        row = {"hooks": name, "median_us": median, "p90_us": p90(values)}
        rows.append(row | {"added_us": median - base})
    return {"python": sys.version.split()[0], "rows": rows}


def table(results: dict[str, Any]) -> str:
    lines = [f"{'hooks':<14}{'µs per call':>12}{'p90':>8}{'added':>8}"]
    for row in results["rows"]:
        lines.append(
            f"{row['hooks']:<14}{row['median_us']:>12.1f}{row['p90_us']:>8.1f}"
            f"{row['added_us']:>8.1f}"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    benchkit.main(__doc__ or "", run_all, table)
