"""The audit log's added cost per tool call, and how long a deferred session takes to resume.

Run ``python bench/bench_audit_resume.py`` (``--quick`` for a smoke check, ``--json`` for JSON,
``--audit-only`` for the audit rows alone). The method is written down in bench/README.md.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from time import perf_counter
from typing import Any

import bench_tool_calls as tc  # beside this script
import benchkit  # puts ../src on sys.path when needed
import hookline
from bench_tool_calls import bump, five_hooks, gate, noop
from benchkit import SCRATCH, p90
from hookline import Agent, Decision, HookRegistry, ScriptedModel
from hookline._tools.approvals import Approval
from hookline.audit import AuditLog
from hookline.audit._records import unfolded
from hookline.storage import open_store

#: The CLI processes import the same hookline as this script.
_PATH = [str(Path(hookline.__file__).parents[1]), *os.environ.get("PYTHONPATH", "").split(":")]
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in _PATH if p)}
CLI_SCRIPT = {"turns": [{"tool_calls": [{"id": "t_w", "name": "Write",
                                         "input": {"file_path": "out.txt", "content": "v1"}}]},
                        {"text": "written"}]}  # fmt: skip
#: ``hookline run``'s exit code when the session waits for an answer.
PAUSED = 4
CLI = ["python -c pass", "python -c 'import hookline._cli.main'", "hookline sessions resume"]
_paid: list[float] = []  # when the deferred call's body started


@hookline.tool
def pay(amount: int) -> str:
    """Pay an amount: the call that waits for an answer."""
    _paid.append(perf_counter())
    return "paid"


def script(calls: int, pay_last: bool = False) -> list[dict[str, Any]]:
    """``calls`` turns of one noop call (the last one a payment, if asked), then the final text."""
    turns: list[dict[str, Any]] = [
        {"tool_calls": [{"id": f"t{i}", "name": "noop", "input": {"x": i}}]} for i in range(calls)
    ]
    if pay_last:
        turns[-1]["tool_calls"][0].update(name="pay", input={"amount": 30})
    return [*turns, {"text": "done"}]


async def interleaved(configs: list[Any], runs: int, warmup: int, once: Callable[..., Any]) -> Any:
    """Rounds that run every configuration once, the order rotating by one place each round."""
    samples: dict[Any, list[Any]] = {c: [] for c in configs}
    for r in range(warmup + runs):
        for config in configs[r % len(configs) :] + configs[: r % len(configs)]:
            value = await once(config)
            if r >= warmup:
                samples[config].append(value)
    return samples


def stats(values: list[float]) -> dict[str, float]:
    """n, median and p90 (inclusive decile)."""
    return {"n": len(values), "median": statistics.median(values), "p90": p90(values)}


def count_records(tmp: str, calls: int, hooks: int) -> int:
    """The audit rows in the run's store, checked against audit.jsonl and the hooks that ran."""
    state = Path(tmp) / ".hookline" / "state"
    store = open_store(None, state_dir=state)
    rows = store.audit_rows()
    store.close()
    lines = (state / "audit.jsonl").read_bytes().count(b"\n")
    # a call's hook runs ride in its records (data["hooks"]); unfolded gives them back as rows
    named = {r.data.get("hook") for r in unfolded(rows) if r.event == "PreToolUse"}
    pre = {f"{f.__module__}.{f.__qualname__}" for f in (gate, bump)} if hooks else set()
    if lines != len(rows) or named != pre or sum(r.kind == "tool" for r in rows) != calls:
        raise SystemExit(f"audit went wrong: {len(rows)} rows, {lines} lines, hooks {named}")
    return len(rows)


#: The audit modes: off; "before", the audit as it was before it wrote ahead (no tool_started
#: record, nothing written before the body: the same run's baseline for the target); on (written
#: ahead before each body, the result written when the call ends); and group commit (written
#: ahead before each body; the result waits up to GROUP_DELAY seconds, or the next start).
MODES: tuple[bool | str, ...] = (False, "before", True, "group")
GROUP_DELAY = 0.05


def _not_ahead(observer: Any, session: Any, started: Any) -> None:
    """The "before" mode: a tool start is neither recorded nor written."""


