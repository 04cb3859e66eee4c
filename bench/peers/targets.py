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


#: The CLI path with its defaults over the library loop, 5 hooks each: at most this at a run
#: length (the shortest run carries a run's own setup, a larger share of a short run).
CLI_RATIO = {"short": 2.5, "long": 2.0}
#: The library loop, 5 hooks, at least this many times below the fastest peer at each length.
BELOW_PEERS = 10.0
#: What five Python hooks may add to a library loop call, µs (judged scaled too).
HOOKS_ADDED_US = 25.0


def _lengths(results: dict[str, Any], framework: str) -> dict[int, float]:
    """µs per call by run length, ``framework`` with five hooks."""
    return {r["calls"]: r["median_us"] for r in results["per_call"]
            if r["framework"] == framework and r["hooks"] == 5}  # fmt: skip


def _cli(length: str) -> Callable[[dict[str, Any], float | None], Row | None]:
    """The CLI over the library loop at the shortest run length (``short``) or the worst of
    the others (``long``)."""

    def check(results: dict[str, Any], speed: float | None) -> Row | None:
        cli, loop = _lengths(results, "hookline-cli"), _lengths(results, "hookline")
        both = sorted(set(cli) & set(loop))
        chosen = both[:1] if length == "short" else both[1:]
        if not chosen:
            return None
        ratios = {n: cli[n] / loop[n] for n in chosen}
        limit = CLI_RATIO[length]
        measured = ", ".join(f"{ratios[n]:.1f}x at {n} calls ({cli[n]:.0f} µs)" for n in chosen)
        runs = f"{chosen[0]} calls" if length == "short" else "longer runs"
        return _row(f"hookline run (CLI) / library loop, 5 hooks, {runs}",
                    f"≤ {limit}x", measured, max(ratios.values()) <= limit)  # fmt: skip

    return check


def _below_peers(results: dict[str, Any], speed: float | None) -> Row | None:
    """The fastest peer over the library loop, 5 hooks, at every length a peer completed."""
    ours = _lengths(results, "hookline")
    peers: dict[int, tuple[float, str]] = {}
    for r in results["per_call"]:
        if r["hooks"] == 5 and not r["framework"].startswith("hookline") and r["calls"] in ours:
            best = peers.get(r["calls"])
            if best is None or r["median_us"] < best[0]:
                peers[r["calls"]] = (r["median_us"], r["framework"])
    target, limit = "library loop, 5 hooks, below the fastest peer", f"≥ {BELOW_PEERS:.0f}x"
    if not ours:
        return None
    if not peers:
        return _row(target, limit, "no peer measured", None)
    times = {n: peers[n][0] / ours[n] for n in sorted(peers)}
    measured = ", ".join(f"{times[n]:.1f}x at {n} ({peers[n][1]})" for n in times)
    return _row(target, limit, measured, min(times.values()) >= BELOW_PEERS)


def _hooks_added(results: dict[str, Any], speed: float | None) -> Row | None:
    """What five Python hooks add to a library loop call, at the longest run."""
    n = _longest(results)
    cell = ("hookline", 5, n)
    added = next(
        (a["added_us"] for a in results["hook_overhead"]
         if (a["framework"], a["hooks"], a["calls"]) == cell), None
    )  # fmt: skip
    if added is None:
        return None
    met, scaled = _at_most(added, HOOKS_ADDED_US, speed)
    return _row("five Python hooks, added to a loop call", f"≤ {HOOKS_ADDED_US:.0f} µs",
                f"{added:.0f} µs at {n} calls", met, scaled)  # fmt: skip


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


#: Sessions at once: at least this many times the fastest peer's tool calls per second, and at
#: most this share of the lightest peer's memory per session.
SCALE_TIMES, SCALE_MEMORY = 10.0, 1 / 3


def _scale_rate(results: dict[str, Any], speed: float | None) -> Row | None:
    rates = {s["framework"]: s for s in results["scale"] if "calls_per_s" in s}
    if "hookline" not in rates:
        return None
    ours = rates["hookline"]
    target, limit = (
        "sessions at once, 5 hooks: tool calls/s",
        f"≥ {SCALE_TIMES:.0f}x the fastest peer's",
    )
    measured = f"{ours['calls_per_s']:,.0f}/s ({ours['sessions']:,} sessions x {ours['calls']})"
    peers = {fw: s["calls_per_s"] for fw, s in rates.items() if not fw.startswith("hookline")}
    if not peers:
        return _row(target, limit, f"{measured}; no peer measured", None)
    fastest = max(peers, key=peers.__getitem__)
    times = ours["calls_per_s"] / peers[fastest]
    return _row(target, limit, f"{measured}: {times:.1f}x {fastest}'s", times >= SCALE_TIMES)


def _per_session(results: dict[str, Any]) -> dict[str, float]:
    """KiB per session at once: the scale run's peak over the framework's memory after import."""
    imported = {m["framework"]: m.get("import_rss_mib") for m in results["memory"]}
    return {
        s["framework"]: (s["peak_rss_mib"] - imported[s["framework"]]) * 1024 / s["sessions"]
        for s in results["scale"]
        if "peak_rss_mib" in s and imported.get(s["framework"]) is not None
    }


def _scale_memory(results: dict[str, Any], speed: float | None) -> Row | None:
    kib = _per_session(results)
    if "hookline" not in kib:
        return None
    target, limit = "sessions at once, 5 hooks: memory a session", "≤ 1/3 the lightest peer's"
    peers = {fw: v for fw, v in kib.items() if not fw.startswith("hookline")}
    if not peers:
        return _row(target, limit, f"{kib['hookline']:.0f} KiB; no peer measured", None)
    lightest = min(peers, key=peers.__getitem__)
    measured = f"{kib['hookline']:.0f} KiB vs {peers[lightest]:.0f} ({lightest}'s)"
    return _row(target, limit, measured, kib["hookline"] <= peers[lightest] * SCALE_MEMORY)


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


def _served_hook(results: dict[str, Any], speed: float | None) -> Row | None:
    """hookline serve's decision as Claude Code's HTTP hook, against Claude Code's cheapest
    command hook, both measured in the same run of the real CLI (a ratio: not scaled)."""
    added = (results.get("claude_code") or {}).get("added_ms") or {}
    served, true = added.get("serve_1"), added.get("true_1")
    if served is None or true is None:
        return None
    measured = f"{served:.2f} ms added vs {true:.2f} ms for `true`"
    return _row(
        "a PreToolUse decision of hookline serve in Claude Code",
        "≤ what one `true` command hook adds",
        measured,
        served <= true,
    )


_CHECKS: tuple[Callable[[dict[str, Any], float | None], Row | None], ...] = (
    _cli("short"),
    _cli("long"),
    _below_peers,
    _hooks_added,
    _dispatch(5),
    _dispatch(1),
    _sdk_callback,
    _growth,
    _start_up("import hookline", 100.0),
    _start_up("hookline --version", 150.0),
    _scale_rate,
    _scale_memory,
    _one_command,
    _five_commands,
    _served_hook,
)
