"""hookline side by side with other agent frameworks: cost per tool call with 0, 1 and 5
hooks against run length, command hooks against bare spawns, start-up, memory and scale.

Run ``python bench/compare.py`` (``--quick`` for a smoke check; ``--only NAME`` for some rows;
``--json PATH``, ``--png PATH`` for where the results go). It prints a table, writes JSON and,
with matplotlib, draws cost per tool call against run length. Each framework runs in its own
subprocess (one script per framework in bench/peers/), so a framework that is not installed is
skipped with a note, and each figure of memory is that framework's own. The peers install with
``pip install -e '.[bench]'``; the method is written down in bench/README.md.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import benchkit  # noqa: F401  (beside this script; puts ../src on sys.path when needed)
from bench_startup import _CLI, Spawner, child_env

HERE = Path(__file__).resolve().parent
PEERS = HERE / "peers"
sys.path.insert(0, str(PEERS))
import report  # noqa: E402  (bench/peers/report.py: the table and the plot)
import targets  # noqa: E402  (bench/peers/targets.py: the targets judged)


@dataclass(frozen=True)
class Framework:
    """One column of the comparison: its script in bench/peers/, what it needs installed, and
    what a program using it imports first (the start-up row)."""

    name: str
    label: str
    script: str
    needs: str
    imports: str | None = None
    scales: bool = True


FRAMEWORKS = (
    Framework("hookline", "hookline, library loop", "hookline_lib.py", "hookline",
              "from hookline import Agent"),
    Framework("hookline-sdk", "hookline, SDK callbacks", "hookline_sdk.py", "hookline"),
    Framework("hookline-cli", "hookline run (CLI)", "hookline_cli.py", "hookline", scales=False),
    Framework("openai-agents", "OpenAI Agents SDK", "openai_agents.py", "agents",
              "from agents import Agent, Runner"),
    Framework("strands", "Strands Agents", "strands_agents.py", "strands",
              "from strands import Agent"),
    Framework("pydantic-ai", "Pydantic AI", "pydantic_ai_agent.py", "pydantic_ai",
              "from pydantic_ai import Agent"),
    Framework("langchain", "LangChain v1", "langchain_agent.py", "langchain",
              "from langchain.agents import create_agent"),
)  # fmt: skip
#: Rows that are not a framework's own: hookline's command hooks, hook dispatch alone (hookline
#: and Strands), the real Claude Code CLI.
SECTIONS = ("hookline-commands", "hookline-dispatch", "claude-code")
BASELINE = "hookline"  # every ratio is to hookline's library loop


def chosen(name: str, only: list[str]) -> bool:
    """``--only hookline`` takes every ``hookline-*`` row too."""
    return not only or any(name == o or name.startswith(f"{o}-") for o in only)


def run_script(script: Path, *args: str) -> dict[str, Any]:
    """Run one bench script in its own process; its JSON, or ``{"error": ...}``."""
    done = subprocess.run(
        [sys.executable, str(script), *args],
        capture_output=True, text=True, stdin=subprocess.DEVNULL, check=False,
    )  # fmt: skip
    if done.returncode:
        lines = (done.stderr or done.stdout).strip().splitlines() or ["(no output)"]
        return {"error": f"{script.name} exited {done.returncode}: {lines[-1]}"}
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def per_call(fw: Framework, quick: bool) -> dict[str, Any]:
    """Peak memory of a 200-call run (first, in the fresh process), then cost per tool call."""
    calls = "10,50" if quick else "10,200,1000"
    return run_script(PEERS / fw.script, "calls", "--calls", calls, *(["--quick"] * quick))


def scale(fw: Framework, quick: bool) -> dict[str, Any]:
    sessions, calls = ("50", "4") if quick else ("1000", "10")
    return run_script(PEERS / fw.script, "scale", "--sessions", sessions, "--calls", calls,
                      "--hooks", "5")  # fmt: skip


def start_up(frameworks: list[Framework], quick: bool) -> list[dict[str, Any]]:
    """Fresh processes spawned by bench_startup.py's spawner: from spawn to exit, the CPU they
    used and their peak memory; medians."""
    cases = {"python -c pass": [sys.executable, "-c", "pass"]}
    if any(fw.name == BASELINE for fw in frameworks):
        cases["import hookline"] = [sys.executable, "-c", "import hookline"]
        cases["hookline --version"] = [*_CLI, "--version"]
    cases.update(
        {fw.imports: [sys.executable, "-c", fw.imports] for fw in frameworks if fw.imports}
    )
    warmup, rounds = (1, 2) if quick else (3, 21)
    samples: dict[str, list[Any]] = {name: [] for name in cases}
    cache = tempfile.mkdtemp(prefix="hookline-pyc-")
    spawner = Spawner(child_env(cache))
    try:
        names = list(cases)
        for i in range(warmup + rounds):
            for name in names[i % len(names) :] + names[: i % len(names)]:
                sample = spawner.sample(cases[name])
                if i >= warmup:
                    samples[name].append(sample)
    finally:
        spawner.close()
        shutil.rmtree(cache, ignore_errors=True)
    return [
        {"what": name, "runs": len(s), "median_ms": statistics.median(x.ms for x in s),
         "cpu_ms": statistics.median(x.cpu_ms for x in s),
         "peak_mib": statistics.median(x.peak_mib for x in s)}
        for name, s in samples.items()
    ]  # fmt: skip


def derived(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Each row's ratio to hookline's (same hooks, same run length), what hooks add per call
    (hooked - unhooked), and the cost at the longest run over the shortest."""
    cost = {(r["framework"], r["hooks"], r["calls"]): r["median_us"] for r in rows}
    for r in rows:
        base = cost.get((BASELINE, r["hooks"], r["calls"]))
        r["ratio_to_hookline"] = r["median_us"] / base if base else None
    added = [
        {"framework": fw, "hooks": h, "calls": n, "added_us": us - cost[(fw, 0, n)]}
        for (fw, h, n), us in cost.items()
        if h and (fw, 0, n) in cost
    ]
    growth = []
    for fw, h in sorted({(fw, h) for fw, h, _ in cost}):
        lengths = sorted(n for f, hh, n in cost if (f, hh) == (fw, h))
        short, long = lengths[0], lengths[-1]
        ratio = cost[(fw, h, long)] / cost[(fw, h, short)]
        growth.append({"framework": fw, "hooks": h, "calls": [short, long], "ratio": ratio})
    return {"hook_overhead": added, "growth": growth}


