"""The agent loop: the exact event sequence of a run, its transcript, and how hooks end a turn."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from hookline import EVENTS, ConfigError, Decision


@pytest.fixture
def echo(spy):
    return spy("echo")


def entries(path):
    return [json.loads(line) for line in Path(path).read_text("utf-8").splitlines()]


def test_a_run_fires_every_event_in_order_and_writes_the_transcript(
    agent_with, spy, echo, use, recorder
):
    danger = spy("danger")
    agent = agent_with([use("echo", text="hi"), use("danger", text="x"), {"text": "all done"}],
                       [echo.tool, danger.tool])  # fmt: skip
    seen = recorder()
    for name in EVENTS:
        agent.registry.add(name, seen, kind="observer")
    agent.registry.add("PreToolUse", lambda e: Decision.deny("not that one"), matcher="danger")

    result = agent.run_sync("say hi")

    assert seen.names == [
        "SessionStart", "UserPromptSubmit", "TurnStart",
        "PreModelRequest", "PostModelResponse",
        "PreToolUse:echo", "PostToolUse:echo", "PostToolBatch",
        "PreModelRequest", "PostModelResponse",
        "PreToolUse:danger", "ToolBlocked:danger", "PostToolBatch",
        "PreModelRequest", "PostModelResponse",
        "Stop", "TurnEnd", "SessionEnd",
    ]  # fmt: skip
    turn_end = seen.events[-2]
    assert (turn_end.steps, turn_end.stop_reason) == (3, "end_turn")
    assert (result.stop_reason, result.final_text) == ("end_turn", "all done")
    assert result.model_calls == 3
    assert (echo.inputs, danger.inputs) == ([{"text": "hi"}], [])

    lines = Path(result.transcript_path).read_text("utf-8").splitlines()
    log = [json.loads(line) for line in lines]
    assert lines == [json.dumps(e, ensure_ascii=False, separators=(",", ":")) for e in log]
    assert [e["type"] for e in log] == ["user", "assistant"] * 3
    assert [e["parentUuid"] for e in log] == [None] + [e["uuid"] for e in log[:-1]]
    assert all(e["message"]["model"] == "scripted" for e in log if e["type"] == "assistant")
    assert log[0]["message"]["content"] == "say hi"
    assert log[4]["message"]["content"] == [
        {
            "type": "tool_result",
            "tool_use_id": "toolu_danger",
            "content": "PreToolUse:danger hook error: not that one",
            "is_error": True,
        }
    ]
    assert log[5]["message"]["content"] == [{"type": "text", "text": "all done"}]


def test_a_denied_prompt_never_reaches_the_model(agent_with, echo):
    agent = agent_with([{"text": "never"}], [echo.tool])
    agent.registry.add("UserPromptSubmit", lambda e: Decision.deny("no secrets in prompts"))
    result = agent.run_sync("my password is hunter2")
    assert result.stop_reason == "prompt_blocked"
    assert agent.model.calls == 0
    assert result.final_text == (
        "UserPromptSubmit operation blocked by hook:\nno secrets in prompts\n\n"
        "Original prompt: my password is hunter2"
    )
    assert agent.session.messages == []


def test_user_prompt_submit_context_reaches_the_first_user_message(agent_with, echo):
    agent = agent_with([{"text": "ok"}], [echo.tool])
    agent.registry.add("UserPromptSubmit", lambda e: Decision.context("user is alice"))
    agent.run_sync("who am I?")
    first = agent.session.messages[0]
    assert [block.text for block in first.content] == [
        "<system-reminder>\nUserPromptSubmit hook additional context: user is alice\n"
        "</system-reminder>",
        "who am I?",
    ]
    assert agent.model.requests[0] == 1


def test_session_start_context_opens_the_first_user_message_only(agent_with, echo):
    agent = agent_with([{"text": "ok"}, {"text": "again"}], [echo.tool])
    agent.registry.add("SessionStart", lambda e: Decision.context("repo is read-only today"))
    agent.registry.add("UserPromptSubmit", lambda e: Decision.context("user is alice"))

    async def two_prompts():
        async with agent:
            await agent.run("first")
            await agent.run("second")

    asyncio.run(two_prompts())
    first, second = (m for m in agent.session.messages if m.role == "user")
    assert [b.text for b in first.content] == [
        "<system-reminder>\nSessionStart hook additional context: repo is read-only today\n"
        "</system-reminder>",
        "<system-reminder>\nUserPromptSubmit hook additional context: user is alice\n"
        "</system-reminder>",
        "first",
    ]
    assert "SessionStart" not in "".join(b.text for b in second.content)


def test_a_stop_hook_that_blocks_once_keeps_the_model_working(agent_with, echo, recorder):
    agent = agent_with([{"text": "done?"}, {"text": "tests pass"}], [echo.tool])
    stops = recorder()
    agent.registry.add("Stop", stops, kind="observer")
    agent.registry.add(
        "Stop", lambda e: None if e.stop_hook_active else Decision.block("run the tests first")
    )

    result = agent.run_sync("fix the bug")

    assert (result.stop_reason, result.final_text) == ("end_turn", "tests pass")
    assert agent.model.calls == 2
    assert [e.stop_hook_active for e in stops.events] == [False, True]
    assert [e.last_assistant_message for e in stops.events] == ["done?", "tests pass"]
    feedback = agent.session.messages[2]
    assert feedback.role == "user"
    assert feedback.text.startswith("<system-reminder>\n")
    assert "Stop hook feedback:\nrun the tests first\n</system-reminder>" in feedback.text


def test_a_stop_hook_that_always_blocks_is_capped(agent_with, echo):
    agent = agent_with([], [echo.tool], stop_hook_block_cap=3)
    agent.registry.add("Stop", lambda e: Decision.block("keep going"))
    result = agent.run_sync("work")
    assert result.stop_reason == "stop_hook_cap"
    assert agent.model.calls == 4


def test_max_turns_stops_a_model_that_always_calls_tools(agent_with, echo, use):
    agent = agent_with([use("echo", text="again")] * 10, [echo.tool], max_turns=3)
    result = agent.run_sync("loop")
    assert (result.stop_reason, agent.model.calls, len(echo.inputs)) == ("max_turns", 3, 3)


def test_a_deferred_call_ends_the_run(agent_with, echo, use, recorder):
    agent = agent_with([use("echo", text="hi"), {"text": "never"}], [echo.tool])
    stops = recorder()
    agent.registry.add("Stop", stops)
    agent.registry.add("PreToolUse", lambda e: Decision.defer("a manager must approve"))
    result = agent.run_sync("send it")
    assert (result.stop_reason, result.stop_detail) == ("tool_deferred", "a manager must approve")
    assert (agent.model.calls, echo.inputs, stops.events) == (1, [], [])


def test_continue_false_ends_the_run_after_the_tool(agent_with, echo, use, recorder):
    agent = agent_with([use("echo", text="hi"), {"text": "never"}], [echo.tool])
    stops = recorder()
    agent.registry.add("Stop", stops)
    agent.registry.add("PreToolUse", lambda e: Decision.stop("budget spent"))
    result = agent.run_sync("go")
    assert (result.stop_reason, result.stop_detail) == ("hook_stopped", "budget spent")
    assert (agent.model.calls, echo.inputs, stops.events) == (1, [{"text": "hi"}], [])


def test_the_transcript_is_complete_when_the_stop_hook_reads_it(agent_with, echo, use):
    agent = agent_with([use("echo", text="hi"), {"text": "the final answer"}], [echo.tool])
    found = []

    def read_transcript(event):
        last = [e for e in entries(event.transcript_path) if e["type"] == "assistant"][-1]
        found.append(last["message"]["content"][0]["text"])

    agent.registry.add("Stop", read_transcript)
    agent.run_sync("answer")
    assert found == ["the final answer"]


@pytest.mark.parametrize("prompt", ["", "   \n"])
def test_an_empty_prompt_is_a_config_error(prompt, agent_with, echo):
    agent = agent_with([], [echo.tool])
    with pytest.raises(ConfigError, match="prompt is empty"):
        agent.run_sync(prompt)
    assert agent.model.calls == 0


def test_the_calls_of_one_turn_are_checked_concurrently_then_run_in_order(agent_with, spy):
    echo = spy("echo")
    two = {"tool_calls": [{"name": "echo", "input": {"text": "a"}},
                          {"name": "echo", "input": {"text": "b"}}]}  # fmt: skip
    agent = agent_with([two, {"text": "done"}], [echo.tool])

    both = asyncio.Barrier(2)

    async def meeting_gate(event):
        # Checked in turn, the first call's gate would wait alone until the safety timeout,
        # fail closed, and that call would be blocked.
        await asyncio.wait_for(both.wait(), timeout=10)

    agent.registry.add("PreToolUse", meeting_gate)
    result = agent.run_sync("twice")
    assert echo.inputs == [{"text": "a"}, {"text": "b"}]
    assert [r.status for r in result.tool_calls] == ["executed", "executed"]


def test_post_tool_batch_sees_every_result_as_the_model_reads_it_and_can_add_context(
    agent_with, echo, use, recorder
):
    agent = agent_with([use("echo", text="hi"), {"text": "done"}], [echo.tool])
    batch = recorder(Decision.context("2 of 5 daily calls used"))
    agent.registry.add("PostToolBatch", batch)
    agent.run_sync("go")
    (event,) = batch.events
    assert event.tool_calls == [
        {"tool_name": "echo", "tool_input": {"text": "hi"}, "tool_use_id": "toolu_echo",
         "tool_response": "echo: hi"}
    ]  # fmt: skip
    results = agent.session.messages[2]
    assert results.content[-1].text == (
        "<system-reminder>\nPostToolBatch hook additional context: 2 of 5 daily calls used\n"
        "</system-reminder>"
    )


def test_a_post_tool_batch_block_ends_the_run_before_the_next_model_call(agent_with, echo, use):
    agent = agent_with([use("echo", text="hi"), {"text": "never"}], [echo.tool])
    agent.registry.add("PostToolBatch", lambda e: Decision.block("budget spent"))
    result = agent.run_sync("go")
    assert (result.stop_reason, result.stop_detail) == ("hook_stopped", "budget spent")
    assert agent.model.calls == 1 and echo.inputs == [{"text": "hi"}]


def test_a_cancelled_run_answers_its_cut_calls_and_the_next_prompt_goes_on(tmp_path: Path) -> None:
    from hookline import Agent, tool
    from hookline._wording import INTERRUPTED
    from recording_model import RecordingModel

    started, after = asyncio.Event(), []

    @tool(name="wait")
    async def wait() -> str:
        """Wait until cancelled."""
        started.set()
        await asyncio.Event().wait()
        after.append("finished")  # never: only a cancellation ends the wait
        return "done"

    model = RecordingModel([{"tool_calls": [{"name": "wait", "input": {}}]}, {"text": "ok"}])
    agent = Agent(model, tools=[wait], cwd=tmp_path)

    async def run() -> str:
        async with agent:
            task = asyncio.create_task(agent.run("wait"))
            await started.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            return (await agent.run("and now?")).final_text

    assert asyncio.run(run()) == "ok" and after == []
    assert model.seen[-1].shows(INTERRUPTED)
