"""``hookline doctor`` run for real: a ``hookline serve`` on 127.0.0.1, hooks installed (or not)
in the test's home, and the real Claude Code CLI sending the canary through its own hooks.

The tests that run Claude Code need its CLI: ``$CLAUDE_CLI``, ``claude`` on PATH, or the one
the ``claude-agent-sdk`` wheel bundles (in the bench extra); without one they skip, saying so.
The dev extra CI installs has no CLI.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from cli_runner import HOOKLINE, src_env
from hookline._hosts.claude_code import DEFAULT_URL
from hookline._serve import canary
from hookline._serve.break_glass import break_glass
from hookline._serve.doctor import health_of
from hookline.audit._writer import JSONL_NAME
from host_cli import needs
from test_serve import running

CLI = canary.find_cli()
needs_cli = needs(
    CLI,
    "CLAUDE",
    "set CLAUDE_CLI, or pip install claude-agent-sdk (its wheel bundles it; the bench extra "
    "has it, and CI installs it beside the dev extra)",
)
#: The server's policy allows every Read by rule: the canary is refused all the same.
POLICY = {"permissions": {"allow": ["Read"]}}


@pytest.fixture
def policy(tmp_path: Path) -> Path:
    folder = tmp_path / "policy"
    (folder / ".claude").mkdir(parents=True)
    (folder / ".claude" / "settings.json").write_text(json.dumps(POLICY))
    return folder


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


def doctor(project: Path, *args: str) -> tuple[int, dict[str, Any]]:
    """``hookline doctor --json ARGS`` in ``project``: its exit code and report."""
    done = subprocess.run(
        [*HOOKLINE, "doctor", "--json", *args],
        cwd=project,
        env=src_env(),
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=300,
        check=False,
    )
    assert done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout)


def install(project: Path, url: str) -> None:
    done = subprocess.run(
        [*HOOKLINE, "install", "claude-code", "--url", url],
        cwd=project,
        env=src_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def served(state: Path) -> list[dict[str, Any]]:
    """The server's records of the calls it judged (none: it wrote no record at all)."""
    log = state / JSONL_NAME
    lines = log.read_text().splitlines() if log.exists() else []
    return [r for r in map(json.loads, lines) if r["kind"] == "served" and r["tool"]]


@needs_cli
def test_with_the_server_running_and_hooks_installed_the_canary_is_refused_by_the_server(
    policy: Path, project: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    with running(policy, state) as url:
        install(project, url)
        code, report = doctor(project, "--url", url)
    assert code == 0, report["problems"]
    assert report["covered"] is True
    assert report["server"]["ok"] is True
    assert report["canary"]["outcome"] == "refused"
    target = report["canary"]["target"]
    assert not os.path.lexists(target)
    assert "hookline's private state" in report["canary"]["said"]
    assert ["PreToolUse" in s["events"] for s in report["installed"] if s["scope"] == "user"] == [
        True
    ]
    # the server's own record: it was asked about the canary and denied it
    (record,) = [r for r in served(state) if r["tool"] == "Read"]
    assert (record["event"], record["permission"]) == ("PreToolUse", "deny")
    assert record["data"]["input"]["file_path"] == target


@needs_cli
def test_without_hooks_installed_the_canary_runs_and_doctor_says_not_covered(
    policy: Path, project: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    with running(policy, state) as url:
        code, report = doctor(project, "--url", url)
    assert code == 1
    assert report["covered"] is False
    assert report["server"]["ok"] is True
    assert report["canary"]["outcome"] == "ran"
    assert "does not exist" in report["canary"]["said"]  # Claude Code's Read went ahead
    assert any("no settings file has hookline's hooks" in p for p in report["problems"])
    assert any("the canary call ran" in p for p in report["problems"])
    assert [r for r in served(state) if r["tool"] == "Read"] == []  # nobody asked the server


@needs_cli
def test_with_the_server_down_doctor_says_so_and_claude_code_blocks_the_canary(
    policy: Path, project: Path, tmp_path: Path
) -> None:
    with running(policy, tmp_path / "state") as url:
        pass  # its port is free again: nothing answers there
    install(project, url)
    code, report = doctor(project, "--url", url)
    assert code == 1
    assert report["server"]["ok"] is False
    assert any("the server does not answer" in p for p in report["problems"])
    assert report["canary"]["outcome"] == "blocked"  # onFailure block: the call did not run
    assert 'onFailure is "block"' in report["canary"]["said"]


@needs_cli
@pytest.mark.parametrize(
    ("settings", "outcome", "problem"),
    [
        ({"disableAllHooks": True}, "ran", "disableAllHooks is set in"),
        ({"allowedHttpHookUrls": ["http://localhost:*"]}, "blocked", "allowedHttpHookUrls lets"),
    ],
)
def test_a_projects_own_settings_can_stop_the_users_hooks_and_doctor_names_it(
    policy: Path,
    project: Path,
    tmp_path: Path,
    settings: dict[str, Any],
    outcome: str,
    problem: str,
) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    with running(policy, tmp_path / "state") as url:
        install(project, url)  # into the user's settings
        code, report = doctor(project, "--url", url)
    assert code == 1
    assert report["canary"]["outcome"] == outcome
    assert any(problem in p for p in report["problems"]), report["problems"]


def test_health_says_when_a_break_glass_holds(policy: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    with running(policy, state, glass_dir=state) as url:
        assert health_of(url).glass_until is None
        glass = break_glass(state, 5, "the test")
        held = health_of(url)
    assert held.ok is True
    assert held.glass_until == glass.until


def test_a_url_that_is_not_http_is_a_usage_error_in_one_line(project: Path) -> None:
    done = subprocess.run(
        [*HOOKLINE, "doctor", "--url", "not-a-url"],
        cwd=project,
        env=src_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert "not-a-url is not an http(s) URL" in done.stderr
    assert DEFAULT_URL in done.stderr  # the fix names the URL install writes
