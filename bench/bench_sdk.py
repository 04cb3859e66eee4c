"""One Claude Agent SDK program, run on hookline and on the real SDK: time per hooked tool call
and peak memory.

Run ``python bench/bench_sdk.py`` (``--quick`` for a smoke check, ``--json`` for JSON,
``--sdk-python PATH`` for an interpreter that has ``claude-agent-sdk``; by default this one if
it has it, else ``$CLAUDE_SDK_PYTHON``; without one the SDK's rows are skipped with a note).

The program (``program`` below) is the same for both, only its import differs:
``ClaudeSDKClient(options=ClaudeAgentOptions(allowed_tools=["Bash"], hooks={"PreToolUse":
[HookMatcher(matcher="Bash", hooks=[allow])]}))``, where ``allow`` is one async Python callback
answering ``permissionDecision: "allow"``; it asks ``Run the bash command N times: true``. The
model is tests/fake_claude_api.py on 127.0.0.1, in this process, which answers N ``Bash``
calls of ``true``, then a text. The real SDK starts its bundled Claude Code CLI per client and
the loop runs there; hookline runs it in the program's own process. Both run ``true`` in a
real shell.

Each sample is a fresh process (the program's, with the CLI as its child for the SDK) in a
fresh folder, its home there too: one untimed warm-up run of 1 call, then one run each of
1, 10 and 50 calls, each timed from ``client.query`` to the ``ResultMessage`` (connecting, which
starts the CLI, is timed apart), with the CPU time of the process and its ended children over
the run. Every run is checked: N tool calls made, N callbacks called, a result that is not an
error. Per hooked tool call is the marginal cost, ``(run(50) - run(1)) / 49`` on the medians.
Then ``PAIRS`` pairs of 50-call runs, one with the hook and one without (no ``hooks`` option,
still ``allowed_tools=["Bash"]``), in alternating order: the hook's added cost per call is
hooked minus bare, per call, on the medians of wall and CPU time. Then one more run of 50
calls for memory: the process's ``ru_maxrss``, and the peak of its
descendants' summed high-water marks, watched in /proc (``Descendants``); "tree" is their sum.
The frameworks take turns, one sample each per round (``--samples``, 5 by default).

A hook's added cost in hookline is far below the noise of a whole call, so hookline's child
also measures it in-process: calls through a ``HookEngine`` with ``allow`` registered against
none (bench_dispatch.py's ``batch``; ``callback_cost`` below).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from time import perf_counter
from typing import Any

import benchkit  # noqa: F401  (beside this script; puts ../src on sys.path when needed)
from benchkit import SCRATCH

HERE = Path(__file__).resolve()
TESTS = HERE.parent.parent / "tests"
CALLS = (1, 10, 50)
TARGET = 50.0  # the issue: at least 50x less time per hooked tool call than the SDK
PAIRS = 4  # per sample: runs of the largest size with the hook and without, interleaved
BATCHES, DISPATCHES = 11, 2000  # hookline's in-process callback cost, per sample
INSTALL = (
    "pip install claude-agent-sdk==0.2.189 (its wheel bundles the CLI) in a venv of its own, "
    "then pass --sdk-python VENV/bin/python"
)
ALLOW = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}
#: framework -> the module its program imports everything from.
MODULES = {"hookline": "hookline", "claude-agent-sdk": "claude_agent_sdk"}


# -- the program, in the child process -------------------------------------------------------


def allow_callback(hooked: list[str]) -> Any:
    """The one PreToolUse callback: records the command it saw and answers ``allow``."""

    async def allow(input_data: Any, tool_use_id: str | None, context: Any) -> Any:
        hooked.append(input_data["tool_input"].get("command", ""))
        return {
            "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}
        }

    return allow


async def program(sdk: Any, calls: int, hooked: list[str] | None) -> tuple[float, float]:
    """One client, one prompt of ``calls`` Bash calls: (seconds to connect, seconds to result).
    With ``hooked`` None the client has no ``hooks`` option at all (the bare run)."""
    options = sdk.ClaudeAgentOptions(allowed_tools=["Bash"])
    if hooked is not None:
        matcher = sdk.HookMatcher(matcher="Bash", hooks=[allow_callback(hooked)])
        options = sdk.ClaudeAgentOptions(allowed_tools=["Bash"], hooks={"PreToolUse": [matcher]})
    began = perf_counter()
    async with sdk.ClaudeSDKClient(options=options) as client:
        start = perf_counter()
        await client.query(f"Run the bash command {calls} times: true")
        made, result = 0, None
        async for message in client.receive_response():
            if isinstance(message, sdk.AssistantMessage):
                made += sum(isinstance(b, sdk.ToolUseBlock) for b in message.content)
            elif isinstance(message, sdk.ResultMessage):
                result = message
        took = perf_counter() - start
    if made != calls or result is None or result.is_error:
        raise SystemExit(f"the run of {calls} calls went wrong: {made} calls, {result!r}")
    return start - began, took


async def timed(sdk: Any, calls: int, hooked: list[str] | None) -> dict[str, float]:
    """One run of ``program`` with the CPU time of the process tree over it."""
    cpu = _cpu_seconds()
    connect, run = await program(sdk, calls, hooked)
    return {"connect_s": connect, "run_s": run, "cpu_s": _cpu_seconds() - cpu}


def child(framework: str) -> dict[str, Any]:
    """A sample: the warm-up, one timed run per size, one more run of the largest size with the
    process tree's memory watched (peak memory after it), then ``PAIRS`` pairs of runs of the
    largest size with and without the hook (their order alternating). For hookline, then the
    callback's cost in-process (``callback_cost``)."""
    import asyncio

    sdk = importlib.import_module(MODULES[framework])
    hooked: list[str] = []

    async def sizes() -> dict[str, Any]:
        await program(sdk, 1, hooked)
        return {str(n): await timed(sdk, n, hooked) for n in CALLS}

    async def pairs() -> dict[str, list[dict[str, float]]]:
        found: dict[str, list[dict[str, float]]] = {"hooked": [], "bare": []}
        for index in range(PAIRS):
            for kind in ("hooked", "bare")[:: 1 if index % 2 == 0 else -1]:
                hooks = hooked if kind == "hooked" else None
                found[kind].append(await timed(sdk, CALLS[-1], hooks))
        return found

    out: dict[str, Any] = {"runs": asyncio.run(sizes())}
    with Descendants() as children:
        asyncio.run(program(sdk, CALLS[-1], hooked))
    # Read before the pairs: ru_maxrss is the peak over the process's life.
    out["maxrss_kib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out["children_kib"] = children.peak_kib
    out["pairs"] = asyncio.run(pairs())
    if len(hooked) != 1 + sum(CALLS) + (PAIRS + 1) * CALLS[-1] or set(hooked) != {"true"}:
        raise SystemExit(f"the PreToolUse callback saw {len(hooked)} calls: {set(hooked)}")
    if framework == "hookline":
        out["dispatch_us"] = callback_cost(sdk)
    return out


def callback_cost(sdk: Any) -> dict[str, float]:
    """µs per call through a fresh ``HookEngine``, with ``allow`` registered as the program
    registers it (an SDK ``HookMatcher`` on PreToolUse) and with no hook: the median of
    ``BATCHES`` batches each (after a warm-up batch), taking turns in alternating order.

    A batch is bench_dispatch.py's ``batch``: ``DISPATCHES`` calls, each a PreToolUse and a
    PostToolUse event built and dispatched, every dispatch checked; its tool is ``Read``, so
    the matcher here is ``Read``. Both configurations dispatch the same events, so the
    difference is what the callback adds to one call."""
    import asyncio

    import bench_dispatch  # beside this script; imports hookline, so only in hookline's child

    seen: list[str] = []
    registry = sdk.HookRegistry()
    matcher = sdk.HookMatcher(matcher="Read", hooks=[allow_callback(seen)])
    registry.add_matchers({"PreToolUse": [matcher]}, source="sdk")
    engines = {
        "hooked": (sdk.HookEngine(registry), 1),
        "bare": (sdk.HookEngine(sdk.HookRegistry()), 0),
    }

    async def measure() -> dict[str, list[float]]:
        times: dict[str, list[float]] = {name: [] for name in engines}
        for index in range(BATCHES + 1):
            for name in list(engines)[:: 1 if index % 2 == 0 else -1]:
                engine, hooks = engines[name]
                figure = await bench_dispatch.batch(engine, DISPATCHES, hooks)
                if index:
                    times[name].append(figure)
        return times

    times = asyncio.run(measure())
    if len(seen) != (BATCHES + 1) * DISPATCHES:
        raise SystemExit(f"the callback ran {len(seen)} times in-process")
    found = {name: statistics.median(values) for name, values in times.items()}
    return {**found, "added": found["hooked"] - found["bare"]}


def _cpu_seconds() -> float:
    """CPU time of this process and of its descendants that have ended (the CLI, the shells)."""
    mine, theirs = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return mine.ru_utime + mine.ru_stime + theirs.ru_utime + theirs.ru_stime


class Descendants:
    """Watches this process's descendants (the CLI, each shell) in a thread: the peak of the
    sum of their own high-water marks (``VmHWM``), read from /proc every 10 ms.

    Not ``RUSAGE_CHILDREN``: a child's ``ru_maxrss`` counts its parent's memory, which it shares
    between the fork and the exec, so every ``bash`` would weigh as much as its parent. For the
    same reason a descendant that has not exec'd yet is left out."""

    def __init__(self) -> None:
        self.peak_kib = 0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def __enter__(self) -> Descendants:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join()

    def _watch(self) -> None:
        while not self._done.wait(0.01):
            now = sum(_high_water_kib(pid) for pid, parent in _descendants() if _own(pid, parent))
            self.peak_kib = max(self.peak_kib, now)


def _descendants() -> list[tuple[int, int]]:
    """(pid, parent pid) of every process below this one."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                stat = Path(entry.path, "stat").read_text()
                parent = int(stat.rsplit(")", 1)[1].split()[1])
                children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [os.getpid()]
    while todo:
        parent = todo.pop()
        found += [(pid, parent) for pid in children.get(parent, [])]
        todo += children.get(parent, [])
    return found


def _own(pid: int, parent: int) -> bool:
    """Whether ``pid`` has exec'd a program of its own: until then its command line is its
    parent's (the same memory)."""
    try:
        return (
            Path(f"/proc/{pid}/cmdline").read_bytes()
            != Path(f"/proc/{parent}/cmdline").read_bytes()
        )
    except OSError:
        return False


def _high_water_kib(pid: int) -> int:
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


# -- the driver, in this process -------------------------------------------------------------


def sdk_python(given: str | None) -> str | None:
    """An interpreter that can import claude_agent_sdk, if there is one."""
    for candidate in (given, sys.executable, os.environ.get("CLAUDE_SDK_PYTHON")):
        if candidate and _has(candidate, "claude_agent_sdk"):
            return candidate
    return None


def _has(python: str, module: str) -> bool:
    probe = [python, "-c", f"import importlib.util as u; exit(u.find_spec({module!r}) is None)"]
    return subprocess.run(probe, capture_output=True, check=False).returncode == 0


def version(python: str, framework: str) -> str:
    code = f"import importlib.metadata as m; print(m.version({framework!r}))"
    return subprocess.run([python, "-c", code], capture_output=True, text=True).stdout.strip()


#: Runs each sample for the driver. A process's peak memory (``ru_maxrss``) starts at that of
#: the process it was forked from, carried over ``exec``; the driver grows (the fake API keeps
#: every request), so samples forked from it would report the driver's peak as their own.
#: This small process, started before the driver grows, forks them instead.
SPAWNER = r"""
import json, subprocess, sys
for line in sys.stdin:
    job = json.loads(line)
    with open(job["out"], "w") as out, open(job["err"], "w") as err:
        done = subprocess.run(job["argv"], cwd=job["cwd"], env=job["env"], stdout=out,
                              stderr=err, timeout=600, check=False)
    print(done.returncode, flush=True)
"""


class Spawner:
    """The spawner process: ``run(argv, cwd, env)`` runs one sample, its stdout returned."""

    def __init__(self) -> None:
        pipe = subprocess.PIPE
        argv = [sys.executable, "-S", "-c", SPAWNER]
        self.proc = subprocess.Popen(argv, stdin=pipe, stdout=pipe, text=True)

    def run(self, argv: list[str], cwd: str, env: dict[str, str]) -> str:
        assert self.proc.stdin and self.proc.stdout
        out, err = Path(cwd, "stdout.txt"), Path(cwd, "stderr.txt")
        job = {"argv": argv, "cwd": cwd, "env": env, "out": str(out), "err": str(err)}
        self.proc.stdin.write(json.dumps(job) + "\n")
        self.proc.stdin.flush()
        code = self.proc.stdout.readline().strip()
        if code != "0":
            raise SystemExit(f"{argv[-1]} went wrong (rc {code}):\n{err.read_text()[-2000:]}")
        return out.read_text()

    def close(self) -> None:
        assert self.proc.stdin
        self.proc.stdin.close()
        self.proc.wait()


def sample(spawner: Spawner, python: str, framework: str, api: Any) -> dict[str, Any]:
    """One child process in a fresh folder (its home too), against the fake API ``api``; with
    the milliseconds the API spent per request it was sent."""
    busy, requests = api.busy, len(api.seen)
    url = api.url("")
    with tempfile.TemporaryDirectory(dir=SCRATCH) as folder:
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": folder,
            "ANTHROPIC_BASE_URL": url,
            "ANTHROPIC_API_KEY": "sk-bench",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_ERROR_REPORTING": "1",
        }
        printed = spawner.run([python, str(HERE), "--child", framework], folder, env)
    found: dict[str, Any] = json.loads(printed.splitlines()[-1])
    found["server_ms_per_request"] = (api.busy - busy) * 1e3 / (len(api.seen) - requests)
    return found


