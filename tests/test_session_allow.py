""" "Allow for the rest of this session": its scope, as Claude Code scopes "don't ask again",
what it lets run afterwards, and that it lasts the session (a pause and resume, a subagent,
/clear) and is on record. That it never lifts a deny rule, the dangerous tier or the protected
set is shown for real, in a jail: test_session_allow_attacks.py.

Programs a grant allows are stand-ins on PATH (``npm``, ``git``) that log their arguments, so
a test reads what ran from the log, and a sentinel a refused call would have made stays unset.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from hookline import Agent, Decision, PermissionPolicy, ScriptedModel
from hookline._events import Scope
from hookline._hooks.engine import HookEngine
from hookline._hooks.registry import HookRegistry
from hookline._tools.approvals import Approval, ApprovalRequest, Approver, Unavailable
from hookline._tools.base import Toolbox, ToolCall, ToolContext, Workspace
from hookline._tools.builtin import builtin_tools
from hookline._tools.permit import Permit
from hookline._tools.pipeline import ToolPipeline
from hookline.permissions._call import CallContext
from hookline.permissions._rules import PermissionRule
from hookline.permissions._session import SessionGrant, grant_for

# -- the scope ----------------------------------------------------------------------------------

#: Bash line -> the grant offered; each row observed in Claude Code 2.1.332's PermissionRequest
#: payloads (``permission_suggestions``), unless marked: "edits" is its setMode acceptEdits.
# fmt: off
SCOPES = {
    "npm test": "Bash(npm test *)",
    "git commit -m x": "Bash(git commit *)",
    "npm test && npm run build": "Bash(npm test *), Bash(npm run *)",
    "npm run build -- --watch": "Bash(npm run *)",
    "npm test -- --coverage": "Bash(npm test *)",
    "make all": "Bash(make all *)",
    "make": "Bash(make)",
    "cargo build --release": "Bash(cargo build *)",
    "docker compose up -d": "Bash(docker compose *)",
    "kubectl get pods -n x": "Bash(kubectl get *)",
    "git push origin feature-x": "Bash(git push *)",
    "go test ./...": "Bash(go test *)",
    "yarn test": "Bash(yarn test *)",
    # npx runs prettier: an allow rule must name both (Claude Code: npx prettier * alone)
    "npx prettier --write .": "Bash(npx prettier *), Bash(prettier --write .)",
    "node script.js": "Bash(node script.js)",
    "./run.sh --fast": "Bash(./run.sh --fast)",
    "pytest tests/ -x": "Bash(pytest tests/ -x)",
    "curl https://example.com/x": "Bash(curl https://example.com/x)",
    "python3 manage.py migrate": "Bash(python3 manage.py migrate)",
    "git -C sub commit -m y": "Bash(git -C sub commit -m y)",
    "cd sub && make": "Bash(cd sub), Bash(make)",  # Claude Code: make (cd needs no rule there)
    "NODE_ENV=test npm test": "Bash(npm test *)",  # not observed
    "rm -f a.txt": "edits",
    "mkdir build": "edits",
    # Claude Code offers these exactly; hookline offers nothing (this call only):
    "FOO=1 make all": None,  # a variable no allow rule may let through
    "python3 -c 'print(1)'": None,  # inline code: what it runs cannot be known
    "ls > out.txt": None,  # a redirect (Claude Code: add the folder for the session)
    "echo $(date) && touch x": None,  # a substitution
    "ls *.txt | xargs rm": None,  # words only run time knows
    "git push --force origin main": None,  # the dangerous tier asks, in every mode
    "git push": None,  # so does a push whose destination is not a literal branch
    "git push origin main": None,  # or is a protected one
}
# fmt: on


def scope_of(tool: str, tool_input: dict[str, Any], cwd: Path, **policy: Any) -> str | None:
    grant = grant_for(PermissionPolicy(**policy), CallContext(tool, tool_input, str(cwd)))
    if grant is None:
        return None
    return "edits" if grant.mode == "acceptEdits" and not grant.rules else grant.describe()


@pytest.mark.parametrize(("line", "scope"), SCOPES.items(), ids=SCOPES.keys())
def test_a_bash_line_is_scoped_as_claude_code_scopes_it(
    tmp_path: Path, line: str, scope: str | None
) -> None:
    (tmp_path / "sub").mkdir()
    assert scope_of("Bash", {"command": line}, tmp_path) == scope


def test_other_tools_are_scoped_by_edits_domain_and_name(tmp_path: Path) -> None:
    write = {"file_path": str(tmp_path / "new.txt"), "content": "x"}
    assert scope_of("Write", write, tmp_path) == "edits"
    assert scope_of("Edit", {**write, "file_path": "a.txt"}, tmp_path) == "edits"
    fetch = {"url": "https://example.com/a?b=1", "prompt": "x"}
    assert scope_of("WebFetch", fetch, tmp_path) == "WebFetch(domain:example.com)"
    assert scope_of("mcp__orders__refund", {"id": 1}, tmp_path) == "mcp__orders__refund"
    # a write into the protected set asks in every mode: no grant can settle it
    assert scope_of("Write", {**write, "file_path": ".git/config"}, tmp_path) is None
    # in acceptEdits mode, what still asks is what the mode does not run
    assert scope_of("Bash", {"command": "npm test"}, tmp_path, mode="acceptEdits") == (
        "Bash(npm test *)"
    )


def test_a_grant_round_trips_through_its_json(tmp_path: Path) -> None:
    grant = SessionGrant((PermissionRule.parse("Bash(npm test *)"),))
    assert SessionGrant.from_dict(json.loads(json.dumps(grant.to_dict()))) == grant
    edits = SessionGrant(mode="acceptEdits")
    assert SessionGrant.from_dict(edits.to_dict()) == edits


# -- in a run ------------------------------------------------------------------------------------

#: A stand-in program: appends its name and arguments to $TOOL_LOG, one line per run.
STAND_IN = '#!/bin/sh\nprintf "%s %s\\n" "$(basename "$0")" "$*" >> "$TOOL_LOG"\n'


class Answers(Approver):
    """Answers in turn from a list; keeps every request it was asked."""

    def __init__(self, *answers: Approval | Unavailable) -> None:
        self.answers = list(answers)
        self.requests: list[ApprovalRequest] = []

    async def approve(self, request: ApprovalRequest) -> Approval | Unavailable:
        self.requests.append(request)
        if not self.answers:
            return Unavailable("the test has no more answers")
        return self.answers.pop(0)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A workspace whose PATH starts with logging stand-ins for npm and git."""
    bin_dir, ws = tmp_path / "bin", tmp_path / "ws"
    bin_dir.mkdir(), ws.mkdir()
    for name in ("npm", "git"):
        (bin_dir / name).write_text(STAND_IN)
        (bin_dir / name).chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("TOOL_LOG", str(tmp_path / "ran.log"))
    return ws


