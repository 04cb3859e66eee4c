"""``hookline doctor --host gemini|codex|cursor`` run for real: a ``hookline serve`` on
127.0.0.1 and the host's hooks installed (or not) by ``hookline install`` in the test's home.
Through Codex and Gemini CLI a live canary runs (the real CLIs, ``codex_cli`` and
``gemini_cli``); through Cursor none does yet: the report says what is installed and what stops
it, and never claims the calls are proven judged."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from cli_runner import HOOKLINE, hookline, src_env
from codex_cli import needs_codex
from gemini_cli import needs_gemini
from hookline._hosts.claude_code import CLAUDE_CODE_PATH
from hookline._serve.gate import Gate
from hookline._serve.tokens import TokenFile, tokens_path
from test_doctor import needs_cli
from test_serve import running

ROUTES = {"gemini": "/gemini", "codex": "/codex", "cursor": "/cursor"}


@pytest.fixture(autouse=True)
def no_codex_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CODEX_HOME", raising=False)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


@pytest.fixture
def policy(tmp_path: Path) -> Path:
    folder = tmp_path / "policy"
    folder.mkdir()
    return folder


def doctor(
    project: Path, *args: str, env: dict[str, str] | None = None
) -> tuple[int, dict[str, Any]]:
    done = subprocess.run(
        [*HOOKLINE, "doctor", "--json", *args],
        cwd=project, env=src_env(env), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout)


def test_installed_hooks_and_a_server_that_answers_are_reported_but_not_proven(
    project: Path, policy: Path, tmp_path: Path
) -> None:
    """Through Cursor, which has no canary yet."""
    with running(policy, tmp_path / "state") as where:
        url = where.removesuffix(CLAUDE_CODE_PATH) + ROUTES["cursor"]
        assert hookline("install", "cursor", "--url", url, cwd=project).returncode == 0
        code, report = doctor(project, "--host", "cursor", "--url", url)
    assert (code, report["covered"], report["proven"], report["problems"]) == (0, True, False, [])
    user = next(scope for scope in report["installed"] if scope["scope"] == "user")
    assert user["gating"] is True and user["events"]
    assert any("no live canary" in line for line in report["unchecked"])


def test_nothing_installed_says_how_to_install_it(
    project: Path, policy: Path, tmp_path: Path
) -> None:
    with running(policy, tmp_path / "state") as where:
        url = where.removesuffix(CLAUDE_CODE_PATH) + "/gemini"
        code, report = doctor(project, "--host", "gemini", "--url", url)
    assert code == 1
    assert any("run hookline install gemini" in p for p in report["problems"])


def test_a_server_that_is_down_and_hooks_turned_off_are_problems(project: Path) -> None:
    url = "http://127.0.0.1:9/codex"  # the discard port: nothing answers there
    assert hookline("install", "codex", "--url", url, cwd=project).returncode == 0
    config = Path(os.environ["HOME"]) / ".codex" / "config.toml"
    config.write_text("[features]\nhooks = false\n")
    code, report = doctor(project, "--host", "codex", "--url", url)
    assert code == 1
    problems = " | ".join(report["problems"])
    assert "does not answer" in problems and "features.hooks is false" in problems


def test_without_the_gate_event_or_without_curl_calls_are_not_judged(
    project: Path, policy: Path, tmp_path: Path
) -> None:
    with running(policy, tmp_path / "state") as where:
        url = where.removesuffix(CLAUDE_CODE_PATH) + "/cursor"
        only_prompts = ("install", "cursor", "--url", url, "--events", "beforeSubmitPrompt")
        assert hookline(*only_prompts, cwd=project).returncode == 0
        code, report = doctor(project, "--host", "cursor", "--url", url)
        assert code == 1
        assert any("no running beforeShellExecution hook" in p for p in report["problems"])
        assert hookline("install", "cursor", "--url", url, cwd=project).returncode == 0
        empty = tmp_path / "bin"
        empty.mkdir()
        code, report = doctor(project, "--host", "cursor", "--url", url, env={"PATH": str(empty)})
    assert code == 1
    assert any("curl is not on the PATH" in p for p in report["problems"])


@needs_codex
def test_through_codex_the_canary_is_refused_by_the_server_and_coverage_is_proven(
    project: Path, policy: Path, tmp_path: Path
) -> None:
    with running(policy, tmp_path / "state") as where:
        url = where.removesuffix(CLAUDE_CODE_PATH) + "/codex"
        assert hookline("install", "codex", "--url", url, cwd=project).returncode == 0
        code, report = doctor(project, "--host", "codex", "--url", url)
    assert (code, report["covered"], report["proven"]) == (0, True, True), report["problems"]
    assert report["canary"]["outcome"] == "refused"
    assert not os.path.lexists(report["canary"]["target"])


@needs_codex
def test_through_codex_without_hooks_the_canary_runs_and_with_no_server_it_is_blocked(
    project: Path, policy: Path, tmp_path: Path
) -> None:
    with running(policy, tmp_path / "state") as where:
        url = where.removesuffix(CLAUDE_CODE_PATH) + "/codex"
        code, report = doctor(project, "--host", "codex", "--url", url)
    assert (code, report["canary"]["outcome"]) == (1, "ran")
    assert any("the canary call ran" in p for p in report["problems"])
    down = "http://127.0.0.1:9/codex"  # the discard port: nothing answers there
    assert hookline("install", "codex", "--url", down, cwd=project).returncode == 0
    code, report = doctor(project, "--host", "codex", "--url", down)
    assert (code, report["canary"]["outcome"]) == (1, "blocked"), report["canary"]


@needs_gemini
def test_through_gemini_the_canary_is_refused_by_the_server_and_coverage_is_proven(
    project: Path, policy: Path, tmp_path: Path
) -> None:
    with running(policy, tmp_path / "state") as where:
        url = where.removesuffix(CLAUDE_CODE_PATH) + "/gemini"
        assert hookline("install", "gemini", "--url", url, cwd=project).returncode == 0
        code, report = doctor(project, "--host", "gemini", "--url", url)
    assert (code, report["covered"], report["proven"]) == (0, True, True), report["problems"]
    assert report["canary"]["outcome"] == "refused"
    assert "which no tool reads" in report["canary"]["said"]
    assert not os.path.lexists(report["canary"]["target"])


@needs_gemini
def test_through_gemini_without_hooks_the_canary_runs_and_with_no_server_it_is_blocked(
    project: Path, policy: Path, tmp_path: Path
) -> None:
    with running(policy, tmp_path / "state") as where:
        url = where.removesuffix(CLAUDE_CODE_PATH) + "/gemini"
        code, report = doctor(project, "--host", "gemini", "--url", url)
    assert (code, report["canary"]["outcome"]) == (1, "ran")
    assert any("the canary call ran" in p for p in report["problems"])
    down = "http://127.0.0.1:9/gemini"  # the discard port: nothing answers there
    assert hookline("install", "gemini", "--url", down, cwd=project).returncode == 0
    code, report = doctor(project, "--host", "gemini", "--url", down)
    assert (code, report["canary"]["outcome"]) == (1, "blocked"), report["canary"]


def test_without_a_gemini_cli_nothing_is_proven_and_that_is_a_problem(
    project: Path, policy: Path, tmp_path: Path
) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    with running(policy, tmp_path / "state") as where:
        url = where.removesuffix(CLAUDE_CODE_PATH) + "/gemini"
        assert hookline("install", "gemini", "--url", url, cwd=project).returncode == 0
        code, report = doctor(
            project, "--host", "gemini", "--url", url, env={"GEMINI_CLI": "", "PATH": str(empty)}
        )
    assert (code, report["proven"], report["canary"]) == (1, False, None)
    assert any("no Gemini CLI found" in p for p in report["problems"])


def test_a_server_that_takes_tokens_says_what_it_makes_of_doctors(
    project: Path, policy: Path, tmp_path: Path
) -> None:
    """No token, a token the server knows, one it revoked: only the known one is no problem,
    and the others say what happens to hooks that send them."""
    state = tmp_path / "state"
    done = hookline("serve", "token", "add", "laptop", "--state-dir", str(state))
    secret = done.stdout.strip()
    gone = hookline("serve", "token", "add", "old", "--state-dir", str(state)).stdout.strip()
    assert hookline("serve", "token", "revoke", "old", "--state-dir", str(state)).returncode == 0
    gate = Gate(TokenFile(tokens_path(state)))
    with running(policy, state, gate=gate) as where:
        url = where.removesuffix(CLAUDE_CODE_PATH) + "/cursor"
        assert hookline("install", "cursor", "--url", url, cwd=project).returncode == 0
        args = ("--host", "cursor", "--url", url)
        _, bare = doctor(project, *args)
        _, known = doctor(project, *args, "--token-env", "HL_T", env={"HL_T": secret})
        _, revoked = doctor(project, *args, "--token-env", "HL_T", env={"HL_T": gone})
    assert any("takes only calls with a token" in p for p in bare["problems"])
    assert (known["server"]["token"], known["problems"]) == ("accepted", [])
    assert any("refuses the token in $HL_T (revoked)" in p for p in revoked["problems"])


@pytest.mark.parametrize(
    ("host", "variable"),
    [
        pytest.param("claude-code", "HL_TOKEN", marks=needs_cli),
        pytest.param("codex", "HL_TOKEN", marks=needs_codex),
        pytest.param("gemini", "GEMINI_CLI_HL_TOKEN", marks=needs_gemini),  # survives redaction
    ],
)
def test_the_canary_carries_the_token_the_hooks_send_to_a_server_that_needs_one(
    host: str, variable: str, project: Path, policy: Path, tmp_path: Path
) -> None:
    """Hooks installed with --token-env and a server that takes only calls with a token: the
    canary's host gets the variable too, so the server judges (and refuses) the canary; without
    it, the hooks' calls would be refused at the gate and the canary only blocked."""
    state = tmp_path / "state"
    done = hookline("serve", "token", "add", "laptop", "--state-dir", str(state))
    env = {variable: done.stdout.strip()}
    with running(policy, state, gate=Gate(TokenFile(tokens_path(state)))) as where:
        url = where.removesuffix(CLAUDE_CODE_PATH) + ROUTES.get(host, CLAUDE_CODE_PATH)
        installed = hookline("install", host, "--url", url, "--token-env", variable, cwd=project)
        assert installed.returncode == 0, installed.stderr
        code, report = doctor(project, "--host", host, "--url", url, "--token-env", variable,
                              env=env)  # fmt: skip
    assert (code, report["canary"]["outcome"], report["proven"]) == (0, "refused", True), report
    assert report["server"]["token"] == "accepted"
    assert not os.path.lexists(report["canary"]["target"])
