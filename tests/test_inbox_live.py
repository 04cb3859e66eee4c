"""``hookline inbox``: signed one-time links, and the live stream of waiting calls.

A link (``hookline inbox link``) opened shows the call and one button, and answers nothing:
the tool runs only on the POST, once; the same link again, a changed one, or one opened
signed out answers nothing. The stream (``/events``) says what waits now, then again when a
run pauses.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from cli_runner import hookline
from inbox_server import People, add_users, audit, csrf, paused_run, runs, started


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


@pytest.fixture
def inbox(tmp_path: Path, project: Path) -> Iterator[tuple[People, str]]:
    users = tmp_path / "users.json"
    add_users(users)
    session = paused_run(project)
    with started(project, users) as url:
        people = People(url)
        yield people, session
        people.close()


def link(project: Path, session: str, action: str, base: str) -> str:
    made = hookline("inbox", "link", session, "--action", action, "--cwd", str(project),
                    "--base", base)  # fmt: skip
    assert made.returncode == 0, made.stderr
    return made.stdout.strip()


def test_opening_a_link_answers_nothing_and_its_one_click_runs_the_tool_once(
    project: Path, inbox: tuple[People, str]
) -> None:
    people, session = inbox
    url = link(project, session, "approve", people.url)
    assert url.startswith(people.url + "/link?t=")
    ann = people.sign_in("ann")
    opened = ann.get(url)
    assert opened.status_code == 200 and "echo ran &gt;&gt; sentinel.txt" in opened.text
    assert ann.get(url).status_code == 200  # opened twice: still nothing answered
    assert runs(project) == 0 and audit(project, "resume") == []
    token = url.split("t=", 1)[1]
    form = {"csrf": csrf(opened.text), "t": token, "why": "from the link"}
    done = ann.post("/link", data=form)
    assert done.status_code == 200, done.text
    assert runs(project) == 1
    again = ann.post("/link", data=form)
    assert again.status_code == 409 and runs(project) == 1
    assert ann.get(url).status_code == 409  # used: nothing waits on it
    [resume] = audit(project, "resume")
    assert resume["data"]["answered_by"] == "link:ann"
    given = audit(project, "inbox_answer")
    assert [(g["data"]["via"], g["data"]["applied"]) for g in given] == [
        ("link", True), ("link", False),
    ]  # fmt: skip


def test_a_deny_link_refuses_the_call(project: Path, inbox: tuple[People, str]) -> None:
    people, session = inbox
    url = link(project, session, "deny", people.url)
    ann = people.sign_in("ann")
    opened = ann.get(url)
    form = {"csrf": csrf(opened.text), "t": url.split("t=", 1)[1], "message": "use staging"}
    assert ann.post("/link", data=form).status_code == 200
    assert runs(project) == 0
    [resume] = audit(project, "resume")
    assert (resume["data"]["answer"], resume["data"]["message"]) == ("deny", "use staging")


def test_a_changed_link_or_one_opened_signed_out_answers_nothing(
    project: Path, inbox: tuple[People, str]
) -> None:
    people, session = inbox
    url = link(project, session, "approve", people.url)
    stranger = people.anonymous()
    away = stranger.get(url)
    assert away.status_code == 303
    assert away.headers["location"] == "/login?next=" + quote(url.removeprefix(people.url))
    ann = people.sign_in("ann")
    changed = ann.get(url[:-1] + ("0" if url[-1] != "0" else "1"))
    assert changed.status_code == 400 and "not one hookline signed" in changed.text
    page = ann.get("/").text
    forged = ann.post("/link", data={"csrf": csrf(page), "t": "x.y"})
    assert forged.status_code == 400
    vic = people.sign_in("vic")
    assert vic.get(url).status_code == 403
    assert runs(project) == 0 and audit(project, "resume") == []


def test_the_stream_tells_of_a_run_that_pauses(project: Path, inbox: tuple[People, str]) -> None:
    people, first = inbox
    ann = people.sign_in("ann")
    seen: list[list[str]] = []
    with ann.stream("GET", "/events") as events:
        assert events.headers["content-type"].startswith("text/event-stream")
        lines = events.iter_lines()
        for line in lines:  # a new pause, once the stream has said what waits now
            if not line.startswith("data: "):
                continue
            seen.append([entry[0] for entry in json.loads(line[6:])])
            if len(seen) == 1:
                second = paused_run(project)
            elif second in seen[-1]:
                break
    assert seen[0] == [first]
    assert set(seen[-1]) == {first, second}


def test_the_stream_is_for_people_signed_in(inbox: tuple[People, str]) -> None:
    people, _ = inbox
    assert people.anonymous().get("/events").status_code == 401
