"""The tool pipeline: prepare -> PreToolUse -> execute -> PostToolUse / PostToolUseFailure."""

from __future__ import annotations

import asyncio

import pytest

from hookline import Decision, ToolError, tool
from hookline._events import Scope
from hookline._hooks.engine import EventDispatched


@pytest.fixture
def echo(spy):
    return spy("echo")


@pytest.fixture
def agent(agent_with, echo):
    return agent_with([], [echo.tool])


def call(agent, name, tool_input):
    return asyncio.run(agent.call_tool(name, tool_input, tool_use_id="toolu_1"))


def test_an_unknown_tool_fails_naming_it_and_fires_no_pre_tool_use(agent, recorder):
    pre = recorder()
    agent.registry.add("PreToolUse", pre)
    result = call(agent, "nope", {})
    assert (result.status, result.content) == ("failed", "Error: No such tool available: nope")
    assert result.is_error
    assert pre.events == []


def test_bad_input_to_a_typed_tool_fails_before_any_hook(agent, echo, recorder):
    pre = recorder()
    agent.registry.add("PreToolUse", pre)
    result = call(agent, "echo", {"txt": "hi"})
    assert result.status == "failed"
    assert result.content.startswith("Invalid input for echo:")
    assert "text" in result.content and "txt" in result.content
    assert (pre.events, echo.inputs) == ([], [])


def test_a_denied_call_never_runs_and_fires_tool_blocked(agent_with, recorder):
    ran = []

    @tool
    def fragile(text: str) -> str:
        ran.append(text)
        return "ran"

    agent = agent_with([], [fragile])
    blocked, post = recorder(), recorder()
    agent.registry.add("PreToolUse", lambda e: Decision.deny("use the sandbox"))
    agent.registry.add("ToolBlocked", blocked)
    agent.registry.add("PostToolUse", post)

    result = call(agent, "fragile", {"text": "x"})

    assert ran == [] and post.events == []
    assert (result.status, result.reason) == ("blocked", "use the sandbox")
    assert result.content == "PreToolUse:fragile hook error: use the sandbox"
    [event] = blocked.events
    assert (event.decision, event.reason) == ("deny", "use the sandbox")
    assert (event.tool_use_id, event.tool_input) == ("toolu_1", {"text": "x"})


def test_ask_with_nobody_to_answer_is_a_refusal_that_says_why(agent, echo, recorder):
    blocked, asked = recorder(), recorder()
    agent.registry.add("PreToolUse", lambda e: Decision.ask("a human must approve this"))
    agent.registry.add("PermissionRequest", asked)
    agent.registry.add("ToolBlocked", blocked)
    result = call(agent, "echo", {"text": "hi"})
    assert echo.inputs == []
    assert result.status == "blocked" and result.approver == "none"
    assert result.content == (
        "echo was not run: it needs approval (a human must approve this) and nobody gave it: "
        "no approver is configured."
    )
    assert [e.tool_input for e in asked.events] == [{"text": "hi"}]  # the hooks were asked first
    assert [e.decision for e in blocked.events] == ["deny"]


def test_a_permission_request_hook_can_approve_an_ask(agent, echo):
    agent.registry.add("PreToolUse", lambda e: Decision.ask("a human must approve this"))
    agent.registry.add("PermissionRequest", lambda e: Decision.allow(), name="ops-bot")
    result = call(agent, "echo", {"text": "hi"})
    assert echo.inputs == [{"text": "hi"}]
    assert (result.status, result.approver) == ("executed", "hook:ops-bot")


def test_defer_refuses_the_call_as_deferred(agent, echo, recorder):
    blocked = recorder()
    agent.registry.add("PreToolUse", lambda e: Decision.defer("waiting for approval"))
    agent.registry.add("ToolBlocked", blocked)
    result = call(agent, "echo", {"text": "hi"})
    assert echo.inputs == []
    assert (result.status, result.reason) == ("deferred", "waiting for approval")
    assert result.is_error
    assert [e.decision for e in blocked.events] == ["defer"]


def test_a_rewrite_runs_the_tool_with_the_new_input_and_post_tool_use_sees_it(
    agent, echo, recorder
):
    post = recorder()
    agent.registry.add("PreToolUse", lambda e: Decision.rewrite({"text": "REWRITTEN"}))
    agent.registry.add("PostToolUse", post)
    result = call(agent, "echo", {"text": "original"})
    assert echo.inputs == [{"text": "REWRITTEN"}]
    assert (result.input, result.content) == ({"text": "REWRITTEN"}, "echo: REWRITTEN")
    assert [e.tool_input for e in post.events] == [{"text": "REWRITTEN"}]
    assert post.events[0].tool_response == "echo: REWRITTEN"


def test_a_tool_event_is_built_only_when_a_hook_or_an_observer_listens(
    agent, echo, recorder, monkeypatch
):
    """Building a frozen, validated event is most of what one nobody hears costs: a call with
    no PreToolUse or PostToolUse hook builds neither, and runs the same; a hook added for one
    event gets it, and so does an observer of events."""
    built = []
    make = Scope.event

    def counted(self, cls, **fields):
        built.append(cls.name)
        return make(self, cls, **fields)

    monkeypatch.setattr(Scope, "event", counted)
    tool_events = {"PreToolUse", "PostToolUse", "PostToolUseFailure", "ToolBlocked"}

    def fired():
        names = [name for name in built if name in tool_events]
        built.clear()
        return names

    quiet = call(agent, "echo", {"text": "a"})
    assert (quiet.status, quiet.content, fired()) == ("executed", "echo: a", [])
    post = recorder()
    agent.registry.add("PostToolUse", post)
    heard = call(agent, "echo", {"text": "b"})
    assert (heard.status, fired(), len(post.events)) == ("executed", ["PostToolUse"], 1)
    seen = []
    agent.stream.subscribe(EventDispatched, lambda record: seen.append(record.event))
    call(agent, "echo", {"text": "c"})
    assert fired() == ["PreToolUse", "PostToolUse"]
    assert [e.name for e in seen if e.name in tool_events] == ["PreToolUse", "PostToolUse"]
    assert echo.inputs == [{"text": "a"}, {"text": "b"}, {"text": "c"}]


