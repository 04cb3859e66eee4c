"""Session grants of live asks, judged: what an ask of a host session offers, what a grant
given to the session lets run, and what no grant lifts (``hookline._serve.judge.HostSession``,
``hookline._serve.grants``).

The judge is the server's (``Judge``) over a real project folder; the host session is the one
``Asking.rule`` sets for ``--asks inbox``. The grants' store is a real SQLite file.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from hookline._cli.serve_asks import Fleet
from hookline._project import load_project
from hookline._serve.asks import AskSettings
from hookline._serve.gate import Caller
from hookline._serve.grants import Grants, session_key
from hookline._serve.judge import SESSION, HostSession, Judge, Ruling
from hookline._serve.retention import Retention
from hookline._serve.tokens import Token
from hookline.permissions._session import SessionGrant
from hookline.permissions._verdict import SESSION_SOURCE
from hookline.storage import SqliteStore

SETTINGS = {"permissions": {"ask": ["Bash(deploy *)"], "deny": ["Edit(./secrets/**)"]}}


@pytest.fixture
def judge(tmp_path: Path) -> Judge:
    folder = tmp_path / "policy"
    (folder / ".claude").mkdir(parents=True)
    (folder / ".claude" / "settings.json").write_text(json.dumps(SETTINGS))
    return Judge(load_project(folder, trust=True))


@pytest.fixture
def work(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    (folder / ".git").mkdir(parents=True)
    return folder


def call(cwd: Path, tool: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return {
        "session_id": "s1",
        "transcript_path": "/home/u/.claude/projects/p/s1.jsonl",
        "cwd": str(cwd),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": "toolu_1",
    }


def bash(cwd: Path, command: str) -> dict[str, Any]:
    return call(cwd, "Bash", {"command": command})


def write(cwd: Path, path: str) -> dict[str, Any]:
    return call(cwd, "Write", {"file_path": str(cwd / path), "content": "x"})


def judged(
    judge: Judge, payload: dict[str, Any], *grants: SessionGrant
) -> tuple[Ruling, HostSession]:
    """The ruling of ``payload`` in a host session given ``grants``, and what it found."""
    session = HostSession(grants)

    async def go() -> Ruling:
        token = SESSION.set(session)
        try:
            return await judge.rule(payload)
        finally:
            SESSION.reset(token)

    return asyncio.run(go()), session


def permission(ruling: Ruling) -> str | None:
    return ruling.decision.permission


def test_an_ask_of_the_tiers_offers_the_grant_a_run_would_and_an_ask_rule_offers_none(
    judge: Judge, work: Path
) -> None:
    ruling, session = judged(judge, write(work, "app.py"))
    assert permission(ruling) == "ask" and session.offered == SessionGrant(mode="acceptEdits")
    ruling, session = judged(judge, bash(work, "git push origin feature-x"))
    assert permission(ruling) == "ask" and session.offered is not None
    assert session.offered.describe() == "Bash(git push *)"
    ruling, session = judged(judge, bash(work, "deploy prod"))  # the ask rule: no grant lifts it
    assert permission(ruling) == "ask" and session.offered is None
    assert SESSION.get() is None  # outside a host session: today's judging, nothing offered


def test_a_grant_lets_the_calls_it_covers_run_and_says_so(judge: Judge, work: Path) -> None:
    edits, push = (
        SessionGrant(mode="acceptEdits"),
        SessionGrant.from_dict({"rules": ["Bash(git push *)"]}),
    )
    ruling, session = judged(judge, write(work, "other.py"), edits)
    assert permission(ruling) == "allow" and session.lifted and session.offered is None
    assert SESSION_SOURCE in (ruling.decision.reason or "")
    ruling, session = judged(judge, bash(work, "git push origin feature-y"), push)
    assert permission(ruling) == "allow" and session.lifted
    assert "allowed for this session (rule:allow:Bash(git push *)" in (ruling.decision.reason or "")
    ruling, session = judged(judge, bash(work, "git push origin feature-y"))  # no grant: asks
    assert permission(ruling) == "ask" and not session.lifted


def test_no_grant_lifts_a_deny_rule_private_state_the_dangerous_tier_an_ask_rule_or_the_protected_set(  # noqa: E501
    judge: Judge, work: Path
) -> None:
    every = (
        SessionGrant(mode="acceptEdits"),
        SessionGrant.from_dict(
            {"rules": ["Bash(git push *)", "Bash(deploy *)", "Bash(cat *)", "Edit(//tmp/**)"]}
        ),
    )
    said = {
        "deny rule": judged(judge, write(work, "secrets/key.pem"), *every)[0],
        "private state": judged(judge, bash(work, "cat .hookline/audit.jsonl"), *every)[0],
        "dangerous tier": judged(judge, bash(work, "git push --force origin main"), *every)[0],
        "ask rule": judged(judge, bash(work, "deploy prod"), *every)[0],
        "protected set": judged(judge, write(work, ".git/config"), *every)[0],
    }
    assert {name: permission(r) for name, r in said.items()} == {
        "deny rule": "deny",
        "private state": "deny",
        "dangerous tier": "deny",
        "ask rule": "ask",
        "protected set": "ask",
    }
    assert "dangerous" in (said["dangerous tier"].decision.reason or "")


def test_grants_are_kept_by_host_session_and_tenant_and_seen_at_once_where_given(
    tmp_path: Path,
) -> None:
    store = SqliteStore(tmp_path / "store.db")
    grants, other = Grants(store, fresh=60.0), Grants(store, fresh=60.0)
    acme = Caller("127.0.0.1", Token("ci", "h", tenant="acme"))
    globex = Caller("127.0.0.1", Token("ci", "h", tenant="globex"))
    dev = Caller("127.0.0.1", Token("dev", "h", tenant="acme"))  # another agent, same tenant
    payload = {"session_id": "s1", "hook_event_name": "PreToolUse"}
    key = session_key(payload, acme, "claude-code")
    assert key == ("acme", "ci", "claude-code", "s1")
    assert session_key({"hook_event_name": "PreToolUse"}, acme, "claude-code") is None
    edits = SessionGrant(mode="acceptEdits")

    async def go() -> list[tuple[SessionGrant, ...]]:
        assert key is not None
        before = await grants.of(key)  # read (none), and cached for a minute
        await other.of(key)
        await grants.give(key, "ask1", edits)
        await grants.give(key, "ask1", edits)  # the same ask's grant again: kept once
        return [
            before,
            await grants.of(key),  # given here: seen at once
            await other.of(key),  # another process's cache: not yet (one more ask)
            await Grants(store).of(key),  # read from the store: there
            await Grants(store).of(("globex", "ci", "claude-code", "s1")),
            await Grants(store).of(("acme", "dev", "claude-code", "s1")),
            await Grants(store).of(("acme", "ci", "gemini", "s1")),
            await Grants(store).of(("acme", "ci", "claude-code", "s2")),
        ]

    seen = asyncio.run(go())
    assert session_key(payload, globex, "claude-code") == ("globex", "ci", "claude-code", "s1")
    assert session_key(payload, dev, "claude-code") == ("acme", "dev", "claude-code", "s1")
    assert seen == [(), (edits,), (), (edits,), (), (), (), ()]
    assert store.session_grants(("acme", "ci", "claude-code", "s1")) == [edits.to_dict()]
    store.close()


def test_a_grant_holds_for_the_servers_grant_lifetime_and_old_rows_are_tidied_once_an_hour(
    tmp_path: Path,
) -> None:
    store = SqliteStore(tmp_path / "store.db")
    key = ("acme", "ci", "claude-code", "s1")
    edits = SessionGrant(mode="acceptEdits")
    day = Grants(store, fresh=0.0)  # the default lifetime: a day
    hour = Grants(store, fresh=0.0, life=3600.0)
    retention = Retention(store, grant_life=3600.0)

    async def go() -> list[Any]:
        await day.give(key, "ask1", edits)
        fresh = [await day.of(key), await hour.of(key)]
        with store._transaction("write") as cur:  # the grant was given two hours ago
            cur.execute("UPDATE hookline_grants SET given_at = given_at - 7200")
        aged = [await day.of(key), await hour.of(key)]
        return [fresh, aged, await retention.tidy(), await retention.tidy()]

    fresh, aged, tidied, again = asyncio.run(go())
    assert fresh == [(edits,), (edits,)]
    assert aged == [(edits,), ()]  # past an hour's lifetime: that session asks again
    assert (tidied, again) == (1, 0)  # the second tidying within the hour does not look
    assert store.session_grants(key) == []
    store.close()
    # a store that fails leaves its rows for the next tidying, and fails no ask
    assert asyncio.run(Retention(store, grant_life=3600.0).tidy()) == 0


def test_grant_hours_reach_the_servers_asks() -> None:
    options = {
        "asks": "inbox",
        "ask_wait": 10.0,
        "ask_expiry": "deny",
        "grant_hours": 2.0,
        "with_inbox": False,
        "inbox_users": None,
        "notify": (),
        "public_url": None,
    }
    fleet = Fleet.checked(options, host="127.0.0.1", tls=False)
    assert fleet.settings == AskSettings("inbox", 10.0, "deny", 7200.0)
