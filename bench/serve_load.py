"""Load on ``hookline serve``: decisions a second and latency per hook call, audit on.

    python bench/serve_load.py                              rates 100,250,500,1000; 1 and 2 workers
    python bench/serve_load.py --rates 200 --workers 1,4    other rates and worker counts
    python bench/serve_load.py --quick                      a smoke run: 50/s, 100 calls
    python bench/serve_load.py --json                       the results as JSON

For each worker count it starts a real ``hookline serve --port 0 --workers N`` on 127.0.0.1 over
a policy folder with two Python hooks, its audit on (the file and the SQLite store, as a server
runs by default), and drives it at each target rate over 64 kept-alive connections: an open
loop, call ``i`` sent at ``i / rate`` seconds whatever the answers before it (a call that waits
for a free connection counts the wait), for ``--count`` calls or ``--seconds`` seconds,
whichever is fewer. The calls are PreToolUse events as Claude Code sends
them, a fixed mix of Bash, Read and Write (some denied by the hooks, some by the Bash tiers).

Per rate it reports the decisions a second achieved (calls answered / time from the first send
to the last answer) and the p50, p95 and p99 of each call's latency (from its send to its
answer: what a host's hook waits for). Every answer must be a 200 with a decision; after each
server stops, its audit file must hold exactly one record per call sent. Not part of the tests
(``tests/test_serve_load.py`` checks only the arithmetic and ``--help``).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Coroutine, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

SRC = Path(__file__).resolve().parent.parent / "src"

#: The policy's hooks: a deny for secrets in Bash, a deny for writes outside the project.
GUARD = """
from pathlib import Path

from hookline import Decision

def no_secrets(event):
    if ".env" in event.tool_input.get("command", ""):
        return Decision.deny("no secrets through Bash")
    return None

def writes_stay_home(event):
    path = Path(event.tool_input.get("file_path", ""))
    if not path.is_relative_to(event.cwd):
        return Decision.deny("writes stay in the project")
    return None
"""
SETTINGS = {
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "python", "callable": "guard:no_secrets"}]},
            {
                "matcher": "Write",
                "hooks": [{"type": "python", "callable": "guard:writes_stay_home"}],
            },
        ]
    }
}
#: The mix of calls, repeated in order: (tool, input) with ``{cwd}`` for the project.
MIX: tuple[tuple[str, dict[str, str]], ...] = (
    ("Bash", {"command": "git status --short"}),
    ("Read", {"file_path": "{cwd}/src/app.py"}),
    ("Bash", {"command": "ls -la src"}),
    ("Write", {"file_path": "{cwd}/notes.md", "content": "# notes\n"}),
    ("Bash", {"command": "cat .env"}),
    ("Read", {"file_path": "{cwd}/README.md"}),
    ("Bash", {"command": "python -m pytest -q"}),
    ("Write", {"file_path": "/etc/hosts", "content": "127.0.0.1 example\n"}),
    ("Bash", {"command": "rm -rf /"}),
    ("Read", {"file_path": "{cwd}/pyproject.toml"}),
)


def schedule(rate: float, count: int) -> list[float]:
    """When each of ``count`` calls is sent, in seconds from the start, at ``rate`` a second."""
    if rate <= 0 or count < 0:
        raise ValueError("the rate must be above 0 and the count at least 0")
    return [index / rate for index in range(count)]


def calls_for(rate: float, count: int, seconds: float) -> int:
    """How many calls a run at ``rate`` makes: ``count``, or fewer to end within ``seconds``."""
    return max(1, min(count, math.floor(rate * seconds)))


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) by linear interpolation between the closest ranks (as
    numpy's default); ValueError for no values."""
    if not values:
        raise ValueError("no values")
    ordered = sorted(values)
    at = (len(ordered) - 1) * q / 100
    low = math.floor(at)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (at - low)


@dataclass(frozen=True)
class Result:
    """One rate against one server."""

    workers: int
    target: float
    calls: int
    per_second: float
    p50_ms: float
    p95_ms: float
    p99_ms: float
    errors: int


