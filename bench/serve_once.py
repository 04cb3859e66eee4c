"""N PreToolUse decisions of ``hookline serve`` in this process, for counting instructions.

    valgrind --tool=callgrind --callgrind-out-file=/dev/null python bench/serve_once.py 400
    valgrind --tool=callgrind --callgrind-out-file=/dev/null python bench/serve_once.py 100
    ... python bench/serve_once.py 400 mix       Bash, a Read and a Write in the project, in turn

Per decision = (instructions at 400 - those at 100) / 300: start-up, the imports, opening the
store and loading the policy cancel out. The app is built as ``hookline serve`` builds it for
an empty policy folder (``hookline._cli.serve_cmd``: ``load_project``, ``Policies`` of a
``Judge``, the ``Watcher``, ``Projects``, the gate, the audit writer with the SQLite store and
its checkpoints apart, the collector settled) and called as an ASGI app, without uvicorn or a
socket. The events are Claude Code's PreToolUse posts (bench/peers/claude_code.py) from a
project folder with a ``.claude/settings.json`` of its own, ``HOME`` a fresh folder (no trust
answer for the project). What runs by the clock, not by the call, is held still so that a
count does not depend on valgrind's slowness: the watcher's poll, the project folder's walk
(kept for a second), the store's checkpoints and its copies by age (copies still come every 32
records, as under load). Payloads: ``bash`` (``true``, the default), ``read`` (a file in the
project), ``write`` (a new file in the project), ``mix`` (the three in turn). The run is
checked: every answer a 200 with the expected decision, and the audit file holds one
``served`` record per call with that decision.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import benchkit  # noqa: F401  (beside this script; puts ../src on sys.path when needed)
from benchkit import SCRATCH

#: Each payload: the tool, its input (``{cwd}``: the project), the decision expected.
PAYLOADS: dict[str, tuple[str, dict[str, str], str]] = {
    "bash": ("Bash", {"command": "true", "description": "no-op"}, "allow"),
    "read": ("Read", {"file_path": "{cwd}/src/app.py"}, "allow"),
    "write": ("Write", {"file_path": "{cwd}/notes.md", "content": "# notes\n"}, "ask"),
}
MIXES = {"mix": ("bash", "read", "write"), **{name: (name,) for name in PAYLOADS}}
HEADERS = [  # what Claude Code's HTTP hook (axios) sends
    (b"host", b"127.0.0.1:8377"),
    (b"accept", b"application/json, text/plain, */*"),
    (b"content-type", b"application/json"),
    (b"user-agent", b"axios/1.8.4"),
    (b"accept-encoding", b"gzip, compress, deflate, br"),
    (b"connection", b"keep-alive"),
]


def payload(cwd: str, kind: str, index: int) -> dict[str, Any]:
    tool, shape, _ = PAYLOADS[kind]
    return {
        "session_id": "bench-00000",
        "transcript_path": "/home/dev/.claude/projects/bench/t.jsonl",
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": {key: value.replace("{cwd}", cwd) for key, value in shape.items()},
        "tool_use_id": f"toolu_{index:08}",
    }


def build(policy: Path, state: Path) -> tuple[Any, Any, Any]:
    """The app, its audit writer and the store's checkpoints, as ``serve_with`` makes them."""
    from hookline._cli.serve_asks import Fleet
    from hookline._cli.serve_cmd import _gate, _loader, _said
    from hookline._policy.digest import policy_digest
    from hookline._project import load_project
    from hookline._serve import app as app_module
    from hookline._serve import rate
    from hookline._serve.judge import Judge
    from hookline._serve.policies import Policies
    from hookline._serve.projects import Projects
    from hookline._serve.reload import Watcher
    from hookline.audit import _writer
    from hookline.audit._redact import Redactor
    from hookline.audit._writer import AuditWriter

    _writer.COPY_DELAY = math.inf  # copies every 32 records, not by the clock (see above)
    host, port = "127.0.0.1", 8377
    project = load_project(str(policy), trust=None)
    digest = policy_digest(project)
    gate = _gate(host, state, rate.RATE, rate.BURST, 1)
    options = {"asks": "host", "ask_wait": 25.0, "ask_expiry": "deny", "grant_hours": 24.0,
               "with_inbox": False, "inbox_users": None, "notify": (),
               "public_url": None}  # fmt: skip
    fleet = Fleet.checked(options, host=host, tls=False)
    load = _loader(project, (), (), False, (host, port))
    audit = AuditWriter.open(state, redactor=Redactor(project.redact))
    policies = Policies(Judge(project), digest, load=load)
    still = asyncio.Event()  # never set: the watcher's poll is by the clock
    watcher = Watcher(policies, audit, say=_said, hangup=False, wait=still.wait)
    projects = Projects(audit, own=project.cwd, listening=(host, port), say=_said, clock=_still)
    asks, mounts = fleet.wired(audit, project.cwd, None, f"http://{host}:{port}")
    app = app_module.create_app(
        policies, audit, glass_dir=state, gate=gate, watcher=watcher, projects=projects,
        tracing=None, asks=asks, mounts=mounts,
    )  # fmt: skip
    checkpoints = audit.store_of().checkpoints_apart(every=3600.0)
    return app, audit, checkpoints


