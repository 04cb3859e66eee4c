"""The real Claude Code CLI, offline: what its command hooks add per tool call; prints JSON.

``claude -p PROMPT --output-format json --allowedTools Bash`` runs in a fresh project and home
folder against a local server speaking the Anthropic Messages API (tests/model_servers.py, the
one the model-client tests use), which answers N turns of one ``Bash`` call (``true``), then a
text. The CLI is found as ``--cli PATH``, ``$CLAUDE_CLI``, ``claude`` on the PATH, or the one
bundled in the ``claude-agent-sdk`` package; without one, the JSON says so and nothing runs.

Per call is the gap between two consecutive model requests (as they reach the server): the CLI
reading the answer, its PreToolUse hooks (``.claude/settings.json``, matcher ``Bash``), the
permission check, the Bash tool, and the next request. "Added" is a configuration's median gap
less the median with no hooks. The hooks are hookline_commands.py's: ``true N`` and
``PYTHON hook.py N``, and ``serve``: one HTTP hook (``onFailure: "block"``) answered by a
``hookline serve`` on 127.0.0.1 with its defaults and its audit on, judging each call with the
Bash analysis and the permission layer (the issue's target: no more than ``true 1``).
Configurations take turns, one run each per round.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import itertools
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from time import perf_counter
from typing import Any

import peerkit  # noqa: F401  (puts bench/ on sys.path)
from hookline_commands import SCRIPT

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
from model_servers import Events, anthropic_events, model_server

CALLS = 10
FINAL = "FINAL-TEXT"
INSTALL = "pip install claude-agent-sdk (its wheel bundles the CLI), or set CLAUDE_CLI"


def find_cli(given: str | None) -> str | None:
    """The Claude Code CLI to run, if there is one."""
    bundled = None
    if importlib.util.find_spec("claude_agent_sdk") is not None:
        spec = importlib.util.find_spec("claude_agent_sdk")
        if spec and spec.origin:
            bundled = str(Path(spec.origin).parent / "_bundled" / "claude")
    for candidate in (given, os.environ.get("CLAUDE_CLI"), shutil.which("claude"), bundled):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


class Script:
    """The server's side: N Bash calls then a text, and when each tools request arrived."""

    def __init__(self) -> None:
        self.arrivals: list[float] = []

    def __call__(self, body: dict[str, Any]) -> Events:
        if not body.get("tools"):  # a side request (a title, a summary): answer it briefly
            return Events(anthropic_events(["ok"]))
        self.arrivals.append(perf_counter())
        turn = sum(  # the CLI merges turns: count its tool results, not its messages
            block.get("type") == "tool_result"
            for m in body["messages"]
            if isinstance(m["content"], list)
            for block in m["content"]
        )
        if turn < CALLS:
            call = (
                f"toolu_{turn}",
                "Bash",
                [json.dumps({"command": "true", "description": "no-op"})],
            )
            return Events(anthropic_events(calls=[call]))
        return Events(anthropic_events([FINAL]))


#: The configuration whose hook is an HTTP hook posting to ``hookline serve``.
SERVED = "serve"


def settings(commands: list[str], served: str | None = None) -> dict[str, Any]:
    """The project's settings: each of ``commands`` a PreToolUse command hook on Bash, and
    ``SERVED`` an HTTP hook posting to ``served``."""
    if not commands:
        return {}
    hooks = [
        {"type": "http", "url": served, "onFailure": "block"}
        if c == SERVED
        else {"type": "command", "command": c}
        for c in commands
    ]
    return {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": hooks}]}}


@contextlib.contextmanager
def hookline_serve() -> Iterator[tuple[str, Path]]:
    """``hookline serve`` on a free port of 127.0.0.1, from an empty policy folder (hookline's
    defaults) with its audit in a fresh state folder: the URL Claude Code posts to, and that
    folder."""
    with tempfile.TemporaryDirectory() as tmp:
        policy, state = Path(tmp, "policy"), Path(tmp, "state")
        policy.mkdir()
        argv = [sys.executable, "-m", "hookline", "serve", "--cwd", str(policy), "--port", "0",
                "--state-dir", str(state)]  # fmt: skip
        server = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  text=True)  # fmt: skip
        try:
            first = server.stdout.readline() if server.stdout else ""
            if " on " not in first:
                raise SystemExit(f"hookline serve did not start: {first!r}")
            yield first.rsplit(" on ", 1)[1].strip(), state
        finally:
            server.terminate()
            server.wait(timeout=30)


