"""A resume trusts nothing it reads: the transcript and the state are checked before the session
is claimed, a state edited outside hookline is refused (its keyed hash), ``sessions show`` says
what a resume would use, and ``--tenant`` keeps each tenant to its own sessions and records.
Real SQLite, real ``hookline`` processes."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import stat
from pathlib import Path
from typing import Any

import pytest

from cli_runner import hookline
from hookline import Agent, ConfigError, Decision, ScriptedModel
from hookline._agent.saved import seal
from hookline._agent.session import Session
from hookline._tools.approvals import Approval
from hookline.storage import SessionRecord, open_store

#: t1 asks (nobody can answer: the run pauses, --defer-asks); after it, t2 asks as well in the
#: default mode, and runs unasked in bypassPermissions.
SCRIPT = {"turns": [
    {"tool_calls": [{"id": "t1", "name": "Bash", "input": {"command": "touch first.txt"}}]},
    {"tool_calls": [{"id": "t2", "name": "Bash", "input": {"command": "touch sentinel.txt"}}]},
    {"text": "done"},
]}  # fmt: skip


def pause(project: Path, *flags: str) -> str:
    (project / "script.json").write_text(json.dumps(SCRIPT))
    done = hookline("run", "go", "--model", "scripted:script.json", "--defer-asks",
                    "--output-format", "json", *flags, cwd=project)  # fmt: skip
    out = json.loads(done.stdout)
    assert out["stop_reason"] == "tool_deferred", done.stderr
    return str(out["session_id"])


@pytest.fixture
def paused(tmp_path: Path) -> tuple[Path, str]:
    return tmp_path, pause(tmp_path, "--user", "ann", "--tenant", "acme")


def db(project: Path) -> sqlite3.Connection:
    return sqlite3.connect(project / ".hookline" / "state" / "hookline.db")


def edit_state(project: Path, session: str, changes: dict[str, Any]) -> None:
    """Change the stored state with SQL, as someone with the database (not hookline) would."""
    places = ", ".join("?, json(?)" for _ in changes)
    params = [item for path, value in changes.items() for item in (path, json.dumps(value))]
    conn = db(project)
    with conn:
        conn.execute(f"UPDATE hookline_sessions SET state = json_set(state, {places}) WHERE id = ?",
                     (*params, session))  # fmt: skip
    conn.close()


def status(project: Path, session: str) -> str:
    conn = db(project)
    sql = "SELECT status FROM hookline_sessions WHERE id = ?"
    (found,) = conn.execute(sql, (session,)).fetchone()
    conn.close()
    return str(found)


def refused(project: Path, session: str, *args: str) -> str:
    done = hookline("sessions", "resume", session, *args, cwd=project)
    assert done.returncode == 2, done.stdout + done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    return done.stderr.strip()


def resumed(project: Path, session: str, *args: str) -> dict[str, Any]:
    done = hookline("sessions", "resume", session, *args, "--output-format", "json", cwd=project)
    out: dict[str, Any] = json.loads(done.stdout)
    paused_again = out["stop_reason"] == "tool_deferred"
    assert done.returncode == (4 if paused_again else 0), done.stderr  # 4: paused
    return out


def audit(project: Path, *args: str) -> list[dict[str, Any]]:
    done = hookline("audit", "--json", *args, cwd=project)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


# -- the transcript --------------------------------------------------------------------------


def test_a_transcript_line_that_is_not_an_object_is_refused_before_the_claim(
    paused: tuple[Path, str],
) -> None:
    project, session = paused
    path = project / ".hookline" / "state" / "transcripts" / f"{session}.jsonl"
    good = path.read_text()
    path.write_text(good + "[1,2]\n")
    lines = len(good.splitlines()) + 1
    error = refused(project, session, "--deny", "no")
    assert error.startswith(
        f"hookline: error: session {session}: transcript line {lines} is not a message object "
        "(fix: "
    )
    assert status(project, session) == "deferred"
    path.write_text(good)  # fixed: it resumes
    assert resumed(project, session, "--deny", "no")["tool_calls"][0]["status"] == "blocked"


def test_a_failure_after_the_claim_gives_the_claim_back(
    paused: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project, session = paused

    def broken(*args: object, **kwargs: object) -> Session:
        raise ConfigError("the transcript folder is gone")

    monkeypatch.setattr(Session, "restore", broken)
    agent = Agent(ScriptedModel([{"text": "never"}]), cwd=project)

    async def go() -> None:
        async with agent:
            await agent.resume(session, Approval.deny("no"))

    with pytest.raises(ConfigError, match="transcript folder is gone"):
        asyncio.run(go())
    assert status(project, session) == "deferred"  # not left `resuming` for good


# -- the state and its keyed hash ------------------------------------------------------------


def test_a_mode_edited_in_the_store_is_refused_and_runs_nothing(paused: tuple[Path, str]) -> None:
    project, session = paused
    edit_state(project, session, {"$.launch.permission_mode": "bypassPermissions",
                                  "$.session.permission_mode": "bypassPermissions"})  # fmt: skip
    error = refused(project, session, "--deny", "no")
    assert "changed outside hookline (launch.permission_mode, session.permission_mode)" in error
    assert "--trust-edited-state" in error
    assert status(project, session) == "deferred"
    assert not (project / "sentinel.txt").exists()


def test_a_session_grant_planted_in_the_store_is_refused_and_runs_nothing(
    paused: tuple[Path, str],
) -> None:
    """Grants for the rest of a session are saved with it, under its seal: one added outside
    hookline (a ``Bash`` rule that would let ``touch sentinel.txt`` run) is refused."""
    project, session = paused
    planted = [{"rules": ["Bash"], "mode": None, "description": "Bash"}]
    edit_state(project, session, {"$.session.grants": planted})
    error = refused(project, session, "--approve")
    assert "changed outside hookline (session.grants)" in error
    assert status(project, session) == "deferred"
    assert not (project / "first.txt").exists() and not (project / "sentinel.txt").exists()


def test_trust_edited_state_resumes_with_the_edit_and_goes_on_record(
    paused: tuple[Path, str],
) -> None:
    project, session = paused
    edit_state(project, session, {"$.launch.permission_mode": "bypassPermissions"})
    out = resumed(project, session, "--deny", "no", "--trust-edited-state", "--user", "bob")
    sentinel = next(c for c in out["tool_calls"] if c["tool_use_id"] == "t2")
    assert sentinel["status"] == "executed" and (project / "sentinel.txt").exists()
    (row,) = [r for r in audit(project) if r["kind"] == "resume"]
    assert row["data"]["trust_edited_state"] is True
    assert row["data"]["state_edits"] == ["launch.permission_mode"]


def test_widened_roots_and_a_moved_tenant_are_named(paused: tuple[Path, str]) -> None:
    project, session = paused
    edit_state(project, session, {"$.session.roots": ["/"]})
    conn = db(project)
    with conn:
        conn.execute("UPDATE hookline_sessions SET tenant = 'other' WHERE id = ?", (session,))
    conn.close()
    error = refused(project, session, "--deny", "no")
    assert "(row.tenant, session.roots)" in error


def test_a_state_without_a_keyed_hash_needs_the_flag(paused: tuple[Path, str]) -> None:
    project, session = paused
    conn = db(project)
    with conn:
        conn.execute("UPDATE hookline_sessions SET version = 2, state = json_set("
                     "json_remove(state, '$.seal'), '$.version', 2) WHERE id = ?",
                     (session,))  # fmt: skip
    conn.close()
    error = refused(project, session, "--deny", "no")
    assert "saved by an older hookline, without a keyed hash" in error
    assert f"hookline sessions show {session}" in error and "--trust-edited-state" in error
    out = resumed(project, session, "--deny", "no", "--trust-edited-state")
    assert out["tool_calls"][0]["status"] == "blocked"


def test_another_users_key_cannot_vouch_for_the_state(
    paused: tuple[Path, str], tmp_path_factory: pytest.TempPathFactory
) -> None:
    project, session = paused
    other = tmp_path_factory.mktemp("other") / "state.key"
    other.write_text("ab" * 32)
    done = hookline("sessions", "resume", session, "--deny", "no", cwd=project,
                    env={seal.KEY_ENV: str(other)})  # fmt: skip
    assert done.returncode == 2 and "made with another key" in done.stderr


def test_a_damaged_state_is_refused_by_its_typed_model(paused: tuple[Path, str]) -> None:
    project, session = paused
    edit_state(project, session, {"$.session.permission_mode": "yolo"})
    error = refused(project, session, "--deny", "no")
    assert "damaged (session.permission_mode: " in error
    edit_state(project, session, {"$.session.permission_mode": "default",
                                  "$.session.roots": ["relative/dir"]})  # fmt: skip
    assert "session.roots holds a relative path" in refused(project, session, "--deny", "no")


def test_the_key_is_private_outside_the_workspace_and_numbers_survive_jsonb(
    paused: tuple[Path, str],
) -> None:
    project, _ = paused
    key = Path(os.environ["HOME"]) / ".hookline" / "keys" / "state.key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert stat.S_IMODE(key.parent.stat().st_mode) == 0o700
    state = {"version": 3, "session": {"id": "s"}, "turn": {"n": 1e16, "f": 0.5, "one": 1.0}}
    record = SessionRecord("s", "deferred", 3, state)
    state["seal"] = seal.seal(state, record)
    as_jsonb = {**state, "turn": {"n": 10**16, "f": 0.5, "one": 1.0}}  # PostgreSQL's JSONB
    assert seal.changed(SessionRecord("s", "deferred", 3, as_jsonb)) == []
    assert seal.changed(SessionRecord("s", "done", 3, as_jsonb)) == ["row.status"]
    assert not list(project.rglob("state.key"))  # nothing of it in the workspace


def test_every_integral_float_is_settled_wherever_it_is() -> None:
    class Said(str):
        pass

    value = {"a": [1.0, {"b": (2.0, [1e16, 0.5])}], "c": True, "d": Said("x"), "e": None, "f": 3}
    assert seal._settled(value) == {
        "a": [1, {"b": [2, [10**16, 0.5]]}], "c": True, "d": "x", "e": None, "f": 3}  # fmt: skip
    assert type(seal._settled(value)["a"][0]) is int and seal._settled(True) is True


# -- what a resume would use -----------------------------------------------------------------


def test_show_says_what_the_resume_would_use(tmp_path: Path) -> None:
    hooks = tmp_path / ".claude"
    hooks.mkdir()
    permissions = {"defaultMode": "acceptEdits", "ask": ["Bash(touch *)"]}
    (hooks / "settings.json").write_text(json.dumps({"permissions": permissions}))
    session = pause(tmp_path, "--user", "ann", "--tenant", "acme")
    shown = json.loads(hookline("sessions", "show", session, "--json",
                                cwd=tmp_path).stdout)["resume"]  # fmt: skip
    assert shown["permission_mode"] == "acceptEdits"
    assert shown["roots"] == [str(tmp_path.resolve())]
    settings = str((hooks / "settings.json").resolve())
    assert {"path": settings, "status": "unchanged"} in shown["hook_sources"]
    assert shown["approver"].startswith("terminal (when resumed at one), else none")
    assert (shown["user"], shown["tenant"]) == ("ann", "acme")
    assert shown["state"] == "as hookline saved it (keyed hash intact)"
    (hooks / "settings.json").write_text("{}")
    edit_state(tmp_path, session, {"$.session.roots": ["/"]})
    shown = json.loads(hookline("sessions", "show", session, "--json",
                                cwd=tmp_path).stdout)["resume"]  # fmt: skip
    assert {"path": settings, "status": "changed"} in shown["hook_sources"]
    assert (shown["roots"], shown["state"]) == (["/"], "changed outside hookline: session.roots")


# -- tenants and who resumed -----------------------------------------------------------------


@pytest.fixture
def two_tenants(tmp_path: Path) -> tuple[Path, str, str]:
    return tmp_path, pause(tmp_path, "--tenant", "A"), pause(tmp_path, "--tenant", "B")


def test_list_and_show_with_a_tenant_see_only_its_sessions(
    two_tenants: tuple[Path, str, str],
) -> None:
    project, a, b = two_tenants
    done = hookline("sessions", "list", "--json", "--tenant", "A", cwd=project)
    assert [json.loads(line)["session_id"] for line in done.stdout.splitlines()] == [a]
    everyone = hookline("sessions", "list", "--json", cwd=project).stdout.splitlines()
    assert sorted(json.loads(line)["session_id"] for line in everyone) == sorted([a, b])
    other = hookline("sessions", "show", b, "--tenant", "A", cwd=project)
    missing = hookline("sessions", "show", "nope", "--tenant", "A", cwd=project)
    assert other.returncode == missing.returncode == 2
    assert other.stderr.replace(b, "ID") == missing.stderr.replace("nope", "ID")  # no leak
    assert json.loads(hookline("sessions", "show", a, "--tenant", "A", "--json",
                               cwd=project).stdout)  # fmt: skip


def test_resume_with_a_tenant_refuses_another_tenants_session_as_unknown(
    two_tenants: tuple[Path, str, str],
) -> None:
    project, a, b = two_tenants
    assert f"no session '{b}'" in refused(project, b, "--deny", "no", "--tenant", "A")
    assert status(project, b) == "deferred"
    assert resumed(project, a, "--deny", "no", "--tenant", "A")["tool_calls"][0]["status"] == (
        "blocked"
    )


def test_audit_with_a_tenant_shows_only_its_records(two_tenants: tuple[Path, str, str]) -> None:
    project, a, b = two_tenants
    rows = audit(project, "--tenant", "A")
    assert rows and {r["data"]["tenant"] for r in rows} == {"A"}
    assert {r["session_id"] for r in rows} == {a}
    assert {r["session_id"] for r in audit(project)} == {a, b}


def test_the_resume_record_says_who_resumed_for_which_tenant(paused: tuple[Path, str]) -> None:
    project, session = paused
    resumed(project, session, "--deny", "no", "--user", "bob", "--tenant", "acme")
    (row,) = [r for r in audit(project, "--tenant", "acme") if r["kind"] == "resume"]
    assert (row["data"]["user"], row["data"]["session_user"]) == ("bob", "ann")
    assert row["data"]["tenant"] == "acme"


def test_a_library_resume_checks_the_seal_too(paused: tuple[Path, str]) -> None:
    project, session = paused
    edit_state(project, session, {"$.session.permission_mode": "bypassPermissions"})
    agent = Agent(ScriptedModel([{"text": "never"}]), cwd=project)
    agent.registry.add("PreToolUse", lambda e: Decision.allow())

    async def go() -> None:
        async with agent:
            await agent.resume(session, Approval.allow())

    with pytest.raises(ConfigError, match=r"changed outside hookline \(session.permission_mode\)"):
        asyncio.run(go())
    assert status(project, session) == "deferred" and not (project / "first.txt").exists()
    store = open_store(None, state_dir=project / ".hookline" / "state")
    assert store.get_session(session).status == "deferred"  # type: ignore[union-attr]
    store.close()