def _still() -> float:
    return 0.0


async def lifespan(app: Any) -> tuple[asyncio.Task[None], Callable[[], None]]:
    """The app started as uvicorn starts it; the task, and what stops it."""
    started, stopping = asyncio.Event(), asyncio.Event()
    messages = iter(["lifespan.startup", "lifespan.shutdown"])

    async def receive() -> dict[str, Any]:
        kind = next(messages)
        if kind == "lifespan.shutdown":
            await stopping.wait()
        return {"type": kind}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "lifespan.startup.complete":
            started.set()
        elif message["type"].endswith("failed"):
            raise SystemExit(f"the app did not start or stop: {message}")

    scope = {"type": "lifespan", "asgi": {"version": "3.0", "spec_version": "2.0"}, "state": {}}
    task = asyncio.create_task(app(scope, receive, send))
    await started.wait()
    return task, stopping.set


async def post(app: Any, body: bytes) -> tuple[int, bytes]:
    """One POST to /claude-code as uvicorn hands it to the app: the status and the body."""
    headers = [*HEADERS, (b"content-length", str(len(body)).encode())]
    scope = {
        "type": "http", "asgi": {"version": "3.0", "spec_version": "2.4"},
        "http_version": "1.1", "method": "POST", "scheme": "http", "path": "/claude-code",
        "raw_path": b"/claude-code", "root_path": "", "query_string": b"", "headers": headers,
        "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8377), "state": {},
    }  # fmt: skip
    sent = [{"type": "http.request", "body": body, "more_body": False}]
    status, parts = 0, []

    async def receive() -> dict[str, Any]:
        return sent.pop() if sent else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            parts.append(message.get("body", b""))

    await app(scope, receive, send)
    return status, b"".join(parts)


async def drive(app: Any, cwd: str, kinds: tuple[str, ...], calls: int) -> None:
    stop_task, stop = await lifespan(app)
    try:
        for index in range(calls):
            kind = kinds[index % len(kinds)]
            status, body = await post(app, json.dumps(payload(cwd, kind, index)).encode())
            said = json.loads(body) if status == 200 else {}
            decided = said.get("hookSpecificOutput", {}).get("permissionDecision")
            if decided != PAYLOADS[kind][2]:
                raise SystemExit(f"call {index} ({kind}): {status} {body[:300]!r}")
    finally:
        stop()
        await stop_task


def run(calls: int, kinds: tuple[str, ...]) -> None:
    from hookline._serve import server

    with tempfile.TemporaryDirectory(dir=SCRATCH) as tmp:
        root = Path(tmp)
        policy, state, home, project = (root / name for name in ("policy", "state", "home", "p"))
        for folder in (policy, home, project / ".claude", project / "src"):
            folder.mkdir(parents=True)
        hook = {"type": "http", "url": "http://127.0.0.1:8377/claude-code", "onFailure": "block"}
        settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}}
        (project / ".claude" / "settings.json").write_text(json.dumps(settings))
        (project / "src" / "app.py").write_text("print('hello')\n")
        os.environ["HOME"] = str(home)
        app, audit, checkpoints = build(policy, state)
        with audit, checkpoints:
            server.settle()
            _loop_run(drive(app, str(project), kinds, calls))
        records = [json.loads(line) for line in (state / "audit.jsonl").read_text().splitlines()]
        said = [(r["kind"], r.get("decision")) for r in records]
        wanted = [("served", PAYLOADS[kinds[i % len(kinds)]][2]) for i in range(calls)]
        if said != wanted:
            raise SystemExit(f"the audit holds {len(said)} records, not {calls} as answered")


def _loop_run(main: Any) -> None:
    """On uvloop when it is there, as uvicorn runs the app."""
    try:
        import uvloop
    except ImportError:
        asyncio.run(main)
        return
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(main)


if __name__ == "__main__":
    run(int(sys.argv[1]), MIXES[sys.argv[2] if sys.argv[2:] else "bash"])
