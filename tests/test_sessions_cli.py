"""``hookline sessions``: a run that pauses, listed, shown and resumed from the command line."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from cli_runner import hookline

SCRIPT = {
    "turns": [
        {"tool_calls": [
            {"id": "t_w", "name": "Write", "input": {"file_path": "out.txt", "content": "v1"}},
            {"id": "t_r", "name": "Read", "input": {"file_path": "script.json"}},
        ]},
        {"text": "written"},
    ]
}  # fmt: skip


@pytest.fixture
def paused(tmp_path: Path) -> tuple[Path, str]:
    """A run whose Write needs approval nobody can give now: it pauses (--defer-asks)."""
    (tmp_path / "script.json").write_text(json.dumps(SCRIPT))
    done = hookline("run", "write it", "--model", "scripted:script.json", "--defer-asks",
                    "--output-format", "json", cwd=tmp_path)  # fmt: skip
    out = json.loads(done.stdout)
    assert out["stop_reason"] == "tool_deferred", done.stderr
    assert [(c["name"], c["status"]) for c in out["tool_calls"]] == [
        ("Write", "deferred"), ("Read", "executed"),
    ]  # fmt: skip
    assert not (tmp_path / "out.txt").exists()
    return tmp_path, out["session_id"]


def test_list_and_show_describe_the_paused_session(paused: tuple[Path, str]) -> None:
    project, session = paused
    listed = [json.loads(line) for line in hookline("sessions", "list", "--json",
                                                     cwd=project).stdout.splitlines()]  # fmt: skip
    assert [(s["session_id"], s["status"]) for s in listed] == [(session, "paused")]
    shown = json.loads(hookline("sessions", "show", session, "--json", cwd=project).stdout)
    assert shown["waiting"] == [  # as the model asked for it
        {"id": "t_w", "name": "Write", "input": {"file_path": "out.txt", "content": "v1"}}
    ]
    assert [d["name"] for d in shown["done"]] == ["Read"]


def test_resume_approve_runs_the_write_and_a_second_resume_is_refused(
    paused: tuple[Path, str],
) -> None:
    project, session = paused
    done = hookline("sessions", "resume", session, "--approve", "--output-format", "json",
                    cwd=project)  # fmt: skip
    out = json.loads(done.stdout)
    assert (out["stop_reason"], out["final_text"]) == ("end_turn", "written")
    assert (project / "out.txt").read_text() == "v1"
    again = hookline("sessions", "resume", session, "--approve", cwd=project)
    assert again.returncode == 2 and "has finished" in again.stderr
    assert len(again.stderr.strip().splitlines()) == 1 and "Traceback" not in again.stderr


def test_resume_with_an_edit_writes_the_edited_content(paused: tuple[Path, str]) -> None:
    project, session = paused
    edit = json.dumps({"file_path": "out.txt", "content": "v2 (edited)"})
    hookline("sessions", "resume", session, "--edit", edit, cwd=project)
    assert (project / "out.txt").read_text() == "v2 (edited)"


def test_resume_with_deny_tells_the_model_and_writes_nothing(paused: tuple[Path, str]) -> None:
    project, session = paused
    done = hookline("sessions", "resume", session, "--deny", "not on a Friday",
                    "--output-format", "json", cwd=project)  # fmt: skip
    write = json.loads(done.stdout)["tool_calls"][0]
    assert (write["status"], write["reason"]) == ("blocked", "not on a Friday")
    assert not (project / "out.txt").exists()


BAD = {
    "unknown session": (["nope", "--approve"], "no session 'nope'"),
    "no answer": (["SID"], "--approve"),
    "two answers": (["SID", "--approve", "--deny", "x"], "--approve"),
    "edit not json": (["SID", "--edit", "{oops"], "--edit"),
    "edit not fitting": (["SID", "--edit", '{"file_path": 3}'], "does not fit Write"),
    "unknown call": (["SID", "--answer", "t_zz=approve"], "no waiting call has the id 't_zz'"),
    "not an answer": (["SID", "--answer", "t_w=maybe"], "is not an answer to one call"),
    "both ways": (["SID", "--answer", "t_w=approve", "--approve"], "--answer was given with"),
    "twice": (["SID", "--answer", "t_w=approve", "--answer", "t_w=deny:no"], "answered twice"),
    "session deny": (["SID", "--deny", "no", "--for-session"], "nothing is approved as it is"),
}


@pytest.mark.parametrize("case", BAD.values(), ids=BAD.keys())
def test_bad_resumes_are_one_line_exit_2_and_leave_the_session_paused(
    paused: tuple[Path, str], case: tuple[list[str], str]
) -> None:
    project, session = paused
    args, expected = case
    done = hookline(
        "sessions", "resume", *(session if a == "SID" else a for a in args), cwd=project
    )
    assert done.returncode == 2, done.stdout
    assert done.stderr.startswith("hookline: error: ") and expected in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    shown = json.loads(hookline("sessions", "show", session, "--json", cwd=project).stdout)
    assert shown["status"] == "paused" and not (project / "out.txt").exists()


def test_list_skips_a_corrupt_row_with_one_warning_naming_it(paused: tuple[Path, str]) -> None:
    project, session = paused
    db = sqlite3.connect(project / ".hookline" / "state" / "hookline.db")
    with db:
        db.execute(
            "INSERT INTO hookline_sessions SELECT 'broken-1', status, version, '{not json', "
            "user_name, tenant, created_at + 1, updated_at FROM hookline_sessions WHERE id = ?",
            (session,),
        )
    db.close()
    done = hookline("sessions", "list", "--json", cwd=project)
    assert done.returncode == 0, done.stderr
    listed = [json.loads(line) for line in done.stdout.splitlines()]
    assert [s["session_id"] for s in listed] == [session]
    warnings = [line for line in done.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "session broken-1" in warnings[0], done.stderr
    shown = hookline("sessions", "show", "broken-1", cwd=project)
    assert shown.returncode != 0 and "session broken-1" in shown.stderr
    assert "Traceback" not in shown.stderr


THREE_WRITES = {
    "turns": [
        {"tool_calls": [
            {"id": "t_a", "name": "Write", "input": {"file_path": "a.txt", "content": "a"}},
            {"id": "t_b", "name": "Write", "input": {"file_path": "b.txt", "content": "b"}},
        ]},
        {"tool_calls": [
            {"id": "t_c", "name": "Write", "input": {"file_path": "c.txt", "content": "c"}},
        ]},
        {"text": "done"},
    ]
}  # fmt: skip


@pytest.fixture
def two_waiting(tmp_path: Path) -> tuple[Path, str]:
    """A run paused with two Writes waiting (--defer-asks), a third to come after them."""
    (tmp_path / "script.json").write_text(json.dumps(THREE_WRITES))
    done = hookline("run", "write them", "--model", "scripted:script.json", "--defer-asks",
                    "--output-format", "json", cwd=tmp_path)  # fmt: skip
    out = json.loads(done.stdout)
    assert [c["status"] for c in out["tool_calls"]] == ["deferred", "deferred"], done.stderr
    return tmp_path, out["session_id"]


def resumed(project: Path, session: str, *args: str) -> tuple[int, dict[str, Any]]:
    done = hookline("sessions", "resume", session, *args, "--output-format", "json", cwd=project)
    return done.returncode, json.loads(done.stdout)


def waiting(project: Path, session: str) -> list[str]:
    shown = json.loads(hookline("sessions", "show", session, "--json", cwd=project).stdout)
    return [call["id"] for call in shown["waiting"]]


def test_each_waiting_call_gets_its_own_answer(two_waiting: tuple[Path, str]) -> None:
    project, session = two_waiting
    code, out = resumed(project, session, "--answer", "t_a=approve", "--answer", "t_b=deny:not b")
    calls = {c["tool_use_id"]: c for c in out["tool_calls"]}
    assert calls["t_a"]["status"] == "executed" and (project / "a.txt").read_text() == "a"
    assert (calls["t_b"]["status"], calls["t_b"]["reason"]) == ("blocked", "not b")
    assert not (project / "b.txt").exists()
    assert code == 4 and waiting(project, session) == ["t_c"]  # the next Write asks again
    assert not (project / "c.txt").exists()


def test_a_call_left_unanswered_waits_again(two_waiting: tuple[Path, str]) -> None:
    project, session = two_waiting
    code, _ = resumed(project, session, "--answer", "t_b=approve")
    assert (project / "b.txt").read_text() == "b" and not (project / "a.txt").exists()
    assert code == 4 and waiting(project, session) == ["t_a"]


def test_an_approval_for_the_session_lets_later_edits_run_unasked(
    two_waiting: tuple[Path, str],
) -> None:
    project, session = two_waiting
    code, out = resumed(project, session, "--approve", "--for-session", "--user", "ana")
    assert (code, out["stop_reason"]) == (0, "end_turn")
    assert [(project / f"{n}.txt").read_text() for n in "abc"] == ["a", "b", "c"]
    calls = {c["tool_use_id"]: c for c in out["tool_calls"]}
    assert (calls["t_a"]["origin"], calls["t_a"]["approver"]) == ("approver", "cli:ana")
    assert [calls[c]["origin"] for c in ("t_b", "t_c")] == ["mode", "mode"]  # nobody asked
    audit = project / ".hookline" / "state" / "audit.jsonl"
    records = [json.loads(line) for line in audit.read_text().splitlines()]
    (approval,) = [r["data"] for r in records if r["kind"] == "approval"]
    assert (approval["answered_by"], approval["scope"]) == ("cli:ana", "session")
    assert approval["session_grant"]["mode"] == "acceptEdits"


def test_without_for_session_the_later_edit_asks_again(two_waiting: tuple[Path, str]) -> None:
    project, session = two_waiting
    code, _ = resumed(project, session, "--approve")
    assert (project / "a.txt").exists() and (project / "b.txt").exists()
    assert code == 4 and waiting(project, session) == ["t_c"]
    assert not (project / "c.txt").exists()