def ran(project: Path) -> list[str]:
    log = project.parent / "ran.log"
    return log.read_text().splitlines() if log.exists() else []


def bash(*commands: str) -> list[dict[str, Any]]:
    turns: list[dict[str, Any]] = [
        {"tool_calls": [{"id": f"t{n}", "name": "Bash", "input": {"command": c}}]}
        for n, c in enumerate(commands, start=1)
    ]
    return [*turns, {"text": "done"}]


SESSION = Approval.allow(approver="ann", scope="session")


def agent(project: Path, approver: Approver, turns: list[dict[str, Any]], **options: Any) -> Agent:
    return Agent(ScriptedModel(turns), cwd=project, permissions=PermissionPolicy(),
                 approver=approver, **options)  # fmt: skip


def test_allowed_for_the_session_the_same_kind_of_call_runs_without_asking(
    project: Path,
) -> None:
    approver = Answers(SESSION)
    run = agent(project, approver, bash("npm test", "npm test -- --watch", "npm run build"))
    result = run.run_sync("test it")

    statuses = [call.status for call in result.tool_calls]
    assert statuses == ["executed", "executed", "blocked"]  # npm run is not npm test
    assert ran(project) == ["npm test", "npm test -- --watch"]
    first, third = approver.requests  # asked for the first and the third only
    assert first.session_grant is not None and first.session_grant.describe() == (
        "Bash(npm test *)"
    )
    assert third.tool_input == {"command": "npm run build"}
    second = result.tool_calls[1]
    assert (second.permission, second.origin) == ("allow", "rule")


