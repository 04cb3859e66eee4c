"""Observers: what they are told and in which order, how one stops, and what one that raises
may and may not break."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

import hookline
from hookline import Agent, Approval, ApprovalRequest, Decision, Message, ScriptedModel, ToolCall
from hookline._agent.messages import Usage
from hookline._agent.observers import Observer
from hookline._errors import ConfigError
from hookline._tools.approvals import Approver, Unavailable
from hookline._tools.pipeline import ToolStarted
from hookline.audit import AuditError, AuditLog, unfolded
from hookline.storage import SqliteStore


class Log(Observer):
    """Writes down, in order, one short line per thing it is told."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def event(self, session: Any, event: Any) -> None:
        self.seen.append(f"event {event.name}")

    def hook_run(self, session: Any, run: Any) -> None:
        self.seen.append(f"hook {run.hook} {run.decision}")

    def tool_started(self, session: Any, started: Any) -> None:
        self.seen.append(f"started {started.call.id}")

    def tool_finished(self, session: Any, result: Any) -> None:
        self.seen.append(f"finished {result.call.id} {result.status}")

    def approval_asked(self, session: Any, request: Any) -> None:
        self.seen.append(f"asked {request.tool_use_id}")

    def approval_answered(self, session: Any, request: Any, answer: Any) -> None:
        self.seen.append(f"answered {request.tool_use_id} {answer.permission} {answer.approver}")

    def model_called(self, session: Any, reply: Any, model: str) -> None:
        self.seen.append(f"model {model}")

    def message(self, session: Any, message: Any) -> None:
        self.seen.append(f"message {message.role}")

    def paused(self, session: Any, turn: Any) -> None:
        self.seen.append(f"paused {[call.id for call in turn.waiting]}")

    def run_ended(self, session: Any, turn: Any, result: Any) -> None:
        self.seen.append(f"ended {result.stop_reason}")

    def closed(self, session: Any) -> None:
        self.seen.append("closed")


def call(id: str, name: str = "echo", **tool_input: Any) -> dict[str, Any]:
    return {"tool_calls": [{"id": id, "name": name, "input": tool_input or {"text": id}}]}


def test_an_observer_is_told_of_everything_in_the_order_it_happens(tmp_path, spy):
    echo = spy("echo")
    agent = Agent(ScriptedModel([call("t1"), {"text": "done"}]), tools=[echo.tool], cwd=tmp_path)
    agent.registry.add("PreToolUse", lambda e: Decision.allow("fine"), name="gate")
    log = Log()
    agent.observe(log)
    agent.run_sync("go")
    assert log.seen == [
        "event SessionStart", "event UserPromptSubmit", "message user", "event TurnStart",
        "model scripted", "message assistant",
        "event PreToolUse", "hook gate allow", "started t1", "event PostToolUse",
        "finished t1 executed", "event PostToolBatch", "message user",
        "model scripted", "message assistant", "event Stop", "event TurnEnd",
        "ended end_turn", "event SessionEnd", "closed",
    ]  # fmt: skip
    assert echo.inputs == [{"text": "t1"}]


class Prompts(Log):
    """Wants the prompt's event even when no hook listens to it, and no other."""

    events = frozenset({"UserPromptSubmit"})


def test_an_event_no_hook_listens_to_is_told_only_to_observers_that_want_it(tmp_path, spy):
    """An observer that names the events it wants (the audit names none: it needs an event
    only when its hooks run) keeps the others from being built; one that names none hears
    every event; an event with hooks is told to every observer."""
    script = [call("t1"), {"text": "done"}]
    agent = Agent(ScriptedModel(script), tools=[spy().tool], cwd=tmp_path, audit=True)
    agent.registry.add("PreToolUse", lambda e: Decision.allow("fine"), name="gate")
    prompts = Prompts()
    agent.observe(prompts)
    assert not agent.engine.listens("PostToolBatch") and agent.engine.listens("UserPromptSubmit")
    agent.run_sync("go")
    events = [line for line in prompts.seen if line.startswith("event")]
    # Stop and SessionEnd are dispatched whoever listens (once a run)
    assert events == [
        f"event {name}" for name in ("UserPromptSubmit", "PreToolUse", "Stop", "SessionEnd")
    ]
    lines = (tmp_path / ".hookline" / "state" / "audit.jsonl").read_text().splitlines()
    records = {record["kind"]: record for record in map(json.loads, lines)}
    assert [run["hook"] for run in records["tool_started"]["data"]["hooks"]] == ["gate"]
    assert records["tool"]["data"]["status"] == "executed"
    with agent.observe(Log()):  # every event again
        assert agent.engine.listens("PostToolBatch") and agent.engine.listens("TurnStart")
    assert not agent.engine.listens("PostToolBatch")