def run_all(samples: int, sdk: str | None) -> dict[str, Any]:
    spawner = Spawner()  # first, while the driver is small
    # Imported here, by the driver only: a child may run in a venv without hookline's test
    # helpers (or hookline) to import.
    sys.path.insert(0, str(TESTS))
    from fake_claude_api import fake_claude_api

    pythons = {"hookline": sys.executable}
    skipped = {}
    if sdk is None:
        skipped["claude-agent-sdk"] = f"claude_agent_sdk is not installed: {INSTALL}"
    else:
        pythons["claude-agent-sdk"] = sdk
    found: dict[str, list[dict[str, Any]]] = {name: [] for name in pythons}
    load = os.getloadavg()
    try:
        with fake_claude_api() as api:
            names = list(pythons)
            for turn in range(samples):
                for name in names[turn % len(names) :] + names[: turn % len(names)]:
                    found[name].append(sample(spawner, pythons[name], name, api))
    finally:
        spawner.close()
    results: dict[str, Any] = {
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "load_average": {"before": load, "after": os.getloadavg()},
        "samples_per_framework": samples,
        "skipped": skipped,
        "frameworks": {
            name: {"version": version(pythons[name], name), **summary(runs)}
            for name, runs in found.items()
        },
    }
    if len(found) == 2:
        results["ratios"] = ratios(results["frameworks"])
    return results


