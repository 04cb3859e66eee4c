"""``hookline serve --asks inbox --inbox``: a live ask approved "for this session" in the inbox
allows what its grant names for the rest of that host session, and nowhere else.

A real server on 127.0.0.1 (uvicorn in a thread; a real ``hookline serve`` process for the
second server on PostgreSQL); the host is an httpx POST shaped as Claude Code's hook; the
approver a signed-in browser. A test answers only once the ask is in the store (``asked``);
a call a grant covers is answered at once, with no ask in the store.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from asks_server import (
    answer_ask,
    asked,
    deploy,
    gated,
    permission,
    policy,
    pool,
    posted,
    records,
    serve_process,
    serving,
    users,
)
from hookline._cli.serve_asks import INBOX_PATH
from hookline._serve.app import CLAUDE_CODE_PATH
from hookline.permissions._verdict import SESSION_SOURCE
from hookline.storage import AskStore, open_store
from inbox_server import People
from postgres_schema import fresh_schema

__all__ = ["policy", "pool", "users"]  # the fixtures, for the tests that ask for them


@pytest.fixture
def work(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    (folder / ".git").mkdir(parents=True)
    return folder


def bash(cwd: Path, command: str, session: str = "s1", call: str = "toolu_1") -> dict[str, Any]:
    return {**deploy(cwd, command), "session_id": session, "tool_use_id": call}


def write(cwd: Path, path: str, session: str = "s1", call: str = "toolu_w") -> dict[str, Any]:
    return {
        **deploy(cwd),
        "session_id": session,
        "tool_use_id": call,
        "tool_name": "Write",
        "tool_input": {"file_path": str(cwd / path), "content": "print(1)\n"},
    }


def now(
    where: str, body: dict[str, Any], store: AskStore, headers: dict[str, str] | None = None
) -> tuple[str, str]:
    """A call answered at once: the host's decision, and no live ask was made for it."""
    answer = httpx.post(where + CLAUDE_CODE_PATH, json=body, headers=headers, timeout=60)
    said = permission(answer)
    assert store.waiting_asks() == []
    return said


def still_asks(
    people: People,
    pool: ThreadPoolExecutor,
    where: str,
    body: dict[str, Any],
    store: AskStore,
    headers: dict[str, str] | None = None,
) -> dict[str, Any]:
    """A call that becomes a live ask (denied in the inbox once it is there): the ask."""
    host = posted(pool, where + CLAUDE_CODE_PATH, body, headers)
    [ask] = asked(store, host=host)
    assert answer_ask(people.sign_in("ann"), ask.id, "deny", message="no").status_code == 200
    assert permission(host.result())[0] == "deny"
    return ask.ask


def approved_for_session(
    people: People,
    pool: ThreadPoolExecutor,
    where: str,
    body: dict[str, Any],
    store: AskStore,
    headers: dict[str, str] | None = None,
) -> dict[str, Any]:
    """The call asks; ann approves it for the session in the inbox: the ask's grant."""
    host = posted(pool, where + CLAUDE_CODE_PATH, body, headers)
    [ask] = asked(store)
    ann = people.sign_in("ann")
    page = ann.get("/").text
    grant = ask.ask["grant"]
    assert "Approve for this session" in page and grant["description"] in page
    done = answer_ask(ann, ask.id, "approve", for_session="1", why="all week")
    assert done.status_code == 200 and "its session is allowed" in done.text, done.text
    assert permission(host.result())[0] == "allow"
    found = store.get_ask(ask.id)
    assert found is not None and found.answer is not None
    assert (found.answer["for_session"], found.answer["grant"]) == (True, grant)
    return dict(grant)


def test_a_bash_ask_approved_for_the_session_lets_that_session_run_it_and_nothing_more(
    policy: Path, users: Path, tmp_path: Path, work: Path, pool: ThreadPoolExecutor
) -> None:
    state = tmp_path / "state"
    with serving(policy, state, users) as where:
        people = People(where + INBOX_PATH)
        store = open_store(None, state_dir=state)
        assert isinstance(store, AskStore)
        grant = approved_for_session(
            people, pool, where, bash(work, "git push origin feature-x"), store
        )
        assert grant["rules"] == ["Bash(git push *)"]
        decision, reason = now(where, bash(work, "git push origin feature-y", call="t2"), store)
        assert decision == "allow" and SESSION_SOURCE in reason
        # the dangerous tier refuses, the ask rule asks: no grant lifts either
        decision, reason = now(where, bash(work, "git push --force origin main", call="t3"), store)
        assert decision == "deny" and "dangerous" in reason
        assert still_asks(people, pool, where, bash(work, "deploy prod", call="t4"), store)
        # another session of the host: asks, as before the grant
        again = bash(work, "git push origin feature-y", "s2")
        other = still_asks(people, pool, where, again, store)
        assert other["session_id"] == "s2"
        people.close()
        store.close()
    [given, *_] = records(state, "inbox_answer")
    assert (given["data"]["for_session"], given["data"]["grant"]["rules"]) == (
        True,
        ["Bash(git push *)"],
    )
    served = {row["tool_use_id"]: row for row in records(state, "served")}
    lifted = served["t2"]
    assert (lifted["permission"], lifted["data"]["origin"]) == ("allow", "rule")
    assert SESSION_SOURCE in lifted["data"]["reason"]
    assert lifted["data"]["session_grant"]["grants"][0]["rules"] == ["Bash(git push *)"]
    assert "session_grant" not in served["t3"]["data"]


