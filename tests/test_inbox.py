"""``hookline inbox``: a real server on 127.0.0.1 answers a paused run's call, once.

Each test pauses a run whose one call appends a line to ``sentinel.txt``, then answers it from
the inbox as a signed-in person would: approve runs the tool exactly once (a second answer, a
race of two, or a ``sessions resume`` first all lose to the first), deny never runs it, an edit
is judged again by the rules, a viewer and a form without its CSRF token are refused; each
answer is on the audit record with who and why.
"""

from __future__ import annotations

import json
import shlex
import ssl
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from cli_runner import hookline
from hookline._inbox.signin import TRIES
from inbox_server import People, add_users, answer, audit, csrf, paused_run, runs, started
from postgres_schema import fresh_schema


@pytest.fixture
def users(tmp_path: Path) -> Path:
    path = tmp_path / "users.json"
    add_users(path)
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


@pytest.fixture
def inbox(project: Path, users: Path) -> Iterator[tuple[People, str]]:
    """The inbox of a project whose run paused; its browsers, and the session."""
    session = paused_run(project)
    with started(project, users) as url:
        people = People(url)
        yield people, session
        people.close()


def test_approve_runs_the_tool_once_and_records_who_and_why(
    project: Path, inbox: tuple[People, str]
) -> None:
    people, session = inbox
    ann = people.sign_in("ann")
    page = ann.get("/").text
    assert "echo ran &gt;&gt; sentinel.txt" in page and session in page
    done = answer(ann, session, "approve", why="a harmless echo")
    assert done.status_code == 200 and "the run finished" in done.text, done.text
    assert runs(project) == 1
    again = answer(ann, session, "approve", why="twice?")
    assert again.status_code == 409 and "answered already" in again.text
    assert runs(project) == 1
    resume = audit(project, "resume")
    assert [(r["data"]["user"], r["data"]["answer"], r["data"]["answered_by"]) for r in resume] == [
        ("ann", "approve", "inbox:ann")
    ]
    given = audit(project, "inbox_answer")
    assert [(r["decision"], r["data"]["by"], r["data"]["role"], r["data"]["applied"])
            for r in given] == [("approve", "ann", "approver", True),
                                ("approve", "ann", "approver", False)]  # fmt: skip
    assert given[0]["data"]["why"] == "a harmless echo"


def test_deny_never_runs_the_tool_and_the_model_reads_the_message(
    project: Path, inbox: tuple[People, str]
) -> None:
    people, session = inbox
    ann = people.sign_in("ann")
    done = answer(ann, session, "deny", message="not on a Friday", why="release freeze")
    assert done.status_code == 200, done.text
    assert runs(project) == 0
    [resume] = audit(project, "resume")
    assert (resume["data"]["answer"], resume["data"]["message"]) == ("deny", "not on a Friday")
    [tool] = audit(project, "tool")[-1:]
    assert (tool["decision"], tool["data"]["reason"]) == ("blocked", "not on a Friday")
    [given] = audit(project, "inbox_answer")
    assert (given["data"]["message"], given["data"]["why"]) == ("not on a Friday", "release freeze")


