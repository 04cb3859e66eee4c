"""``hookline serve --asks inbox --inbox``: Claude Code's own permission prompt (its
PermissionRequest hook) that the server would hand back to its dialog waits for a person in
the inbox, and Claude Code gets their answer in PermissionRequest's words.

A real server on 127.0.0.1 (uvicorn in a thread); the host is an httpx POST shaped as Claude
Code's PermissionRequest (and PreToolUse) hook, waiting in a thread; the approver a signed-in
browser. A test answers only once the ask is in the store (``asked``), never after a sleep.
"""

from __future__ import annotations

import json
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from asks_server import (
    SETTINGS,
    answer_ask,
    asked,
    deploy,
    permission,
    pool,
    posted,
    records,
    serving,
    users,
)
from hookline._cli.serve_asks import INBOX_PATH
from hookline._inbox import links
from hookline._serve.app import CLAUDE_CODE_PATH
from hookline.permissions._verdict import SESSION_SOURCE
from hookline.storage import AskStore, open_store
from inbox_server import People, csrf

__all__ = ["pool", "users"]  # the fixtures, for the tests that ask for them

#: A PreToolUse hook of the server's policy: it refuses a deploy to staging and rewrites a
#: canary deploy; any other call it lets be.
HOOK = """\
import json, sys
command = json.load(sys.stdin)["tool_input"].get("command", "")
out = "PreToolUse"
if "staging" in command:
    said = {"permissionDecision": "deny", "permissionDecisionReason": "staging is frozen"}
elif "canary" in command:
    said = {"updatedInput": {"command": command + " --slow"}}
else:
    said = None
if said:
    print(json.dumps({"hookSpecificOutput": {"hookEventName": out, **said}}))
"""


@pytest.fixture
def policy(tmp_path: Path) -> Path:
    """The server's folder: the deploy ask rule, and the PreToolUse hook ``HOOK``."""
    folder = tmp_path / "policy"
    (folder / ".claude").mkdir(parents=True)
    script = folder / "hook.py"
    script.write_text(HOOK)
    command = f"{sys.executable} {script}"
    hooks = {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}]
    }
    (folder / ".claude" / "settings.json").write_text(json.dumps({**SETTINGS, "hooks": hooks}))
    return folder


