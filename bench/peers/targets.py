"""The speed targets hookline set itself, judged on one compare.py run.

Each target gives its limit, what this run measured, and two verdicts:

- **met**: the limit as it was written. None when this run cannot tell (a peer that was not
  installed, a row that was not chosen, cores too few for the figure to mean anything).
- **scaled**: the absolute limits (µs, ms, calls per second) were set when this 2-vCPU VM
  ran hookline's library loop with five hooks at ``REFERENCE_LOOP_US`` a call (1,000 calls a
  run). The VM's speed moves with its neighbours, so each absolute limit is also judged against
  the same limit times ``speed``: this run's library loop over that reference. A limit that is
  already a ratio within the run is judged the same both ways.

The scaled verdict is shown beside the other, never in its place.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: hookline's library loop, five hooks, µs per call at 1,000 calls a run, when the targets
#: were set (bench/README.md, "Results", 2026-11-30).
REFERENCE_LOOP_US = 56.0

Row = dict[str, Any]


def judge(results: dict[str, Any]) -> dict[str, Any]:
    """``speed`` (None if the library loop did not run) and ``rows``: one a target measured,
    each with ``target``, ``limit``, ``measured``, ``met`` and ``scaled``."""
    speed = _speed(results)
    rows = [check(results, speed) for check in _CHECKS]
    return {"speed": speed, "rows": [row for row in rows if row is not None]}


def _speed(results: dict[str, Any]) -> float | None:
    """This run's library loop (5 hooks, longest run) over the reference; None if not run."""
    loop = _cost(results, "hookline", 5)
    return None if loop is None else loop / REFERENCE_LOOP_US


def _longest(results: dict[str, Any]) -> int | None:
    lengths = [r["calls"] for r in results["per_call"] if r["framework"] == "hookline"]
    return max(lengths, default=None)


def _cost(results: dict[str, Any], framework: str, hooks: int) -> float | None:
    """µs per call of ``framework`` with ``hooks`` at the longest run length."""
    n = _longest(results)
    return next(
        (r["median_us"] for r in results["per_call"]
         if (r["framework"], r["hooks"], r["calls"]) == (framework, hooks, n)),
        None,
    )  # fmt: skip


def _row(
    target: str, limit: str, measured: str, met: bool | None, scaled: bool | None = None
) -> Row:
    return {"target": target, "limit": limit, "measured": measured, "met": met,
            "scaled": met if scaled is None else scaled}  # fmt: skip


def _at_most(value: float, limit: float, speed: float | None) -> tuple[bool, bool | None]:
    """(value ≤ limit, value ≤ limit scaled to this machine)."""
    return value <= limit, None if speed is None else value <= limit * speed


def _cli(results: dict[str, Any], speed: float | None) -> Row | None:
    cli, loop = _cost(results, "hookline-cli", 5), _cost(results, "hookline", 5)
    if cli is None or loop is None:
        return None
    met, scaled = _at_most(cli, 100.0, speed)
    measured = f"{cli:.0f} µs ({cli / loop:.1f}x the library loop), {_longest(results)} calls"
    return _row("hookline run (CLI), defaults, 5 hooks", "≤ 100 µs a call", measured, met, scaled)


def _dispatch(hooks: int) -> Callable[[dict[str, Any], float | None], Row | None]:
    ours_key, theirs_key = ("python", "strands-5") if hooks == 5 else ("python-1", "strands-1")

    def check(results: dict[str, Any], speed: float | None) -> Row | None:
        rows = {r["hooks"]: r for r in (results.get("dispatch") or {}).get("rows", [])}
        if ours_key not in rows:
            return None
        ours = rows[ours_key]["added_us"]
        theirs = rows.get(theirs_key, {}).get("added_us")
        target = f"hook dispatch, {hooks} Python hook{'s' * (hooks > 1)}"
        if theirs is None:
            return _row(target, "≤ Strands'", f"{ours:.1f} µs; Strands not installed", None)
        return _row(target, "≤ Strands'", f"{ours:.1f} µs vs {theirs:.1f}", ours <= theirs)

    return check


def _sdk_callback(results: dict[str, Any], speed: float | None) -> Row | None:
    cell = ("hookline-sdk", 1, _longest(results))
    added = next(
        (a["added_us"] for a in results["hook_overhead"]
         if (a["framework"], a["hooks"], a["calls"]) == cell), None
    )  # fmt: skip
    if added is None:
        return None
    met, scaled = _at_most(added, 50.0, speed)
    measured = f"{added:.0f} µs a call for one callback, in the loop"
    return _row("an Agent SDK callback", "≤ 50 µs a hooked call", measured, met, scaled)


