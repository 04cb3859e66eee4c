"""Defer and resume: a paused session is saved whole, resumed in another process exactly once,
and a call that finished before the pause never runs again."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from cli_runner import src_env
from hookline import Agent, ConfigError, Decision, ScriptedModel, tool
from hookline._agent.saved.hidden import revealed
from hookline._agent.saved.state import STATE_VERSION
from hookline._tools.approvals import Approval
from hookline.permissions import PermissionPolicy
from hookline.storage import SessionRecord, open_store

#: The agent every process of these tests builds: two tools that leave a trace in files.
AGENT_MODULE = '''
from pathlib import Path
from hookline import Agent, Decision, ScriptedModel, tool

SCRIPT = [
    {"tool_calls": [{"id": "t_pay", "name": "pay", "input": {"amount": 30}},
                    {"id": "t_note", "name": "note", "input": {"text": "paid"}}]},
    {"text": "all settled"},
]

def build(cwd, limit=20, **options):
    root = Path(cwd)

    @tool
    def pay(amount: int) -> str:
        """Pay an amount."""
        with open(root / "payments.log", "a") as log:
            log.write(f"{amount}\\n")
        return f"paid {amount}"

    @tool
    def note(text: str) -> str:
        """Write a note."""
        with open(root / "notes.log", "a") as log:
            log.write(text + "\\n")
        return "noted"

    agent = Agent(ScriptedModel(SCRIPT), tools=[pay, note], cwd=cwd, **options)
    agent.registry.add(
        "PreToolUse",
        lambda e: Decision.defer("payments over 20 wait for finance")
        if e.tool_input.get("amount", 0) > limit else None,
        matcher="pay", name="finance-gate",
    )
    return agent
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "agent_module.py").write_text(AGENT_MODULE)
    sys.path.insert(0, str(tmp_path))
    yield tmp_path
    sys.path.remove(str(tmp_path))
    sys.modules.pop("agent_module", None)


def build(project: Path, **options: object) -> Agent:
    import agent_module  # the same code the other processes run

    return agent_module.build(str(project), **options)  # type: ignore[no-any-return]


def lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def pause(project: Path) -> str:
    agent = build(project)
    result = agent.run_sync("settle the invoice")
    assert result.stop_reason == "tool_deferred"
    assert result.stop_detail == "payments over 20 wait for finance"
    return result.session_id


def resume_in_another_process(
    project: Path, session_id: str, answer: str, store: str | None = None
) -> subprocess.Popen:
    code = textwrap.dedent(f"""
        import asyncio, json, sys
        sys.path.insert(0, {str(project)!r})
        from agent_module import build
        from hookline._tools.approvals import Approval
        from hookline._errors import ConfigError
        answer = {answer}
        agent = build({str(project)!r}, store={store!r})
        async def go():
            async with agent:
                return await agent.resume({session_id!r}, answer)
        try:
            result = asyncio.run(go())
        except ConfigError as exc:
            print(json.dumps({{"error": str(exc)}}))
            sys.exit(3)
        print(json.dumps(result.to_dict()))
    """)
    env = src_env(keep_pythonpath=False)
    return subprocess.Popen([sys.executable, "-c", code], cwd=project, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip


def test_a_deferred_call_pauses_the_run_and_saves_the_whole_session(project: Path) -> None:
    session_id = pause(project)
    assert lines(project / "payments.log") == []  # the deferred payment did not run
    assert lines(project / "notes.log") == ["paid"]  # its batch mate did
    record = open_store(None, state_dir=project / ".hookline" / "state").get_session(session_id)
    assert record is not None and record.status == "deferred"
    assert record.version == STATE_VERSION
    batch = revealed(record.state)["turn"]["batch"]
    assert [(b["call"]["id"], b["result"] is None) for b in batch] == [
        ("t_pay", True),
        ("t_note", False),
    ]


def test_resume_in_another_process_runs_the_waiting_call_once_and_not_the_finished_one(
    project: Path,
) -> None:
    session_id = pause(project)
    done = resume_in_another_process(project, session_id, "Approval.allow(approver='cli')")
    out, err = done.communicate(timeout=60)
    assert done.returncode == 0, err
    result = json.loads(out)
    assert (result["stop_reason"], result["final_text"]) == ("end_turn", "all settled")
    assert lines(project / "payments.log") == ["30"]
    assert lines(project / "notes.log") == ["paid"]  # it finished before the pause: not again
    pay = next(c for c in result["tool_calls"] if c["name"] == "pay")
    assert (pay["status"], pay["approver"]) == ("executed", "cli")
    record = open_store(None, state_dir=project / ".hookline" / "state").get_session(session_id)
    assert record is not None and record.status == "done"


def test_pre_tool_use_fires_again_on_resume_and_a_deny_still_wins(project: Path) -> None:
    session_id = pause(project)
    agent = build(project)
    seen: list[str] = []
    agent.registry.add("PreToolUse", lambda e: seen.append(e.tool_use_id))
    agent.registry.add("PreToolUse", lambda e: Decision.deny("the books are closed today"))
    result = asyncio.run(_resume(agent, session_id, Approval.allow(approver="cli")))
    assert seen == ["t_pay"]
    pay = result.tool_calls[0]
    assert (pay.status, pay.reason) == ("blocked", "the books are closed today")
    assert lines(project / "payments.log") == []


def test_a_deny_answer_refuses_the_call_and_the_model_reads_why(project: Path) -> None:
    session_id = pause(project)
    agent = build(project)
    result = asyncio.run(_resume(agent, session_id, Approval.deny("over budget, ask Ann")))
    assert lines(project / "payments.log") == []
    assert result.tool_calls[0].content == "over budget, ask Ann"
    assert result.final_text == "all settled"


def test_a_deny_answer_holds_even_when_nothing_asks_any_more(project: Path) -> None:
    session_id = pause(project)
    agent = build(project, limit=1000)  # on resume the gate no longer defers a payment of 30
    result = asyncio.run(_resume(agent, session_id, Approval.deny("no, not this month")))
    assert lines(project / "payments.log") == []
    assert (result.tool_calls[0].status, result.tool_calls[0].content) == (
        "blocked",
        "no, not this month",
    )


def test_an_edited_input_runs_instead_and_a_bad_edit_claims_nothing(project: Path) -> None:
    session_id = pause(project)
    with pytest.raises(ConfigError, match="edited input does not fit pay"):
        asyncio.run(_resume(build(project), session_id, Approval.edit({"amount": "lots"})))
    store = open_store(None, state_dir=project / ".hookline" / "state")
    assert store.get_session(session_id).status == "deferred"  # type: ignore[union-attr]
    asyncio.run(_resume(build(project), session_id, Approval.edit({"amount": 18})))
    assert lines(project / "payments.log") == ["18"]


def test_two_processes_resuming_at_once_resume_it_exactly_once(project: Path) -> None:
    session_id = pause(project)
    racers = [
        resume_in_another_process(project, session_id, "Approval.allow(approver='cli')")
        for _ in range(4)
    ]
    outcomes = [(p.communicate(timeout=60)[0], p.returncode) for p in racers]
    outcomes = [(code, out) for out, code in outcomes]
    assert sorted(code for code, _ in outcomes) == [0, 3, 3, 3], outcomes
    assert lines(project / "payments.log") == ["30"]
    losers = [json.loads(out)["error"] for code, out in outcomes if code == 3]
    said = ("another process", "being resumed", "still running", "finished")  # the winner's
    assert all(any(words in e for words in said) for e in losers), losers  # claim, as they saw it


def test_unknown_ids_finished_sessions_and_foreign_versions_are_refused(project: Path) -> None:
    session_id = pause(project)
    with pytest.raises(ConfigError, match="no session 'nope'"):
        asyncio.run(_resume(build(project), "nope", None))
    asyncio.run(_resume(build(project), session_id, Approval.allow()))
    with pytest.raises(ConfigError, match="has finished"):
        asyncio.run(_resume(build(project), session_id, Approval.allow()))
    store = open_store(None, state_dir=project / ".hookline" / "state")
    state = {**store.get_session(session_id).state, "version": 99}  # type: ignore[union-attr]
    store.put_session(SessionRecord(id="future", status="deferred", version=99, state=state))
    with pytest.raises(ConfigError, match="schema version 99"):
        asyncio.run(_resume(build(project), "future", Approval.allow()))
    store.put_session(SessionRecord(id="broken", status="deferred", version=1,
                                    state={"version": 1, "turn": {}}))  # fmt: skip
    with pytest.raises(ConfigError, match="damaged"):
        asyncio.run(_resume(build(project), "broken", Approval.allow()))


def test_defer_asks_pauses_an_unanswerable_ask_instead_of_refusing_it(tmp_path: Path) -> None:
    ran: list[str] = []

    @tool
    def deploy(target: str) -> str:
        """Deploy somewhere."""
        ran.append(target)
        return "deployed"

    script = [{"tool_calls": [{"id": "t_d", "name": "deploy", "input": {"target": "prod"}}]},
              {"text": "shipped"}]  # fmt: skip

    def agent(defer: bool) -> Agent:
        return Agent(ScriptedModel(script), tools=[deploy], cwd=tmp_path,
                     permissions=PermissionPolicy(), defer_asks=defer)  # fmt: skip

    refused = agent(False).run_sync("ship it")
    assert refused.tool_calls[0].status == "blocked" and ran == []
    paused = agent(True).run_sync("ship it")
    assert (paused.stop_reason, ran) == ("tool_deferred", [])
    resumed = asyncio.run(_resume(agent(True), paused.session_id, Approval.allow()))
    assert (resumed.final_text, ran) == ("shipped", ["prod"])


def test_a_crashed_checkpointed_session_resumes_from_its_last_step(project: Path) -> None:
    code = textwrap.dedent(f"""
        import sys, os, signal
        sys.path.insert(0, {str(project)!r})
        from agent_module import build
        from hookline import Decision
        agent = build({str(project)!r}, limit=100, checkpoint=True)
        agent.registry.add("PostToolUse",
                           lambda e: os.kill(os.getpid(), signal.SIGKILL), matcher="note")
        agent.run_sync("settle the invoice")
    """)
    crashed = subprocess.run([sys.executable, "-c", code], cwd=project, capture_output=True,
                             env=src_env(keep_pythonpath=False), timeout=60)  # fmt: skip
    assert crashed.returncode == -9
    store = open_store(None, state_dir=project / ".hookline" / "state")
    (record,) = store.list_sessions()
    assert record.status == "running"
    assert lines(project / "payments.log") == ["30"]  # the allowed payment ran before the crash
    result = asyncio.run(_resume(build(project, limit=100), record.id, None))
    assert result.final_text == "all settled"
    assert lines(project / "payments.log") == ["30"]  # saved as done before the crash: not again
    assert lines(project / "notes.log") == ["paid"]  # in flight at the crash: not run again
    assert [(r.call.id, r.status) for r in result.tool_calls] == [
        ("t_pay", "executed"), ("t_note", "interrupted"),
    ]  # fmt: skip


async def _resume(agent: Agent, session_id: str, answer: Approval | None):  # type: ignore[no-untyped-def]
    async with agent:
        return await agent.resume(session_id, answer)


def test_workers_sharing_a_postgresql_store_resume_a_session_once(project: Path) -> None:
    url = os.environ.get("HOOKLINE_TEST_POSTGRES_URL")
    if not url:
        if os.environ.get("CI") == "true":
            pytest.fail("HOOKLINE_TEST_POSTGRES_URL is unset under CI")
        pytest.skip("HOOKLINE_TEST_POSTGRES_URL is unset (see .ci/postgres.sh)")
    paused = build(project, store=url).run_sync("settle the invoice")
    assert paused.stop_reason == "tool_deferred"
    racers = [
        resume_in_another_process(project, paused.session_id, "Approval.allow()", store=url)
        for _ in range(3)
    ]
    codes = sorted(p.communicate(timeout=60) and p.returncode for p in racers)
    assert codes == [0, 3, 3]
    assert lines(project / "payments.log") == ["30"]