def test_allowed_once_the_next_call_asks_again(project: Path) -> None:
    approver = Answers(Approval.allow(approver="ann"), Approval.deny("enough", approver="ann"))
    result = agent(project, approver, bash("npm test", "npm test")).run_sync("test it")
    assert [c.status for c in result.tool_calls] == ["executed", "blocked"]
    assert len(approver.requests) == 2 and ran(project) == ["npm test"]


def test_allowing_file_edits_for_the_session_switches_to_accept_edits(project: Path) -> None:
    approver = Answers(SESSION)
    turns = [
        {"tool_calls": [{"name": "Write", "input": {"file_path": "a.txt", "content": "1"}}]},
        {"tool_calls": [{"name": "Write", "input": {"file_path": "b.txt", "content": "2"}}]},
        {"tool_calls": [{"name": "Bash", "input": {"command": "mkdir out"}}]},
        {"text": "done"},
    ]
    run = agent(project, approver, turns)
    seen: list[str] = []
    run.registry.add("PreToolUse", lambda e: seen.append(e.permission_mode), kind="observer")
    result = run.run_sync("write them")

    assert [c.status for c in result.tool_calls] == ["executed"] * 3
    assert len(approver.requests) == 1
    assert (project / "b.txt").read_text() == "2" and (project / "out").is_dir()
    assert seen == ["default", "acceptEdits", "acceptEdits"]  # hooks are told the mode


