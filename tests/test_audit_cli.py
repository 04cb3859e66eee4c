"""``hookline audit``: queries by session, tool, decision and time; ``audit verify`` exit codes."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

import hookline
from hookline import Agent, Decision, ScriptedModel
from hookline.audit import attach_audit
from hookline.errors import ConfigError

from hookline.cli.audit_cmd import audit  # isort: skip

from cli_runner import hookline as run_hookline


def _wired() -> bool:
    from hookline.cli.main import cli

    return "audit" in cli.commands


wired = pytest.mark.skipif(not _wired(), reason="the audit group is not in hookline.cli.main yet")


@hookline.tool
def echo(text: str) -> str:
    """Say it."""
    return text


@hookline.tool
def wipe(path: str) -> str:
    """Delete a folder."""
    raise AssertionError("a denied call must never run")


def session(project: Path, script: list[dict[str, Any]]) -> str:
    """One audited session in ``project``; its id."""
    agent = Agent(ScriptedModel(script), tools=[echo, wipe], cwd=project, user="ana")
    agent.registry.add("PreToolUse", lambda e: Decision.deny("never wipe"), matcher="wipe",
                       name="no_wipe")  # fmt: skip
    with attach_audit(agent):
        agent.run_sync("go")  # closes the agent and its store
    return agent.session.id


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, str, str]:
    """A project with two sessions: one echoes (executed), one tries to wipe (denied)."""
    first = session(tmp_path, [call("e1", "echo", text="hi"), {"text": "ok"}])
    second = session(tmp_path, [call("w1", "wipe", path="/"), {"text": "ok"}])
    return tmp_path, first, second


def call(id: str, tool: str, **tool_input: Any) -> dict[str, Any]:
    return {"tool_calls": [{"id": id, "name": tool, "input": tool_input}]}


def run(project: Path, *args: str) -> Result:
    return CliRunner().invoke(audit, [*args, "--cwd", str(project)] if args[:1] == ("verify",)
                              else ["--cwd", str(project), *args])  # fmt: skip


def lines(result: Result) -> list[str]:
    return result.stdout.splitlines()


def test_query_shows_every_record_one_line_each(project):
    path, first, second = project
    result = run(path)
    assert result.exit_code == 0, result.output
    assert len(lines(result)) == 3  # echo: the call; wipe: its hook's deny, the blocked call
    assert first[:8] in result.output and second[:8] in result.output
    deny = next(line for line in lines(result) if " deny " in line)
    assert "wipe" in deny and "PreToolUse" in deny and "no_wipe" in deny and "never wipe" in deny


def test_query_by_session_tool_and_decision(project):
    path, first, second = project
    assert all(first[:8] in line for line in lines(run(path, "--session", first)))
    assert len(lines(run(path, "--session", second))) == 2
    assert len(lines(run(path, "--tool", "echo"))) == 1
    (denied,) = lines(run(path, "--decision", "deny"))
    assert "no_wipe" in denied
    (blocked,) = lines(run(path, "--decision", "blocked", "--tool", "wipe"))
    assert second[:8] in blocked


def test_query_by_time_relative_or_iso(project):
    path = project[0]
    assert len(lines(run(path, "--since", "1h"))) == 3
    assert len(lines(run(path, "--since", "1h", "--until", "30m"))) == 0
    soon = (datetime.now() + timedelta(minutes=5)).isoformat(timespec="seconds")
    assert len(lines(run(path, "--until", soon))) == 3
    empty = run(path, "--since", soon)
    assert empty.exit_code == 0 and empty.stdout == ""
    assert "no audit records match" in empty.stderr
    bad = run(path, "--since", "yesterday")
    assert bad.exit_code == 2 and "neither ISO 8601" in bad.output


def test_query_as_json_gives_whole_records(project):
    path, _, second = project
    result = run(path, "--session", second, "--json")
    records = [json.loads(line) for line in lines(result)]
    assert [(r["kind"], r["decision"]) for r in records] == [("hook", "deny"), ("tool", "blocked")]
    assert {r["session_id"] for r in records} == {second}
    assert all({"seq", "hash", "prev_hash", "data"} <= r.keys() for r in records)
    assert all(r["data"]["user"] == "ana" for r in records)


def test_verify_a_clean_log_exits_0_and_says_what_it_checked(project):
    result = run(project[0], "verify")
    assert result.exit_code == 0, result.output
    store, file = lines(result)
    assert store.startswith("store ") and "hookline.db: 3 records, chain intact" in store
    assert file.startswith("file ") and "audit.jsonl: 3 records, chain intact" in file


def test_verify_exits_1_on_an_edited_line_or_a_deleted_store_row(project):
    path = project[0]
    state = path / ".hookline" / "state"
    jsonl = state / "audit.jsonl"
    original = jsonl.read_text()
    jsonl.write_text(original.replace('"user":"ana"', '"user":"bob"', 1))
    edited = run(path, "verify")
    assert edited.exit_code == 1 and "file" in edited.output and "TAMPERED" in edited.output
    assert "line 1 (seq 1): edited" in edited.output
    jsonl.write_text(original)
    with sqlite3.connect(state / "hookline.db") as conn:
        conn.execute("DELETE FROM hookline_audit WHERE seq = 2")
    deleted = run(path, "verify")
    assert deleted.exit_code == 1 and "seq 3: deleted" in deleted.output


def test_verify_reports_a_partial_last_line_as_a_crash_artefact(project):
    path = project[0]
    with open(path / ".hookline" / "state" / "audit.jsonl", "a") as file:
        file.write('{"seq":4,"prev')
    result = run(path, "verify")
    assert (
        result.exit_code == 0 and "truncated" in result.output and "crash artefact" in result.output
    )


def test_a_missing_store_or_file_is_a_config_error(tmp_path, project):
    result = run(tmp_path / "nowhere", "--tool", "x")
    assert isinstance(result.exception, ConfigError) and "no audit store" in str(result.exception)
    (project[0] / ".hookline" / "state" / "audit.jsonl").unlink()
    result = run(project[0], "verify")
    assert isinstance(result.exception, ConfigError) and "no audit file" in str(result.exception)


def hookline_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return run_hookline(*args, keep_pythonpath=False)  # PYTHONPATH is exactly src


@wired
def test_hookline_audit_queries_from_the_command_line(project):
    path, _, second = project
    done = hookline_cli("audit", "--cwd", str(path), "--decision", "deny")
    assert done.returncode == 0 and second[:8] in done.stdout and "no_wipe" in done.stdout
    missing = hookline_cli("audit", "--cwd", str(path / "nowhere"))
    assert missing.returncode == 2 and missing.stderr.startswith("hookline: error: no audit store")


@wired
def test_hookline_audit_verify_exit_codes_from_the_command_line(project):
    path = project[0]
    assert hookline_cli("audit", "verify", "--cwd", str(path)).returncode == 0
    with sqlite3.connect(path / ".hookline" / "state" / "hookline.db") as conn:
        conn.execute("UPDATE hookline_audit SET decision = 'allow' WHERE decision = 'deny'")
    done = hookline_cli("audit", "verify", "--cwd", str(path))
    assert done.returncode == 1 and "TAMPERED" in done.stdout and "edited" in done.stdout