def test_two_answers_at_once_run_the_tool_once(project: Path, inbox: tuple[People, str]) -> None:
    people, session = inbox
    clients = [people.sign_in("ann"), people.sign_in("ann")]
    tokens = [c.get("/").text for c in clients]  # both see it waiting
    assert all(session in t for t in tokens)
    barrier, codes = threading.Barrier(2), []

    def approve(client: object) -> None:
        barrier.wait()
        codes.append(answer(client, session, "approve").status_code)  # type: ignore[arg-type]

    threads = [threading.Thread(target=approve, args=(c,)) for c in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(codes) == [200, 409]
    assert runs(project) == 1


def test_on_postgresql_two_answers_at_once_run_the_tool_once(project: Path, users: Path) -> None:
    with fresh_schema() as (_, url):
        session = paused_run(project, store=url)
        with started(project, users, "--store", url) as inbox_url:
            people = People(inbox_url)
            clients = [people.sign_in("ann"), people.sign_in("ann")]
            assert all(session in client.get("/").text for client in clients)
            barrier, codes = threading.Barrier(2), []

            def approve(client: object) -> None:
                barrier.wait()
                codes.append(answer(client, session, "approve").status_code)  # type: ignore[arg-type]

            threads = [threading.Thread(target=approve, args=(c,)) for c in clients]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            people.close()
        assert sorted(codes) == [200, 409]
        assert runs(project) == 1


def test_behind_a_trusted_proxy_its_header_names_who_is_signed_in(
    project: Path, users: Path
) -> None:
    session = paused_run(project)
    with started(project, users, "--trust-header", "X-Remote-User") as url:
        people = People(url)
        assert people.anonymous().get("/").status_code == 303  # no header: nobody
        assert people.anonymous(**{"X-Remote-User": "mallory"}).get("/").status_code == 303
        vic = people.anonymous(**{"X-Remote-User": "vic"})
        assert answer(vic, session, "approve").status_code == 403
        typed = people.anonymous()  # a password signs nobody in past the proxy
        login = {
            "csrf": csrf(typed.get("/login").text),
            "name": "ann",
            "password": "ann's password",
        }
        assert typed.post("/login", data=login).status_code == 303
        assert typed.get("/").status_code == 303
        ann = people.anonymous(**{"X-Remote-User": "ann"})
        done = answer(ann, session, "approve", why="via the proxy")
        assert done.status_code == 200, done.text
        people.close()
    assert runs(project) == 1
    [resume] = audit(project, "resume")
    assert resume["data"]["answered_by"] == "inbox:ann"


def test_an_answer_after_sessions_resume_is_refused(
    project: Path, inbox: tuple[People, str]
) -> None:
    people, session = inbox
    ann = people.sign_in("ann")
    token_page = ann.get("/").text
    assert session in token_page
    first = hookline("sessions", "resume", session, "--deny", "no", cwd=project)
    assert first.returncode == 0, first.stderr
    late = answer(ann, session, "approve")
    assert late.status_code == 409
    assert runs(project) == 0


def test_an_edit_is_judged_again_by_the_rules_before_it_runs(project: Path, users: Path) -> None:
    settings = {"permissions": {"deny": ["Bash(touch *)"]}}
    (project / ".hookline").mkdir()
    (project / ".hookline" / "settings.json").write_text(json.dumps(settings))
    session = paused_run(project)
    with started(project, users) as url:
        people = People(url)
        ann = people.sign_in("ann")
        edited = json.dumps({"command": "touch sentinel.txt"})
        done = answer(ann, session, "edit", edited=edited, why="touch instead")
        assert done.status_code == 200, done.text
        assert "blocked" in done.text
        people.close()
    assert not (project / "sentinel.txt").exists()
    [resume] = audit(project, "resume")
    assert resume["data"]["answer"] == "edit"
    assert resume["data"]["input_diff"] == {
        "changed": {"command": ["echo ran >> sentinel.txt", "touch sentinel.txt"]}
    }


def test_the_page_names_the_hook_that_deferred_the_call_and_why(project: Path, users: Path) -> None:
    hook = project / "second_pair.py"
    said = {"hookEventName": "PreToolUse", "permissionDecision": "defer",
            "permissionDecisionReason": "needs a second pair of eyes"}  # fmt: skip
    hook.write_text(f"import json\nprint(json.dumps({{'hookSpecificOutput': {said!r}}}))\n")
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(hook))}"
    handler = {"type": "command", "command": command}
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [handler]}]}}
    (project / ".hookline").mkdir()
    (project / ".hookline" / "settings.json").write_text(json.dumps(settings))
    session = paused_run(project)
    with started(project, users) as url:
        people = People(url)
        page = people.sign_in("vic").get("/").text
        people.close()
    assert session in page and "needs a second pair of eyes" in page
    assert "asked by: a hook&#x27;s JSON answer: " in page and "second_pair.py" in page
    assert runs(project) == 0


def test_an_edit_too_long_for_a_command_line_is_refused_and_nothing_runs(
    project: Path, inbox: tuple[People, str]
) -> None:
    people, session = inbox
    ann = people.sign_in("ann")
    edited = json.dumps({"command": "echo " + "x" * 150_000 + " >> sentinel.txt"})
    done = answer(ann, session, "edit", edited=edited)
    assert done.status_code == 409 and "could not start" in done.text
    assert runs(project) == 0 and audit(project, "resume") == []
    [given] = audit(project, "inbox_answer")
    assert (given["decision"], given["data"]["applied"]) == ("edit", False)
    assert session in ann.get("/").text  # still waiting, for another answer


def test_a_viewer_sees_the_call_but_is_refused_an_answer_on_record(
    project: Path, inbox: tuple[People, str]
) -> None:
    people, session = inbox
    vic = people.sign_in("vic")
    page = vic.get("/").text
    assert "echo ran" in page and 'value="approve"' not in page
    refused = answer(vic, session, "approve")
    assert refused.status_code == 403
    assert runs(project) == 0
    [given] = audit(project, "inbox_answer")
    assert (given["decision"], given["data"]["by"], given["data"]["role"]) == (
        "refused", "vic", "viewer",
    )  # fmt: skip
    assert audit(project, "resume") == []


