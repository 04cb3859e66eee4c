"""Command hooks: what one costs next to spawning the same command bare, in the same run.

Run ``python bench/bench_command_hooks.py`` (``--quick`` for a smoke check, ``--json`` for JSON).
The method is written down in bench/README.md.
"""

from __future__ import annotations

import asyncio
import json
import os
import platform
import statistics
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from subprocess import PIPE
from time import perf_counter
from typing import Any

import benchkit  # beside this script; puts ../src on sys.path when needed
import hookline
from benchkit import SCRATCH, p90
from hookline import Agent, HookEngine, HookRegistry, HookRun, PreToolUse, ScriptedModel
from hookline._claude.command import CommandHook
from hookline._claude.settings import load_settings
from hookline._events import Scope
from hookline._support.process import run_process

TRUE = ["/bin/sh", "-c", "true 1"]  # what the one-hook configuration runs, spawned bare
#: The ids and paths of a payload Claude Code sent (tests/reaction_hooks/payloads/PreToolUse.json).
SESSION, PROMPT = "d0bec9ad-936a-48ca-a213-75c3297749fd", "f267b3ef-a3d7-40f2-9d49-cb4f8c52f502"
TRANSCRIPT = f"/home/dev/.claude/projects/-work-main/{SESSION}.jsonl"
CALL = "toolu_801af6a5001646cd9c50"
BASH_INPUT = {"command": "echo hello", "description": "Print hello"}
PY_COMMAND = "python3 -c 'import sys,json; json.load(sys.stdin)'"  # as measured in Claude Code
GATE = "def gate(event):\n    return None  # no opinion\n"
SETTINGS = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
    {"type": "python", "callable": "gate.py:gate"}]}]}}  # fmt: skip
LABELS = {  # what each figure is, by its key in the results
    "bare": "spawn, asyncio.create_subprocess_exec",
    "bare_x5": "spawn x5 at once, create_subprocess_exec",
    "run_process": "spawn, hookline._support.process.run_process",
    "dispatch_1": "dispatch, 1 hook (true 1)",
    "dispatch_5": "dispatch, 5 hooks (true 1 .. true 5)",
    "call_0": "tool call, 0 hooks",
    "call_1": "tool call, 1 hook",
    "call_5": "tool call, 5 hooks",
    "python_command": "dispatch, python command hook",
    "python_settings": "dispatch, python hook from settings",
    "python_settings_warm": "  the same, 1,000 in a row (per dispatch)",
    "sleep_pair": "dispatch, 2 hooks that sleep 1 s",
}

Check = Callable[[Any], bool]
Job = tuple[Callable[[], Awaitable[Any]], Check]


@hookline.tool(name="Bash")
def bash(command: str, description: str = "") -> str:
    """A stand-in for Bash that runs nothing, so the figure is the hooks, not a shell."""
    return "ok"


def command_hooks(project: str, *commands: str) -> HookRegistry:
    """A registry with one PreToolUse command hook (matcher ``Bash``) per command."""
    registry = HookRegistry()
    for command in commands:
        registry.add("PreToolUse", CommandHook(command, project_dir=project), matcher="Bash")
    return registry


def settings_hooks(project: Path) -> HookRegistry:
    """The Python gate of a ``.claude/settings.json`` written in ``project``, loaded as users do."""
    (project / "gate.py").write_text(GATE)
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps(SETTINGS))
    settings = load_settings(project, home=project / "home", managed_dir=project / "managed")
    registry = HookRegistry()
    if settings.register(registry, project_dir=project) != 1 or settings.warnings:
        raise SystemExit(f"the settings hook did not load: {settings.warnings}")
    return registry


def ran(hooks: int) -> Check:
    """A check that a dispatch ran ``hooks`` hooks, none of them failing."""
    return lambda d: len(d.runs) == hooks and all(r.failure is None for r in d.runs)


