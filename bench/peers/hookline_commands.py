"""Command hooks in hookline next to spawning the same command bare, in one process and one
event loop; prints one JSON object.

Each hook gets what bench_command_hooks.py gives it: a PreToolUse event for ``Bash`` as compact
JSON on stdin, and the tool is a ``Bash`` that runs nothing. The commands: ``true N`` (``N``
tells the hooks apart, identical ones would run once) and ``PYTHON hook.py N``, a script that
reads the JSON, run by the interpreter running this (``python3`` on a PATH may be a slow shim).
The bare rows spawn ``/bin/sh -c COMMAND`` as a hook does (three pipes, stdin fed), one, or
five ``true N`` at once: the floor for five hooks. A bare spawn is timed two ways: as asyncio
offers it (on Python 3.11 a thread waits for each child), and with the exit read from a pidfd
on the loop, as hookline's command hooks do there: the stricter floor. A tool
call's figure is ``agent.call_tool`` with 0, 1 or 5 such PreToolUse hooks; "added" is its
median less the median with none. Two hooks that ``sleep 1`` show that hooks
of one event run at once. Rounds time every row once in a rotating order; each result is
checked (exit 0, the call executed, every hook ran and none failed).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from subprocess import PIPE
from time import perf_counter
from typing import Any

import peerkit  # noqa: F401  (puts bench/ on sys.path: benchkit, bench_command_hooks)

from bench_command_hooks import BASH_INPUT, CALL, bash, command_hooks
from benchkit import SCRATCH, p90
from hookline import Agent, HookRun, ScriptedModel

SCRIPT = "import sys, json\njson.load(sys.stdin)\n"


async def spawn(command: str, stdin: bytes, cwd: str) -> bool:
    """``/bin/sh -c command`` as asyncio offers it: three pipes, stdin fed, output read."""
    process = await asyncio.create_subprocess_exec(
        "/bin/sh", "-c", command, stdin=PIPE, stdout=PIPE, stderr=PIPE, cwd=cwd
    )
    await process.communicate(stdin)
    return process.returncode == 0


async def spawn_pidfd(command: str, stdin: bytes, cwd: str) -> bool:
    """The same spawn with its exit read from a pidfd on the loop and its pipes read as they
    fill, no thread per child (asyncio's default on Python 3.11 starts one; 3.12 reads pidfds).
    The leanest spawn asyncio's loop allows: the floor for a command hook."""
    loop = asyncio.get_running_loop()
    child = subprocess.Popen(["/bin/sh", "-c", command], stdin=PIPE, stdout=PIPE, stderr=PIPE,
                             cwd=cwd, bufsize=0)  # fmt: skip
    assert child.stdin is not None and child.stdout is not None and child.stderr is not None
    with contextlib.suppress(BrokenPipeError):  # it may exit unread, as a hook may
        child.stdin.write(stdin)  # a few hundred bytes: the pipe takes them at once
    child.stdin.close()
    pidfd = os.pidfd_open(child.pid)
    try:
        await asyncio.gather(_readable(loop, pidfd, once=True), _drained(loop, child.stdout),
                             _drained(loop, child.stderr))  # fmt: skip
    finally:
        os.close(pidfd)
        child.stdout.close()
        child.stderr.close()
    return os.waitstatus_to_exitcode(os.waitpid(child.pid, 0)[1]) == 0


async def _drained(loop: asyncio.AbstractEventLoop, pipe: Any) -> None:
    os.set_blocking(pipe.fileno(), False)
    await _readable(loop, pipe.fileno(), once=False)


async def _readable(loop: asyncio.AbstractEventLoop, fd: int, *, once: bool) -> None:
    """Until ``fd`` is readable (``once``), or until it reads end-of-file."""
    done = loop.create_future()

    def ready() -> None:
        if once or not os.read(fd, 65536):
            loop.remove_reader(fd)
            done.set_result(None)

    loop.add_reader(fd, ready)
    await done


def jobs(tmp: str, stdin: bytes) -> tuple[dict[str, Callable[[], Awaitable[bool]]], list[Agent]]:
    """Every row: what it runs, answering whether it went as it should."""
    true = [f"true {i}" for i in range(1, 6)]
    python = [f"{shlex.quote(sys.executable)} hook.py {i}" for i in range(1, 6)]
    configs = {"call_0": [], "call_true_1": true[:1], "call_true_5": true,
               "call_python_1": python[:1], "call_python_5": python,
               "sleep_pair": ["sleep 1; true 1", "sleep 1; true 2"]}  # fmt: skip
    agents = {
        name: Agent(ScriptedModel([]), tools=[bash], hooks=command_hooks(tmp, *cmds), cwd=tmp)
        for name, cmds in configs.items()
    }

    def call(agent: Agent) -> Callable[[], Awaitable[bool]]:
        async def go() -> bool:
            return (await agent.call_tool("Bash", BASH_INPUT)).status == "executed"

        return go

    async def five_at_once() -> bool:
        return all(await asyncio.gather(*(spawn(c, stdin, tmp) for c in true)))

    rows: dict[str, Callable[[], Awaitable[bool]]] = {
        "bare_true": lambda: spawn(true[0], stdin, tmp),
        "bare_true_pidfd": lambda: spawn_pidfd(true[0], stdin, tmp),
        "bare_true_x5": five_at_once,
        "bare_python": lambda: spawn(python[0], stdin, tmp),
        **{name: call(agent) for name, agent in agents.items()},
    }
    return rows, list(agents.values())


async def measure(rounds: int, warmup: int, sleeps: int) -> dict[str, list[float]]:
    with tempfile.TemporaryDirectory(dir=SCRATCH) as tmp:
        (Path(tmp) / "hook.py").write_text(SCRIPT)
        event = {"session_id": "bench", "hook_event_name": "PreToolUse", "tool_name": "Bash",
                 "tool_input": BASH_INPUT, "tool_use_id": CALL, "cwd": tmp}  # fmt: skip
        rows, agents = jobs(tmp, (json.dumps(event) + "\n").encode())
        runs: list[HookRun] = []
        for agent in agents:
            agent.stream.subscribe(HookRun, runs.append)
        samples: dict[str, list[float]] = {name: [] for name in rows}
        fast = [name for name in rows if name != "sleep_pair"]
        for i in range(warmup + rounds):
            for name in fast[i % len(fast) :] + fast[: i % len(fast)]:
                seconds = await timed(rows[name])
                if i >= warmup:
                    samples[name].append(seconds)
        for _ in range(sleeps):
            samples["sleep_pair"].append(await timed(rows["sleep_pair"]))
        for agent in agents:
            await agent.close()
    expected = (warmup + rounds) * (1 + 5 + 1 + 5) + 2 * sleeps
    if len(runs) != expected or any(r.failure for r in runs):
        raise SystemExit(f"the hooks did not all run: {len(runs)} of {expected}")
    return samples


async def timed(job: Callable[[], Awaitable[bool]]) -> float:
    start = perf_counter()
    ok = await job()
    seconds = perf_counter() - start
    if not ok:
        raise SystemExit("bench run went wrong: a spawn failed or a call did not execute")
    return seconds


def summarise(samples: dict[str, list[float]]) -> dict[str, Any]:
    rows = {name: {"n": len(v), "median_ms": statistics.median(v) * 1e3,
                   "p90_ms": p90(v) * 1e3} for name, v in samples.items()}  # fmt: skip
    m = {name: row["median_ms"] for name, row in rows.items()}
    added = {k: m[f"call_{k}"] - m["call_0"] for k in ("true_1", "true_5", "python_1", "python_5")}
    return {
        "cpus": os.cpu_count(),
        "rows": rows,
        "added_ms": added,
        "ratios": {
            "true: 1 hook added / bare spawn": added["true_1"] / m["bare_true"],
            "true: 1 hook added / bare spawn, pidfd": added["true_1"] / m["bare_true_pidfd"],
            "true: 5 hooks added / 1 hook added": added["true_5"] / added["true_1"],
            "true: (floor) 5 bare spawns at once / 1": m["bare_true_x5"] / m["bare_true"],
            "python: 1 hook added / bare spawn": added["python_1"] / m["bare_python"],
            "python: 5 hooks added / 1 hook added": added["python_5"] / added["python_1"],
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few repetitions: a smoke check")
    quick = parser.parse_args().quick
    rounds, warmup, sleeps = (3, 1, 1) if quick else (100, 5, 3)
    json.dump(summarise(asyncio.run(measure(rounds, warmup, sleeps))), sys.stdout)


if __name__ == "__main__":
    main()
