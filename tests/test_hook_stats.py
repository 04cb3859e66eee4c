"""``hookline hooks stats``: per hook, from the audit, its runs, decisions, latency and failures,
from records a real audited agent wrote; a tampered log is said to be unverified (exit 1)."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

import hookline
from hookline import Agent, Decision, ScriptedModel
from hookline._cli.main import cli
from hookline.audit import attach_audit
from hookline.audit._health import health
from hookline.storage import AuditRow

#: The timeout of the hook that never answers: its runs take at least this long.
STUCK_TIMEOUT = 0.5


@hookline.tool
def echo(text: str) -> str:
    """Say it."""
    return text


async def stuck(event: Any) -> None:
    await asyncio.Event().wait()  # never set: the hook times out


def fails(event: Any) -> Decision:
    raise RuntimeError("the hook's own bug")


def audited(project: Path, calls: list[str]) -> str:
    """An audited session in ``project`` that echoes each of ``calls``; its id. Hooks: a gate
    that denies "secret", a hook that never answers (times out) and one that raises."""
    turns: list[dict[str, Any]] = [
        {"tool_calls": [{"id": f"c{i}", "name": "echo", "input": {"text": text}}]}
        for i, text in enumerate(calls)
    ]
    agent = Agent(ScriptedModel([*turns, {"text": "ok"}]), tools=[echo], cwd=project)
    registry = agent.registry
    registry.add(
        "PreToolUse",
        lambda e: Decision.deny("no secrets") if e.tool_input["text"] == "secret" else None,
        name="no_secrets",
    )
    registry.add("PostToolUse", stuck, name="stuck", kind="observer", timeout=STUCK_TIMEOUT)
    registry.add("UserPromptSubmit", fails, name="buggy", kind="observer")
    with attach_audit(agent):
        agent.run_sync("go")
    return agent.session.id


def stats(project: Path, *args: str) -> Result:
    return CliRunner().invoke(cli, ["hooks", "stats", "--cwd", str(project), *args])


@pytest.fixture
def project(tmp_path: Path) -> Path:
    audited(tmp_path, ["a", "secret", "b"])
    return tmp_path


def test_each_hook_has_its_runs_decisions_and_failures(project: Path) -> None:
    result = stats(project, "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["verified"] is True and report["problems"] == []
    hooks = {hook["hook"]: hook for hook in report["hooks"]}
    assert hooks["no_secrets"]["event"] == "PreToolUse"
    assert hooks["no_secrets"]["runs"] == 3
    assert hooks["no_secrets"]["decisions"] == {"none": 2, "deny": 1}
    assert hooks["no_secrets"]["failures"] == {}
    assert hooks["stuck"]["runs"] == 2  # the denied call never ran: no PostToolUse
    assert hooks["stuck"]["failures"] == {"timeout": 2}
    assert hooks["buggy"]["failures"] == {"exception": 1}


def test_a_hook_slower_than_the_threshold_is_named_first(project: Path) -> None:
    """The hook that never answers takes at least its timeout, every run."""
    slow_ms = STUCK_TIMEOUT * 1000 - 1
    report = json.loads(stats(project, "--json", "--slow-ms", str(slow_ms)).stdout)
    first = report["hooks"][0]
    assert first["hook"] == "stuck" and first["slow"] is True
    assert first["p95_ms"] >= STUCK_TIMEOUT * 1000 and first["max_ms"] >= first["p50_ms"]
    table = stats(project, "--slow-ms", str(slow_ms))
    lines = table.stdout.splitlines()
    assert lines[0].split() == ["HOOK", "EVENT", "RUNS", "DECISIONS", "P50", "MS", "P95", "MS",
                                "MAX", "MS", "SLOW", "FAILURES"]  # fmt: skip
    assert lines[1].startswith("stuck ") and " slow " in lines[1] and "timeout 2" in lines[1]
    assert lines[-1].startswith("1 hook with a p95 over 499 ms: stuck (PostToolUse, p95 ")


def test_filters_by_session_and_time(tmp_path: Path) -> None:
    first = audited(tmp_path, ["a"])
    audited(tmp_path, ["b", "c"])
    only = json.loads(stats(tmp_path, "--json", "--session", first[:8]).stdout)
    assert {hook["hook"]: hook["runs"] for hook in only["hooks"]}["no_secrets"] == 1
    both = json.loads(stats(tmp_path, "--json").stdout)
    assert {hook["hook"]: hook["runs"] for hook in both["hooks"]}["no_secrets"] == 3
    future = stats(tmp_path, "--since", "2999-01-01")
    assert future.exit_code == 0 and future.stdout == ""
    assert "no hook runs match" in future.stderr


def test_a_tampered_log_is_said_unverified_with_exit_1(project: Path) -> None:
    state = project / ".hookline" / "state"
    with sqlite3.connect(state / "hookline.db") as conn:
        conn.execute(
            "UPDATE hookline_audit SET data = replace(data, '\"deny\"', '\"allow\"') "
            "WHERE data LIKE '%no secrets%'"
        )
    result = stats(project, "--json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["verified"] is False and any("TAMPERED" in p for p in report["problems"])
    assert "the audit is NOT VERIFIED" in result.stderr
    assert "TAMPERED" in result.stderr


def test_a_bad_time_is_one_line_naming_the_option(project: Path) -> None:
    result = stats(project, "--since", "last tuesday")
    assert result.exit_code == 2
    assert "--since" in result.output and "Traceback" not in result.output


def row(seq: int, duration: float | None, decision: str | None = None) -> AuditRow:
    data: dict[str, Any] = {"hook": "h", "source": "python:h"}
    if duration is not None:
        data["duration_ms"] = duration
    return AuditRow(seq, "x", None, 0.0, "s", None, "PreToolUse", "hook", None, decision, data)


def test_percentiles_are_nearest_rank_times_some_run_took() -> None:
    rows = [row(i, float(i)) for i in range(1, 21)]  # 1 .. 20 ms
    (hook,) = health([*rows, row(21, None, "deny")])
    assert (hook.percentile(50), hook.percentile(95), hook.slowest) == (10.0, 19.0, 20.0)
    assert hook.runs == 21 and hook.decisions == {"none": 20, "deny": 1}
    (one,) = health([row(1, 7.5)])
    assert one.percentile(50) == one.percentile(95) == 7.5


def test_hook_runs_riding_in_a_call_record_count_as_runs() -> None:
    call = AuditRow(1, "x", None, 0.0, "s", "t1", None, "tool", "echo", "executed", {"hooks": [
        {"event": "PreToolUse", "hook": "g", "source": "python:g", "decision": "allow",
         "duration_ms": 2.0},
        {"event": "PostToolUse", "hook": "g", "source": "python:g", "decision": None,
         "duration_ms": 3.0, "failure": "invalid"},
    ]})  # fmt: skip
    found = {(hook.hook, hook.event): hook for hook in health([call])}
    assert found["g", "PreToolUse"].decisions == {"allow": 1}
    assert found["g", "PostToolUse"].failures == {"invalid": 1}
