"""``hookline serve``'s active policy: the digest on each served record, ``GET /policy``, and a
reload that is validated before it replaces the running policy (``hookline._serve.policies``,
``hookline._serve.reload``). In process: Starlette's test client, no socket."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from hookline._policy.digest import PolicyDigest, policy_digest
from hookline._project import Project, load_project
from hookline._serve.app import create_app
from hookline._serve.judge import Judge
from hookline._serve.policies import Policies
from hookline._serve.reload import KIND, Watcher
from hookline.audit._redact import Redactor
from hookline.audit._writer import JSONL_NAME, AuditWriter
from test_policy_digest import SETTINGS, make_folder, write

SESSION = "d0bec9ad-936a-48ca-a213-75c3297749fd"


def tool_call(cwd: Path, name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return {
        "session_id": SESSION,
        "transcript_path": "/home/u/.claude/projects/p/d0bec9ad.jsonl",
        "cwd": str(cwd),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": name,
        "tool_input": tool_input,
        "tool_use_id": f"toolu_{name}",
    }


def loader(folder: Path) -> tuple[Project, PolicyDigest]:
    project = load_project(folder, trust=True)
    return project, policy_digest(project)


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HOOKLINE_MANAGED_SETTINGS_DIR", str(tmp_path / "managed"))
    return make_folder(tmp_path)


@pytest.fixture
def audit(tmp_path: Path) -> Iterator[AuditWriter]:
    with AuditWriter.open(tmp_path / "state", redactor=Redactor(())) as writer:
        yield writer


def records(tmp_path: Path, kind: str) -> list[dict[str, Any]]:
    lines = (tmp_path / "state" / JSONL_NAME).read_text().splitlines()
    return [r for r in map(json.loads, lines) if r["kind"] == kind]


def said_about(answer: Any) -> tuple[str, str]:
    specific = answer.json()["hookSpecificOutput"]
    return specific["permissionDecision"], specific["permissionDecisionReason"]


def curl(cwd: Path) -> dict[str, Any]:
    return tool_call(cwd, "Bash", {"command": "curl -s https://example.com"})


def with_curl_denied() -> str:
    return json.dumps({**SETTINGS, "permissions": {"deny": ["Bash(rm *)", "Bash(curl *)"]}})


def test_each_served_record_carries_the_digest_of_the_policy_that_decided(
    folder: Path, audit: AuditWriter, tmp_path: Path
) -> None:
    project = load_project(folder, trust=True)
    write_call = tool_call(tmp_path, "Write", {"file_path": str(tmp_path / "x"), "content": "x"})
    with TestClient(create_app(Judge(project), audit)) as client:
        assert said_about(client.post("/claude-code", json=write_call))[0] == "deny"
    [served] = records(tmp_path, "served")
    assert served["data"]["policy"] == policy_digest(project).sha256
    assert not (tmp_path / "x").exists()


def test_get_policy_answers_the_serving_policy_as_json(folder: Path, audit: AuditWriter) -> None:
    project = load_project(folder, trust=True)
    with TestClient(create_app(Judge(project), audit)) as client:
        view = client.get("/policy").json()
    assert view["policy"] == policy_digest(project).sha256
    assert view["folder"] == str(folder)
    assert view["permissions"]["deny"] == [{"rule": "Bash(rm *)", "source": "project settings"}]
    assert [(h["event"], h["matcher"]) for h in view["hooks"]] == [("PreToolUse", "Write")]
    assert "reload_refused" not in view


@pytest.mark.parametrize(
    ("query", "headers"), [("?format=text", {}), ("", {"Accept": "text/plain"})]
)
def test_get_policy_answers_in_words_when_asked(
    folder: Path, audit: AuditWriter, query: str, headers: dict[str, str]
) -> None:
    project = load_project(folder, trust=True)
    with TestClient(create_app(Judge(project), audit)) as client:
        answer = client.get("/policy" + query, headers=headers)
    assert answer.headers["content-type"].startswith("text/plain")
    assert answer.text.startswith(f"policy {policy_digest(project).short} (sha256 ")
    assert "  Bash(rm *)  from project settings\n" in answer.text


def served_app(folder: Path, audit: AuditWriter, lines: list[str]) -> tuple[Any, Watcher]:
    """An app whose policy reloads from ``folder`` when its watcher is told to look (never
    on its own: its wait never ends)."""
    project, digest = loader(folder)
    policies = Policies(Judge(project), digest, load=lambda: loader(folder))
    never = asyncio.Event()
    watcher = Watcher(policies, audit, say=lines.append, wait=never.wait)
    return create_app(policies, audit, watcher=watcher), watcher


def test_a_changed_settings_file_reloads_and_its_new_rule_denies(
    folder: Path, audit: AuditWriter, tmp_path: Path
) -> None:
    lines: list[str] = []
    app, watcher = served_app(folder, audit, lines)
    with TestClient(app) as client:
        before = client.get("/policy").json()["policy"]
        assert said_about(client.post("/claude-code", json=curl(tmp_path)))[0] == "ask"
        write(folder / ".claude" / "settings.json", with_curl_denied())
        done = client.portal.call(watcher.check)  # one look at the files, as each tick
        assert done is not None and done.outcome == "reloaded"
        permission, reason = said_about(client.post("/claude-code", json=curl(tmp_path)))
        after = client.get("/policy").json()["policy"]
    assert (permission, "Bash(curl *)" in reason) == ("deny", True)
    assert after != before
    assert [r["data"]["policy"] for r in records(tmp_path, "served")] == [before, after]
    [reload] = records(tmp_path, KIND)
    assert reload["decision"] == "reloaded"
    assert (reload["data"]["old"], reload["data"]["new"]) == (before, after)
    assert str(folder / ".claude" / "settings.json") in reload["data"]["why"]
    assert lines == [f"hookline serve: policy {after[:12]} replaces {before[:12]} ({done.why})"]


@pytest.mark.parametrize(
    ("broken", "text", "error"),
    [
        (".claude/settings.json", "{not json", "not valid JSON"),
        ("guard.py", "def no_writes(event:\n", "syntax error on line 1"),
    ],
)
def test_a_policy_that_does_not_load_leaves_the_old_one_serving_and_says_why(
    folder: Path, audit: AuditWriter, tmp_path: Path, broken: str, text: str, error: str
) -> None:
    lines: list[str] = []
    app, watcher = served_app(folder, audit, lines)
    write_call = tool_call(tmp_path, "Write", {"file_path": str(tmp_path / "x"), "content": "x"})
    with TestClient(app) as client:
        before = client.get("/policy").json()["policy"]
        write(folder / broken, text)
        done = client.portal.call(watcher.check)
        again = client.portal.call(watcher.check)  # nothing changed since: not tried again
        assert said_about(client.post("/claude-code", json=write_call)) == (
            "deny",
            "no writes here",
        )
        view = client.get("/policy").json()
    assert done is not None and done.outcome == "refused" and again is None
    assert view["policy"] == before
    assert error in view["reload_refused"]["error"]
    [reload] = records(tmp_path, KIND)
    assert reload["decision"] == "refused"
    assert reload["data"]["old"] == reload["data"]["new"] == before
    assert error in reload["data"]["error"]
    [line] = lines
    assert line.startswith(f"hookline serve: reload refused (changed: {folder / broken}); ")
    assert f"policy {before[:12]} still serves: " in line and error in line
    assert [r["data"]["policy"] for r in records(tmp_path, "served")] == [before]


def test_get_policy_is_shown_only_to_this_machine_or_a_valid_token(
    folder: Path, audit: AuditWriter, tmp_path: Path
) -> None:
    """The test client is not loopback: once the server has a token, it must send one."""
    from hookline._serve import tokens
    from hookline._serve.gate import Gate

    path = tokens.tokens_path(tmp_path / "state")
    secret = tokens.add(path, "ops-laptop")
    gate = Gate(tokens.TokenFile(path))
    project = load_project(folder, trust=True)
    with TestClient(create_app(Judge(project), audit, gate=gate)) as client:
        refused = client.get("/policy")
        shown = client.get("/policy", headers={"Authorization": f"Bearer {secret}"})
    assert refused.status_code == 401
    assert "needs a valid token" in refused.text
    assert policy_digest(project).sha256 not in refused.text
    assert shown.json()["policy"] == policy_digest(project).sha256
