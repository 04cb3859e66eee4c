"""``hookline serve --asks inbox --inbox``: a host's call the policy asks about waits for a
person in the inbox the server serves under ``/inbox``, and the host gets their answer.

A real server on 127.0.0.1 (uvicorn in a thread; a real ``hookline serve`` process for the
race across servers); the host is an httpx POST shaped as Claude Code's (or Gemini CLI's)
hook, waiting in a thread; the approver is a signed-in browser (``inbox_server.People``). A
test answers only once the ask is in the store (``asked``), never after a sleep.
"""

from __future__ import annotations

import json
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

from asks_server import (
    HOSTILE,
    LINK_KEY,
    answer_ask,
    asked,
    deploy,
    permission,
    policy,
    pool,
    posted,
    records,
    serve_process,
    serving,
    users,
)
from cli_runner import hookline
from hookline._cli.serve_asks import INBOX_PATH
from hookline._hosts.gemini import GEMINI_PATH
from hookline._inbox import links
from hookline._serve.app import CLAUDE_CODE_PATH
from hookline.storage import open_store
from inbox_server import People, csrf
from postgres_schema import fresh_schema
from test_inbox_notify import Receiver, receiving

__all__ = ["policy", "pool", "users"]  # the fixtures, for the tests that ask for them


def test_a_host_waits_and_is_allowed_once_an_approver_approves_in_the_inbox(
    policy: Path, users: Path, tmp_path: Path, pool: ThreadPoolExecutor
) -> None:
    state = tmp_path / "state"
    with serving(policy, state, users) as where:
        people = People(where + INBOX_PATH)
        host = posted(pool, where + CLAUDE_CODE_PATH, deploy(tmp_path))
        store = open_store(None, state_dir=state)
        [ask] = asked(store)
        assert ask.ask["input"] == {"command": "deploy prod"}
        said = (ask.ask["tool"], ask.ask["host"], ask.ask["origin"])
        assert said == ("Bash", "claude-code", "permission")
        assert "rule Bash(deploy *) asks for it" in ask.ask["reason"]
        assert ask.deadline - ask.created <= 20.5
        ann = people.sign_in("ann")
        page = ann.get("/").text
        assert f'id="a-{ask.id}"' in page and "claude-code waits on this call" in page
        done = answer_ask(ann, ask.id, "approve", why="release day")
        assert done.status_code == 200 and "the host is told allow" in done.text, done.text
        assert permission(host.result()) == ("allow", "approved by ann (inbox)")
        again = answer_ask(ann, ask.id, "deny")
        assert again.status_code == 409 and "answered already" in again.text
        people.close()
        store.close()
    given = records(state, "inbox_answer")
    assert [(g["data"]["ask"], g["decision"], g["data"]["by"], g["data"]["role"],
             g["data"]["via"], g["data"]["applied"]) for g in given] == [
        (ask.id, "approve", "ann", "approver", "inbox", True),
        (ask.id, "deny", "ann", "approver", "inbox", False),
    ]  # fmt: skip
    assert given[0]["data"]["why"] == "release day"
    [served] = records(state, "served")
    assert (served["permission"], served["data"]["origin"]) == ("allow", "approver")
    assert served["data"]["live_ask"]["id"] == ask.id
    assert served["data"]["live_ask"]["by"] == "ann"


def test_a_deny_carries_the_approvers_message_to_the_model(
    policy: Path, users: Path, tmp_path: Path, pool: ThreadPoolExecutor
) -> None:
    state = tmp_path / "state"
    with serving(policy, state, users) as where:
        people = People(where + INBOX_PATH)
        host = posted(pool, where + CLAUDE_CODE_PATH, deploy(tmp_path))
        store = open_store(None, state_dir=state)
        [ask] = asked(store)
        done = answer_ask(people.sign_in("ann"), ask.id, "deny", message="use staging first")
        assert done.status_code == 200, done.text
        assert permission(host.result()) == ("deny", "use staging first")
        people.close()
        store.close()
    [served] = records(state, "served")
    assert served["data"]["live_ask"]["message"] == "use staging first"


