"""bench/compare.py keeps working: its quick run of hookline's own rows writes the figures it
promises, its arithmetic is what bench/README.md says, and a wrong ``--only`` is refused."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
COMPARE = ROOT / "bench" / "compare.py"
HOOKLINE_ROWS = {"hookline", "hookline-sdk", "hookline-cli"}


def run_compare(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(COMPARE), *args],
        capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=600, check=False,
    )  # fmt: skip


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path, str]:
    out = tmp_path_factory.mktemp("compare")
    json_path, png_path = out / "compare.json", out / "compare.png"
    done = run_compare("--quick", "--only", "hookline", "--json", str(json_path),
                       "--png", str(png_path))  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(json_path.read_text()), png_path, done.stdout


def test_the_quick_run_measures_every_hookline_row(quick: tuple[dict[str, Any], Path, str]) -> None:
    results, _, _ = quick
    assert set(results["frameworks"]) == HOOKLINE_ROWS
    cells = {(r["framework"], r["hooks"], r["calls"]): r for r in results["per_call"]}
    assert set(cells) == {(f, h, n) for f in HOOKLINE_ROWS for h in (0, 1, 5) for n in (10, 50)}
    # Measured, each: a number. Its sign is not asserted: a cost is a difference of medians (a
    # run less the empty run), and on a loaded machine a short run's can come out below zero.
    assert all(isinstance(r["median_us"], float) and r["runs"] >= 1 for r in cells.values())
    assert all(
        cells[("hookline", h, n)]["ratio_to_hookline"] == 1 for h in (0, 1, 5) for n in (10, 50)
    )
    assert {(a["framework"], a["hooks"]) for a in results["hook_overhead"]} == {
        (f, h) for f in HOOKLINE_ROWS for h in (1, 5)
    }


def test_the_quick_run_measures_memory_start_up_scale_and_command_hooks(
    quick: tuple[dict[str, Any], Path, str],
) -> None:
    results, _, _ = quick
    assert {m["framework"] for m in results["memory"]} == HOOKLINE_ROWS
    assert all(m["peak_rss_mib"] >= m["import_rss_mib"] > 0 for m in results["memory"])
    assert {s["framework"] for s in results["scale"]} == {"hookline", "hookline-sdk"}
    assert all(s["calls_per_s"] > 0 and s["peak_rss_mib"] > 0 for s in results["scale"])
    startup = {s["what"]: s for s in results["startup"]}
    assert {"python -c pass", "import hookline", "hookline --version"} <= set(startup)
    assert all(s["median_ms"] > 0 and s["peak_mib"] > 0 for s in startup.values())
    commands = results["command_hooks"]["rows"]
    assert all(row["median_ms"] > 0 for row in commands.values())
    assert results["command_hooks"]["cpus"] >= 1
    dispatch = {row["hooks"]: row for row in results["dispatch"]["rows"]}
    assert {"none", "sdk", "python", "python-1"} <= set(dispatch)
    assert all(row["median_us"] > 0 for row in dispatch.values())
    assert dispatch["none"]["added_us"] == 0


def test_the_quick_run_prints_the_tables_and_plots_or_says_why_not(
    quick: tuple[dict[str, Any], Path, str],
) -> None:
    results, png, stdout = quick
    assert "Cost per tool call" in stdout
    assert "hookline run (CLI)" in stdout
    assert "Hook dispatch alone" in stdout
    assert "Targets" in stdout
    judged = {r["target"]: r for r in results["targets"]["rows"]}
    assert results["targets"]["speed"] > 0
    assert {CLI_SHORT, CLI_LONG, "import hookline", RATE, MEMORY,
            "one `true` command hook"} <= set(judged)  # fmt: skip
    assert all(r["met"] in (True, False, None) for r in judged.values())
    if importlib.util.find_spec("matplotlib") is None:
        assert not png.exists()
        assert any("matplotlib is not installed" in note for note in results["notes"])
    else:
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_ratios_added_cost_and_growth_are_computed_per_hook_count_and_length() -> None:
    sys.path.insert(0, str(COMPARE.parent))
    try:
        import compare
    finally:
        sys.path.remove(str(COMPARE.parent))
    rows = [
        {"framework": fw, "hooks": h, "calls": n, "median_us": us}
        for fw, h, n, us in [
            ("hookline", 0, 10, 40.0), ("hookline", 5, 10, 60.0),
            ("hookline", 0, 1000, 30.0), ("hookline", 5, 1000, 50.0),
            ("peer", 0, 10, 400.0), ("peer", 5, 10, 900.0),
            ("peer", 0, 1000, 3000.0), ("peer", 5, 1000, 6000.0),
        ]
    ]  # fmt: skip
    out = compare.derived(rows)
    assert [r["ratio_to_hookline"] for r in rows] == [1, 1, 1, 1, 10, 15, 100, 120]
    added = {(a["framework"], a["hooks"], a["calls"]): a["added_us"] for a in out["hook_overhead"]}
    assert added == {("hookline", 5, 10): 20, ("hookline", 5, 1000): 20,
                     ("peer", 5, 10): 500, ("peer", 5, 1000): 3000}  # fmt: skip
    growth = {(g["framework"], g["hooks"]): g["ratio"] for g in out["growth"]}
    assert growth == {("hookline", 0): 0.75, ("hookline", 5): 50 / 60,
                      ("peer", 0): 7.5, ("peer", 5): 6000 / 900}  # fmt: skip


def test_an_unknown_only_name_is_refused_with_the_names_there_are() -> None:
    done = run_compare("--only", "crewai")
    assert done.returncode == 2
    assert "--only crewai: no such row" in done.stderr
    assert "openai-agents" in done.stderr


def _targets_module() -> Any:
    sys.path.insert(0, str(COMPARE.parent / "peers"))
    try:
        import targets
    finally:
        sys.path.remove(str(COMPARE.parent / "peers"))
    return targets


def _results(*, cli_us: float, loop_us: float, rate: float, session_mib: float) -> dict[str, Any]:
    """A compare.py result with just what the targets read: the library loop at 112 µs is
    twice the reference loop (56), so the scaled limits are twice the written ones. The CLI
    costs ``cli_us`` at 1,000 calls and twice the loop at 10; Strands 10x the loop at 10 calls
    and 100x at 1,000; ``session_mib``: hookline's peak with 1,000 sessions at once, over 40
    MiB after import (Strands': 150 KiB a session)."""
    per_call = [
        {"framework": fw, "hooks": hooks, "calls": n, "median_us": us}
        for fw, hooks, n, us in [
            ("hookline", 5, 10, loop_us), ("hookline", 5, 1000, loop_us),
            ("hookline-cli", 5, 10, 2 * loop_us), ("hookline-cli", 5, 1000, cli_us),
            ("strands", 5, 10, 10 * loop_us), ("strands", 5, 1000, 100 * loop_us),
        ]
    ]  # fmt: skip
    return {
        "per_call": per_call,
        "hook_overhead": [
            {"framework": "hookline-sdk", "hooks": 1, "calls": 1000, "added_us": 60.0},
            {"framework": "hookline", "hooks": 5, "calls": 1000, "added_us": 40.0},
        ],
        "growth": [
            {"framework": "hookline", "hooks": 5, "calls": [10, 1000], "ratio": 1.19},
            {"framework": "peer", "hooks": 5, "calls": [10, 1000], "ratio": 9.0},
        ],
        "startup": [
            {"what": "import hookline", "median_ms": 101.0},
            {"what": "hookline --version", "median_ms": 150.0},
        ],
        "memory": [
            {"framework": "hookline", "import_rss_mib": 40.0},
            {"framework": "strands", "import_rss_mib": 60.0},
        ],
        "scale": [
            {
                "framework": "hookline",
                "calls_per_s": rate,
                "sessions": 1000,
                "calls": 10,
                "peak_rss_mib": session_mib,
            },
            {
                "framework": "strands",
                "calls_per_s": 600.0,
                "sessions": 1000,
                "calls": 10,
                "peak_rss_mib": 60.0 + 150 * 1000 / 1024,
            },
        ],
        "dispatch": {
            "rows": [
                {"hooks": "python", "added_us": 4.0},
                {"hooks": "strands-5", "added_us": 4.1},
                {"hooks": "python-1", "added_us": 2.0},
            ]
        },
        "command_hooks": {
            "cpus": 2,
            "ratios": {
                "true: 1 hook added / bare spawn": 1.2,
                "true: 1 hook added / bare spawn, pidfd": 1.31,
                "true: 5 hooks added / 1 hook added": 1.9,
                "true: (floor) 5 bare spawns at once / 1": 3.9,
            },
        },
        "claude_code": {"added_ms": {"true_1": 3.91, "serve_1": 3.90}},
    }


CLI_SHORT = "hookline run (CLI) / library loop, 5 hooks, 10 calls"
SERVED = "a PreToolUse decision of hookline serve in Claude Code"
CLI_LONG = "hookline run (CLI) / library loop, 5 hooks, longer runs"
RATE, MEMORY = (
    "sessions at once, 5 hooks: tool calls/s",
    "sessions at once, 5 hooks: memory a session",
)


def test_targets_are_judged_as_written_and_scaled_to_the_machine() -> None:
    judged = _targets_module().judge(
        _results(cli_us=250.0, loop_us=112.0, rate=6000.0, session_mib=40.0 + 50 * 1000 / 1024)
    )
    assert judged["speed"] == 2.0
    rows = {r["target"]: r for r in judged["rows"]}
    verdicts = {name: (r["met"], r["scaled"]) for name, r in rows.items()}
    assert verdicts == {
        CLI_SHORT: (True, True),  # 2x the loop at 10 calls: ≤ 2.5x
        CLI_LONG: (False, False),  # 250 / 112 = 2.2x: > 2x, a ratio, so not scaled
        "library loop, 5 hooks, below the fastest peer": (True, True),  # 10x and 100x
        "five Python hooks, added to a loop call": (False, True),  # 40 µs: > 25, ≤ 50
        "hook dispatch, 5 Python hooks": (True, True),  # 4.0 ≤ Strands' 4.1
        "hook dispatch, 1 Python hook": (None, None),  # no strands-1 row: cannot tell
        "an Agent SDK callback": (False, True),  # 60 µs: > 50, ≤ 100
        "cost a call at 1000 calls / at 10": (True, True),  # 1.19; the peer's 9.0 not counted
        "import hookline": (False, True),  # 101 ms
        "hookline --version": (True, True),  # 150 ms, the limit itself
        RATE: (True, True),  # 6,000/s: 10x Strands' 600
        MEMORY: (True, True),  # 50 KiB a session: 1/3 of Strands' 150
        "one `true` command hook": (False, False),  # 1.31 > 1.3 (the pidfd floor's), not scaled
        "five `true` command hooks": (None, None),  # 2 cores: 5 bare spawns cost 3.9x one
        SERVED: (True, True),  # 3.90 ms added against `true`'s 3.91
    }
    assert rows[CLI_LONG]["measured"] == "2.2x at 1000 calls (250 µs)"
    assert rows["library loop, 5 hooks, below the fastest peer"]["measured"] == (
        "10.0x at 10 (strands), 100.0x at 1000 (strands)"
    )
    assert rows[MEMORY]["measured"] == "50 KiB vs 150 (strands's)"
    assert rows["one `true` command hook"]["measured"] == (
        "1.31x the pidfd spawn (1.20x asyncio's spawn)"
    )


def test_targets_tip_over_at_their_limits() -> None:
    judge = _targets_module().judge
    slower = judge(_results(cli_us=225.0, loop_us=112.0, rate=5999.0, session_mib=40.0 + 0.05))
    verdicts = {r["target"]: (r["met"], r["scaled"]) for r in slower["rows"]}
    assert verdicts[CLI_LONG] == (False, False)  # 2.01x
    assert verdicts[RATE] == (False, False)  # 9.998x
    assert verdicts[MEMORY] == (True, True)  # 51 bytes a session
    fatter = judge(_results(cli_us=224.0, loop_us=112.0, rate=6000.0, session_mib=40.0 + 0.0489))
    assert {r["target"]: r["met"] for r in fatter["rows"]}[CLI_LONG] is True  # 2x exactly
    heavy = judge(
        _results(cli_us=224.0, loop_us=112.0, rate=6000.0, session_mib=40.0 + 50.1 * 1000 / 1024)
    )
    assert {r["target"]: r["met"] for r in heavy["rows"]}[MEMORY] is False  # 50.1 KiB > 50
    served = _results(cli_us=224.0, loop_us=112.0, rate=6000.0, session_mib=40.0)
    served["claude_code"]["added_ms"]["serve_1"] = 3.92
    assert {r["target"]: r["met"] for r in judge(served)["rows"]}[SERVED] is False


def test_targets_not_measured_are_left_out_or_say_why() -> None:
    results = _results(cli_us=150.0, loop_us=112.0, rate=6000.0, session_mib=80.0)
    results["scale"] = [s for s in results["scale"] if s["framework"] == "hookline"]
    results["dispatch"]["rows"] = [{"hooks": "python", "added_us": 4.0}]
    results["per_call"] = [r for r in results["per_call"] if r["framework"] == "hookline"]
    del results["claude_code"]
    rows = {r["target"]: r for r in _targets_module().judge(results)["rows"]}
    assert CLI_SHORT not in rows and CLI_LONG not in rows and SERVED not in rows
    for name in (RATE, MEMORY, "library loop, 5 hooks, below the fastest peer"):
        assert rows[name]["met"] is None and "no peer measured" in rows[name]["measured"]
    assert rows["hook dispatch, 5 Python hooks"]["met"] is None
    assert "Strands not installed" in rows["hook dispatch, 5 Python hooks"]["measured"]


def test_a_command_hook_without_a_pidfd_spawn_is_judged_against_asyncios() -> None:
    results = _results(cli_us=150.0, loop_us=112.0, rate=6000.0, session_mib=80.0)
    del results["command_hooks"]["ratios"]["true: 1 hook added / bare spawn, pidfd"]
    rows = {r["target"]: r for r in _targets_module().judge(results)["rows"]}
    one = rows["one `true` command hook"]
    assert (one["measured"], one["met"]) == ("1.20x asyncio's spawn", True)
