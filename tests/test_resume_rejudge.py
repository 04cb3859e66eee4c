"""Fail closed and stay on record: an edited input is judged again (hooks, rewrites, permission
layer, dangerous tier) wherever it comes from, and a paused session refuses to resume under
settings or hook files that changed since it paused, unless told to reload them."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from cli_runner import hookline
from hookline import Agent, Decision, ScriptedModel
from hookline._agent.saved.hidden import revealed
from hookline._tools.approvals import Approval, ApprovalRequest, Approver
from hookline.permissions import PermissionPolicy
from hookline.storage import SessionRecord, open_store

SCRIPT = {"turns": [
    {"tool_calls": [{"id": "t_b", "name": "Bash", "input": {"command": "echo deploy"}}]},
    {"text": "done"},
]}  # fmt: skip

GATE = '''
from hookline import Decision

def gate(event):
    """Deploys wait for the release manager; forbidden.txt is off limits."""
    command = event.tool_input.get("command", "")
    if "deploy" in command:
        return Decision.defer("deploys wait for the release manager")
    if "forbidden" in command:
        return Decision.deny("forbidden.txt is off limits")
    return None

def tidy(event):
    """Drafts are written as finals."""
    command = event.tool_input.get("command", "")
    if "draft" in command:
        return Decision.rewrite({**event.tool_input, "command": command.replace("draft", "final")})
    return None
'''

SETTINGS = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
    {"type": "python", "callable": ".hookline/hooks/gate.py:gate"},
    {"type": "python", "callable": ".hookline/hooks/gate.py:tidy", "kind": "transformer"},
]}]}}  # fmt: skip

#: Added while the session is paused: a command hook and a python hook in a new file, each
#: leaving a sentinel when it runs (the python file already when it is imported).
ADDED = {"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [
    {"type": "command", "command": "touch hook-ran.txt"},
    {"type": "python", "callable": ".hookline/hooks/gate2.py:watch"},
]}]}}  # fmt: skip
GATE2 = (
    'from pathlib import Path\nPath("imported.txt").touch()\n\ndef watch(event):\n    return None\n'
)


@pytest.fixture
def paused(tmp_path: Path) -> tuple[Path, str]:
    """A `hookline run` whose Bash call a python hook from the project settings defers."""
    (tmp_path / "script.json").write_text(json.dumps(SCRIPT))
    (tmp_path / ".hookline" / "hooks").mkdir(parents=True)
    (tmp_path / ".hookline" / "hooks" / "gate.py").write_text(GATE)
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps(SETTINGS))
    done = hookline("run", "deploy it", "--model", "scripted:script.json",
                    "--output-format", "json", cwd=tmp_path)  # fmt: skip
    out = json.loads(done.stdout)
    assert out["stop_reason"] == "tool_deferred", done.stderr
    return tmp_path, out["session_id"]


def resume(project: Path, session: str, *args: str) -> Any:
    done = hookline("sessions", "resume", session, *args, "--output-format", "json", cwd=project)
    out = json.loads(done.stdout)
    paused_again = out["stop_reason"] == "tool_deferred"
    assert done.returncode == (4 if paused_again else 0), done.stderr  # 4: paused
    return out


def refused(project: Path, session: str, *args: str) -> str:
    done = hookline("sessions", "resume", session, *args, cwd=project)
    assert done.returncode == 2, done.stdout
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    return done.stderr.strip()


def status(project: Path, session: str) -> dict[str, Any]:
    done = hookline("sessions", "show", session, "--json", cwd=project)
    shown: dict[str, Any] = json.loads(done.stdout)
    return shown


def audit_rows(project: Path, kind: str) -> list[dict[str, Any]]:
    text = (project / ".hookline" / "state" / "audit.jsonl").read_text()
    return [row for line in text.splitlines() if (row := json.loads(line))["kind"] == kind]


# -- resume --edit: the edit is judged again -------------------------------------------------


def test_an_edit_a_pre_tool_use_hook_denies_does_not_run_and_the_model_reads_why(
    paused: tuple[Path, str],
) -> None:
    project, session = paused
    out = resume(project, session, "--edit", '{"command": "touch forbidden.txt"}')
    (call,) = out["tool_calls"]
    assert call["status"] == "blocked" and "forbidden.txt is off limits" in call["reason"]
    assert not (project / "forbidden.txt").exists()


def test_an_edit_into_a_dangerous_command_is_refused_by_the_tier(
    paused: tuple[Path, str],
) -> None:
    project, session = paused
    edit = {"command": "touch pushed.txt; git push --force origin main"}
    out = resume(project, session, "--edit", json.dumps(edit))
    (call,) = out["tool_calls"]
    assert call["status"] == "blocked" and "dangerous tier" in call["reason"]
    assert not (project / "pushed.txt").exists()


def test_an_edit_a_hook_defers_pauses_the_session_again_with_the_edit_waiting(
    paused: tuple[Path, str],
) -> None:
    project, session = paused
    out = resume(project, session, "--edit", '{"command": "echo deploy > later.txt"}')
    assert out["stop_reason"] == "tool_deferred"
    assert not (project / "later.txt").exists()
    shown = status(project, session)
    assert shown["status"] == "paused"
    assert [w["input"] for w in shown["waiting"]] == [{"command": "echo deploy > later.txt"}]
    again = resume(project, session, "--approve")
    assert again["tool_calls"][0]["status"] == "executed"
    assert (project / "later.txt").read_text() == "deploy\n"


def test_a_rewrite_hook_rewrites_the_edited_input_and_nobody_approved_the_result(
    paused: tuple[Path, str],
) -> None:
    project, session = paused
    out = resume(project, session, "--edit", '{"command": "touch draft.txt"}')
    (call,) = out["tool_calls"]  # the edit approved draft, not final: asked again, nobody here
    assert (call["status"], call["input"]["command"]) == ("blocked", "touch final.txt")
    assert not (project / "final.txt").exists() and not (project / "draft.txt").exists()


def test_the_audit_records_who_resumed_the_answer_and_the_edit_as_a_diff(
    paused: tuple[Path, str],
) -> None:
    project, session = paused
    out = resume(project, session, "--edit", '{"command": "touch edited.txt"}', "--user", "ann")
    assert out["tool_calls"][0]["approver"] == "cli:ann"
    (row,) = audit_rows(project, "resume")
    assert (row["session_id"], row["tool_use_id"], row["decision"]) == (session, "t_b", "edit")
    assert (row["data"]["user"], row["data"]["answered_by"]) == ("ann", "cli:ann")
    assert row["data"]["input_diff"] == {
        "changed": {"command": ["echo deploy", "touch edited.txt"]}
    }
    assert "reload_settings" not in row["data"]


# -- settings do not change under a paused session -------------------------------------------


def test_a_hook_added_while_paused_stops_the_resume_and_does_not_run_even_on_deny(
    paused: tuple[Path, str],
) -> None:
    project, session = paused
    (project / ".claude" / "settings.local.json").write_text(json.dumps(ADDED))
    (project / ".hookline" / "hooks" / "gate2.py").write_text(GATE2)
    error = refused(project, session, "--deny", "not now")
    assert error == (
        f"hookline: error: settings changed since session {session} paused: "
        ".claude/settings.local.json (new), .hookline/hooks/gate2.py (new) "
        "(fix: review them, then resume with --reload-settings)"
    )
    assert not (project / "hook-ran.txt").exists() and not (project / "imported.txt").exists()
    assert status(project, session)["status"] == "paused"


def test_reload_settings_resumes_with_the_new_hooks_and_goes_on_record(
    paused: tuple[Path, str],
) -> None:
    project, session = paused
    (project / ".claude" / "settings.local.json").write_text(json.dumps(ADDED))
    (project / ".hookline" / "hooks" / "gate2.py").write_text(GATE2)
    out = resume(project, session, "--deny", "not now", "--reload-settings", "--user", "bob")
    assert out["tool_calls"][0]["status"] == "blocked"
    assert (project / "hook-ran.txt").exists()
    (row,) = audit_rows(project, "resume")
    assert (row["decision"], row["data"]["user"], row["data"]["message"]) == (
        "deny", "bob", "not now",
    )  # fmt: skip
    assert row["data"]["reload_settings"] is True
    assert row["data"]["settings_changed"] == [
        ".claude/settings.local.json (new)",
        ".hookline/hooks/gate2.py (new)",
    ]


def test_an_edited_python_hook_file_stops_the_resume(paused: tuple[Path, str]) -> None:
    project, session = paused
    gate = project / ".hookline" / "hooks" / "gate.py"
    gate.write_text(gate.read_text().replace("deploys wait", "deploys are fine, wait"))
    error = refused(project, session, "--approve")
    assert ".hookline/hooks/gate.py (changed)" in error and "--reload-settings" in error
    assert status(project, session)["status"] == "paused"


def test_a_changed_command_hook_script_stops_the_resume(tmp_path: Path) -> None:
    (tmp_path / "script.json").write_text(json.dumps(SCRIPT))
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "defer.sh").write_text(
        'echo \'{"hookSpecificOutput": {"hookEventName": "PreToolUse", '
        '"permissionDecision": "defer"}}\'\n'
    )
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": 'sh "$CLAUDE_PROJECT_DIR"/hooks/defer.sh'},
    ]}]}}  # fmt: skip
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps(settings))
    done = hookline("run", "deploy it", "--model", "scripted:script.json",
                    "--output-format", "json", cwd=tmp_path)  # fmt: skip
    out = json.loads(done.stdout)
    assert out["stop_reason"] == "tool_deferred", done.stderr
    (hooks / "defer.sh").write_text("exit 0\n")
    error = refused(tmp_path, out["session_id"], "--approve")
    assert "hooks/defer.sh (changed)" in error


def test_a_session_saved_without_fingerprints_needs_reload_settings(
    paused: tuple[Path, str],
) -> None:
    project, session = paused
    store = open_store(None, state_dir=project / ".hookline" / "state")
    record = store.get_session(session)
    assert record is not None
    state = {**record.state, "version": 1}  # as hookline saved it before fingerprints
    state["launch"] = {k: v for k, v in state["launch"].items() if k != "fingerprints"}
    del state["seal"]  # and before keyed hashes
    store.put_session(SessionRecord(id=session, status="deferred", version=1, state=state))
    store.close()
    assert "saved by an older hookline" in refused(project, session, "--approve")
    assert "kept no fingerprint" in refused(project, session, "--approve", "--trust-edited-state")
    out = resume(project, session, "--deny", "no", "--reload-settings", "--trust-edited-state")
    assert out["tool_calls"][0]["status"] == "blocked"


# -- every source of an edit goes through the same seam --------------------------------------


class Editor(Approver):
    """An approver that edits every input it is asked about, and counts the requests."""

    def __init__(self, edit: dict[str, Any]) -> None:
        self.edit = edit
        self.requests: list[ApprovalRequest] = []

    async def approve(self, request: ApprovalRequest) -> Approval | None:
        self.requests.append(request)
        return Approval.edit(self.edit, approver="ann")


def deny_forbidden(event: Any) -> Decision | None:
    if "forbidden" in event.tool_input.get("command", ""):
        return Decision.deny("forbidden.txt is off limits")
    return None


def test_an_approvers_edit_a_hook_denies_does_not_run(tmp_path: Path) -> None:
    editor = Editor({"command": "touch forbidden.txt"})
    agent = Agent(ScriptedModel([]), cwd=tmp_path, permissions=PermissionPolicy(), approver=editor)
    agent.registry.add("PreToolUse", deny_forbidden)
    result = asyncio.run(agent.call_tool("Bash", {"command": "touch ok.txt"}))
    assert result.status == "blocked" and "forbidden.txt is off limits" in result.content
    assert len(editor.requests) == 1  # judged again, not asked again
    assert not (tmp_path / "forbidden.txt").exists() and not (tmp_path / "ok.txt").exists()


def test_a_permission_request_hooks_edit_into_a_dangerous_command_is_refused(
    tmp_path: Path,
) -> None:
    agent = Agent(ScriptedModel([]), cwd=tmp_path, permissions=PermissionPolicy())
    dangerous = {"command": "touch pushed.txt; git push --force origin main"}
    agent.registry.add("PermissionRequest", lambda e: Decision.allow(updated_input=dangerous))
    result = asyncio.run(agent.call_tool("Bash", {"command": "touch ok.txt"}))
    assert result.status == "blocked" and "dangerous tier" in (result.reason or "")
    assert not (tmp_path / "pushed.txt").exists() and not (tmp_path / "ok.txt").exists()


def test_an_approvers_edit_a_hook_defers_pauses_the_run_once(tmp_path: Path) -> None:
    editor = Editor({"command": "touch deploy.txt"})
    script = [{"tool_calls": [{"id": "t_1", "name": "Bash", "input": {"command": "touch a"}}]},
              {"text": "done"}]  # fmt: skip
    agent = Agent(ScriptedModel(script), cwd=tmp_path, permissions=PermissionPolicy(),
                  approver=editor)  # fmt: skip
    agent.registry.add(
        "PreToolUse",
        lambda e: Decision.defer("deploys wait") if "deploy" in e.tool_input["command"] else None,
    )
    result = agent.run_sync("touch it")
    assert (result.stop_reason, result.stop_detail) == ("tool_deferred", "deploys wait")
    assert len(editor.requests) == 1 and not (tmp_path / "deploy.txt").exists()
    store = open_store(None, state_dir=tmp_path / ".hookline" / "state")
    record = store.get_session(result.session_id)
    store.close()
    assert record is not None
    assert [b["call"]["input"] for b in revealed(record.state)["turn"]["batch"]] == [
        {"command": "touch deploy.txt"}
    ]