def test_a_write_approved_for_the_session_accepts_its_edits_but_not_protected_files(
    policy: Path, users: Path, tmp_path: Path, work: Path, pool: ThreadPoolExecutor
) -> None:
    state = tmp_path / "state"
    with serving(policy, state, users) as where:
        people = People(where + INBOX_PATH)
        store = open_store(None, state_dir=state)
        assert isinstance(store, AskStore)
        grant = approved_for_session(people, pool, where, write(work, "app.py"), store)
        assert grant["mode"] == "acceptEdits"
        decision, reason = now(where, write(work, "lib/util.py", call="t2"), store)
        assert decision == "allow" and SESSION_SOURCE in reason
        asked_again = still_asks(people, pool, where, write(work, ".git/config", call="t3"), store)
        assert "protected" in asked_again["reason"] or ".git" in asked_again["reason"]
        still_asks(people, pool, where, write(work, "lib/util.py", "s2"), store)
        people.close()
        store.close()
    lifted = {row["tool_use_id"]: row for row in records(state, "served")}["t2"]
    assert (lifted["permission"], lifted["data"]["origin"]) == ("allow", "mode")
    assert lifted["data"]["session_grant"]["grants"] == [
        {"rules": [], "mode": "acceptEdits", "description": grant["description"]}
    ]


def test_an_ask_with_no_grant_to_offer_has_no_session_form_and_refuses_one(
    policy: Path, users: Path, tmp_path: Path, work: Path, pool: ThreadPoolExecutor
) -> None:
    state = tmp_path / "state"
    with serving(policy, state, users) as where:
        people = People(where + INBOX_PATH)
        store = open_store(None, state_dir=state)
        assert isinstance(store, AskStore)
        host = posted(pool, where + CLAUDE_CODE_PATH, bash(work, "deploy prod"))
        [ask] = asked(store)
        assert "grant" not in ask.ask
        ann = people.sign_in("ann")
        assert "Approve for this session" not in ann.get("/").text
        refused = answer_ask(ann, ask.id, "approve", for_session="1")
        assert refused.status_code == 409 and "offers nothing for the rest" in refused.text
        assert answer_ask(ann, ask.id, "approve").status_code == 200
        assert permission(host.result())[0] == "allow"
        people.close()
        store.close()


def test_on_postgresql_a_grant_given_on_one_server_holds_on_another(
    policy: Path, users: Path, tmp_path: Path, work: Path, pool: ThreadPoolExecutor
) -> None:
    with (
        fresh_schema() as (_, pg),
        serve_process(policy, tmp_path / "other", users, "--store", pg) as elsewhere,
        serving(policy, tmp_path / "state", users, store=pg) as where,
    ):
        store = open_store(pg, state_dir=tmp_path)
        assert isinstance(store, AskStore)
        people = People(where + INBOX_PATH)
        approved_for_session(people, pool, where, bash(work, "git push origin feature-x"), store)
        decision, reason = now(elsewhere, bash(work, "git push origin b", call="t2"), store)
        assert decision == "allow" and SESSION_SOURCE in reason
        people.close()
        store.close()


def test_through_the_token_gate_a_grant_holds_for_its_agent_token_and_tenant_only(
    policy: Path, users: Path, tmp_path: Path, work: Path, pool: ThreadPoolExecutor
) -> None:
    """A real ``hookline serve`` whose state folder has per-agent tokens: the grant one token's
    session was given holds for that token only; another token of the tenant and a token of
    another tenant naming the same session id ask, and a call with no token is refused."""
    state = tmp_path / "state"
    _, token = gated(state, ci="acme", dev="acme", gx="globex")  # made before the server starts
    with serve_process(policy, state, users) as where:
        people = People(where + INBOX_PATH)
        store = open_store(None, state_dir=state)
        assert isinstance(store, AskStore)
        push = bash(work, "git push origin feature-x")
        grant = approved_for_session(people, pool, where, push, store, token["ci"])
        assert grant["rules"] == ["Bash(git push *)"]
        again = bash(work, "git push origin feature-y", call="t2")
        decision, reason = now(where, again, store, token["ci"])
        assert decision == "allow" and SESSION_SOURCE in reason
        for agent, tenant in (("dev", "acme"), ("gx", "globex")):
            asked_again = still_asks(people, pool, where, again, store, token[agent])
            said = (asked_again["session_id"], asked_again["agent"], asked_again["tenant"])
            assert said == ("s1", agent, tenant)
        refused = httpx.post(where + CLAUDE_CODE_PATH, json=again, timeout=60)
        decision, reason = permission(refused)
        assert decision == "deny" and "no token" in reason
        assert store.waiting_asks() == []
        people.close()
        store.close()
    served = [row for row in records(state, "served") if row["tool_use_id"] == "t2"]
    assert [(row["data"]["agent"], row["permission"]) for row in served] == [
        ("ci", "allow"),
        ("dev", "deny"),
        ("gx", "deny"),
    ]
    assert "session_grant" in served[0]["data"]
    assert not any("session_grant" in row["data"] for row in served[1:])
