"""PreModelRequest / PostModelResponse: hooks around each model call (hookline's own events).

PreModelRequest sees what the request sends and may add context to it or redact it (a rewrite
of ``messages``) for that request only: the transcript keeps the conversation as it was.
PostModelResponse sees the answer and its usage. With no hook, nothing is built and the model
sees the session's conversation itself.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from hookline import Agent, Decision, ScriptedModel
from hookline._agent.messages import Message, Usage

SECRET = "sk-live-0123456789"


def redact(event: Any) -> Decision:
    """Replace the secret in every text block of the outgoing messages."""
    messages = json.loads(json.dumps(event.messages).replace(SECRET, "[REDACTED]"))
    return Decision.rewrite({"messages": messages})


def test_a_hook_sees_the_request_and_its_context_reaches_the_model(agent_with, recorder):
    agent = agent_with([{"text": "done"}], [], system_prompt="Be brief.")
    hook = recorder(Decision.context("the user is on the free plan"))
    agent.registry.add("PreModelRequest", hook)
    result = agent.run_sync("hello")

    (event,) = hook.events
    assert event.model == "scripted" and event.system.startswith("Be brief.")
    assert event.messages == [{"role": "user", "content": [{"type": "text", "text": "hello"}]}]
    assert event.tools == []
    (shown,) = agent.model.shown(0)
    assert [b.text for b in shown.content] == [
        "hello",
        "<system-reminder>\nPreModelRequest hook additional context: the user is on the free "
        "plan\n</system-reminder>",
    ]
    assert result.final_text == "done"
    assert agent.session.messages[0] == Message.user("hello")  # for this request only


def test_a_redacting_hook_keeps_the_secret_from_the_model_not_from_the_transcript(agent_with):
    agent = agent_with([{"text": "done"}], [])
    agent.registry.add("PreModelRequest", redact)
    result = agent.run_sync(f"deploy with {SECRET}")

    assert [m.text for m in agent.model.shown(0)] == ["deploy with [REDACTED]"]
    assert SECRET in Path(result.transcript_path).read_text("utf-8")  # the record stays true
    assert agent.session.messages[0] == Message.user(f"deploy with {SECRET}")


def test_an_invalid_rewrite_ends_the_run_before_the_model_is_called(agent_with):
    agent = agent_with([{"text": "never"}], [])
    agent.registry.add("PreModelRequest", lambda e: Decision.rewrite({"messages": "oops"}))
    result = agent.run_sync(f"deploy with {SECRET}")
    assert agent.model.calls == 0  # the secret never left
    assert result.stop_reason == "hook_stopped"
    assert "rewrote the messages invalidly" in (result.stop_detail or "")


def test_two_different_rewrites_end_the_run_rather_than_drop_one(agent_with):
    agent = agent_with([{"text": "never"}], [])
    agent.registry.add("PreModelRequest", redact)
    agent.registry.add("PreModelRequest", lambda e: Decision.rewrite({"messages": []}))
    result = agent.run_sync(f"deploy with {SECRET}")
    assert agent.model.calls == 0
    assert (result.stop_reason, result.stop_detail) == (
        "hook_stopped",
        "PreModelRequest hooks rewrote the messages differently; not sent",
    )


class Metered(ScriptedModel):
    """A scripted model that reports what each call used, as a provider does."""

    async def complete(self, messages: Any, tools: Any, *, system: str | None = None) -> Message:
        reply = await super().complete(messages, tools, system=system)
        return replace(reply, usage=Usage(input_tokens=12, output_tokens=3))


def test_post_model_response_sees_the_message_and_its_usage(tmp_path, recorder):
    agent = Agent(Metered([{"text": "done"}]), tools=[], cwd=tmp_path)
    hook = recorder(Decision.block("ignored: observe only"))
    agent.registry.add("PostModelResponse", hook)
    result = agent.run_sync("hello")

    (event,) = hook.events
    assert event.message == {"role": "assistant", "content": [{"type": "text", "text": "done"}]}
    assert event.usage == {
        "input_tokens": 12,
        "output_tokens": 3,
        "cache_read_input_tokens": 0,
        "cache_creation_input_tokens": 0,
    }
    assert (result.stop_reason, result.final_text) == ("end_turn", "done")


def test_without_hooks_the_model_is_shown_the_conversation_itself(agent_with, use, spy):
    echo = spy("echo")
    agent = agent_with([use("echo", text="hi"), {"text": "done"}], [echo.tool])
    agent.run_sync("hello")
    assert agent.model._conversation is agent.session.messages  # no copy was made
    assert agent.model.shown(1) == agent.session.messages[:3]


def test_continue_false_ends_the_run_before_the_model_call(agent_with):
    agent = agent_with([{"text": "never"}], [])
    agent.registry.add("PreModelRequest", lambda e: Decision.stop("budget spent"))
    result = agent.run_sync("hello")
    assert agent.model.calls == 0
    assert (result.stop_reason, result.stop_detail) == ("hook_stopped", "budget spent")