@pytest.mark.parametrize(
    ("error", "message"),
    [
        (ToolError("disk full"), "disk full"),
        (ValueError("bad value"), "broken failed: ValueError: bad value"),
    ],
)
def test_a_tool_that_raises_fails_and_fires_post_tool_use_failure(
    error, message, agent_with, recorder
):
    @tool
    def broken(text: str) -> str:
        raise error

    agent = agent_with([], [broken])
    failure, post = recorder(), recorder()
    agent.registry.add("PostToolUseFailure", failure)
    agent.registry.add("PostToolUse", post)
    result = call(agent, "broken", {"text": "x"})
    assert (result.status, result.content, result.reason) == ("failed", message, message)
    assert [e.error for e in failure.events] == [message]
    assert failure.events[0].tool_use_id == "toolu_1"
    assert post.events == []


def test_a_tool_that_overruns_its_timeout_fails(agent_with, recorder):
    @tool(timeout=0.1)
    async def sleepy(text: str) -> str:
        await asyncio.sleep(5)
        return "woke"

    agent = agent_with([], [sleepy])
    failure = recorder()
    agent.registry.add("PostToolUseFailure", failure)
    result = call(agent, "sleepy", {"text": "x"})
    assert (result.status, result.content) == ("failed", "sleepy timed out after 0.1s")
    assert [e.error for e in failure.events] == ["sleepy timed out after 0.1s"]
    assert result.duration_ms >= 90  # in milliseconds, and at least the 0.1 s it was given


def test_replace_output_changes_what_the_model_reads(agent, echo):
    agent.registry.add("PostToolUse", lambda e: Decision.replace_output({"redacted": True}))
    result = call(agent, "echo", {"text": "secret"})
    assert echo.inputs == [{"text": "secret"}]
    assert result.output == {"redacted": True}
    assert result.content == '{"redacted":true}'


def test_post_tool_use_context_is_worded_as_claude_code_words_it(agent):
    agent.registry.add("PostToolUse", lambda e: Decision.context("C"))
    result = call(agent, "echo", {"text": "hi"})
    assert result.context == ("PostToolUse:echo hook additional context: C",)
    assert result.content == "echo: hi"


def test_post_tool_use_block_adds_a_blocking_error_beside_the_output(agent):
    agent.registry.add("PostToolUse", lambda e: Decision.block("R"))
    result = call(agent, "echo", {"text": "hi"})
    assert (result.status, result.content) == ("executed", "echo: hi")
    assert result.context == ("PostToolUse:echo hook blocking error: R",)


def test_a_block_from_one_hook_keeps_another_hooks_redaction(agent):
    agent.registry.add("PostToolUse", lambda e: Decision.replace_output("[redacted]"))
    agent.registry.add("PostToolUse", lambda e: Decision.block("lint failed"))
    result = call(agent, "echo", {"text": "password=hunter2"})
    assert (result.content, result.output) == ("[redacted]", "[redacted]")
    assert result.context == ("PostToolUse:echo hook blocking error: lint failed",)


def test_pre_tool_use_context_lands_beside_the_result(agent):
    agent.registry.add("PreToolUse", lambda e: Decision.context("C"))
    result = call(agent, "echo", {"text": "hi"})
    assert result.context == ("PreToolUse:echo hook additional context: C",)


def test_stop_on_pre_tool_use_still_runs_the_tool_but_marks_the_result_stopped(agent, echo):
    agent.registry.add("PreToolUse", lambda e: Decision.stop("enough for today"))
    result = call(agent, "echo", {"text": "hi"})
    assert echo.inputs == [{"text": "hi"}]
    assert result.status == "executed"
    assert (result.stopped, result.stop_reason) == (True, "enough for today")


def test_pre_tool_use_context_goes_with_a_refusal_but_not_with_a_deferral(agent, echo):
    note = ("policy v2",)
    deny = Decision(permission="deny", reason="no", additional_context=note)
    undo = agent.registry.add("PreToolUse", lambda e: deny)
    denied = call(agent, "echo", {"text": "a"})
    assert denied.context == ("PreToolUse:echo hook additional context: policy v2",)

    undo()
    defer = Decision(permission="defer", reason="wait for Ann", additional_context=note)
    agent.registry.add("PreToolUse", lambda e: defer)
    deferred = call(agent, "echo", {"text": "b"})
    assert deferred.status == "deferred" and deferred.context == ()
    assert echo.inputs == []


def test_a_plain_function_tool_with_a_timeout_is_left_behind_when_it_overruns(agent_with):
    """A declared timeout applies to a plain function too: the call fails with the timeout
    while the body is still blocked (it is released only after the result is seen)."""
    import threading

    release, finished = threading.Event(), threading.Event()

    @tool(timeout=0.05)
    def stuck() -> str:
        release.wait(60)  # a guard against a hang, not a timing claim
        finished.set()
        return "too late"

    result = call(agent_with([], [stuck]), "stuck", {})
    assert (result.status, result.content) == ("failed", "stuck timed out after 0.05s")
    assert not finished.is_set()
    release.set()


def test_a_plain_function_tool_declares_no_timeout_unless_given_one():
    @tool
    def quick() -> str:
        return "ok"

    @tool
    async def awaits() -> str:
        return "ok"

    assert (quick.timeout, quick.suspends) == (None, False)
    assert awaits.timeout == 120.0