def test_a_session_answer_where_no_scope_was_offered_allows_that_call_only(
    project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """``FOO=1 npm test`` has no scope to offer: a session answer runs it once, says so in the
    log, and the next call asks again."""
    approver = Answers(SESSION, Approval.deny("no", approver="ann"))
    result = agent(project, approver, bash("FOO=1 npm test", "FOO=1 npm test")).run_sync("t")
    assert [c.status for c in result.tool_calls] == ["executed", "blocked"]
    assert approver.requests[0].session_grant is None
    assert "allowed for this call only: no session scope was offered" in caplog.text


def test_a_session_answer_with_an_edit_allows_the_edit_once(project: Path) -> None:
    edited = Approval("allow", None, {"command": "npm test -- --ci"}, "ann", scope="session")
    approver = Answers(edited, Approval.deny("no", approver="ann"))
    result = agent(project, approver, bash("npm test", "npm test")).run_sync("t")
    assert ran(project) == ["npm test -- --ci"]
    assert [c.status for c in result.tool_calls] == ["executed", "blocked"]


def test_the_grant_is_on_record_and_so_is_what_it_lets_run(project: Path) -> None:
    approver = Answers(SESSION)
    run = agent(project, approver, bash("npm test", "npm test -- --ci"), audit=True, user="bob")
    run.run_sync("test it")
    log = (project / ".hookline/state/audit.jsonl").read_text()
    rows = [json.loads(line) for line in log.splitlines()]
    (approval,) = [r for r in rows if r["kind"] == "approval"]
    assert (approval["data"]["scope"], approval["data"]["answered_by"]) == ("session", "ann")
    assert approval["data"]["session_grant"]["rules"] == ["Bash(npm test *)"]
    second = [r for r in rows if r["kind"] == "tool_started" and r["tool_use_id"] == "t2"]
    (started,) = second
    assert "allowed for this session" in json.dumps(started["data"])
    assert "this session's approval" in json.dumps(started["data"])


def test_a_paused_session_keeps_its_grants_when_it_resumes(project: Path) -> None:
    """A grant made before a pause holds after the resume, in another agent: the resumed
    call matching it runs without asking anyone."""
    turns = bash("npm test", "git push origin main", "npm test -- --ci")
    first = agent(project, Answers(SESSION), turns, defer_asks=True)
    first.registry.add(
        "PreToolUse",
        lambda e: Decision.defer("a person pushes") if "push" in str(e.tool_input) else None,
    )
    paused = first.run_sync("test and push")
    assert paused.stop_reason == "tool_deferred"

    nobody = Answers()
    second = agent(project, nobody, turns)

    async def resume() -> Any:
        async with second:
            return await second.resume(paused.session_id, Approval.allow(approver="cli"))

    done = asyncio.run(resume())

    assert done.stop_reason == "end_turn", done.stop_detail
    assert ran(project) == ["npm test", "git push origin main", "npm test -- --ci"]
    assert nobody.requests == []  # the grant answered the third call
    assert [g.describe() for g in second.session.grants] == ["Bash(npm test *)"]


def test_clear_keeps_the_grants_as_claude_code_does(project: Path) -> None:
    approver = Answers(SESSION)
    run = agent(project, approver, bash("npm test") + bash("npm test -- --ci"))

    async def both() -> list[str]:
        async with run:
            one = await run.run("test")
            await run.clear()
            two = await run.run("test again")
        return [c.status for c in (*one.tool_calls, *two.tool_calls)]

    assert asyncio.run(both()) == ["executed", "executed"]
    assert len(approver.requests) == 1
    assert [g.describe() for g in run.session.grants] == ["Bash(npm test *)"]


def test_a_grant_holds_in_subagents_and_theirs_holds_in_the_session(project: Path) -> None:
    """The session's grants are one set: the parent's apply inside a subagent, and what a
    person allows for the session from a subagent's call applies back in the parent."""

    def call(command: str) -> dict[str, Any]:
        return {"tool_calls": [{"name": "Bash", "input": {"command": command}}]}

    delegate = {
        "description": "Sub task",
        "prompt": "run the tests",
        "subagent_type": "general-purpose",
    }
    turns = [
        call("npm test"),  # the parent; allowed for the session
        {"tool_calls": [{"name": "Agent", "input": delegate}]},
        call("npm test -- --ci"),  # the subagent: the parent's grant
        call("git push origin feature"),  # the subagent; allowed for the session
        {"text": "sub done"},
        call("git push origin other"),  # the parent: the subagent's grant
        {"text": "done"},
    ]
    approver = Answers(SESSION, SESSION)
    result = agent(project, approver, turns).run_sync("test and push")
    assert result.stop_reason == "end_turn"
    assert ran(project) == [
        "npm test", "npm test -- --ci", "git push origin feature", "git push origin other"
    ]  # fmt: skip
    asked = [r.tool_input["command"] for r in approver.requests]
    assert asked == ["npm test", "git push origin feature"]


def test_sessions_show_says_what_the_session_was_allowed(project: Path) -> None:
    """``hookline sessions show`` (its resume plan) lists a paused session's grants, and the
    mode they set."""
    from hookline._cli.resume_plan import resume_plan
    from hookline.storage import open_store

    turns = [
        {"tool_calls": [{"name": "Write", "input": {"file_path": "a.txt", "content": "1"}}]},
        *bash("npm test"),
    ]
    first = agent(project, Answers(SESSION), turns, defer_asks=True)
    first.registry.add(
        "PreToolUse", lambda e: Decision.defer("later") if "npm" in str(e.tool_input) else None
    )
    paused = first.run_sync("write, then test")
    assert paused.stop_reason == "tool_deferred"

    store = open_store(None, state_dir=project / ".hookline" / "state")
    record = store.get_session(paused.session_id)
    assert record is not None
    plan = resume_plan(record)["resume"]
    store.close()
    assert plan["allowed_for_the_session"] == ["file edits in the workspace (acceptEdits mode)"]
    assert plan["permission_mode"] == "acceptEdits"


@pytest.mark.parametrize("grants", [True, False])
def test_a_permit_offers_a_grant_with_an_ask_only_where_one_can_be_taken_up(
    project: Path, grants: bool
) -> None:
    """A served call's permit (``grants=False``: the host's prompt offers its own) asks the
    same, with no grant; nothing runs either way."""
    asker = Answers()
    engine = HookEngine(HookRegistry())
    permit = Permit(engine, policy=PermissionPolicy(), approver=asker, grants=grants)
    tool = next(tool for tool in builtin_tools() if tool.name == "Bash")
    ctx = ToolContext(cwd=project, workspace=Workspace.of(str(project)), session_id="s")
    call = ToolCall("t1", "Bash", {"command": "npm test"})
    pipeline = ToolPipeline(Toolbox([tool]), engine, permit)
    checked = asyncio.run(pipeline.check(call, Scope("s", "", str(project)), ctx))
    assert checked.settled is not None and checked.settled.status == "blocked"
    (request,) = asker.requests
    assert request.source == "tier:mutating"
    assert (request.session_grant is not None) is grants
    assert ran(project) == []