async def audit_run(calls: int, config: tuple[int, Any], turns: list[dict[str, Any]]) -> Any:
    """One fresh agent in a fresh temp dir: (µs per call, ms of ``run``, audit rows)."""
    hooks, audit = config
    counts: Counter[str] = Counter()
    registry = five_hooks([], counts) if hooks else HookRegistry()
    with tempfile.TemporaryDirectory(dir=SCRATCH) as tmp:
        agent = Agent(ScriptedModel(turns), tools=[noop], hooks=registry, cwd=tmp,
                      max_turns=calls + 1, audit=bool(audit),
                      audit_delay=GROUP_DELAY if audit == "group" else 0.0)  # fmt: skip
        tc._body_seconds = 0.0
        ahead = AuditLog.tool_started
        AuditLog.tool_started = _not_ahead if audit == "before" else ahead  # type: ignore[method-assign,assignment]
        try:
            start = perf_counter()
            result = await agent.run("call noop")
            wall = perf_counter() - start
            await agent.close()
        finally:
            AuditLog.tool_started = ahead  # type: ignore[method-assign]
        rows = count_records(tmp, calls, hooks) if audit else 0
    ran = sum(r.status == "executed" for r in result.tool_calls)
    observed = counts["calls"] == (calls if hooks else 0)  # the PostToolUse observers saw them
    if result.stop_reason != "end_turn" or ran != calls or not observed:
        raise SystemExit(f"bench run went wrong: {result.stop_reason}, {ran}/{calls} ran")
    return (wall - tc._body_seconds) / calls * 1e6, wall * 1e3, rows


def audit_rows(calls: int, runs: int, warmup: int) -> list[dict[str, Any]]:
    """Audit off and on, with 0 and 5 hooks, interleaved in one ``asyncio.run``."""
    turns, configs = script(calls), [(h, a) for h in (0, 5) for a in MODES]
    samples = asyncio.run(interleaved(configs, runs, warmup, lambda c: audit_run(calls, c, turns)))
    rows: list[dict[str, Any]] = []
    off: dict[str, Any] = {}
    for hooks, audit in configs:
        got = samples[hooks, audit]
        row: dict[str, Any] = {
            "calls": calls, "hooks": hooks, "audit": audit, **stats([g[0] for g in got]),
            "run_ms": statistics.median(g[1] for g in got),
            "records_per_call": statistics.median(g[2] for g in got) / calls,
        }  # fmt: skip
        off = row if audit is False else off
        row["added_us"] = row["median"] - off["median"] if audit is not False else None
        rows.append(row)
    return rows


