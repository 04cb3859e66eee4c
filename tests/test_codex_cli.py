"""The real Codex CLI guarded by ``hookline serve``: ``codex exec`` driven offline
(``codex_cli``), its ``hooks.json`` holding the exact entry ``hookline install codex`` writes,
posting to a real server on 127.0.0.1. What Codex does with each answer is what counts: a deny
blocks the command (a sentinel file stays absent) with hookline's reason given to the model; an
allow (no decision: Codex's own policy goes on) lets it run; a rewrite runs the rewritten
command; and with the server down the line's exit 2 blocks it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from codex_cli import FINAL, needs_codex, run
from hookline._hosts.claude_code import CLAUDE_CODE_PATH
from hookline._hosts.codex import CODEX_PATH
from hookline._hosts.codex_settings import UNREACHABLE, entry
from hookline.audit._writer import JSONL_NAME
from test_serve import running

pytestmark = needs_codex

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
HOOK = {"type": "python", "callable": "codex_guard:guard"}
SETTINGS = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [HOOK]}]}}


@pytest.fixture
def policy(tmp_path: Path) -> Path:
    folder = tmp_path / "policy"
    (folder / ".claude").mkdir(parents=True)
    (folder / ".claude" / "settings.json").write_text(json.dumps(SETTINGS))
    (folder / "codex_guard.py").write_text(GUARD)
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
    return {"hooks": {"PreToolUse": [{"hooks": [entry(url)]}]}}


def codex(command: str, work: Path, tmp_path: Path, url: str) -> Any:
    done = run(command, work=work, codex_home=tmp_path / "home" / ".codex", hooks=hooks(url))
    assert done.returncode == 0, done.stderr[-2000:]
    assert any(e.get("item", {}).get("text") == FINAL for e in done.events), done.events
    return done


def test_a_command_the_server_denies_does_not_run_and_the_model_reads_why(
    policy: Path, work: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    with running(policy, state) as where:
        done = codex(
            "touch made.txt", work, tmp_path, where.removesuffix(CLAUDE_CODE_PATH) + CODEX_PATH
        )
    assert not (work / "made.txt").exists()
    assert done.output is not None and "no files made through this server" in done.output
    records = [json.loads(line) for line in (state / JSONL_NAME).read_text().splitlines()]
    served = [(r["data"]["host"], r["decision"]) for r in records if r["kind"] == "served"]
    assert served == [("codex", "deny")]


def test_a_command_the_server_lets_through_runs(policy: Path, work: Path, tmp_path: Path) -> None:
    with running(policy, tmp_path / "state") as where:
        done = codex(
            "cat notes.txt", work, tmp_path, where.removesuffix(CLAUDE_CODE_PATH) + CODEX_PATH
        )
    assert done.output is not None and "hello from notes" in done.output


def test_a_command_a_hook_rewrites_runs_as_rewritten(
    policy: Path, work: Path, tmp_path: Path
) -> None:
    with running(policy, tmp_path / "state") as where:
        done = codex("cat a.txt", work, tmp_path, where.removesuffix(CLAUDE_CODE_PATH) + CODEX_PATH)
    assert done.output is not None
    assert "the hook gave b instead" in done.output and "asked for a" not in done.output


def test_a_write_into_the_projects_claude_folder_is_refused_though_codex_exec_bypasses(
    policy: Path, work: Path, tmp_path: Path
) -> None:
    """``codex exec`` never asks, and tells hooks its mode is bypassPermissions: hookline's
    protected folders hold all the same."""
    state = tmp_path / "state"
    command = "mkdir -p .claude && echo '{}' > .claude/settings.json"
    with running(policy, state) as where:
        done = codex(command, work, tmp_path, where.removesuffix(CLAUDE_CODE_PATH) + CODEX_PATH)
    assert not (work / ".claude").exists()
    assert done.output is not None and ".claude" in done.output
    records = [json.loads(line) for line in (state / JSONL_NAME).read_text().splitlines()]
    assert [r["decision"] for r in records if r["kind"] == "served"] == ["deny"]


def test_a_read_of_hooklines_keys_is_refused_though_codex_exec_bypasses(
    policy: Path, work: Path, tmp_path: Path
) -> None:
    """What ``hookline doctor``'s canary asks of Claude Code, asked through Codex: a read of a
    file under the user's ``~/.hookline/keys`` (absent: nothing could be read)."""
    target = Path.home() / ".hookline" / "keys" / "codex-canary-absent"
    with running(policy, tmp_path / "state") as where:
        done = codex(
            f"cat {target}", work, tmp_path, where.removesuffix(CLAUDE_CODE_PATH) + CODEX_PATH
        )
    assert done.output is not None
    assert "which no tool reads" in done.output and "No such file" not in done.output


def test_with_no_server_the_installed_line_blocks_the_command(work: Path, tmp_path: Path) -> None:
    done = codex("touch made.txt", work, tmp_path, "http://127.0.0.1:9" + CODEX_PATH)
    assert not (work / "made.txt").exists()
    assert done.output is not None and UNREACHABLE in done.output
