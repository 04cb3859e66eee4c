"""``hookline serve --asks inbox --inbox``: a live ask shows its host session's recent steps,
the last hook events the server judged of that session, and only that session's: another
token (of the same tenant or of another) naming the same session id adds none.

A real server on 127.0.0.1 (uvicorn in a thread) behind its real token gate (tokens made as
``hookline serve token add`` makes them); the hosts are httpx POSTs shaped as Claude Code's
hooks, each with its agent's token; the approver a signed-in browser. A test answers only once
the ask is in the store (``asked``).
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from html import unescape
from pathlib import Path
from typing import Any

import httpx

from asks_server import (
    answer_ask,
    asked,
    deploy,
    gated,
    permission,
    policy,
    pool,
    posted,
    serving,
    users,
)
from hookline._cli.serve_asks import INBOX_PATH
from hookline._inbox.live import live_asks
from hookline._serve.app import CLAUDE_CODE_PATH
from hookline.storage import AskStore, open_store
from inbox_server import People

__all__ = ["policy", "pool", "users"]  # the fixtures, for the tests that ask for them

SESSION = "5e55a0c1-0000-4000-8000-000000000001"
#: A step whose input is markup, a bidi override and a terminal escape.
HOSTILE = "echo '<script>alert(1)</script>' \u202egnp.exe \x1b[2J"


def call(cwd: Path, command: str, n: int, *, event: str = "PreToolUse", session: str = SESSION
         ) -> dict[str, Any]:  # fmt: skip
    said = {**deploy(cwd, command), "session_id": session, "tool_use_id": f"toolu_{n}"}
    if event == "PostToolUse":
        said |= {"hook_event_name": event, "tool_response": {"stdout": "ok"}}
    return said


def hook(where: str, body: dict[str, Any], headers: dict[str, str]) -> str:
    """One hook call answered at once: the host's decision (or the hook's empty answer)."""
    answer = httpx.post(where + CLAUDE_CODE_PATH, json=body, headers=headers, timeout=60)
    assert answer.status_code == 200, answer.text
    return str(answer.json().get("hookSpecificOutput", {}).get("permissionDecision", ""))


def steps_on(page: str, ask: str) -> list[str]:
    """The steps the inbox page shows for live ask ``ask``, as a reader sees them."""
    section = page.split(f'id="a-{ask}"', 1)[1].split("</section>", 1)[0]
    steps = section.split('<details class="steps">', 1)[1].split("</details>", 1)[0]
    return [unescape(item) for item in re.findall(r"<li>(.*?)</li>", steps)]


def test_a_live_ask_shows_its_own_host_sessions_last_steps_in_order_and_escaped(
    policy: Path, users: Path, tmp_path: Path, pool: ThreadPoolExecutor
) -> None:
    state = tmp_path / "state"
    gate, token = gated(state, ci="acme", dev="acme", gx="globex")
    with serving(policy, state, users, gate=gate) as where:
        people = People(where + INBOX_PATH)
        store = open_store(None, state_dir=state)
        assert isinstance(store, AskStore)
        ci = token["ci"]
        assert hook(where, call(tmp_path, "ls -la", 1), ci) == "allow"
        assert hook(where, call(tmp_path, "ls -la", 1, event="PostToolUse"), ci) == ""
        for n in range(3, 6):
            assert hook(where, call(tmp_path, f"echo step-{n}", n), ci) == "allow"
        # the same session id from another token of the tenant, and from another tenant
        assert hook(where, call(tmp_path, "echo from-dev", 90), token["dev"]) == "allow"
        assert hook(where, call(tmp_path, "echo from-globex", 91), token["gx"]) == "allow"
        # another session of the same token
        other = call(tmp_path, "echo other-session", 92, session="another")
        assert hook(where, other, ci) == "allow"
        assert hook(where, call(tmp_path, HOSTILE, 6), ci) == "allow"
        assert hook(where, call(tmp_path, "echo step-7", 7, event="PostToolUse"), ci) == ""
        assert hook(where, call(tmp_path, "echo step-8", 8), ci) == "allow"

        host = posted(pool, where + CLAUDE_CODE_PATH, call(tmp_path, "deploy prod", 9), ci)
        [ask] = asked(store)
        steps = [
            'PreToolUse Bash {"command":"echo step-3"} → allow (tier)',
            'PreToolUse Bash {"command":"echo step-4"} → allow (tier)',
            'PreToolUse Bash {"command":"echo step-5"} → allow (tier)',
            'PreToolUse Bash {"command":"echo \'<script>alert(1)</script>\' \\u202egnp.exe '
            '\\u001b[2J"} → allow (tier)',
            'PostToolUse Bash {"command":"echo step-7"}',
            'PreToolUse Bash {"command":"echo step-8"} → allow (tier)',
        ]  # the last six of its session, oldest first: the two before are left out
        assert ask.ask["steps"] == steps
        [shown] = live_asks(store)
        assert shown.steps == tuple(steps)
        ann = people.sign_in("ann")
        page = ann.get("/").text
        assert steps_on(page, ask.id) == steps
        assert "<script>alert" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
        assert "\u202e" not in page and "\x1b" not in page and "\\u202egnp.exe" in page
        assert "from-dev" not in page and "from-globex" not in page and "other-session" not in page
        assert answer_ask(ann, ask.id, "deny", message="not now").status_code == 200
        assert permission(host.result())[0] == "deny"

        # the other token's ask in the same session id: its own step, none of ci's
        host = posted(pool, where + CLAUDE_CODE_PATH, call(tmp_path, "deploy x", 93), token["dev"])
        [ask] = asked(store)
        assert ask.ask["agent"] == "dev"
        assert ask.ask["steps"] == ['PreToolUse Bash {"command":"echo from-dev"} → allow (tier)']
        assert answer_ask(ann, ask.id, "deny", message="no").status_code == 200
        assert permission(host.result())[0] == "deny"
        people.close()
        store.close()


def test_a_session_with_no_step_before_its_ask_shows_none(
    policy: Path, users: Path, tmp_path: Path, pool: ThreadPoolExecutor
) -> None:
    state = tmp_path / "state"
    with serving(policy, state, users) as where:
        store = open_store(None, state_dir=state)
        assert isinstance(store, AskStore)
        host = posted(pool, where + CLAUDE_CODE_PATH, call(tmp_path, "deploy prod", 1))
        [ask] = asked(store)
        assert "steps" not in ask.ask and "steps_failure" not in ask.ask
        assert store.answer_ask(ask.id, {"permission": "allow", "by": "ann", "via": "inbox"})
        assert permission(host.result())[0] == "allow"
        # the next ask of the session: the call just answered is its step, with its answer
        host = posted(pool, where + CLAUDE_CODE_PATH, call(tmp_path, "deploy again", 2))
        [again] = asked(store)
        assert again.ask["steps"] == [
            'PreToolUse Bash {"command":"deploy prod"} → allow (approver)'
        ]
        assert store.answer_ask(again.id, {"permission": "deny", "by": "ann", "via": "inbox"})
        assert permission(host.result())[0] == "deny"
        store.close()