def summary(found: list[dict[str, Any]]) -> dict[str, Any]:
    """Medians over the samples: each size's run and connect, the marginal cost, the hook's
    added cost, memory."""

    def median(key: str, n: int) -> float:
        return float(statistics.median(s["runs"][str(n)][key] for s in found))

    rows = {
        str(n): {
            "run_ms": median("run_s", n) * 1e3,
            "cpu_ms": median("cpu_s", n) * 1e3,
            "connect_ms": median("connect_s", n) * 1e3,
        }
        for n in CALLS
    }
    first, last = str(CALLS[0]), str(CALLS[-1])

    def marginal(key: str) -> float:
        return (rows[last][key] - rows[first][key]) / (CALLS[-1] - CALLS[0])

    own = statistics.median(s["maxrss_kib"] for s in found) / 1024
    children = statistics.median(s["children_kib"] for s in found) / 1024
    out = {
        "rows": rows,
        "per_call_ms": marginal("run_ms"),
        "per_call_cpu_ms": marginal("cpu_ms"),
        "hook_added": hook_added(found),
        "server_ms_per_request": statistics.median(s["server_ms_per_request"] for s in found),
        "peak_mib": {"process": own, "children": children, "tree": own + children},
    }
    if "dispatch_us" in found[0]:
        out["dispatch_us"] = {
            key: statistics.median(s["dispatch_us"][key] for s in found)
            for key in ("hooked", "bare", "added")
        }
    return out


