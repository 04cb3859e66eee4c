"""One call of several, answered in the inbox on its own; an approval that lasts the session;
a signed link that answers its one call, never its neighbours. A real ``hookline inbox`` on
127.0.0.1 over a real paused run; what ran is read from the files the calls write."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from cli_runner import hookline
from hookline._inbox import links
from hookline._inbox.pending import pending_sessions
from hookline.storage import SqliteStore
from inbox_server import People, add_users, answer, audit, csrf, started


def paused(project: Path, turns: list[list[tuple[str, str, str]]]) -> str:
    """A run whose Writes (id, file, content; a list a turn) wait for approval: its session."""
    script = {"turns": [{"tool_calls": [
        {"id": id, "name": "Write", "input": {"file_path": name, "content": text}}
        for id, name, text in turn]} for turn in turns] + [{"text": "done"}]}  # fmt: skip
    (project / "script.json").write_text(json.dumps(script))
    done = hookline("run", "write", "--model", "scripted:script.json", "--defer-asks",
                    "--output-format", "json", cwd=project)  # fmt: skip
    assert done.returncode == 4, done.stderr
    return str(json.loads(done.stdout)["session_id"])


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    add_users(tmp_path / "users.json")
    return folder


@contextmanager
def inbox(project: Path) -> Iterator[People]:
    """The inbox of ``project`` (a run of it paused first: the inbox reads its store)."""
    with started(project, project.parent / "users.json") as url:
        people = People(url)
        try:
            yield people
        finally:
            people.close()


def waiting(project: Path, session: str) -> list[str]:
    shown = json.loads(hookline("sessions", "show", session, "--json", cwd=project).stdout)
    return [call["id"] for call in shown["waiting"]]


TWO = [[("t_a", "a.txt", "A"), ("t_b", "b.txt", "B")]]


def test_one_call_of_two_is_approved_and_the_other_keeps_waiting(project: Path) -> None:
    session = paused(project, TWO)
    with inbox(project) as people:
        ann = people.sign_in("ann")
        page = ann.get("/").text
        assert page.count("Approve this call") == 2 and page.count('name="call"') == 4
        done = answer(ann, session, "approve", call="t_a", why="a is fine")
        assert done.status_code == 200 and "paused again" in done.text, done.text
        assert (project / "a.txt").read_text() == "A" and not (project / "b.txt").exists()
        assert waiting(project, session) == ["t_b"]  # asked again, nobody to answer: it waits
        denied = answer(ann, session, "deny", call="t_b", message="no b today")
        assert denied.status_code == 200, denied.text
    assert not (project / "b.txt").exists()
    given = [
        (r["tool_use_id"], r["decision"], r["data"]["call"]) for r in audit(project, "inbox_answer")
    ]
    assert given == [("t_a", "approve", "t_a"), ("t_b", "deny", "t_b")]
    [blocked] = [r for r in audit(project, "tool") if r["decision"] == "blocked"]
    assert (blocked["tool_use_id"], blocked["data"]["reason"]) == ("t_b", "no b today")


def test_a_call_not_waiting_is_answered_by_nothing(project: Path) -> None:
    session = paused(project, TWO)
    with inbox(project) as people:
        done = answer(people.sign_in("ann"), session, "approve", call="t_zz")
    assert done.status_code == 409 and "nothing waits there now" in done.text
    assert not (project / "a.txt").exists() and waiting(project, session) == ["t_a", "t_b"]


def test_an_approval_for_the_session_lets_the_later_edit_run_unasked(project: Path) -> None:
    session = paused(project, [[("t_a", "a.txt", "A")], [("t_c", "c.txt", "C")]])
    with inbox(project) as people:
        ann = people.sign_in("ann")
        assert "Approve for this session" in ann.get("/").text
        done = answer(ann, session, "approve", for_session="1", why="edits are fine today")
    assert done.status_code == 200 and "the run finished" in done.text, done.text
    assert (project / "a.txt").read_text() == "A" and (project / "c.txt").read_text() == "C"
    [approval] = [r["data"] for r in audit(project, "approval")]
    assert (approval["answered_by"], approval["scope"]) == ("inbox:ann", "session")
    [given] = audit(project, "inbox_answer")
    assert given["data"]["for_session"] is True


def test_a_deny_cannot_last_the_session(project: Path) -> None:
    session = paused(project, TWO)
    with inbox(project) as people:
        done = answer(people.sign_in("ann"), session, "deny", for_session="1", message="no")
    assert done.status_code == 400 and "cannot last the session" in done.text
    assert waiting(project, session) == ["t_a", "t_b"]


def test_a_signed_link_answers_its_call_only(project: Path) -> None:
    session = paused(project, TWO)
    store = SqliteStore(project / ".hookline" / "state" / "hookline.db")
    try:
        [pause] = pending_sessions(store)
    finally:
        store.close()
    made = links.Link(session, "t_a", "approve", time.time() + 600, pause.paused_at)
    token = links.make(links.link_key(), made)
    with inbox(project) as people:
        ann = people.sign_in("ann")
        opened = ann.get(f"/link?t={token}")
        assert opened.status_code == 200, opened.text
        done = ann.post("/link", data={"csrf": csrf(opened.text), "t": token})
    assert done.status_code == 200, done.text
    assert (project / "a.txt").read_text() == "A"
    assert not (project / "b.txt").exists() and waiting(project, session) == ["t_b"]