def test_a_post_without_its_csrf_token_or_sign_in_answers_nothing(
    project: Path, inbox: tuple[People, str]
) -> None:
    people, session = inbox
    ann = people.sign_in("ann")
    forged = ann.post("/answer", data={"session": session, "action": "approve"})
    assert forged.status_code == 403
    other = people.sign_in("ann")
    foreign = ann.post("/answer", data={"csrf": "0" * 64, "session": session, "action": "approve"})
    assert foreign.status_code == 403 and other.cookies != ann.cookies
    stranger = people.anonymous()
    page = stranger.get("/login").text
    anonymous = stranger.post("/answer", data={"csrf": csrf(page), "session": session,
                                               "action": "approve"})  # fmt: skip
    assert anonymous.status_code == 303 and anonymous.headers["location"].startswith("/login")
    assert runs(project) == 0
    assert audit(project, "resume") == []


def test_a_wrong_password_signs_nobody_in_and_many_lock_the_name_on_record(
    project: Path, inbox: tuple[People, str]
) -> None:
    people, _ = inbox
    client = people.anonymous()
    token = csrf(client.get("/login").text)
    wrong = client.post("/login", data={"csrf": token, "name": "ann", "password": "guess"})
    assert wrong.status_code == 401
    tokenless = client.post("/login", data={"name": "ann", "password": "ann's password"})
    assert tokenless.status_code == 403
    for _ in range(TRIES - 1):  # with the one above: TRIES wrong in a row
        client.post("/login", data={"csrf": token, "name": "ann", "password": "guess"})
    right = {"csrf": token, "name": "ann", "password": "ann's password"}
    assert client.post("/login", data=right).status_code == 429
    assert client.get("/").status_code == 303
    assert people.sign_in("vic").get("/").status_code == 200  # another name is not locked
    tries = [(r["decision"], r["data"]["name"], r["data"].get("reason")) for r in
             audit(project, "inbox_signin")]  # fmt: skip
    assert tries == [("refused", "ann", "wrong name or password")] * TRIES + [
        ("refused", "ann", "too many wrong passwords"), ("signed_in", "vic", None),
    ]  # fmt: skip


def test_the_cookie_is_httponly_and_samesite_strict(inbox: tuple[People, str]) -> None:
    people, _ = inbox
    ann = people.sign_in("ann")
    cookie = ann.get("/login").headers.get("set-cookie") or ""
    page = ann.get("/")
    assert "default-src 'none'" in page.headers["content-security-policy"]
    assert page.headers["referrer-policy"] == "no-referrer"
    login = people.anonymous().get("/login")
    said = login.headers["set-cookie"].lower()
    assert "httponly" in said and "samesite=strict" in said and "secure" not in said
    assert cookie == "" or "httponly" in cookie.lower()


def test_over_tls_the_cookie_is_secure_too(project: Path, users: Path, tmp_path: Path) -> None:
    from test_serve_tls import self_signed

    tls = self_signed(tmp_path).checked()
    paused_run(project)
    with started(project, users, "--tls-cert", tls.cert, "--tls-key", tls.key) as url:
        assert url.startswith("https://127.0.0.1:")
        trusting = ssl.create_default_context(cafile=tls.cert)
        with httpx.Client(base_url=url, verify=trusting) as client:
            said = client.get("/login").headers["set-cookie"].lower()
    assert "secure" in said and "httponly" in said and "samesite=strict" in said


def test_a_bad_users_file_is_one_line_naming_it(tmp_path: Path, project: Path) -> None:
    users = tmp_path / "users.json"
    users.write_text('{"users": {"ann": {"role": "boss", "password": "x"}}}')
    done = hookline("inbox", "--cwd", str(project), "--users", str(users), "--port", "0")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert str(users) in done.stderr and "users.ann.role" in done.stderr


def test_another_address_without_tls_or_a_project_without_a_store_is_refused(
    tmp_path: Path, users: Path, project: Path
) -> None:
    done = hookline("inbox", "--cwd", str(project), "--users", str(users), "--host", "0.0.0.0")
    assert done.returncode == 2 and "--host" in done.stderr and "--tls-cert" in done.stderr
    nothing = hookline("inbox", "--cwd", str(project), "--users", str(users), "--port", "0")
    assert nothing.returncode == 2 and nothing.stderr.count("\n") == 1
    assert "no store in" in nothing.stderr and "--store" in nothing.stderr
