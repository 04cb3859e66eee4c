"""The OS sandbox: what a sandboxed Bash call costs next to a bare bwrap spawn, in the same run.

Run ``python bench/bench_sandbox.py`` (``--quick`` for a smoke check, ``--json`` for JSON).
The method is written down in bench/README.md.
"""

from __future__ import annotations

import asyncio
import os
import platform
import shutil
import statistics
import sys
import tempfile
from collections.abc import Awaitable, Callable
from contextlib import ExitStack
from pathlib import Path
from time import perf_counter
from typing import Any

import benchkit  # beside this script; puts ../src on sys.path when needed
from benchkit import p90
from hookline._support.process import run_process
from hookline._tools.base import ToolContext, Workspace
from hookline._tools.builtin import Bash
from hookline.permissions._sandbox import seccomp
from hookline.permissions._sandbox.config import HARDENING, NAMESPACES, SandboxConfig
from hookline.permissions._sandbox.run import Sandbox

COMMAND = "true"
BASH = shutil.which("bash") or "/bin/sh"
LABELS = {
    "bash": "Bash call, no sandbox",
    "bare_bwrap": "bare bwrap spawn, same namespaces (bash -c true)",
    "sandboxed": "Bash call, sandboxed",
    "bare_proxy": "bare bwrap spawn + forwarder (python -I -S)",
    "sandboxed_proxy": "Bash call, sandboxed, allowedDomains set",
}
TARGET = 1.2

Job = Callable[[], Awaitable[Any]]


def bare_bwrap(
    bwrap: str, cwd: str, *, forwarder: list[str] | None = None, pass_fds: tuple[int, ...] = ()
) -> Job:
    """The bwrap line a sandboxed call builds, with one writable bind (the workspace), the
    same seccomp filter and none of the rest, running ``bash -c true`` as the Bash tool does
    (``forwarder``: under the forwarder, whose channel is among ``pass_fds``)."""
    base = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    head = [*base, *HARDENING, *NAMESPACES, "--bind", cwd, cwd, "--chdir", cwd]
    tail = ["--", *(forwarder or []), BASH, "-c", COMMAND]

    async def job() -> int:
        fd = seccomp.memfd()  # bwrap reads it to its end: a fresh one each time
        try:
            argv = [*head, "--seccomp", str(fd), *tail]
            done = await run_process(
                argv, stdin=b"", cwd=cwd, env=os.environ, kill_grace=1.0,
                pass_fds=(*pass_fds, fd),
            )  # fmt: skip
        finally:
            os.close(fd)
        return done.returncode

    return job


def bash_call(ctx: ToolContext) -> Job:
    tool = Bash()
    tool_input = tool.prepare({"command": COMMAND}, ctx)

    async def job() -> Any:
        return await tool.execute(tool_input, ctx)

    return job


async def measure(rounds: int, warmup: int) -> dict[str, list[float]]:
    """Interleaved rounds, each timing every job once in a rotating order."""
    bwrap = SandboxConfig().executable
    if bwrap is None or SandboxConfig().unavailable():
        sys.exit(f"the sandbox cannot start here: {SandboxConfig().unavailable()}")
    work = Path(tempfile.mkdtemp(prefix="bench-sandbox-"))  # not /dev/shm: --dev hides it
    plain = ToolContext(cwd=work, workspace=Workspace.of(work))
    boxed = Sandbox(SandboxConfig(enabled=True), roots=[work])
    proxied = Sandbox(SandboxConfig(enabled=True, allowed_domains=("example.com",)), roots=[work])
    stack = ExitStack()  # the proxied launch's channel stays open for the bare forwarder
    launch = stack.enter_context(proxied.launch([], {}, cwd=str(work)))
    forwarder = launch.argv[launch.argv.index("--") + 1 :]
    channel = launch.pass_fds[:1]
    jobs = {
        "bash": bash_call(plain),
        "bare_bwrap": bare_bwrap(bwrap, str(work)),
        "sandboxed": bash_call(ToolContext(cwd=work, workspace=plain.workspace, sandbox=boxed)),
        "bare_proxy": bare_bwrap(bwrap, str(work), forwarder=forwarder, pass_fds=channel),
        "sandboxed_proxy": bash_call(
            ToolContext(cwd=work, workspace=plain.workspace, sandbox=proxied)
        ),
    }
    times: dict[str, list[float]] = {key: [] for key in jobs}
    order = list(jobs)
    try:
        for i in range(warmup + rounds):
            order = order[1:] + order[:1]
            for key in order:
                start = perf_counter()
                result = await jobs[key]()
                elapsed = perf_counter() - start
                if result not in (0, None) and not isinstance(result, dict):
                    sys.exit(f"{key} failed: {result!r}")
                if i >= warmup:
                    times[key].append(elapsed)
    finally:
        stack.close()
        boxed.close()
        proxied.close()
        shutil.rmtree(work, ignore_errors=True)
    return times


def summarise(times: dict[str, list[float]], rounds: int, warmup: int) -> dict[str, Any]:
    rows = [
        {
            "key": key,
            "what": LABELS[key],
            "n": len(values),
            "median_ms": statistics.median(values) * 1e3,
            "p90_ms": p90(values) * 1e3,
        }
        for key, values in times.items()
    ]
    m = {row["key"]: row["median_ms"] for row in rows}
    machine = f"{os.cpu_count()} CPUs, Python {platform.python_version()}, {platform.platform()}"
    return {
        "machine": machine,
        "rounds": rounds,
        "warmup": warmup,
        "rows": rows,
        "ratio": m["sandboxed"] / m["bare_bwrap"],
        "ratio_proxy": m["sandboxed_proxy"] / m["bare_proxy"],
        "added_ms": m["sandboxed"] - m["bash"],
    }


def table(results: dict[str, Any]) -> str:
    lines = [
        f"{results['machine']}; {results['rounds']} interleaved rounds after "
        f"{results['warmup']} warm-up; command: {COMMAND}",
        f"{'what':<50}  {'n':>4}  {'median ms':>9}  {'p90 ms':>8}",
        *(
            f"{r['what']:<50}  {r['n']:>4}  {r['median_ms']:>9.3f}  {r['p90_ms']:>8.3f}"
            for r in results["rows"]
        ),
        f"{'target':<50}  {'figure':>8}  {'limit':>8}",
    ]
    for label, key in (("sandboxed / bare bwrap", "ratio"), ("the same, proxied", "ratio_proxy")):
        figure = results[key]
        verdict = "PASS" if figure <= TARGET else "MISS"
        lines.append(f"{label:<50}  {figure:>7.2f}x  {f'<= {TARGET}x':>8}  {verdict}")
    lines.append(f"sandbox added to a Bash call: {results['added_ms']:.3f} ms")
    return "\n".join(lines)


def run_all(quick: bool) -> dict[str, Any]:
    rounds, warmup = (20, 3) if quick else (300, 20)
    return summarise(asyncio.run(measure(rounds, warmup)), rounds, warmup)


if __name__ == "__main__":
    benchkit.main(__doc__ or "", run_all, table)
