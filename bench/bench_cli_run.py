"""``hookline run`` as a user runs it: cost per tool call, and peak memory, from fresh processes.

Run ``python bench/bench_cli_run.py`` (``--quick`` for a smoke check, ``--json`` for JSON).

Each sample is ``hookline run --model scripted:FILE --hooks FILE --max-turns N+1
--output-format json "go"`` in a fresh project folder, with the defaults: the audit on (SQLite
and JSONL in the project's state folder), permissions in ``default`` mode, the transcript. The
script has N turns of one ``Read`` call each (of a one-line file in the project), then a final
text. The hooks file has five Claude Agent SDK callbacks (``HOOKS`` with ``HookMatcher``): two
PreToolUse (matcher ``Read``), three PostToolUse. **Per call** at N = (median wall time at N -
median wall time at N = 0) / N, so the process start, imports and the audit store's creation
cancel out. Samples are spawned by bench_startup.py's spawner, which also gives each process's
CPU time (user and system, all threads: steadier than wall time on a shared machine) and peak
memory; per call is given from both. Calls run in rounds over every N, the order rotating each
round. Before timing, one run per N is checked: it ended with ``end_turn``, made N calls, all
executed, with 5 hook runs per call.
``HOOKLINE_SRC=DIR`` measures another checkout's ``src``, as in bench_startup.py.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import benchkit  # beside this script; puts ../src on sys.path when needed
from bench_startup import _CLI, Sample, Spawner, child_env
from benchkit import SCRATCH, p90

HOOKS = """
from hookline import HookMatcher

calls = 0

async def gate(input_data, tool_use_id, context):
    if "secret" in input_data["tool_input"].get("file_path", ""):
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse",
                "permissionDecision": "deny", "permissionDecisionReason": "no secrets"}}
    return {}

async def watch(input_data, tool_use_id, context):
    return {}

async def seen(input_data, tool_use_id, context):
    return {}

async def logged(input_data, tool_use_id, context):
    return {}

async def count(input_data, tool_use_id, context):
    global calls
    calls += 1
    return {}

HOOKS = {
    "PreToolUse": [HookMatcher(matcher="Read", hooks=[gate, watch])],
    "PostToolUse": [HookMatcher(hooks=[seen, logged, count])],
}
"""


def script(calls: int) -> dict[str, Any]:
    """N turns of one ``Read`` each (of the project's ``note.txt``), then the final text."""
    turn = {"tool_calls": [{"name": "Read", "input": {"file_path": "note.txt"}}]}
    return {"turns": [turn] * calls + [{"text": "done"}]}


class Fixture:
    """The hooks file, one script per N, and a fresh project folder per sample."""

    def __init__(self, root: Path, sizes: list[int]) -> None:
        self.root, self.count = root, 0
        self.hooks = root / "hooks.py"
        self.hooks.write_text(HOOKS)
        self.scripts = {}
        for n in sizes:
            path = root / f"script{n}.json"
            path.write_text(json.dumps(script(n)))
            self.scripts[n] = path

    def argv(self, calls: int) -> list[str]:
        self.count += 1
        project = self.root / f"p{self.count}"
        project.mkdir()
        (project / "note.txt").write_text("one line\n")
        model = f"scripted:{self.scripts[calls]}"
        return [*_CLI, "run", "--cwd", str(project), "--model", model, "--hooks",
                str(self.hooks), "--max-turns", str(calls + 1), "--output-format", "json",
                "go"]  # fmt: skip


def check(fixture: Fixture, calls: int, env: dict[str, str]) -> None:
    """One run of N calls, read back: every call executed, five hook runs each."""
    out = subprocess.run(fixture.argv(calls), env=env, capture_output=True, text=True, check=True)
    result = json.loads(out.stdout)
    statuses = [c["status"] for c in result["tool_calls"]]
    ok = result["stop_reason"] == "end_turn" and statuses == ["executed"] * calls
    if not ok or len(result["hook_runs"]) != 5 * calls:
        raise SystemExit(f"N={calls}: unexpected result {out.stdout[:500]}\n{out.stderr}")


def run_all(quick: bool) -> dict[str, Any]:
    sizes = [0, 10, 200, 1000]
    warmup, rounds = (1, 3) if quick else (2, 11)
    samples: dict[int, list[Sample]] = {n: [] for n in sizes}
    root = Path(tempfile.mkdtemp(prefix="hookline-cli-", dir=SCRATCH))
    cache = tempfile.mkdtemp(prefix="hookline-pyc-")
    spawner = Spawner(child_env(cache))
    try:
        fixture = Fixture(root, sizes)
        for n in sizes:
            check(fixture, n, child_env(cache))
        for index in range(warmup + rounds):
            shift = index % len(sizes)
            for n in sizes[shift:] + sizes[:shift]:
                sample = spawner.sample(fixture.argv(n))
                if index >= warmup:
                    samples[n].append(sample)
    finally:
        spawner.close()
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(cache, ignore_errors=True)
    base = statistics.median(s.ms for s in samples[0])
    base_cpu = statistics.median(s.cpu_ms for s in samples[0])
    rows = []
    for n in sizes:
        median = statistics.median(s.ms for s in samples[n])
        cpu = statistics.median(s.cpu_ms for s in samples[n])
        rows.append(
            {
                "calls": n,
                "runs": rounds,
                "median_ms": median,
                "p90_ms": p90([s.ms for s in samples[n]]),
                "per_call_us": (median - base) * 1000 / n if n else None,
                "cpu_ms": cpu,
                "cpu_per_call_us": (cpu - base_cpu) * 1000 / n if n else None,
                "peak_mib": statistics.median(s.peak_mib for s in samples[n]),
            }
        )
    return {"python": sys.version.split()[0], "cpus": os.cpu_count(), "rows": rows}


def table(results: dict[str, Any]) -> str:
    lines = [
        f"{results['cpus']} CPUs, Python {results['python']}",
        f"{'calls':>6}{'runs':>6}{'median ms':>11}{'p90 ms':>9}{'µs/call':>10}"
        f"{'CPU ms':>9}{'CPU µs/call':>13}{'peak MiB':>10}",
    ]
    for row in results["rows"]:
        per_call = "-" if row["per_call_us"] is None else f"{row['per_call_us']:.0f}"
        cpu_call = "-" if row["cpu_per_call_us"] is None else f"{row['cpu_per_call_us']:.0f}"
        lines.append(
            f"{row['calls']:>6}{row['runs']:>6}{row['median_ms']:>11.1f}{row['p90_ms']:>9.1f}"
            f"{per_call:>10}{row['cpu_ms']:>9.1f}{cpu_call:>13}{row['peak_mib']:>10.1f}"
        )
    by_n = {row["calls"]: row for row in results["rows"]}
    wall = by_n[1000]["per_call_us"] / by_n[10]["per_call_us"]
    cpu = by_n[1000]["cpu_per_call_us"] / by_n[10]["cpu_per_call_us"]
    lines.append(f"per call at 1000 / at 10: {wall:.2f} (wall), {cpu:.2f} (CPU)")
    return "\n".join(lines)


if __name__ == "__main__":
    benchkit.main(__doc__ or "", run_all, table)
