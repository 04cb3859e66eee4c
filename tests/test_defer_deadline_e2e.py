"""A deferred call's deadline at the command line and in the inbox: real ``hookline run`` and
``hookline sessions resume`` processes, a real ``hookline inbox`` on 127.0.0.1.

Each run pauses on one Bash call, ``echo ran >> sentinel.txt`` (an ask nobody can answer, with
``--defer-asks``), so the sentinel counts each time the tool body ran. A deadline far ahead
(``2d``) is answered before it; a short one is waited out until the clock is past the deadline
the store holds (read back, never guessed), then answered after it.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from cli_runner import hookline
from hookline._inbox import links
from inbox_server import SENTINEL, People, add_users, answer, audit, csrf, runs, started

TWO_DAYS = 2 * 86400


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    add_users(tmp_path / "users.json")
    return folder


def paused(project: Path, deadline: str) -> tuple[str, Any]:
    """A run that pauses on its Bash call with ``--defer-deadline deadline``: its session id
    and what the run printed (the ``hookline run`` process)."""
    call = {"id": "t_b", "name": "Bash", "input": {"command": f"echo ran >> {SENTINEL}"}}
    script = {"turns": [{"tool_calls": [call]}, {"text": "done"}]}
    (project / "script.json").write_text(json.dumps(script))
    flags = ["--defer-asks", "--defer-deadline", deadline, "--output-format", "json"]
    done = hookline("run", "go", "--model", "scripted:script.json", *flags, cwd=project)
    assert done.returncode == 4, done.stderr
    assert runs(project) == 0
    return str(json.loads(done.stdout)["session_id"]), done


def listed(project: Path) -> dict[str, Any]:
    out = hookline("sessions", "list", "--json", cwd=project).stdout
    [session] = [json.loads(line) for line in out.splitlines()]
    return session  # type: ignore[no-any-return]


def past_deadline(project: Path) -> float:
    """Wait until the clock is past the deadline the store holds for the paused session."""
    deadline = float(listed(project)["deadline"])
    time.sleep(max(0.0, deadline - time.time()) + 0.01)
    assert time.time() > deadline
    return deadline


def test_the_deadline_is_saved_listed_shown_and_on_the_deferred_record(project: Path) -> None:
    before = time.time()
    session, run = paused(project, "2d")
    after = time.time()
    deadline = listed(project)["deadline"]
    assert before + TWO_DAYS <= deadline <= after + TWO_DAYS
    assert json.loads(run.stdout)["tool_calls"][0]["deadline"] == deadline
    assert "answer by" in run.stderr
    [deferred] = [r for r in audit(project, "tool") if r["decision"] == "deferred"]
    assert deferred["data"]["deadline"] == deadline  # type: ignore[index]
    table = hookline("sessions", "list", cwd=project).stdout
    assert "waits: Bash (t_b); answer by " in table
    shown = hookline("sessions", "show", session, cwd=project).stdout
    assert any(line.startswith("deadline") and "answer by" in line for line in shown.splitlines())


def test_sessions_resume_before_the_deadline_runs_the_call(project: Path) -> None:
    session, _ = paused(project, "2d")
    done = hookline("sessions", "resume", session, "--approve", "--user", "ann", cwd=project)
    assert done.returncode == 0, done.stderr
    assert runs(project) == 1
    [resumed] = audit(project, "resume")
    assert resumed["data"]["answered_by"] == "cli:ann" and "expired" not in resumed["data"]  # type: ignore[operator,index]


@pytest.mark.parametrize("given", [["--approve"], []], ids=["an approval", "no answer"])
def test_sessions_resume_after_the_deadline_denies_the_call_once(
    project: Path, given: list[str]
) -> None:
    session, _ = paused(project, "0.2s")
    deadline = past_deadline(project)
    assert "deadline passed" in hookline("sessions", "list", cwd=project).stdout
    done = hookline("sessions", "resume", session, *given, "--user", "ann",
                    "--output-format", "json", cwd=project)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "waited past its deadline" in done.stderr
    out = json.loads(done.stdout)
    [call] = out["tool_calls"]
    assert (call["status"], call["approver"]) == ("blocked", "deadline")
    assert "waited past its deadline" in call["reason"] and out["final_text"] == "done"
    assert runs(project) == 0
    [resumed] = audit(project, "resume")
    data: Any = resumed["data"]
    assert (data["user"], data["answer"], data["answered_by"]) == ("ann", "deny", "deadline")
    assert data["expired"]["deadline"] == deadline and data["expired"]["at"] >= deadline
    assert data["expired"].get("refused") == ("approve" if given else None)
    again = hookline("sessions", "resume", session, "--approve", cwd=project)
    assert again.returncode == 2 and "has finished" in again.stderr
    assert runs(project) == 0


def test_the_inbox_shows_the_deadline_and_takes_an_answer_before_it(
    project: Path, tmp_path: Path
) -> None:
    session, _ = paused(project, "2d")
    with started(project, tmp_path / "users.json") as url:
        people = People(url)
        ann = people.sign_in("ann")
        assert "Answer by " in ann.get("/").text
        done = answer(ann, session, "approve", why="before the deadline")
        people.close()
    assert done.status_code == 200 and "the run finished" in done.text, done.text
    assert runs(project) == 1


def test_the_inbox_refuses_an_answer_after_the_deadline_and_the_call_is_denied(
    project: Path, tmp_path: Path
) -> None:
    session, _ = paused(project, "0.2s")
    past_deadline(project)
    with started(project, tmp_path / "users.json") as url:
        people = People(url)
        ann = people.sign_in("ann")
        assert "Its deadline passed at " in ann.get("/").text
        done = answer(ann, session, "approve", why="too late?")
        people.close()
    assert done.status_code == 409 and "deadline" in done.text, done.text
    assert "this answer was not applied" in done.text
    assert runs(project) == 0
    [given] = audit(project, "inbox_answer")
    assert (given["decision"], given["data"]["applied"]) == ("refused", False)  # type: ignore[index]
    assert "deadline" in given["data"]["refused"]  # type: ignore[index,operator]
    [resumed] = audit(project, "resume")
    assert (resumed["data"]["user"], resumed["data"]["answered_by"]) == ("ann", "deadline")  # type: ignore[index]
    assert listed(project)["status"] == "finished"


def test_a_signed_link_after_the_deadline_is_refused_and_the_call_is_denied(
    project: Path, tmp_path: Path
) -> None:
    session, _ = paused(project, "0.2s")
    past_deadline(project)
    paused_at = listed(project)["updated_at"]
    token = links.make(
        links.link_key(), links.Link(session, "t_b", "approve", time.time() + 600, paused_at)
    )
    with started(project, tmp_path / "users.json") as url:
        people = People(url)
        ann = people.sign_in("ann")
        opened = ann.get(f"/link?t={token}")
        assert opened.status_code == 200 and "Its deadline passed at " in opened.text
        done = ann.post("/link", data={"csrf": csrf(opened.text), "t": token})
        people.close()
    assert done.status_code == 409 and "this answer was not applied" in done.text, done.text
    assert runs(project) == 0
    [resumed] = audit(project, "resume")
    assert resumed["data"]["answered_by"] == "deadline"  # type: ignore[index]


def test_a_bad_setting_stops_hookline_run_naming_the_file_the_key_and_the_fix(
    project: Path,
) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text('{"hookline": {"deferDeadline": "soon"}}')
    done = hookline("run", "go", "--model", "rules", cwd=project)
    assert done.returncode == 2, done.stdout
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("hookline: error: ") and ".claude/settings.json" in line
    assert "hookline.deferDeadline: 'soon' is not a duration" in line and '"2d"' in line
    (project / ".claude" / "settings.json").unlink()
    flag = hookline("run", "go", "--model", "rules", "--defer-deadline", "0", cwd=project)
    assert flag.returncode == 2 and "--defer-deadline: '0' is not a duration" in flag.stderr
