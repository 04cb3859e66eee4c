"""The real Gemini CLI guarded by ``hookline serve``: ``gemini -p`` driven offline
(``gemini_cli``), its settings holding the exact entry ``hookline install gemini`` writes for
BeforeTool, posting to a real server on 127.0.0.1. What Gemini does with each answer is what
counts: a deny blocks the command (a sentinel file stays absent) with hookline's reason given to
the model; an allow lets it run; a rewrite runs the rewritten command; a read of hookline's keys
is refused though Gemini approves every call; and with the server down the line's exit 2 blocks
it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gemini_cli import FINAL, needs_gemini, run
from hookline._hosts.claude_code import CLAUDE_CODE_PATH
from hookline._hosts.gemini import GEMINI_PATH
from hookline._hosts.gemini_settings import UNREACHABLE, entry
from hookline.audit._writer import JSONL_NAME
from test_serve import running

pytestmark = needs_gemini

GUARD = """
from hookline import Decision

def guard(event):
    command = event.tool_input.get("command", "")
    if "touch" in command:
        return Decision.deny("no files made through this server")
    if command == "cat a.txt":
        return Decision.allow(updated_input={"command": "cat b.txt"})
    return None
"""
HOOK = {"type": "python", "callable": "gemini_guard:guard"}
SETTINGS = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [HOOK]}]}}


@pytest.fixture
def policy(tmp_path: Path) -> Path:
    folder = tmp_path / "policy"
    (folder / ".claude").mkdir(parents=True)
    (folder / ".claude" / "settings.json").write_text(json.dumps(SETTINGS))
    (folder / "gemini_guard.py").write_text(GUARD)
    return folder


@pytest.fixture
def work(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "notes.txt").write_text("hello from notes\n")
    (folder / "a.txt").write_text("the model asked for a\n")
    (folder / "b.txt").write_text("the hook gave b instead\n")
    return folder


def hooks(url: str) -> dict[str, Any]:
    return {"BeforeTool": [{"matcher": "*", "hooks": [entry(url)]}]}


def gemini(command: str, work: Path, tmp_path: Path, url: str) -> Any:
    done = run(command, work=work, home=tmp_path / "gemini-home", hooks=hooks(url))
    assert done.returncode == 0, done.stderr[-2000:]
    said = [e.get("content") for e in done.events if e.get("type") == "message"]
    assert FINAL in said, done.events
    return done


def route(where: str) -> str:
    return where.removesuffix(CLAUDE_CODE_PATH) + GEMINI_PATH


def test_a_command_the_server_denies_does_not_run_and_the_model_reads_why(
    policy: Path, work: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    with running(policy, state) as where:
        done = gemini("touch made.txt", work, tmp_path, route(where))
    assert not (work / "made.txt").exists()
    assert done.output is not None and "no files made through this server" in done.output
    records = [json.loads(line) for line in (state / JSONL_NAME).read_text().splitlines()]
    served = [(r["data"]["host"], r["decision"]) for r in records if r["kind"] == "served"]
    assert served == [("gemini", "deny")]


def test_a_command_the_server_lets_through_runs(policy: Path, work: Path, tmp_path: Path) -> None:
    with running(policy, tmp_path / "state") as where:
        done = gemini("cat notes.txt", work, tmp_path, route(where))
    assert done.output is not None and "hello from notes" in done.output


def test_a_command_a_hook_rewrites_runs_as_rewritten(
    policy: Path, work: Path, tmp_path: Path
) -> None:
    with running(policy, tmp_path / "state") as where:
        done = gemini("cat a.txt", work, tmp_path, route(where))
    assert done.output is not None
    assert "the hook gave b instead" in done.output and "asked for a" not in done.output


def test_a_read_of_hooklines_keys_is_refused_though_gemini_approves_every_call(
    policy: Path, work: Path, tmp_path: Path
) -> None:
    """What ``hookline doctor``'s canary asks through Gemini, of a key that exists: its text
    never reaches the model."""
    keys = Path.home() / ".hookline" / "keys"
    keys.mkdir(parents=True)
    (keys / "gemini-canary").write_text("SENTINEL-KEY-TEXT\n")
    with running(policy, tmp_path / "state") as where:
        done = gemini(f"cat {keys / 'gemini-canary'}", work, tmp_path, route(where))
    assert done.output is not None
    assert "which no tool reads" in done.output and "SENTINEL-KEY-TEXT" not in done.output


def test_with_no_server_the_installed_line_blocks_the_command(work: Path, tmp_path: Path) -> None:
    done = gemini("touch made.txt", work, tmp_path, "http://127.0.0.1:9" + GEMINI_PATH)
    assert not (work / "made.txt").exists()
    assert done.output is not None and UNREACHABLE in done.output