def summary(
    workers: int, target: float, latencies: Sequence[float], elapsed: float, errors: int
) -> Result:
    """The figures of a run: ``latencies`` in seconds, ``elapsed`` from first send to last
    answer."""
    ms = [value * 1000 for value in latencies] or [math.nan]
    per_second = len(latencies) / elapsed if elapsed > 0 else math.nan
    p50, p95, p99 = (percentile(ms, q) for q in (50, 95, 99))
    return Result(workers, target, len(latencies) + errors, per_second, p50, p95, p99, errors)


def payload(cwd: str, index: int) -> dict[str, Any]:
    """The ``index``-th call of the mix, as Claude Code posts a PreToolUse."""
    tool, shape = MIX[index % len(MIX)]
    tool_input = {key: value.replace("{cwd}", cwd) for key, value in shape.items()}
    return {
        "session_id": f"bench-{index // 50:05}",  # a session makes 50 calls
        "transcript_path": "/home/dev/.claude/projects/bench/t.jsonl",
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": f"toolu_{index:08}",
    }


T = TypeVar("T")
#: Connections the client keeps open: calls beyond that many in flight wait for one (and
#: the wait counts in their latency, which runs from when each call was due).
CONNECTIONS = 64


async def drive(
    url: str, cwd: str, rate: float, count: int, first: int
) -> tuple[list[float], float, int]:
    """Send ``count`` calls at ``rate`` (ids from ``first``); their latencies, the time from
    the first send to the last answer, and how many failed."""
    due: asyncio.Queue[tuple[int, float] | None] = asyncio.Queue()
    latencies: list[float] = []
    errors = 0

    async def connection(link: Link) -> None:
        nonlocal errors
        try:
            while (next_call := await due.get()) is not None:
                index, at = next_call
                try:
                    decided = await link.post(payload(cwd, first + index))
                except (OSError, ValueError, asyncio.IncompleteReadError):
                    decided = False
                    link = await Link.open(url)
                if decided:
                    latencies.append(time.perf_counter() - at)
                else:
                    errors += 1
        finally:
            link.close()

    opened = [await Link.open(url) for _ in range(min(CONNECTIONS, count))]  # before the clock
    links = [asyncio.create_task(connection(link)) for link in opened]
    gc.disable()  # the client's own pauses would count as the server's latency
    try:
        start = time.perf_counter()
        for index, at in enumerate(schedule(rate, count)):
            delay = start + at - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            due.put_nowait((index, time.perf_counter()))  # sent: the timer's lateness is ours
        for _ in links:
            due.put_nowait(None)
        await asyncio.gather(*links)
        return latencies, time.perf_counter() - start, errors
    finally:
        gc.enable()


@dataclass
class Link:
    """One kept-alive HTTP/1.1 connection that posts hook events. Written here rather than
    taken from an HTTP library so the client costs little beside the server it shares the
    cores with (an async httpx client took more CPU a call than the server's decision)."""

    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    head: bytes

    @classmethod
    async def open(cls, url: str) -> Link:
        where = urlsplit(url)
        reader, writer = await asyncio.open_connection(where.hostname, where.port)
        head = f"POST {where.path} HTTP/1.1\r\nHost: {where.netloc}\r\n"
        return cls(reader, writer, head.encode())

    async def post(self, event: dict[str, Any]) -> bool:
        """Whether the server answered ``event`` with a 200 and a decision."""
        body = json.dumps(event).encode()
        length = f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        self.writer.write(self.head + length.encode() + body)
        status, _, rest = (await self.reader.readuntil(b"\r\n\r\n")).partition(b"\r\n")
        fields = dict(_field(line) for line in rest.split(b"\r\n") if b":" in line)
        answer = await self.reader.readexactly(int(fields[b"content-length"]))
        return status.split(b" ")[1] == b"200" and b"hookSpecificOutput" in answer

    def close(self) -> None:
        self.writer.close()


def _field(line: bytes) -> tuple[bytes, bytes]:
    name, _, value = line.partition(b":")
    return name.strip().lower(), value.strip()