def test_the_undo_handle_stops_an_observer_and_a_second_run_tells_it_nothing(tmp_path, spy):
    script = [call("t1"), {"text": "one"}, call("t2"), {"text": "two"}]
    agent = Agent(ScriptedModel(script), tools=[spy().tool], cwd=tmp_path)
    log, kept = Log(), Log()
    handle = agent.observe(log)
    agent.observe(kept)
    agent.run_sync("first")
    seen = list(log.seen)
    handle.remove()
    handle.remove()  # a second remove does nothing
    agent.run_sync("second")
    assert log.seen == seen and "finished t1 executed" in seen
    assert "finished t2 executed" in kept.seen  # the other one still hears of the second run
    with agent.observe(Log()) as scoped:  # or for a block
        pass
    assert scoped is not None


def test_an_observer_that_raises_is_logged_and_changes_nothing(tmp_path, spy, caplog):
    class Broken(Observer):
        def tool_started(self, session: Any, started: Any) -> None:
            raise RuntimeError("observer bug")

        def tool_finished(self, session: Any, result: Any) -> None:
            raise RuntimeError("observer bug")

    def run(*observers: Observer) -> tuple[Any, list[dict[str, Any]]]:
        echo = spy("echo")
        script = [call("t1"), {"text": "done"}]
        agent = Agent(ScriptedModel(script), tools=[echo.tool], cwd=tmp_path, observers=observers)
        return agent.run_sync("go"), echo.inputs

    plain, ran_plain = run()
    after = Log()
    with caplog.at_level(logging.ERROR, logger="hookline._agent.observers"):
        broken, ran_broken = run(Broken(), after)
    assert ran_plain == ran_broken == [{"text": "t1"}]  # the body ran once, as without it
    assert [r.to_dict() for r in broken.tool_calls] == [r.to_dict() for r in plain.tool_calls]
    assert (broken.stop_reason, broken.final_text) == ("end_turn", "done")
    assert "started t1" in after.seen and "finished t1 executed" in after.seen
    failures = [r for r in caplog.records if "observer bug" in str(r.exc_info)]
    assert [r.getMessage().split(" failed on ")[1] for r in failures] == [
        "tool_started; the run goes on",
        "tool_finished; the run goes on",
    ]


def test_a_fail_closed_observer_that_cannot_see_a_tool_start_stops_the_call(tmp_path):
    ran: list[str] = []

    @hookline.tool
    def wipe(path: str) -> str:
        """Delete a folder."""
        ran.append(path)  # the sentinel: must stay empty
        return "wiped"

    class Strict(Observer):
        fail_closed = True

        def tool_started(self, session: Any, started: Any) -> None:
            raise RuntimeError("cannot record this")

    script = [call("t1", "wipe", path="/tmp/x"), {"text": "ok"}]
    agent = Agent(ScriptedModel(script), tools=[wipe], cwd=tmp_path, observers=[Strict()])
    with pytest.raises(RuntimeError, match="cannot record this"):
        agent.run_sync("go")
    assert ran == []


class Answers(Approver):
    def __init__(self, *answers: Approval) -> None:
        self.answers = list(answers)

    async def approve(self, request: ApprovalRequest) -> Approval | Unavailable:
        return self.answers.pop(0)


def test_approvals_asked_and_answered_are_observed_in_the_stream(tmp_path, spy):
    echo = spy("echo")
    script = [call("t1"), call("t2"), {"text": "ok"}]
    approver = Answers(Approval.allow(approver="ann"), Approval.deny("not now", approver="bob"))
    agent = Agent(ScriptedModel(script), tools=[echo.tool], cwd=tmp_path, approver=approver)
    agent.registry.add("PreToolUse", lambda e: Decision.ask("a person must look"), name="asker")
    log = Log()
    agent.observe(log)
    agent.run_sync("go")
    calls = [line for line in log.seen if line.split()[0] in ("asked", "answered", "finished")]
    assert calls == [
        "asked t1", "answered t1 allow ann", "finished t1 executed",
        "asked t2", "answered t2 deny bob", "finished t2 blocked",
    ]  # fmt: skip
    assert echo.inputs == [{"text": "t1"}]


def test_what_is_not_an_observer_is_refused_with_the_fix(tmp_path):
    agent = Agent(ScriptedModel([]), cwd=tmp_path)
    with pytest.raises(ConfigError, match="not an Observer") as refused:
        agent.observe(print)  # type: ignore[arg-type]
    assert "subclass hookline._agent.observers.Observer" in str(refused.value)
    with pytest.raises(ConfigError, match="not an Observer"):
        Agent(ScriptedModel([]), cwd=tmp_path, observers=[print])