async def spawn_bare(stdin: bytes, cwd: str) -> int | None:
    """``/bin/sh -c 'true 1'`` as asyncio offers it: three pipes, stdin fed, output read."""
    process = await asyncio.create_subprocess_exec(
        *TRUE, stdin=PIPE, stdout=PIPE, stderr=PIPE, cwd=cwd
    )
    await process.communicate(stdin)
    return process.returncode


async def timed(job: Job) -> float:
    """Seconds one run of ``job`` took; exits if its result fails the check."""
    run, check = job
    start = perf_counter()
    result = await run()
    seconds = perf_counter() - start
    if not check(result):
        raise SystemExit(f"bench run went wrong: {result!r}")
    return seconds


async def measure(
    rounds: int, warmup: int, every: int, batches: int, sleeps: int
) -> dict[str, Any]:
    """Interleaved rounds: each times every fast job once, in a rotating order, and every
    ``every``-th round the Python command hook too; then ``batches`` batches of the Python
    hook from settings, and the sleeping pair ``sleeps`` times."""
    with tempfile.TemporaryDirectory(dir=SCRATCH) as tmp:
        scope = Scope(SESSION, TRANSCRIPT, tmp, prompt_id=PROMPT)
        event = scope.event(PreToolUse, tool_name="Bash", tool_input=BASH_INPUT, tool_use_id=CALL)
        line = json.dumps(event.to_payload(), separators=(",", ":"), ensure_ascii=False)
        stdin, env = f"{line}\n".encode(), dict(os.environ)
        trues = [f"true {i}" for i in range(1, 6)]
        one, five = (HookEngine(command_hooks(tmp, *trues[:n])) for n in (1, 5))
        agents = [
            Agent(ScriptedModel([]), tools=[bash], hooks=command_hooks(tmp, *trues[:n]), cwd=tmp)
            for n in (0, 1, 5)
        ]
        hook_runs: list[HookRun] = []  # what the agents' hooks did, checked at the end
        for agent in agents:
            agent.stream.subscribe(HookRun, hook_runs.append)
        python_command = HookEngine(command_hooks(tmp, PY_COMMAND))
        python_settings = HookEngine(settings_hooks(Path(tmp)))
        sleepers = HookEngine(command_hooks(tmp, "sleep 1; true 1", "sleep 1; true 2"))

        def call(agent: Agent) -> Job:
            return lambda: agent.call_tool("Bash", BASH_INPUT), lambda r: r.status == "executed"

        jobs: dict[str, Job] = {
            "bare": (lambda: spawn_bare(stdin, tmp), lambda code: code == 0),
            "bare_x5": (
                lambda: asyncio.gather(*(spawn_bare(stdin, tmp) for _ in range(5))),
                lambda codes: codes == [0] * 5,
            ),
            "run_process": (
                lambda: run_process(TRUE, stdin=stdin, cwd=tmp, env=env, kill_grace=1.0),
                lambda done: done.returncode == 0,
            ),
            "dispatch_1": (lambda: one.dispatch(event), ran(1)),
            "dispatch_5": (lambda: five.dispatch(event), ran(5)),
            **{f"call_{n}": call(agent) for n, agent in zip((0, 1, 5), agents, strict=True)},
            "python_settings": (lambda: python_settings.dispatch(event), ran(1)),
            "python_command": (lambda: python_command.dispatch(event), ran(1)),
        }
        slow = ("python_command",)
        fast = [name for name in jobs if name not in slow]
        samples: dict[str, list[float]] = {name: [] for name in LABELS}
        for i in range(warmup + rounds):
            order = fast[i % len(fast) :] + fast[: i % len(fast)]
            for name in (*order, *slow) if i % every == 0 else order:
                seconds = await timed(jobs[name])
                if i >= warmup:
                    samples[name].append(seconds)
        for _ in range(batches + 1):  # the first batch warms up
            start = perf_counter()
            for _ in range(1000):
                await python_settings.dispatch(event)
            samples["python_settings_warm"].append((perf_counter() - start) / 1000)
        del samples["python_settings_warm"][0]
        for _ in range(sleeps):
            samples["sleep_pair"].append(await timed((lambda: sleepers.dispatch(event), ran(2))))
        for agent in agents:
            await agent.close()
    if len(hook_runs) != 6 * (warmup + rounds) or any(r.failure for r in hook_runs):
        raise SystemExit("the tool calls' hooks did not all run")
    return {"stdin_bytes": len(stdin), "samples": samples}