def run(main: Coroutine[Any, Any, T]) -> T:
    """``main`` to its end on uvloop when it is there (as the server's is): the client's own
    time on the shared cores stays small."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(main)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(main)


def policy_folder(root: Path) -> Path:
    folder = root / "policy"
    (folder / ".claude").mkdir(parents=True)
    (folder / ".claude" / "settings.json").write_text(json.dumps(SETTINGS))
    (folder / "guard.py").write_text(GUARD)
    return folder


@contextmanager
def serving(policy: Path, workers: int) -> Iterator[str]:
    """``hookline serve --port 0 --workers N`` for ``policy``: its URL; stopped with SIGTERM."""
    env = {**os.environ, "PYTHONPATH": str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    args = ["serve", "--cwd", str(policy), "--port", "0", "--workers", str(workers)]
    process = subprocess.Popen(
        [sys.executable, "-m", "hookline", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        if " on " not in first:
            raise SystemExit(f"the server did not start: {first}{process.communicate()[1]}")
        yield first.split(" on ", 1)[1].strip()
    finally:
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=60)


def run_server(
    root: Path, workers: int, rates: Sequence[float], count: int, seconds: float
) -> list[Result]:
    """Every rate against one server of ``workers`` workers; its audit checked after."""
    policy = policy_folder(root / f"workers-{workers}")
    cwd = str(root / "project")
    results, sent = [], 0
    with serving(policy, workers) as url:
        run(drive(url, cwd, 50, 50, 10**7))  # warm-up: not on the table
        sent += 50
        for rate in rates:
            calls = calls_for(rate, count, seconds)
            latencies, elapsed, errors = run(drive(url, cwd, rate, calls, sent))
            sent += calls
            results.append(summary(workers, rate, latencies, elapsed, errors))
    records = (policy / ".hookline" / "state" / "audit.jsonl").read_text().count("\n")
    if records != sent:
        raise SystemExit(f"{workers} worker(s): {sent} calls sent, {records} audit records")
    return results


def table(results: Sequence[Result]) -> str:
    head = ("workers", "target/s", "calls", "decisions/s", "p50 ms", "p95 ms", "p99 ms", "errors")
    rows = [head] + [
        (
            str(r.workers),
            f"{r.target:g}",
            str(r.calls),
            f"{r.per_second:.0f}",
            f"{r.p50_ms:.1f}",
            f"{r.p95_ms:.1f}",
            f"{r.p99_ms:.1f}",
            str(r.errors),
        )
        for r in results
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    return "\n".join(
        "  ".join(cell.rjust(w) for cell, w in zip(row, widths, strict=True)) for row in rows
    )


def numbers(text: str) -> list[float]:
    return [float(part) for part in text.split(",") if part.strip()]


def parser() -> argparse.ArgumentParser:
    parse = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parse.add_argument(
        "--rates",
        type=numbers,
        default=[100, 250, 500, 1000],
        help="target decisions a second, comma-separated",
    )
    parse.add_argument(
        "--workers",
        type=lambda text: [int(n) for n in numbers(text)],
        default=[1, 2],
        help="worker counts, comma-separated",
    )
    parse.add_argument("--count", type=int, default=3000, help="calls per rate, at most")
    parse.add_argument("--seconds", type=float, default=10.0, help="seconds per rate, at most")
    parse.add_argument(
        "--quick", action="store_true", help="a smoke run: 50/s, 100 calls, 1 and 2 workers"
    )
    parse.add_argument("--json", action="store_true", help="print the results as JSON")
    return parse  # fmt: skip


def main(argv: Sequence[str] | None = None) -> None:
    args = parser().parse_args(argv)
    if args.quick:
        args.rates, args.count = [50.0], 100
    with tempfile.TemporaryDirectory(prefix="serve-load-") as scratch:
        root = Path(scratch)
        (root / "project").mkdir()
        results = [
            result
            for workers in args.workers
            for result in run_server(root, workers, args.rates, args.count, args.seconds)
        ]
    if args.json:
        print(json.dumps([asdict(result) for result in results], indent=2))
    else:
        print(table(results))


if __name__ == "__main__":
    main()