def test_an_agent_nobody_watches_builds_nothing_for_observers(tmp_path, spy):
    agent = Agent(ScriptedModel([]), tools=[spy().tool], cwd=tmp_path)
    assert not agent.engine.listens("PostToolBatch") and not agent.stream.wants(ToolStarted)
    handle = agent.observe(Log())  # wants events and tool starts
    assert agent.engine.listens("PostToolBatch") and agent.stream.wants(ToolStarted)
    handle.remove()
    assert not agent.engine.listens("PostToolBatch") and not agent.stream.wants(ToolStarted)


class Counting:
    """A model that calls ``echo`` once, then answers; each reply reports its tokens."""

    name = "counting"

    def __init__(self) -> None:
        self.calls = 0

    async def complete(
        self, messages: Sequence[Message], tools: Sequence[dict[str, Any]], *, system: Any = None
    ) -> Message:
        self.calls += 1
        usage = Usage(input_tokens=100 * self.calls, output_tokens=7)
        if self.calls == 1:
            reply = Message.assistant("", (ToolCall("t1", "echo", {"text": "a"}),))
        else:
            reply = Message.assistant("done")
        return Message(reply.role, reply.content, usage)


def test_each_model_call_with_its_usage_is_observed_and_audited(tmp_path, spy):
    usages: list[tuple[str, Usage | None]] = []

    class Tokens(Observer):
        def model_called(self, session: Any, reply: Message, model: str) -> None:
            usages.append((model, reply.usage))

    agent = Agent(Counting(), tools=[spy().tool], cwd=tmp_path, audit=True, observers=[Tokens()])
    result = agent.run_sync("go")
    assert usages == [("counting", Usage(100, 7)), ("counting", Usage(200, 7))]
    with SqliteStore(tmp_path / ".hookline" / "state" / "hookline.db") as store:
        models = [r for r in store.audit_rows(session_id=result.session_id) if r.kind == "model"]
    assert [(r.data["model"], r.data["usage"]["input_tokens"]) for r in models] == [
        ("counting", 100),
        ("counting", 200),
    ]


# -- the store the agent is given --------------------------------------------------------------


@hookline.tool
def echo(text: str) -> str:
    """Say it."""
    return text


def deferring(tmp_path: Path, **options: Any) -> Agent:
    script = [call("t1"), {"text": "ok"}]
    agent = Agent(ScriptedModel(script), cwd=tmp_path, tools=[echo], **options)
    agent.registry.add("PreToolUse", lambda e: Decision.defer("later"), name="later")
    return agent


def test_a_store_object_is_used_and_left_open_for_its_owner(tmp_path):
    store = SqliteStore(tmp_path / "elsewhere.db")
    result = deferring(tmp_path, store=store, audit=True).run_sync("go")  # closes the agent
    record = store.get_session(result.session_id)  # still open: its owner closes it
    assert record is not None and record.status == "deferred"
    rows = store.audit_rows()  # the audit went there too: the call, with its hook's run
    assert [r.kind for r in unfolded(rows)] == ["hook", "tool"] and len(rows) == 1
    assert not (tmp_path / ".hookline" / "state" / "hookline.db").exists()
    store.close()


def test_a_store_url_still_opens_the_store_it_names(tmp_path):
    result = deferring(tmp_path, store=f"sqlite:///{tmp_path}/named.db").run_sync("go")
    with SqliteStore(tmp_path / "named.db") as store:
        record = store.get_session(result.session_id)
    assert record is not None and record.status == "deferred"


def test_a_store_without_an_audit_half_cannot_take_the_audit(tmp_path):
    class SessionsOnly:
        def put_session(self, record: Any) -> None: ...
        def get_session(self, id: str) -> Any: ...
        def claim_session(self, id: str, *, expected: str, new: str) -> bool: ...
        def close(self) -> None: ...

    with pytest.raises(ConfigError, match="keeps sessions but not the audit log"):
        Agent(ScriptedModel([]), cwd=tmp_path, store=SessionsOnly(), audit=True)


def test_a_failed_audit_write_on_resume_gives_the_claim_back(tmp_path):
    paused = deferring(tmp_path).run_sync("go")

    class Down(AuditLog):
        def resumed(self, session: Any, claimed: Any, by: Any) -> None:
            raise AuditError("the audit log could not be written: disk full")

    agent = deferring(tmp_path)
    Down(None, jsonl_path=tmp_path / "audit.jsonl").attach(agent)
    with pytest.raises(AuditError, match="disk full"):
        asyncio.run(agent.resume(paused.session_id, Approval.allow()))
    with SqliteStore(tmp_path / ".hookline" / "state" / "hookline.db") as store:
        record = store.get_session(paused.session_id)
    assert record is not None and record.status == "deferred"  # it can be resumed again