@pytest.fixture
def work(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    (folder / ".git").mkdir(parents=True)
    return folder


def permission_request(cwd: Path, command: str = "deploy prod") -> dict[str, Any]:
    """Claude Code's PermissionRequest of a Bash call (it carries no tool_use_id)."""
    pre = deploy(cwd, command)
    del pre["tool_use_id"]
    suggestions = [{"type": "addRules", "rules": [{"toolName": "Bash"}], "behavior": "allow",
                    "destination": "localSettings"}]  # fmt: skip
    return {**pre, "hook_event_name": "PermissionRequest", "permission_suggestions": suggestions}


def decided(answer: httpx.Response) -> dict[str, Any] | None:
    """The PermissionRequest decision Claude Code reads (None: none, its dialog asks)."""
    assert answer.status_code == 200, answer.text
    body = answer.json()
    if body == {}:
        return None
    assert body["hookSpecificOutput"]["hookEventName"] == "PermissionRequest", body
    return dict(body["hookSpecificOutput"]["decision"])


def test_claude_codes_permission_prompt_waits_in_the_inbox_and_an_approval_allows_it(
    policy: Path, users: Path, tmp_path: Path, pool: ThreadPoolExecutor
) -> None:
    state = tmp_path / "state"
    with serving(policy, state, users) as where:
        people = People(where + INBOX_PATH)
        host = posted(pool, where + CLAUDE_CODE_PATH, permission_request(tmp_path))
        store = open_store(None, state_dir=state)
        [ask] = asked(store)
        said = (ask.ask["tool"], ask.ask["host"], ask.ask["origin"], ask.ask["input"])
        assert said == ("Bash", "claude-code", "host_permission", {"command": "deploy prod"})
        assert "tool_use_id" not in ask.ask  # Claude Code sent none
        assert "rule Bash(deploy *) asks for it" in ask.ask["reason"]
        ann = people.sign_in("ann")
        page = ann.get("/").text
        assert f'id="a-{ask.id}"' in page and "claude-code waits on this call" in page
        assert "Claude Code&#x27;s permission rules" in page or "Claude Code's permission" in page
        # a signed link names the call by the ask's own id, and answers it
        made = links.Link(ask.id, ask.id, "approve", ask.deadline, ask.created, "ask")
        token = links.make(b"k" * 32, made)
        opened = ann.get(f"/link?t={token}")
        assert opened.status_code == 200 and "deploy prod" in opened.text, opened.text
        done = ann.post("/link", data={"csrf": csrf(opened.text), "t": token})
        assert done.status_code == 200, done.text
        assert host.result().json() == {
            "hookSpecificOutput": {"hookEventName": "PermissionRequest",
                                   "decision": {"behavior": "allow"}}
        }  # fmt: skip
        people.close()
        store.close()
    [served] = records(state, "served")
    assert (served["event"], served["permission"], served["data"]["origin"]) == (
        "PermissionRequest",
        "allow",
        "approver",
    )
    assert (served["data"]["live_ask"]["id"], served["data"]["live_ask"]["by"]) == (ask.id, "ann")
    assert served["data"]["live_ask"]["permission"] == "allow"


def test_a_deny_of_claude_codes_prompt_carries_the_message_to_the_model(
    policy: Path, users: Path, tmp_path: Path, pool: ThreadPoolExecutor
) -> None:
    state = tmp_path / "state"
    with serving(policy, state, users) as where:
        people = People(where + INBOX_PATH)
        host = posted(pool, where + CLAUDE_CODE_PATH, permission_request(tmp_path))
        store = open_store(None, state_dir=state)
        [ask] = asked(store)
        done = answer_ask(people.sign_in("ann"), ask.id, "deny", message="use staging first")
        assert done.status_code == 200, done.text
        assert host.result().json() == {
            "hookSpecificOutput": {
                "hookEventName": "PermissionRequest",
                "decision": {"behavior": "deny", "message": "use staging first"},
            }
        }
        people.close()
        store.close()
    [served] = records(state, "served")
    assert (served["event"], served["permission"]) == ("PermissionRequest", "deny")
    assert served["data"]["live_ask"]["id"] == ask.id
    assert served["data"]["live_ask"]["message"] == "use staging first"


def _edited(
    people: People, pool: ThreadPoolExecutor, where: str, store: AskStore, cwd: Path, to: str
) -> dict[str, Any] | None:
    """A PermissionRequest of a deploy, edited by ann into ``to``: what Claude Code is told."""
    host = posted(pool, where + CLAUDE_CODE_PATH, permission_request(cwd))
    [ask] = asked(store)
    done = answer_ask(people.sign_in("ann"), ask.id, "edit", edited=json.dumps({"command": to}))
    assert done.status_code == 200 and "judged again" in done.text, done.text
    return decided(host.result())


def test_an_edit_is_judged_again_by_the_pretooluse_hooks_and_the_rules(
    policy: Path, users: Path, tmp_path: Path, pool: ThreadPoolExecutor
) -> None:
    state = tmp_path / "state"
    with serving(policy, state, users) as where:
        people = People(where + INBOX_PATH)
        store = open_store(None, state_dir=state)
        assert isinstance(store, AskStore)
        ran = _edited(people, pool, where, store, tmp_path, "deploy eu")
        assert ran == {"behavior": "allow", "updatedInput": {"command": "deploy eu"}}
        # a PreToolUse hook refuses it: the permission step alone would have let it run
        frozen = _edited(people, pool, where, store, tmp_path, "deploy staging")
        assert frozen is not None and frozen["behavior"] == "deny"
        assert frozen["message"] == "the input ann (inbox) edited was refused: staging is frozen"
        # a PreToolUse hook rewrites it again: not what ann saw, so refused
        rewritten = _edited(people, pool, where, store, tmp_path, "deploy canary")
        assert rewritten == {
            "behavior": "deny",
            "message": "a PreToolUse hook changed the input ann (inbox) edited; approve what "
            "will run",
        }
        # the rules' dangerous tier refuses it
        wiped = _edited(people, pool, where, store, tmp_path, "rm -rf /")
        assert wiped is not None and wiped["behavior"] == "deny"
        assert "dangerous tier" in wiped["message"]
        people.close()
        store.close()
    served = records(state, "served")
    assert [row["event"] for row in served] == ["PermissionRequest"] * 4
    assert [row["permission"] for row in served] == ["allow", "deny", "deny", "deny"]
    assert served[0]["data"]["live_ask"]["edited"] == {"command": "deploy eu"}
    assert served[1]["data"]["hooks"][0]["event"] == "PreToolUse"  # the hook that refused it


def test_an_unanswered_prompt_gets_the_expiry_deny_in_permissionrequests_words(
    policy: Path, users: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    with serving(policy, state, users, wait=1.0) as where:
        answer = httpx.post(where + CLAUDE_CODE_PATH, json=permission_request(tmp_path), timeout=60)
    said = decided(answer)
    assert said is not None and said["behavior"] == "deny"
    assert re.fullmatch(
        r"hookline asked a person about this call and nobody answered it in the inbox by its "
        r"deadline \(\d\d:\d\d:\d\d UTC\): it is refused",
        said["message"],
    ), said
    [row] = records(state, "live_ask")
    assert (row["event"], row["decision"], row["permission"]) == ("PermissionRequest", "expired",
                                                                  "deny")  # fmt: skip
    [served] = records(state, "served")
    assert (served["permission"], served["data"]["origin"]) == ("deny", "unanswered")
    assert served["data"]["live_ask"]["id"] == row["data"]["ask"]


def test_a_hooks_rewrite_goes_with_a_pretooluse_ask_and_its_approval(
    policy: Path, users: Path, tmp_path: Path, pool: ThreadPoolExecutor
) -> None:
    """The ask shows the input as the hook left it, and the host runs that input."""
    with serving(policy, tmp_path / "state", users) as where:
        people = People(where + INBOX_PATH)
        host = posted(pool, where + CLAUDE_CODE_PATH, deploy(tmp_path, "deploy canary"))
        store = open_store(None, state_dir=tmp_path / "state")
        [ask] = asked(store)
        assert (ask.ask["input"], ask.ask["original_input"]) == (
            {"command": "deploy canary --slow"},
            {"command": "deploy canary"},
        )
        assert answer_ask(people.sign_in("ann"), ask.id, "approve").status_code == 200
        said = host.result().json()["hookSpecificOutput"]
        assert (said["permissionDecision"], said["updatedInput"]) == (
            "allow",
            {"command": "deploy canary --slow"},
        )
        people.close()
        store.close()


def test_on_expiry_ask_an_unanswered_prompt_goes_back_to_claude_codes_dialog(
    policy: Path, users: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    with serving(policy, state, users, wait=1.0, expiry="ask") as where:
        answer = httpx.post(where + CLAUDE_CODE_PATH, json=permission_request(tmp_path), timeout=60)
    assert decided(answer) is None
    [row] = records(state, "live_ask")
    [served] = records(state, "served")
    assert (served.get("permission"), served["data"]["live_ask"]["id"]) == (
        None,
        row["data"]["ask"],
    )
    assert served["data"]["live_ask"]["via"] == "expiry"


def test_a_call_whose_pretooluse_ask_went_to_claude_codes_prompt_is_not_asked_twice(
    policy: Path, users: Path, tmp_path: Path
) -> None:
    """Its PreToolUse ask expired to Claude Code's prompt: the PermissionRequest that follows
    for that call goes straight to the dialog. Another input, or the same call again, asks."""
    state = tmp_path / "state"
    post = CLAUDE_CODE_PATH
    with serving(policy, state, users, wait=1.0, expiry="ask") as where:
        first = httpx.post(where + post, json=deploy(tmp_path), timeout=60)
        assert permission(first)[0] == "ask"
        [expired] = records(state, "live_ask")
        follows = httpx.post(where + post, json=permission_request(tmp_path), timeout=60)
        assert decided(follows) is None
        assert len(records(state, "live_ask")) == 1  # no second ask about it
        other = httpx.post(where + post, json=permission_request(tmp_path, "deploy eu"), timeout=60)
        again = httpx.post(where + post, json=permission_request(tmp_path), timeout=60)
        assert decided(other) is None and decided(again) is None
    asks = records(state, "live_ask")
    assert len(asks) == 3 and asks[0] == expired
    assert [a["event"] for a in asks] == ["PreToolUse", "PermissionRequest", "PermissionRequest"]
    served = records(state, "served")
    assert [row["event"] for row in served] == ["PreToolUse"] + ["PermissionRequest"] * 3
    handed = served[1]["data"]["live_ask"]
    assert (handed["id"], handed["earlier"], handed["via"]) == (
        expired["data"]["ask"],
        "PreToolUse",
        "expiry",
    )
    assert [row["data"]["live_ask"]["id"] for row in served[2:]] == [
        a["data"]["ask"] for a in asks[1:]
    ]


def test_approved_for_the_session_claude_codes_prompt_lets_the_session_run_it_and_no_more(
    policy: Path, users: Path, tmp_path: Path, work: Path, pool: ThreadPoolExecutor
) -> None:
    state = tmp_path / "state"
    with serving(policy, state, users) as where:
        people = People(where + INBOX_PATH)
        store = open_store(None, state_dir=state)
        assert isinstance(store, AskStore)
        ann = people.sign_in("ann")
        push = permission_request(work, "git push origin feature-x")
        host = posted(pool, where + CLAUDE_CODE_PATH, push)
        [ask] = asked(store)
        assert ask.ask["grant"]["rules"] == ["Bash(git push *)"]
        assert "Approve for this session" in ann.get("/").text
        done = answer_ask(ann, ask.id, "approve", for_session="1")
        assert done.status_code == 200 and "its session is allowed" in done.text, done.text
        assert decided(host.result()) == {"behavior": "allow"}
        later = permission_request(work, "git push origin feature-y")
        assert decided(httpx.post(where + CLAUDE_CODE_PATH, json=later, timeout=60)) == {
            "behavior": "allow"
        }
        assert store.waiting_asks() == []  # allowed at once: no ask
        # an ask of a rule offers nothing for the session: refused, as for any ask
        host = posted(pool, where + CLAUDE_CODE_PATH, permission_request(work))
        [ask] = asked(store)
        refused = answer_ask(ann, ask.id, "approve", for_session="1")
        assert refused.status_code == 409 and "offers nothing for the rest" in refused.text
        assert answer_ask(ann, ask.id, "deny", message="no").status_code == 200
        assert decided(host.result()) == {"behavior": "deny", "message": "no"}
        people.close()
        store.close()
    lifted = records(state, "served")[1]
    assert (lifted["permission"], lifted["data"]["origin"]) == ("allow", "rule")
    assert SESSION_SOURCE in lifted["data"]["reason"]
    assert lifted["data"]["session_grant"]["grants"][0]["rules"] == ["Bash(git push *)"]