def run_all(args: argparse.Namespace) -> dict[str, Any]:
    """Every chosen row, each framework in its own processes; what could not run, in notes."""
    out: dict[str, Any] = {"machine": machine(), "quick": args.quick, "notes": []}
    out.update(frameworks={}, per_call=[], memory=[], scale=[])
    present = []
    for fw in (fw for fw in FRAMEWORKS if chosen(fw.name, args.only)):
        if importlib.util.find_spec(fw.needs) is None:
            out["notes"].append(f"{fw.name}: skipped, {fw.needs} is not installed "
                                "(pip install -e '.[bench]')")  # fmt: skip
        elif measure(fw, args.quick, out):
            present.append(fw)
    out.update(derived(out["per_call"]))
    report.progress("start-up")
    out["startup"] = start_up(present, args.quick)
    quick = ["--quick"] * args.quick
    if chosen("hookline-commands", args.only):
        report.progress("command hooks")
        out["command_hooks"] = run_script(PEERS / "hookline_commands.py", *quick)
    if chosen("hookline-dispatch", args.only):
        report.progress("hook dispatch alone")
        out["dispatch"] = run_script(HERE / "bench_dispatch.py", "--json", *quick)
    if chosen("claude-code", args.only):
        report.progress("Claude Code")
        claude = out["claude_code"] = run_script(PEERS / "claude_code.py", *quick)
        if "rows" not in claude:
            out["notes"].append(f"claude-code: {claude.get('skipped') or claude['error']}")
    out["targets"] = targets.judge(out)
    return out


def measure(fw: Framework, quick: bool, out: dict[str, Any]) -> bool:
    """One framework's rows added to ``out``; False (and a note) if its script failed."""
    report.progress(f"{fw.name}: memory of a 200-call run, cost per tool call")
    measured = per_call(fw, quick)
    if "error" in measured:
        out["notes"].append(f"{fw.name}: {measured['error']}")
        return False
    if "failed" in measured:  # the shorter runs stand; the table shows "-" for the rest
        out["notes"].append(f"{fw.name}: {measured['failed']}")
    keep = ("version", "hook", "method")
    out["frameworks"][fw.name] = {"label": fw.label, **{k: measured[k] for k in keep}}
    out["per_call"] += [{"framework": fw.name, **row} for row in measured["rows"]]
    out["memory"].append({"framework": fw.name, **measured["memory"]})
    if fw.scales:
        report.progress(f"{fw.name}: sessions at once")
        out["scale"].append({"framework": fw.name, **scale(fw, quick)})
    return True


def machine() -> dict[str, Any]:
    return {
        "date": datetime.date.today().isoformat(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "load_average": os.getloadavg() if hasattr(os, "getloadavg") else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few repetitions, short runs")
    parser.add_argument("--only", action="append", default=[], metavar="NAME",
                        help=f"only these rows (repeatable): {', '.join(names())}")  # fmt: skip
    parser.add_argument("--json", type=Path, default=HERE / "results" / "compare.json")
    parser.add_argument("--png", type=Path, default=HERE / "results" / "compare.png")
    args = parser.parse_args()
    unknown = [o for o in args.only if not any(chosen(n, [o]) for n in names())]
    if unknown:
        parser.error(f"--only {unknown[0]}: no such row; choose from {', '.join(names())}")
    results = run_all(args)
    results["notes"].append(report.plot(results, args.png))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(results, indent=2) + "\n")
    report.show(results)
    print(f"JSON written to {args.json}")


def names() -> list[str]:
    return [*(fw.name for fw in FRAMEWORKS), *SECTIONS]


if __name__ == "__main__":
    main()