def _growth(results: dict[str, Any], speed: float | None) -> Row | None:
    ours = [g for g in results["growth"] if g["framework"].startswith("hookline")]
    if not ours:
        return None
    worst = max(ours, key=lambda g: g["ratio"])
    short, long = worst["calls"]
    measured = f"at most {worst['ratio']:.2f} ({worst['framework']}, {worst['hooks']} hooks)"
    return _row(f"cost a call at {long} calls / at {short}", "≤ 1.2", measured,
                worst["ratio"] <= 1.2)  # fmt: skip


def _start_up(what: str, limit: float) -> Callable[[dict[str, Any], float | None], Row | None]:
    def check(results: dict[str, Any], speed: float | None) -> Row | None:
        found = {s["what"]: s for s in results.get("startup", [])}
        if what not in found:
            return None
        ms = found[what]["median_ms"]
        measured = f"{ms:.0f} ms"
        agent = found.get("from hookline import Agent")
        if what == "import hookline" and agent:  # what a program imports first, for the record
            measured += f" (from hookline import Agent: {agent['median_ms']:.0f})"
        met, scaled = _at_most(ms, limit, speed)
        return _row(what, f"≤ {limit:.0f} ms", measured, met, scaled)

    return check


def _memory(results: dict[str, Any], speed: float | None) -> Row | None:
    peaks = {m["framework"]: m["peak_rss_mib"] for m in results["memory"]}
    if "hookline" not in peaks:
        return None
    ours = peaks["hookline"]
    peers = {fw: mib for fw, mib in peaks.items() if not fw.startswith("hookline")}
    target, limit = "peak memory, a 200-call run", "≤ half the lightest peer's"
    if not peers:
        return _row(target, limit, f"{ours:.1f} MiB; no peer measured", None)
    lightest = min(peers, key=peers.__getitem__)
    measured = f"{ours:.1f} MiB vs {peers[lightest] / 2:.1f} (half of {lightest}'s)"
    return _row(target, limit, measured, ours <= peers[lightest] / 2)


def _scale(results: dict[str, Any], speed: float | None) -> Row | None:
    ours = next((s for s in results["scale"] if s["framework"] == "hookline"), None)
    if ours is None or "calls_per_s" not in ours:
        return None
    rate, wanted = ours["calls_per_s"], 10_000.0
    measured = f"{rate:,.0f} tool calls/s ({ours['sessions']:,} sessions x {ours['calls']})"
    scaled = None if speed is None else rate >= wanted / speed
    return _row("sessions at once, 5 hooks", "≥ 10,000 tool calls/s", measured,
                rate >= wanted, scaled)  # fmt: skip


def _one_command(results: dict[str, Any], speed: float | None) -> Row | None:
    ratios = (results.get("command_hooks") or {}).get("ratios")
    if not ratios:
        return None
    # Against the leanest bare spawn measured: a pidfd one, where the run had it.
    ratio = asyncio = ratios["true: 1 hook added / bare spawn"]
    measured = f"{asyncio:.2f}x asyncio's spawn"
    if (pidfd := ratios.get("true: 1 hook added / bare spawn, pidfd")) is not None:
        ratio, measured = pidfd, f"{pidfd:.2f}x the pidfd spawn ({measured})"
    return _row("one `true` command hook", "≤ 1.3x its bare spawn", measured, ratio <= 1.3)


def _five_commands(results: dict[str, Any], speed: float | None) -> Row | None:
    commands = results.get("command_hooks") or {}
    if not commands.get("ratios"):
        return None
    ratios, cores = commands["ratios"], commands["cpus"]
    ratio, floor = ratios["true: 5 hooks added / 1 hook added"], ratios[
        "true: (floor) 5 bare spawns at once / 1"]  # fmt: skip
    measured = f"{ratio:.2f}x on {cores} cores; 5 bare spawns at once: {floor:.2f}x"
    # Five processes at once need five cores to cost what one does; with fewer the bare
    # spawns' own figure is the floor, and the limit cannot be judged.
    met = ratio <= 2.0 if floor <= 2.0 else None
    return _row("five `true` command hooks", "≤ 2x one, where 5 cores allow", measured, met)


_CHECKS: tuple[Callable[[dict[str, Any], float | None], Row | None], ...] = (
    _cli,
    _dispatch(5),
    _dispatch(1),
    _sdk_callback,
    _growth,
    _start_up("import hookline", 100.0),
    _start_up("hookline --version", 150.0),
    _memory,
    _scale,
    _one_command,
    _five_commands,
)