def test_an_ask_nobody_answers_is_denied_at_its_deadline_and_a_late_answer_is_refused(
    policy: Path, users: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    with serving(policy, state, users, wait=1.0) as where:
        people = People(where + INBOX_PATH)
        ann = people.sign_in("ann")
        token = csrf(ann.get("/").text)
        started = time.monotonic()
        decision, reason = permission(
            httpx.post(where + CLAUDE_CODE_PATH, json=deploy(tmp_path), timeout=60)
        )
        assert time.monotonic() - started < 10
        assert decision == "deny"
        assert re.search(r"nobody answered it in the inbox by its deadline \(\d\d:\d\d:\d\d UTC\)",
                         reason), reason  # fmt: skip
        store = open_store(None, state_dir=state)
        [row] = records(state, "live_ask")
        late = ann.post("/answer", data={"csrf": token, "ask": row["data"]["ask"],
                                         "action": "approve"})  # fmt: skip
        assert late.status_code == 409 and "this ask expired at" in late.text
        people.close()
        store.close()
    assert (row["decision"], row["permission"], row["data"]["via"]) == ("expired", "deny", "expiry")
    [served] = records(state, "served")
    assert (served["permission"], served["data"]["origin"]) == ("deny", "unanswered")
    [refused] = records(state, "inbox_answer")
    assert (refused["data"]["applied"], refused["data"]["ask"]) == (False, row["data"]["ask"])


def test_on_expiry_ask_the_host_asks_its_user(policy: Path, users: Path, tmp_path: Path) -> None:
    with serving(policy, tmp_path / "state", users, wait=1.0, expiry="ask") as where:
        answer = httpx.post(where + CLAUDE_CODE_PATH, json=deploy(tmp_path), timeout=60)
    assert permission(answer)[0] == "ask"


def test_a_viewer_cannot_answer_and_hostile_input_is_shown_inert(
    policy: Path, users: Path, tmp_path: Path, pool: ThreadPoolExecutor
) -> None:
    state = tmp_path / "state"
    with serving(policy, state, users) as where:
        people = People(where + INBOX_PATH)
        host = posted(pool, where + CLAUDE_CODE_PATH, deploy(tmp_path, HOSTILE))
        store = open_store(None, state_dir=state)
        [ask] = asked(store)
        assert ask.ask["input"] == {"command": HOSTILE}  # kept exactly as the host sent it
        vic = people.sign_in("vic")
        page = vic.get("/").text
        assert "<script>alert" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
        assert "\x1b" not in page and "\u202e" not in page and "\\u202e" in page
        assert "mixes scripts (CYRILLIC, LATIN)" in page
        assert "only an approver answers" in page and 'value="approve"' not in page
        refused = answer_ask(vic, ask.id, "approve")
        assert refused.status_code == 403
        assert [a.id for a in store.waiting_asks()] == [ask.id]  # still waiting
        answer_ask(people.sign_in("ann"), ask.id, "deny", message="no")
        assert permission(host.result())[0] == "deny"
        people.close()
        store.close()
    tries = records(state, "inbox_answer")
    said = [(t["data"]["by"], t["decision"]) for t in tries]
    assert said == [("vic", "refused"), ("ann", "deny")]


def test_a_signed_link_approves_a_live_ask_and_only_once(
    policy: Path, users: Path, tmp_path: Path, pool: ThreadPoolExecutor
) -> None:
    state = tmp_path / "state"
    with serving(policy, state, users) as where:
        people = People(where + INBOX_PATH)
        host = posted(pool, where + CLAUDE_CODE_PATH, deploy(tmp_path))
        store = open_store(None, state_dir=state)
        [ask] = asked(store)
        made = links.Link(ask.id, "toolu_deploy", "approve", ask.deadline, ask.created, "ask")
        token = links.make(LINK_KEY, made)
        ann = people.sign_in("ann")
        opened = ann.get(f"/link?t={token}")
        assert opened.status_code == 200 and "deploy prod" in opened.text
        form = {"csrf": csrf(opened.text), "t": token}
        assert ann.post("/link", data=form).status_code == 200
        assert permission(host.result()) == ("allow", "approved by ann (link)")
        assert ann.post("/link", data=form).status_code == 409
        people.close()
        store.close()


def test_the_stream_tells_of_a_live_ask_that_appears_and_is_answered(
    policy: Path, users: Path, tmp_path: Path, pool: ThreadPoolExecutor
) -> None:
    state = tmp_path / "state"
    with serving(policy, state, users) as where:
        people = People(where + INBOX_PATH)
        ann = people.sign_in("ann")
        answerer = people.sign_in("ann")
        seen: list[list[Any]] = []
        host = None
        with ann.stream("GET", "/events") as events:
            for line in events.iter_lines():
                if not line.startswith("data: "):
                    continue
                seen.append(json.loads(line[6:]))
                if len(seen) == 1:
                    host = posted(pool, where + CLAUDE_CODE_PATH, deploy(tmp_path))
                elif seen[-1] and len(seen[-1][0]) == 4:  # a live ask, with its id
                    answer_ask(answerer, seen[-1][0][3], "approve")
                elif not seen[-1] and len(seen) > 2:
                    break
        assert host is not None and permission(host.result())[0] == "allow"
        people.close()
    assert seen[0] == [] and seen[-1] == []


def test_a_gemini_call_waits_too_and_gets_the_answer_in_geminis_words(
    policy: Path, users: Path, tmp_path: Path, pool: ThreadPoolExecutor
) -> None:
    state = tmp_path / "state"
    body = {
        "session_id": "g1",
        "transcript_path": "/tmp/g1.json",
        "cwd": str(tmp_path),
        "hook_event_name": "BeforeTool",
        "timestamp": "2026-01-01T00:00:00Z",
        "tool_name": "run_shell_command",
        "tool_input": {"command": "deploy prod"},
    }
    with serving(policy, state, users) as where:
        people = People(where + INBOX_PATH)
        host = posted(pool, where + GEMINI_PATH, body)
        store = open_store(None, state_dir=state)
        [ask] = asked(store)
        assert ask.ask["host"] == "gemini"
        answer_ask(people.sign_in("ann"), ask.id, "deny", message="not from gemini")
        said = host.result()
        people.close()
        store.close()
    assert said.status_code == 200 and said.json()["decision"] == "deny"
    assert "not from gemini" in said.json()["reason"]


def _race(clients: list[httpx.Client], ask: str) -> list[int]:
    """Each client answers ``ask`` at the same moment; their status codes."""
    tokens = [csrf(client.get("/").text) for client in clients]
    barrier, codes = threading.Barrier(len(clients)), []

    def go(client: httpx.Client, token: str, action: str) -> None:
        barrier.wait()
        form = {"csrf": token, "ask": ask, "action": action, "message": "no"}
        codes.append(client.post("/answer", data=form).status_code)

    actions = ["approve", "deny"] * len(clients)
    threads = [threading.Thread(target=go, args=(c, t, a))
               for c, t, a in zip(clients, tokens, actions, strict=False)]  # fmt: skip
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sorted(codes)


def test_two_answers_at_once_exactly_one_wins(
    policy: Path, users: Path, tmp_path: Path, pool: ThreadPoolExecutor
) -> None:
    state = tmp_path / "state"
    with serving(policy, state, users) as where:
        people = People(where + INBOX_PATH)
        host = posted(pool, where + CLAUDE_CODE_PATH, deploy(tmp_path))
        store = open_store(None, state_dir=state)
        [ask] = asked(store)
        codes = _race([people.sign_in("ann"), people.sign_in("ann")], ask.id)
        assert codes == [200, 409]
        decision = permission(host.result())[0]
        found = store.get_ask(ask.id)
        assert found is not None and found.answer is not None
        assert decision == found.answer["permission"]
        people.close()
        store.close()
    applied = [g["data"]["applied"] for g in records(state, "inbox_answer")]
    assert sorted(applied) == [False, True]


def test_on_postgresql_two_servers_answering_at_once_exactly_one_wins(
    policy: Path, users: Path, tmp_path: Path, pool: ThreadPoolExecutor
) -> None:
    with fresh_schema() as (_, pg):
        other = tmp_path / "other"
        with (
            serve_process(policy, other, users, "--store", pg) as elsewhere,
            serving(policy, tmp_path / "state", users, store=pg) as where,
        ):
            host = posted(pool, where + CLAUDE_CODE_PATH, deploy(tmp_path))
            store = open_store(pg, state_dir=tmp_path)
            [ask] = asked(store)
            here, there = People(where + INBOX_PATH), People(elsewhere + INBOX_PATH)
            codes = _race([here.sign_in("ann"), there.sign_in("ann")], ask.id)
            assert codes == [200, 409]
            found = store.get_ask(ask.id)
            assert found is not None and found.answer is not None
            assert permission(host.result())[0] == found.answer["permission"]
            here.close()
            there.close()
            store.close()


def test_a_webhook_is_told_of_a_live_ask_and_its_signed_link_answers_it(
    policy: Path, users: Path, tmp_path: Path, pool: ThreadPoolExecutor
) -> None:
    secret = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"
    receiver = Receiver()
    state = tmp_path / "state"
    with (
        receiving(receiver) as hooks,
        serve_process(policy, state, users, "--notify", f"json={hooks}/json") as where,
    ):
        host = posted(pool, where + CLAUDE_CODE_PATH, deploy(tmp_path, f"deploy --key {secret}"))
        assert receiver.wait_for(1)
        [(path, body)] = receiver.got
        [call] = body["calls"]
        assert (path, body["event"], call["tool"]) == ("/json", "approval.waiting", "Bash")
        assert secret not in json.dumps(body)  # redacted as the audit keeps it
        assert call["approve_url"].startswith(where + INBOX_PATH + "/link?t=")
        people = People(where + INBOX_PATH)
        ann = people.sign_in("ann")
        opened = ann.get(call["approve_url"].removeprefix(where + INBOX_PATH))
        assert opened.status_code == 200, opened.text
        token = call["approve_url"].split("t=", 1)[1]
        assert ann.post("/link", data={"csrf": csrf(opened.text), "t": token}).status_code == 200
        assert permission(host.result()) == ("allow", "approved by ann (link)")
        people.close()
    [given] = records(state, "inbox_answer")
    assert (given["data"]["via"], given["data"]["applied"]) == ("link", True)


def test_the_inbox_without_users_or_a_wait_past_the_hooks_timeout_stops_the_start(
    policy: Path, tmp_path: Path
) -> None:
    nobody = tmp_path / "nobody.json"
    done = hookline("serve", "--cwd", str(policy), "--port", "0", "--inbox",
                    "--inbox-users", str(nobody))  # fmt: skip
    assert done.returncode != 0
    assert str(nobody) in done.stderr and "hookline inbox user add" in done.stderr
    long = hookline("serve", "--cwd", str(policy), "--port", "0", "--asks", "inbox",
                    "--ask-wait", "40")  # fmt: skip
    assert long.returncode == 2 and "--ask-wait" in long.stderr


def test_a_terminal_answer_counts_once_and_the_inbox_is_told_it_came_second(
    policy: Path, users: Path, tmp_path: Path, pool: ThreadPoolExecutor
) -> None:
    state = tmp_path / "state"
    where_state = ("--state-dir", str(state))
    with serving(policy, state, users) as where:
        people = People(where + INBOX_PATH)
        host = posted(pool, where + CLAUDE_CODE_PATH, deploy(tmp_path, HOSTILE))
        store = open_store(None, state_dir=state)
        [ask] = asked(store)
        listed = hookline("serve", "asks", "list", *where_state)
        assert listed.returncode == 0 and ask.id in listed.stdout and "claude-code" in listed.stdout
        assert "\x1b" not in listed.stdout and "\u202e" not in listed.stdout
        done = hookline("serve", "asks", "answer", ask.id, "--deny", "not now", "--user", "ops",
                        *where_state)  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert permission(host.result()) == ("deny", "not now")
        late = answer_ask(people.sign_in("ann"), ask.id, "approve")
        assert late.status_code == 409 and "answered already: deny by ops (terminal)" in late.text
        again = hookline("serve", "asks", "answer", ask.id, "--approve", "--user", "ops",
                         *where_state)  # fmt: skip
        assert again.returncode == 1 and "answered already" in again.stderr
        people.close()
        store.close()
    given = [(g["data"]["via"], g["data"]["applied"]) for g in records(state, "inbox_answer")]
    assert given == [("terminal", True), ("inbox", False), ("terminal", False)]


def test_every_worker_knows_a_sign_in_made_on_another(
    policy: Path, users: Path, tmp_path: Path
) -> None:
    """The sign-in cookie's key is made before the workers fork: a person signed in stays
    signed in whichever worker answers (the kernel spreads the requests over them)."""
    with serve_process(policy, tmp_path / "state", users, "--workers", "2") as where:
        people = People(where + INBOX_PATH)
        ann = people.sign_in("ann")
        cookies = dict(ann.cookies)  # each page on a connection of its own: any worker's
        pages = [httpx.get(where + INBOX_PATH + "/", cookies=cookies) for _ in range(40)]
        people.close()
    assert {page.status_code for page in pages} == {200}
    assert all("signed in as <b>ann</b>" in page.text for page in pages)


def test_an_edit_is_judged_again_and_the_host_runs_the_edited_input(
    policy: Path, users: Path, tmp_path: Path, pool: ThreadPoolExecutor
) -> None:
    state = tmp_path / "state"
    with serving(policy, state, users) as where:
        people = People(where + INBOX_PATH)
        host = posted(pool, where + CLAUDE_CODE_PATH, deploy(tmp_path))
        store = open_store(None, state_dir=state)
        [ask] = asked(store)
        ann = people.sign_in("ann")
        assert "Run this instead" in ann.get("/").text
        edited = json.dumps({"command": "deploy staging"})
        done = answer_ask(ann, ask.id, "edit", edited=edited, why="staging first")
        assert done.status_code == 200 and "judged again" in done.text, done.text
        said = host.result().json()["hookSpecificOutput"]
        assert (said["permissionDecision"], said["updatedInput"]) == (
            "allow",
            {"command": "deploy staging"},
        )
        assert said["permissionDecisionReason"] == "edited and approved by ann (inbox)"
        people.close()
        store.close()
    [served] = records(state, "served")
    assert served["data"]["live_ask"]["edited"] == {"command": "deploy staging"}


def test_an_edit_the_rules_refuse_is_denied_to_the_host(
    policy: Path, users: Path, tmp_path: Path, pool: ThreadPoolExecutor
) -> None:
    state = tmp_path / "state"
    with serving(policy, state, users) as where:
        people = People(where + INBOX_PATH)
        host = posted(pool, where + CLAUDE_CODE_PATH, deploy(tmp_path))
        store = open_store(None, state_dir=state)
        [ask] = asked(store)
        edited = json.dumps({"command": "rm -rf /"})
        done = answer_ask(people.sign_in("ann"), ask.id, "edit", edited=edited)
        assert done.status_code == 200, done.text
        decision, reason = permission(host.result())
        assert decision == "deny" and "the input ann (inbox) edited was refused" in reason
        assert "dangerous tier" in reason
        people.close()
        store.close()


def test_at_a_terminal_an_edit_is_judged_again_and_a_deny_cannot_last_the_session(
    policy: Path, users: Path, tmp_path: Path, pool: ThreadPoolExecutor
) -> None:
    state = tmp_path / "state"
    where_state = ("--state-dir", str(state))
    with serving(policy, state, users) as where:
        host = posted(pool, where + CLAUDE_CODE_PATH, deploy(tmp_path))
        store = open_store(None, state_dir=state)
        [ask] = asked(store)
        wrong = hookline("serve", "asks", "answer", ask.id, "--deny", "no", "--for-session",
                         "--user", "ops", *where_state)  # fmt: skip
        assert wrong.returncode == 2 and "nothing is approved as it is" in wrong.stderr
        edit = json.dumps({"command": "deploy staging"})
        done = hookline("serve", "asks", "answer", ask.id, "--edit", edit, "--user", "ops",
                        *where_state)  # fmt: skip
        assert done.returncode == 0 and "judged again" in done.stdout, done.stderr
        said = host.result().json()["hookSpecificOutput"]
        assert (said["permissionDecision"], said["updatedInput"]) == (
            "allow",
            {"command": "deploy staging"},
        )
        store.close()
