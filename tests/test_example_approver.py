"""examples/approver: a small HTTP approver on 127.0.0.1, run for real beside ``hookline run``.

The approver (its ``server.py`` with its ``policy.json``) runs as a subprocess on a free port,
requiring a bearer token and logging each request and answer; hookline's CLI runs a scripted
model whose calls it is asked about (stdin is not a terminal, so it is the only approver).
``npm`` and ``git`` are stand-ins that log their arguments, so what ran is read from the log.
Every request the approver read must fit the request schema and every answer it gave the
answer schema, both shipped with hookline.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from cli_runner import hookline
from hookline._tools.approval_wire import schema

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "approver"
TOKEN = "s3cret-approver-token"
STAND_IN = '#!/bin/sh\nprintf "%s %s\\n" "$(basename "$0")" "$*" >> "{log}"\n'


class Approver:
    """The example approver, running; ``url`` is where hookline posts."""

    def __init__(self, root: Path) -> None:
        self.log = root / "approver.jsonl"
        env = {**os.environ, "APPROVER_TOKEN": TOKEN}
        argv = [sys.executable, str(EXAMPLE / "server.py"), "--policy",
                str(EXAMPLE / "policy.json"), "--port", "0", "--token-env", "APPROVER_TOKEN",
                "--log", str(self.log)]  # fmt: skip
        self.process = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, text=True)
        line = self.process.stdout.readline() if self.process.stdout else ""
        assert line.startswith("approver on http://127.0.0.1:"), line
        self.url = line.split(" on ", 1)[1].strip()

    def entries(self) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]

    def stop(self) -> None:
        self.process.terminate()
        self.process.communicate(timeout=10)


@pytest.fixture
def approver(tmp_path: Path) -> Iterator[Approver]:
    running = Approver(tmp_path)
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    bin_dir, ws = tmp_path / "bin", tmp_path / "ws"
    for folder in (bin_dir, ws / "docs", ws / "src"):
        folder.mkdir(parents=True)
    for name in ("npm", "git"):
        (bin_dir / name).write_text(STAND_IN.format(log=tmp_path / "ran.log"))
        (bin_dir / name).chmod(0o755)
    return ws


def run(project: Path, url: str, *calls: dict[str, Any], token: str = TOKEN,
        more: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:  # fmt: skip
    script = {"turns": [*({"tool_calls": [c]} for c in calls), {"text": "done"}]}
    (project.parent / "script.json").write_text(json.dumps(script))
    path = f"{project.parent / 'bin'}{os.pathsep}{os.environ['PATH']}"
    return hookline(
        "run", "test, document and push", "--model", f"scripted:{project.parent / 'script.json'}",
        "--cwd", str(project), "--approver-url", url, "--output-format", "json", *more,
        env={"PATH": path, "HOOKLINE_APPROVER_TOKEN": token},
    )  # fmt: skip


def bash(command: str) -> dict[str, Any]:
    return {"name": "Bash", "input": {"command": command}}


def write(path: str) -> dict[str, Any]:
    return {"name": "Write", "input": {"file_path": path, "content": "text\n"}}


def ran(project: Path) -> list[str]:
    log = project.parent / "ran.log"
    return log.read_text().splitlines() if log.exists() else []


def test_the_policy_answers_each_call_and_a_session_allow_spares_the_next_ask(
    approver: Approver, project: Path
) -> None:
    calls = (bash("npm test"), bash("npm test -- --watch"), bash("git push origin main"),
             write("docs/notes.md"), write("src/app.py"))  # fmt: skip
    done = run(project, approver.url, *calls)

    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)["tool_calls"]
    assert [c["status"] for c in results] == ["executed", "executed", "blocked", "executed",
                                           "blocked"]  # fmt: skip
    assert ran(project) == ["npm test", "npm test -- --watch"]
    assert results[2]["reason"].startswith("Pushing is for people here")
    assert results[4]["reason"] == "No rule of the approver allows this; ask the user."
    assert (project / "docs" / "notes.md").exists() and not (project / "src" / "app.py").exists()
    entries = approver.entries()
    asked = [e["request"]["tool_input"].get("command") or e["request"]["tool_input"]["file_path"]
             for e in entries]  # fmt: skip
    assert asked == [
        "npm test",
        "git push origin main",
        f"{project}/docs/notes.md",
        f"{project}/src/app.py",
    ]  # npm test -- --watch: allowed for the session
    assert entries[0]["answer"]["scope"] == "session"
    assert entries[0]["request"]["session_scope"]["rules"] == ["Bash(npm test *)"]
    for entry in entries:
        jsonschema.validate(entry["request"], schema("approval-request"))
        jsonschema.validate(entry["answer"], schema("approval-answer"))
    first = results[0]
    assert first["approver"] == f"release-bot via http:{approver.url.split('/')[2]}"


def test_without_its_token_the_approver_answers_nothing_and_nothing_runs(
    approver: Approver, project: Path
) -> None:
    done = run(project, approver.url, bash("npm test"), token="wrong-token")
    assert done.returncode == 0, done.stderr
    (call,) = json.loads(done.stdout)["tool_calls"]
    assert call["status"] == "blocked" and "answered HTTP 401" in call["reason"]
    assert ran(project) == [] and approver.entries() == []


def test_pending_pauses_the_run_for_a_person(approver: Approver, project: Path) -> None:
    done = run(project, approver.url, bash("kubectl rollout restart deploy/web"),
               more=("--defer-asks",))  # fmt: skip
    assert done.returncode == 4, done.stderr  # paused: resume with an answer
    result = json.loads(done.stdout)
    assert result["stop_reason"] == "tool_deferred"
    (entry,) = approver.entries()
    assert entry["answer"] == {"version": 1, "behavior": "pending", "approver": "release-bot"}