def hook_added(found: list[dict[str, Any]]) -> dict[str, float]:
    """Per call of the largest size, hooked and bare (the medians of all their runs), wall and
    CPU; "added" is hooked minus bare: what the hook adds to one tool call."""
    out = {}
    for kind in ("hooked", "bare"):
        for key, name in (("run_s", "ms"), ("cpu_s", "cpu_ms")):
            runs = [run[key] for s in found for run in s["pairs"][kind]]
            out[f"{kind}_{name}"] = statistics.median(runs) * 1e3 / CALLS[-1]
    out["runs_each"] = len(found) * PAIRS
    return {**out, "added_ms": out["hooked_ms"] - out["bare_ms"],
            "added_cpu_ms": out["hooked_cpu_ms"] - out["bare_cpu_ms"]}  # fmt: skip


def ratios(frameworks: dict[str, Any]) -> dict[str, Any]:
    """How many times the SDK's figure is hookline's. A ratio of added costs is None when
    hookline's measured difference is not above zero (it is within the noise of a call)."""
    ours, theirs = frameworks["hookline"], frameworks["claude-agent-sdk"]
    by_size = {n: theirs["rows"][n]["run_ms"] / ours["rows"][n]["run_ms"] for n in ours["rows"]}
    mine, sdk = ours["hook_added"], theirs["hook_added"]

    def over(x: float, y: float) -> float | None:
        return x / y if y > 0 else None

    return {
        "per_call": theirs["per_call_ms"] / ours["per_call_ms"],
        "per_call_cpu": theirs["per_call_cpu_ms"] / ours["per_call_cpu_ms"],
        "hook_added": over(sdk["added_ms"], mine["added_ms"]),
        "hook_added_cpu": over(sdk["added_cpu_ms"], mine["added_cpu_ms"]),
        "hook_added_vs_in_process": over(sdk["added_ms"], ours["dispatch_us"]["added"] / 1e3),
        "run": by_size,
        "connect": theirs["rows"]["1"]["connect_ms"] / ours["rows"]["1"]["connect_ms"],
        "peak_tree": theirs["peak_mib"]["tree"] / ours["peak_mib"]["tree"],
        "target_per_call": TARGET,
    }


