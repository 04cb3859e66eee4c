"""``hookline serve`` keeps on each ``served`` record the hook runs that judged it (decision,
time, failure kind), so ``hookline hooks stats`` counts a host's hooks as it counts a run's.
In process: Starlette's test client, no socket."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from hookline._cli.main import cli
from hookline._project import load_project
from hookline._serve.app import create_app
from hookline._serve.judge import Judge
from hookline.audit._redact import Redactor
from hookline.audit._writer import JSONL_NAME, AuditWriter

GUARD = """
from hookline import Decision

def no_writes(event):
    return Decision.deny("writes go through review")

def broken(event):
    raise RuntimeError("the guard's own bug")
"""
SETTINGS = {
    "hooks": {
        "PreToolUse": [
            {"matcher": "Write", "hooks": [{"type": "python", "callable": "guard.py:no_writes"}]},
            {"matcher": "Read", "hooks": [{"type": "python", "callable": "guard.py:broken"}]},
        ]
    }
}


#: A write the hook denies, a read whose hook raises, another denied write.
CALLS = (
    ("Write", {"file_path": "a.txt", "content": "x"}),
    ("Read", {"file_path": "a.txt"}),
    ("Write", {"file_path": "b.txt", "content": "y"}),
)


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HOOKLINE_MANAGED_SETTINGS_DIR", str(tmp_path / "managed"))
    folder = tmp_path / "policy"
    (folder / ".claude").mkdir(parents=True)
    (folder / ".claude" / "settings.json").write_text(json.dumps(SETTINGS))
    (folder / "guard.py").write_text(GUARD)
    return folder


@pytest.fixture
def audit(folder: Path) -> Iterator[AuditWriter]:
    with AuditWriter.open(folder / ".hookline" / "state", redactor=Redactor(())) as writer:
        yield writer


def tool_call(cwd: Path, name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return {
        "session_id": "d0bec9ad-936a-48ca-a213-75c3297749fd",
        "transcript_path": "/home/u/.claude/projects/p/d0bec9ad.jsonl",
        "cwd": str(cwd),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": name,
        "tool_input": tool_input,
        "tool_use_id": f"toolu_{name}",
    }


def test_served_records_carry_their_hook_runs_and_stats_count_them(
    folder: Path, audit: AuditWriter
) -> None:
    with TestClient(create_app(Judge(load_project(folder, trust=True)), audit)) as client:
        for name, given in (
            ("Write", {"file_path": "a.txt", "content": "x"}),
            ("Read", {"file_path": "a.txt"}),
            ("Write", {"file_path": "b.txt", "content": "y"}),
        ):
            answer = client.post("/claude-code", json=tool_call(folder, name, given))
            assert answer.status_code == 200  # fmt: skip
    lines = (folder / ".hookline" / "state" / JSONL_NAME).read_text().splitlines()
    served = [r for r in map(json.loads, lines) if r["kind"] == "served"]
    (first_run,) = served[0]["data"]["hooks"]
    assert first_run["hook"].endswith("guard.py:no_writes") and first_run["decision"] == "deny"
    assert first_run["reason"] == "writes go through review" and first_run["duration_ms"] >= 0
    (failed,) = served[1]["data"]["hooks"]
    assert failed["failure"] == "exception" and "RuntimeError" in failed["error"]
    stats = CliRunner().invoke(cli, ["hooks", "stats", "--cwd", str(folder), "--json"])
    assert stats.exit_code == 0, stats.output
    hooks = {hook["hook"].rsplit(":", 1)[-1]: hook for hook in json.loads(stats.stdout)["hooks"]}
    assert hooks["no_writes"]["runs"] == 2 and hooks["no_writes"]["decisions"] == {"deny": 2}
    assert hooks["broken"]["failures"] == {"exception": 1}
