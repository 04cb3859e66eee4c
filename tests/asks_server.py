"""A real ``hookline serve --asks inbox --inbox`` on 127.0.0.1 for the tests, and its host.

``serving(...)`` runs the app in uvicorn on a thread, on a free port, with a policy whose rule
asks about a deploy (``policy_folder``); ``deploy`` is Claude Code's PreToolUse of one,
``posted`` the host's POST waiting in a thread, ``asked`` the live asks once they are in the
store (a test answers only then), ``answer_ask`` the inbox's form posted.
"""

from __future__ import annotations

import json
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from cli_runner import HOOKLINE, src_env
from hookline._cli.serve_asks import Fleet
from hookline._project import load_project
from hookline._serve.app import CLAUDE_CODE_PATH, create_app
from hookline._serve.asks import AskSettings
from hookline._serve.gate import Gate
from hookline._serve.judge import Judge
from hookline._serve.server import bind, server, url
from hookline._serve.tokens import TokenFile, tokens_path
from hookline._serve.tokens import add as add_token
from hookline.audit._redact import Redactor
from hookline.audit._writer import JSONL_NAME, AuditWriter
from hookline.storage import AskStore, LiveAsk
from inbox_server import add_users, csrf

#: The policy: a deploy is asked about (a permission rule); anything else Bash runs is the
#: host's to decide.
SETTINGS = {"permissions": {"ask": ["Bash(deploy *)"]}}
HOSTILE = "deploy <script>alert(1)</script>\x1b[2J\u202e --to раypal"
LINK_KEY = b"k" * 32


@contextmanager
def serving(
    policy: Path,
    state: Path,
    users: Path,
    *,
    wait: float = 20.0,
    expiry: str = "deny",
    store: str | None = None,
    gate: Gate | None = None,
) -> Iterator[str]:
    """``hookline serve --asks inbox --inbox`` for ``policy`` on a free port: its URL.
    ``gate``: who may ask (``gated``: the server's own, over the tokens of ``state``)."""
    project = load_project(policy, trust=True)
    with AuditWriter.open(state, store=store, redactor=Redactor(project.redact)) as audit:
        sock = bind("127.0.0.1", 0)
        where = url(sock)
        fleet = Fleet(AskSettings("inbox", wait, expiry), True, users, (), None, b"s" * 32,
                      LINK_KEY)  # fmt: skip
        asks, mounts = fleet.wired(audit, str(policy), store, where)
        app = create_app(Judge(project), audit, asks=asks, mounts=mounts, gate=gate)
        served = server(app)
        served.config.timeout_graceful_shutdown = 2
        thread = threading.Thread(target=served.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        try:
            while not served.started:  # readiness, polled (the test's timeout bounds it)
                assert thread.is_alive(), "the server stopped before it started"
                time.sleep(0.01)
            yield where
        finally:
            served.should_exit = True
            thread.join(timeout=30)
            sock.close()
    assert not thread.is_alive(), "the server did not stop"


def gated(state: Path, **tenants: str) -> tuple[Gate, dict[str, dict[str, str]]]:
    """The gate ``hookline serve`` makes over ``state``'s tokens file, with a token made for
    each agent of ``tenants`` (agent=tenant), as ``hookline serve token add`` makes them; the
    headers each agent's hooks send."""
    path = tokens_path(state)
    headers = {}
    for agent, tenant in tenants.items():
        secret = add_token(path, agent, tenant=tenant, user=f"{agent}-owner")
        headers[agent] = {"Authorization": f"Bearer {secret}"}
    return Gate(TokenFile(path)), headers


def policy_folder(root: Path) -> Path:
    """The server's folder: settings whose rule asks about a deploy."""
    folder = root / "policy"
    (folder / ".claude").mkdir(parents=True)
    (folder / ".claude" / "settings.json").write_text(json.dumps(SETTINGS))
    return folder


def deploy(cwd: Path, command: str = "deploy prod") -> dict[str, Any]:
    """Claude Code's PreToolUse of a Bash call the policy asks about."""
    return {
        "session_id": "d0bec9ad-936a-48ca-a213-75c3297749fd",
        "transcript_path": "/home/u/.claude/projects/p/d0bec9ad.jsonl",
        "cwd": str(cwd),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "toolu_deploy",
    }


def posted(
    pool: ThreadPoolExecutor,
    where: str,
    body: dict[str, Any],
    headers: dict[str, str] | None = None,
) -> Future[httpx.Response]:
    """The host's hook call (with its token's ``headers``), waiting for its answer in a
    thread."""
    return pool.submit(httpx.post, where, json=body, headers=headers, timeout=60)


def asked(
    store: AskStore, *, count: int = 1, host: Future[httpx.Response] | None = None
) -> list[LiveAsk]:
    """The live asks once ``count`` wait in the store (the test's timeout bounds the wait);
    given the ``host`` call that should wait on one, a failure at once when it was answered
    without."""
    while len(found := store.waiting_asks()) < count:
        if host is not None and host.done():
            raise AssertionError(f"answered with no live ask: {host.result().text}")
        time.sleep(0.01)
    return found


def permission(answer: httpx.Response) -> tuple[str, str]:
    assert answer.status_code == 200, answer.text
    said = answer.json()["hookSpecificOutput"]
    return said["permissionDecision"], said.get("permissionDecisionReason", "")


def answer_ask(client: httpx.Client, ask: str, action: str, **fields: str) -> httpx.Response:
    """POST the inbox's answer form for live ask ``ask``, with the page's CSRF token."""
    token = csrf(client.get("/").text)
    return client.post("/answer", data={"csrf": token, "ask": ask, "action": action, **fields})


def records(state: Path, kind: str) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in (state / JSONL_NAME).read_text().splitlines()]
    return [row for row in rows if row["kind"] == kind]


@pytest.fixture
def policy(tmp_path: Path) -> Path:
    return policy_folder(tmp_path)


@pytest.fixture
def users(tmp_path: Path) -> Path:
    path = tmp_path / "users.json"
    add_users(path)
    return path


@pytest.fixture
def pool() -> Iterator[ThreadPoolExecutor]:
    with ThreadPoolExecutor(4) as threads:
        yield threads


@contextmanager
def serve_process(policy: Path, state: Path, users: Path, *more: str) -> Iterator[str]:
    """A real ``hookline serve --asks inbox --inbox`` process (with ``more`` options): its URL."""
    args = [*HOOKLINE, "serve", "--cwd", str(policy), "--port", "0", "--state-dir", str(state),
            "--asks", "inbox", "--inbox", "--inbox-users", str(users), *more]  # fmt: skip
    process = subprocess.Popen(
        args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=src_env()
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()  # blocks until it listens
        assert " on http://127.0.0.1:" in first, process.stderr.read() if process.stderr else ""
        yield first.split(" on ", 1)[1].strip().removesuffix(CLAUDE_CODE_PATH)
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