def table(results: dict[str, Any]) -> str:
    before, after = (
        "/".join(f"{x:.2f}" for x in results["load_average"][k]) for k in ("before", "after")
    )
    lines = [
        f"{results['cpus']} CPUs, Python {results['python']}, "
        f"{results['samples_per_framework']} samples (one process each) per framework; medians; "
        f"load average {before} before, {after} after",
        f"{'framework':<26}{'calls':>6}{'run ms':>10}{'ms/call':>9}{'CPU ms':>9}{'connect ms':>12}",
    ]
    for name, found in results["frameworks"].items():
        label = f"{name} {found['version']}"
        for n, row in found["rows"].items():
            lines.append(
                f"{label:<26}{n:>6}{row['run_ms']:>10.1f}{row['run_ms'] / int(n):>9.2f}"
                f"{row['cpu_ms']:>9.1f}{row['connect_ms']:>12.1f}"
            )
    lines.append(f"{'per hooked call':<26}{'ms':>6}{'CPU ms':>10}{'API ms/req':>11}"
                 f"{'peak MiB: own':>15}{'children':>10}{'tree':>8}")  # fmt: skip
    for name, found in results["frameworks"].items():
        peak = found["peak_mib"]
        lines.append(
            f"{name:<26}{found['per_call_ms']:>6.2f}{found['per_call_cpu_ms']:>10.2f}"
            f"{found['server_ms_per_request']:>11.2f}{peak['process']:>15.1f}"
            f"{peak['children']:>10.1f}{peak['tree']:>8.1f}"
        )
    lines += added_lines(results)
    lines += [f"{name}: skipped, {why}" for name, why in results["skipped"].items()]
    if "ratios" in results:
        r = results["ratios"]
        runs = ", ".join(f"{n} calls {x:.0f}x" for n, x in r["run"].items())
        lines.append(
            f"SDK / hookline, whole calls: per hooked call {r['per_call']:.1f}x, its CPU "
            f"{r['per_call_cpu']:.1f}x; whole runs {runs}; connect {r['connect']:.0f}x; "
            f"peak memory of the tree {r['peak_tree']:.1f}x"
        )
        lines.append(
            f"SDK / hookline, the hook's added cost (target >= {r['target_per_call']:.0f}x): "
            f"measured end to end {verdict(r['hook_added'])}, its CPU "
            f"{verdict(r['hook_added_cpu'])}; SDK end to end over hookline in-process "
            f"{verdict(r['hook_added_vs_in_process'])}"
        )
    return "\n".join(lines)