def summarise(measured: dict[str, Any], rounds: int, warmup: int) -> dict[str, Any]:
    """Medians and p90s (inclusive upper decile) in ms, and each target with its verdict."""
    rows = [
        {"key": key, "what": LABELS[key], "n": len(values),
         "median_ms": statistics.median(values) * 1e3,
         "p90_ms": p90(values) * 1e3}
        for key, values in measured["samples"].items()
    ]  # fmt: skip
    m = {row["key"]: row["median_ms"] for row in rows}
    added_1, added_5 = m["call_1"] - m["call_0"], m["call_5"] - m["call_0"]
    targets = [  # (what, figure, limit or None when given for context, unit)
        ("1 hook dispatch / bare spawn", m["dispatch_1"] / m["bare"], 1.3, "x"),
        ("1 hook added per tool call / bare spawn", added_1 / m["bare"], 1.3, "x"),
        ("5 hooks / 1 hook, dispatch", m["dispatch_5"] / m["dispatch_1"], 2.0, "x"),
        ("5 hooks / 1 hook, added per tool call", added_5 / added_1, 2.0, "x"),
        ("(floor) 5 bare spawns at once / 1 bare spawn", m["bare_x5"] / m["bare"], None, "x"),
        ("2 hooks that sleep 1 s, one dispatch", m["sleep_pair"] / 1e3, 1.1, "s"),
        ("python hook from settings", m["python_settings"] * 1e3, 1000.0, "µs"),
    ]
    machine = f"{os.cpu_count()} CPUs, Python {platform.python_version()}, {platform.platform()}"
    return {
        "machine": machine, "rounds": rounds, "warmup": warmup,
        "stdin_bytes": measured["stdin_bytes"], "rows": rows,
        "targets": [{"what": w, "figure": f, "limit": lim, "unit": u,
                     "pass": None if lim is None else f <= lim} for w, f, lim, u in targets],
    }  # fmt: skip


def verdict(t: dict[str, Any]) -> str:
    """``<= limit  PASS`` (or MISS); a dash for a figure given for context only."""
    if t["limit"] is None:
        return f"{'-':>9}"
    return f"{'<= ' + format(t['limit'], 'g') + t['unit']:>9}  {'PASS' if t['pass'] else 'MISS'}"


def table(results: dict[str, Any]) -> str:
    """The results as a small plain-text table."""
    return "\n".join([
        f"{results['machine']}; {results['rounds']} interleaved rounds after "
        f"{results['warmup']} warm-up; hook stdin {results['stdin_bytes']} bytes",
        f"{'what':<46}  {'n':>4}  {'median ms':>9}  {'p90 ms':>8}",
        *(f"{r['what']:<46}  {r['n']:>4}  {r['median_ms']:>9.3f}  {r['p90_ms']:>8.3f}"
          for r in results["rows"]),
        f"{'target':<46}  {'figure':>9}  {'limit':>9}",
        *(f"{t['what']:<46}  {t['figure']:>7.2f}{t['unit']:<2}  {verdict(t)}"
          for t in results["targets"]),
    ])  # fmt: skip


def run_all(quick: bool) -> dict[str, Any]:
    rounds, warmup, every, batches, sleeps = (30, 5, 3, 5, 1) if quick else (600, 20, 5, 20, 5)
    return summarise(asyncio.run(measure(rounds, warmup, every, batches, sleeps)), rounds, warmup)


if __name__ == "__main__":
    benchkit.main(__doc__, run_all, table)
