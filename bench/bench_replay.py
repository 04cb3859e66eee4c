"""What ``hookline replay`` costs an event: reading it from a session file, and judging it with
a policy, beside the hooks and rules it runs.

The history is Claude Code session files of N recorded calls, a mix of non-Bash tools (Read,
Edit, Grep, WebFetch, an MCP tool), each with its ``tool_result``. Rows, µs an event: ``read``
is ``hookline._replay.read``; ``judged, no hooks`` is replay's verdict with an empty policy
(the tool pipeline's check: input check, path rules, permission layer); ``judged, 5 Python
hooks`` with five PreToolUse gates that answer at once; ``live decision`` is the same policy's
decision of the same events as ``hookline serve`` makes it (``Judge.rule`` on each payload):
the hooks and rules themselves; ``hooks alone`` the five hooks dispatched by the engine. The
in-process rows run with the garbage collector tuned as the command tunes it
(``hookline._cli.program_gc``).
``replay's own`` is read + judged - live decision: reading, making the event, the report's
verdict. Then the whole command (``hookline replay --json``, start-up included) over 8
sessions, in one process and in two (``--jobs``): events a second. Run ``python
bench/bench_replay.py`` (``--quick`` for a smoke check, ``--json`` for JSON).
"""

from __future__ import annotations

import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
from functools import partial
from pathlib import Path
from time import perf_counter
from typing import Any

import benchkit  # puts ../src on sys.path when needed
from benchkit import SCRATCH
from hookline._cli import program_gc
from hookline._hooks.engine import HookEngine
from hookline._hooks.wire import event_from_payload
from hookline._project import load_project
from hookline._replay import Replayer, read, replay

CALLS = [
    ("Read", {"file_path": "src/app.py"}),
    ("Edit", {"file_path": "src/app.py", "old_string": "a", "new_string": "b"}),
    ("Grep", {"pattern": "TODO", "path": "src"}),
    ("WebFetch", {"url": "https://docs.example.com/api", "prompt": "summarise"}),
    ("mcp__tickets__create", {"title": "flaky test"}),
]
HOOKS = "\n".join(
    ["from hookline import Decision", "", "def gate(event):", "    return None", "",
     "def register(registry):"]
    + [f"    registry.add('PreToolUse', gate, name='gate{i}')" for i in range(5)]
)  # fmt: skip


def history(folder: Path, calls: int, session: str = "bench") -> Path:
    """A Claude Code session file of ``calls`` recorded calls in ``folder``."""
    base = {"cwd": str(folder), "sessionId": session}
    lines = []
    for n in range(calls):
        name, tool_input = CALLS[n % len(CALLS)]
        use = {"type": "tool_use", "id": f"t{n}", "name": name, "input": tool_input}
        done = {"type": "tool_result", "tool_use_id": f"t{n}", "content": "ok", "is_error": False}
        lines.append({**base, "type": "assistant", "message": {"content": [use]}})
        lines.append({**base, "type": "user", "message": {"content": [done]}})
    path = folder / f"{session}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def timed(work: Any, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = perf_counter()
        work()
        times.append(perf_counter() - start)
    return statistics.median(times)


def run_all(quick: bool) -> dict[str, Any]:
    calls, rounds = (200, 3) if quick else (5000, 7)
    with tempfile.TemporaryDirectory(dir=SCRATCH) as tmp:
        folder = Path(tmp)
        (folder / "hooks.py").write_text(HOOKS)
        path = history(folder, calls)
        events = read(path)
        empty = load_project(folder, trust=True)
        hooked = load_project(folder, hook_files=[str(folder / "hooks.py")], trust=True)
        payloads = [event.payload(str(path)) for event in events]
        engine = HookEngine(hooked.hooks)

        async def judged(project: Any) -> None:
            replayer = Replayer(project)
            await replay(events, replayer)
            await replayer.aclose()

        async def live(project: Any) -> None:
            judge = Replayer(project).judge
            for payload in payloads:
                await judge.rule(payload)
            await judge.aclose()

        async def hooks_alone() -> None:
            for payload in payloads:
                await engine.dispatch(event_from_payload(payload)[0])

        with program_gc.tuned():  # the collector as `hookline replay` runs with it
            read_s = timed(lambda: read(path), rounds)
            bare_s = timed(lambda: asyncio.run(judged(empty)), rounds)
            hooked_s = timed(lambda: asyncio.run(judged(hooked)), rounds)
            live_s = timed(lambda: asyncio.run(live(hooked)), rounds)
            hooks_s = timed(lambda: asyncio.run(hooks_alone()), rounds)
        command = whole_command(folder, calls, 1 if quick else 3)
    per = 1e6 / calls
    return {
        "events": calls,
        "read_us": read_s * per,
        "judge_empty_us": bare_s * per,
        "judge_hooks_us": hooked_s * per,
        "live_us": live_s * per,
        "hooks_alone_us": hooks_s * per,
        "own_us": (read_s + hooked_s - live_s) * per,
        "events_per_s": calls / (read_s + hooked_s),
        **command,
    }


def whole_command(folder: Path, calls: int, rounds: int) -> dict[str, Any]:
    """``hookline replay --json`` over 8 sessions of ``calls`` events each: events a second
    in one process and in two, start-up and the report included."""
    sessions = [str(history(folder, calls, f"s{n}")) for n in range(8)]
    hooks = str(folder / "hooks.py")
    found = {}
    for jobs in (1, 2):
        args = ["replay", *sessions, "--cwd", str(folder), "--hooks", hooks, "--json"]
        line = [sys.executable, "-m", "hookline", *args, "--jobs", str(jobs)]
        seconds = timed(partial(subprocess.run, line, check=True, capture_output=True), rounds)
        found[f"command_jobs{jobs}_per_s"] = 8 * calls / seconds
    return found


def table(results: dict[str, Any]) -> str:
    return "\n".join([
        f"{results['events']} recorded non-Bash calls, µs an event:",
        f"read                              {results['read_us']:8.1f}",
        f"judged, no hooks                  {results['judge_empty_us']:8.1f}",
        f"judged, 5 Python hooks            {results['judge_hooks_us']:8.1f}",
        f"live decision, same policy        {results['live_us']:8.1f}",
        f"hooks alone (the engine)          {results['hooks_alone_us']:8.1f}",
        f"replay's own (read+judged-live)   {results['own_us']:8.1f}",
        f"events a second, in-process       {results['events_per_s']:8.0f}",
        f"events a second, command, 1 job   {results['command_jobs1_per_s']:8.0f}",
        f"events a second, command, 2 jobs  {results['command_jobs2_per_s']:8.0f}",
    ])  # fmt: skip


if __name__ == "__main__":
    benchkit.main(__doc__ or "", run_all, table)