def added_lines(results: dict[str, Any]) -> list[str]:
    """The hook's added cost per call: hooked minus bare runs, and hookline's in-process one."""
    any_found = next(iter(results["frameworks"].values()))["hook_added"]
    lines = [
        f"hook's added cost per call, {CALLS[-1]}-call runs with and without it "
        f"({any_found['runs_each']} each, interleaved)",
        f"{'':<26}{'hooked ms':>10}{'bare ms':>9}{'added ms':>10}"
        f"{'hooked CPU':>12}{'bare CPU':>10}{'added CPU':>11}",
    ]
    for name, found in results["frameworks"].items():
        a = found["hook_added"]
        lines.append(
            f"{name:<26}{a['hooked_ms']:>10.2f}{a['bare_ms']:>9.2f}{a['added_ms']:>10.2f}"
            f"{a['hooked_cpu_ms']:>12.2f}{a['bare_cpu_ms']:>10.2f}{a['added_cpu_ms']:>11.2f}"
        )
        if "dispatch_us" in found:
            d = found["dispatch_us"]
            lines.append(
                f"{name} in-process, µs per call through its HookEngine ({DISPATCHES} calls "
                f"x {BATCHES} batches): with the callback {d['hooked']:.1f}, none "
                f"{d['bare']:.1f}, added {d['added']:.1f} µs = {d['added'] / 1e3:.4f} ms"
            )
    return lines


def verdict(ratio: float | None) -> str:
    if ratio is None:
        return "n/a (hookline's difference is not above zero: within the noise)"
    return f"{ratio:.1f}x ({'PASS' if ratio >= TARGET else 'MISS'})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--quick", action="store_true", help="one sample each: a smoke check")
    parser.add_argument("--samples", type=int, default=5, help="samples per framework (5)")
    parser.add_argument("--sdk-python", default=None, help="a Python with claude-agent-sdk")
    parser.add_argument("--child", choices=list(MODULES), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child)))
        return
    results = run_all(1 if args.quick else args.samples, sdk_python(args.sdk_python))
    print(json.dumps(results, indent=2) if args.json else table(results))


if __name__ == "__main__":
    main()