def one_run(
    cli: str, url: str, commands: list[str], script: Script, served: str | None = None
) -> list[float]:
    """One ``claude -p`` run; the gaps between its model requests, in ms."""
    with tempfile.TemporaryDirectory() as tmp:
        project, home = Path(tmp, "project"), Path(tmp, "home")
        (project / ".claude").mkdir(parents=True)
        home.mkdir()
        (project / "hook.py").write_text(SCRIPT)
        (project / ".claude" / "settings.json").write_text(json.dumps(settings(commands, served)))
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
               "ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "sk-bench",
               "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
               "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1"}  # fmt: skip
        argv = [cli, "-p", "Run the no-op commands.", "--output-format", "json",
                "--allowedTools", "Bash"]  # fmt: skip
        script.arrivals.clear()
        done = subprocess.run(argv, cwd=project, env=env, capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=300, check=False)  # fmt: skip
    result = json.loads(done.stdout or "{}")
    if done.returncode or result.get("result") != FINAL or len(script.arrivals) != CALLS + 1:
        raise SystemExit(f"claude run went wrong: rc {done.returncode}, {done.stdout[-300:]}"
                         f"{done.stderr[-300:]}")  # fmt: skip
    return [(b - x) * 1e3 for x, b in itertools.pairwise(script.arrivals)]


def measure(cli: str, rounds: int) -> dict[str, Any]:
    python = shlex.quote(sys.executable)
    configs = {"call_0": [], "call_true_1": ["true 1"],
               "call_true_5": [f"true {i}" for i in range(1, 6)],
               "call_python_1": [f"{python} hook.py 1"],
               "call_python_5": [f"{python} hook.py {i}" for i in range(1, 6)],
               "call_serve_1": [SERVED]}  # fmt: skip
    gaps: dict[str, list[float]] = {name: [] for name in configs}
    script = Script()
    with model_server(script) as server, hookline_serve() as (served, state):
        url = server.url("").rstrip("/")
        names = list(configs)
        for i in range(rounds):
            for name in names[i % len(names) :] + names[: i % len(names)]:
                gaps[name] += one_run(cli, url, configs[name], script, served)
        judged = _allowed_by_the_server(state)
    if judged != rounds * CALLS:  # each served call was judged, allowed and recorded
        raise SystemExit(f"hookline serve recorded {judged} allowed calls, not {rounds * CALLS}")
    median = {name: statistics.median(g) for name, g in gaps.items()}
    return {
        "rows": {name: {"n": len(g), "median_ms": median[name]} for name, g in gaps.items()},
        "added_ms": {
            name.removeprefix("call_"): median[name] - median["call_0"] for name in names[1:]
        },
    }


def _allowed_by_the_server(state: Path) -> int:
    """How many Bash calls the server's audit shows it allowed."""
    records = [json.loads(line) for line in (state / "audit.jsonl").read_text().splitlines()]
    return sum(r["kind"] == "served" and r.get("decision") == "allow" for r in records)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", default=None, help="the claude executable")
    parser.add_argument("--quick", action="store_true", help="one run of each: a smoke check")
    args = parser.parse_args()
    cli = find_cli(args.cli)
    if cli is None:
        json.dump({"skipped": f"claude is not installed: {INSTALL}"}, sys.stdout)
        return
    version = subprocess.run([cli, "--version"], capture_output=True, text=True, check=False)
    out = {"version": version.stdout.strip(), "cpus": os.cpu_count(), "calls_per_run": CALLS}
    out.update(measure(cli, 1 if args.quick else 7))
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
