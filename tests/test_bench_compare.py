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
    assert all(r["median_us"] > 0 and r["runs"] >= 1 for r in cells.values())
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
    assert commands["sleep_pair"]["median_ms"] < 2000  # the two 1 s hooks ran at once
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