def fit(rows: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """What each audit mode adds, from the median run times at 10 and 1000 calls: per call +
    per run."""
    ms = {(r["calls"], r["hooks"], r["audit"]): r["run_ms"] for r in rows}
    out = {}
    for hooks in (0, 5):
        for mode in MODES[1:]:
            small, big = (ms[n, hooks, mode] - ms[n, hooks, False] for n in (10, 1000))
            per_call = (big - small) / 990 * 1e3
            out[f"{hooks} {_name(mode)}"] = {"per_call_us": per_call,
                                             "per_run_us": small * 1e3 - 10 * per_call}  # fmt: skip
    return out


def _name(mode: bool | str) -> str:
    return mode if isinstance(mode, str) else "on" if mode else "off"


def agent_for(tmp: str, calls: int, audit: bool) -> Agent:
    """Payments wait for finance (a PreToolUse defer); the answer to ``resume`` lets one pass."""
    registry = HookRegistry()
    registry.add("PreToolUse", lambda e: Decision.defer("payments wait for finance"),
                 matcher="pay", name="finance-gate")  # fmt: skip
    return Agent(ScriptedModel(script(calls, pay_last=True)), tools=[noop, pay], hooks=registry,
                 cwd=tmp, max_turns=calls + 2, audit=audit)  # fmt: skip


async def resume_once(calls: int, audit: bool) -> tuple[float, float]:
    """Pause at call ``calls``; ms from ``resume`` on a fresh agent to the body, and to the end."""
    with tempfile.TemporaryDirectory(dir=SCRATCH) as tmp:
        async with agent_for(tmp, calls, audit) as first:
            paused = await first.run("pay the invoice")
        agent = agent_for(tmp, calls, audit)
        _paid.clear()
        tc._starts.clear()
        start = perf_counter()
        result = await agent.resume(paused.session_id, Approval.allow())
        end = perf_counter()
        await agent.close()
    seen = (paused.stop_reason, result.stop_reason, len(_paid), len(tc._starts))
    if seen != ("tool_deferred", "end_turn", 1, 0):  # paused, resumed, paid once, nothing rerun
        raise SystemExit(f"resume went wrong: {paused.stop_reason}, {result.stop_reason}")
    return (_paid[0] - start) * 1e3, (end - start) * 1e3


def resume_rows(runs: int, warmup: int) -> list[dict[str, Any]]:
    """In-process resumes of sessions paused at call 1 and call 200, audit off and on."""
    configs = [(calls, audit) for calls in (1, 200) for audit in (False, True)]
    samples = asyncio.run(interleaved(configs, runs, warmup, lambda c: resume_once(*c)))
    return [{"paused_at_call": calls, "audit": audit, **stats([s[0] for s in got]),
             "to_end_ms": statistics.median(s[1] for s in got)}
            for (calls, audit), got in samples.items()]  # fmt: skip


def spawn(*args: str, cwd: str | None = None, code: int = 0) -> tuple[float, str]:
    """``python ARGS``, run to its exit, which must be ``code``: (ms from spawn to exit,
    stdout)."""
    start = perf_counter()
    done = subprocess.run([sys.executable, *args], cwd=cwd, env=ENV, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    took = (perf_counter() - start) * 1e3
    if done.returncode != code:
        raise SystemExit(f"python {' '.join(args)} exited {done.returncode}: {done.stderr}")
    return took, done.stdout


async def cli_once(what: str) -> float:
    """One timed process; the resume gets a session that ``hookline run`` paused just before."""
    cli = ("-m", "hookline._cli.main")
    with tempfile.TemporaryDirectory(dir=SCRATCH) as tmp:  # every process starts in a fresh dir
        if what != CLI[2]:
            return spawn("-c", "pass" if what == CLI[0] else "import hookline._cli.main", cwd=tmp)[
                0
            ]
        (Path(tmp) / "script.json").write_text(json.dumps(CLI_SCRIPT))
        _, out = spawn(*cli, "run", "write it", "--model", "scripted:script.json", "--defer-asks",
                       "--output-format", "json", cwd=tmp, code=PAUSED)  # fmt: skip
        took, out = spawn(*cli, "sessions", "resume", json.loads(out)["session_id"], "--approve",
                          "--output-format", "json", cwd=tmp)  # fmt: skip
        if json.loads(out)["stop_reason"] != "end_turn" or not (Path(tmp) / "out.txt").exists():
            raise SystemExit(f"the CLI resume went wrong: {out}")
    return took


def run_all(quick: bool) -> dict[str, Any]:
    plan = [(10, 30, 5), (1000, 3, 1)] if quick else [(10, 300, 30), (1000, 15, 2)]
    audit = [row for calls, runs, warmup in plan for row in audit_rows(calls, runs, warmup)]
    if AUDIT_ONLY:
        return {"audit": audit, "audit_fit": fit(audit)}
    resume = resume_rows(*((5, 1) if quick else (60, 5)))
    cli = asyncio.run(interleaved(CLI, *((3, 1) if quick else (20, 2)), cli_once))
    spawns = {what: stats(ms) for what, ms in cli.items()}
    over_import = statistics.median(a - b for a, b in zip(cli[CLI[2]], cli[CLI[1]], strict=True))
    return {"audit": audit, "audit_fit": fit(audit), "resume": resume, "cli": spawns,
            "cli_hookline_ms": over_import}  # fmt: skip


AUDIT = "{calls:>9}  {hooks:>5}  {on:>6}  {n:>4}  {median:>14.1f}  {p90:>11.1f}  {rec:>12.2f}  "
RESUME = "{paused_at_call:>22}  {on:>5}  {n:>4}  {median:>17.2f}  {p90:>6.2f}  {to_end_ms:>9.2f}"


def table(results: dict[str, Any]) -> str:
    """The results as three small plain-text tables."""
    lines = ["calls/run  hooks   audit  runs  median µs/call  p90 µs/call  records/call  added µs"]
    for r in results["audit"]:
        add = "" if r["added_us"] is None else f"{r['added_us']:8.1f}"
        on = _name(r["audit"])
        lines.append((AUDIT.format(**r, on=on, rec=r["records_per_call"]) + add).rstrip())
    for key, f in results["audit_fit"].items():
        hooks, mode = key.split()
        lines.append(f"{hooks} hooks, added by the audit {mode:>6} (fit): "
                     f"{f['per_call_us']:6.1f} µs/call + {f['per_run_us']:.0f} µs/run")  # fmt: skip
    if "resume" not in results:
        return "\n".join(lines)
    lines.append("resume, paused at call  audit  runs  to body median ms  p90 ms  to end ms")
    lines += [RESUME.format(**r, on="on" if r["audit"] else "off") for r in results["resume"]]
    lines.append(f"{'spawn to exit':38}  runs  median ms  p90 ms")
    for what, s in results["cli"].items():
        lines.append(f"{what:38}  {s['n']:>4}  {s['median']:>9.1f}  {s['p90']:>6.1f}")
    lines.append(f"resume minus import, same round: median {results['cli_hookline_ms']:.1f} ms")
    return "\n".join(lines)


#: ``--audit-only``: the audit rows and their fit, without the resumes and the CLI processes.
AUDIT_ONLY = "--audit-only" in sys.argv

if __name__ == "__main__":
    if AUDIT_ONLY:
        sys.argv.remove("--audit-only")
    benchkit.main(__doc__, run_all, table)
