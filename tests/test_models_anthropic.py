"""The Anthropic client against a local server speaking the Messages wire format: whole and
streamed answers (every event kind), tool inputs put together from ``input_json_delta``
fragments, usage, retries, and every failure as one line naming what to fix."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hookline import Agent, Message, ToolCall
from hookline._agent.messages import ToolResultBlock, Usage
from hookline._errors import ConfigError, ModelError
from hookline._tools.limits import REFUSED_KEY
from hookline.models._anthropic import DEFAULT_MAX_TOKENS, AnthropicModel
from model_servers import (
    BASH,
    Events,
    Json,
    Raw,
    anthropic_error,
    anthropic_events,
    anthropic_message,
    ask,
    fragments,
    model_server,
    sse,
)

LS = ("toolu_1", "Bash", fragments('{"command": "ls -la"}', 2))


def client(url: str, **options: Any) -> AnthropicModel:
    return AnthropicModel("test-model", base_url=url, api_key="sk-ant-test", **options)


def test_a_whole_answer_gives_its_text_its_tool_call_and_its_usage() -> None:
    with model_server([Json(200, anthropic_message("Listing.", [LS]))]) as server:
        reply = ask(client(server.url(""), stream=False))
    assert reply.text == "Listing."
    assert reply.tool_calls == [ToolCall("toolu_1", "Bash", {"command": "ls -la"})]
    assert reply.usage == Usage(input_tokens=11, output_tokens=7, cache_read_input_tokens=3)
    ((path, headers, body),) = server.seen
    assert path == "/v1/messages"
    assert "sk-ant-test" in (headers["x-api-key"] or headers["Authorization"])
    assert headers["anthropic-version"]
    assert body["system"] == "Be brief." and body["tools"] == [BASH]
    assert body["max_tokens"] == DEFAULT_MAX_TOKENS and "stream" not in body


def test_the_conversation_goes_out_in_the_messages_shape_it_already_has() -> None:
    call = ToolCall("toolu_1", "Bash", {"command": "ls"})
    conversation = [
        Message.user("list the files"),
        Message.assistant("Looking.", (call,)),
        Message("user", (ToolResultBlock("toolu_1", "denied", True),)),
    ]
    with model_server([Json(200, anthropic_message("Done."))]) as server:
        ask(client(server.url(""), stream=False), conversation)
    assert server.bodies()[0]["messages"] == [m.to_dict() for m in conversation]


def test_streamed_text_reaches_on_text_while_the_server_is_still_sending() -> None:
    """The server sends message_start, the block start and the first piece, then waits until
    the client has shown it: a client that waited for the whole answer would leave the server
    waiting (``released`` False)."""
    shown: list[str] = []
    with model_server([Events(anthropic_events(["Hel", "lo", " there"]), hold=3)]) as server:

        def on_text(piece: str) -> None:
            shown.append(piece)
            server.proceed.set()

        reply = ask(client(server.url(""), on_text=on_text))
    assert server.released == [True]
    assert shown == ["Hel", "lo", " there"] and reply.text == "Hello there"
    assert server.bodies()[0]["stream"] is True
    assert reply.usage == Usage(input_tokens=11, output_tokens=7, cache_read_input_tokens=3)


def test_streamed_tool_inputs_are_put_together_from_many_fragments() -> None:
    first = '{"command": "git status --short", "description": "See what changed"}'
    second = '{"file_path": "/tmp/notes.txt"}'
    calls = [("toolu_a", "Bash", fragments(first, 1)), ("toolu_b", "Read", fragments(second, 2))]
    events = anthropic_events(["Two calls."], calls)
    assert len(events) > 90  # one delta per character of the first input
    with model_server([Events(events)]) as server:
        reply = ask(client(server.url("")))
    assert reply.tool_calls == [
        ToolCall("toolu_a", "Bash", json.loads(first)),
        ToolCall("toolu_b", "Read", json.loads(second)),
    ]
    assert [type(b).__name__ for b in reply.content] == ["TextBlock", "ToolCall", "ToolCall"]


def test_two_text_blocks_reach_on_text_as_the_message_text_reads() -> None:
    events = anthropic_events(["First."], [("toolu_1", "Bash", ['{"command": "ls"}'])])
    text = {"type": "text", "text": ""}
    delta = {"type": "text_delta", "text": "Then."}
    extra = [
        sse(
            {"type": "content_block_start", "index": 2, "content_block": text},
            "content_block_start",
        ),
        sse({"type": "content_block_delta", "index": 2, "delta": delta}, "content_block_delta"),
        sse({"type": "content_block_stop", "index": 2}, "content_block_stop"),
    ]
    shown: list[str] = []
    with model_server([Events(events[:-2] + extra + events[-2:])]) as server:
        reply = ask(client(server.url(""), on_text=shown.append))
    assert "".join(shown) == reply.text == "First.\nThen."


def test_a_stream_cut_off_before_message_stop_is_an_error_not_half_a_message() -> None:
    with (
        model_server([Events(anthropic_events(["Hel"], [LS], stop=False))]) as server,
        pytest.raises(ModelError, match=r"broke off its answer .*message_stop"),
    ):
        ask(client(server.url("")))


def test_an_error_event_inside_the_stream_is_one_line() -> None:
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    with (
        model_server([Events([sse(error, "error")])]) as server,
        pytest.raises(ModelError, match=r"stopped its answer with an error \(Overloaded\)"),
    ):
        ask(client(server.url("")))


@pytest.mark.parametrize(
    ("arguments", "said"),
    [('{"command": "touch SENTINEL"', "not valid JSON"), ('"touch SENTINEL"', "a string")],
    ids=["broken", "not-an-object"],
)
def test_a_tool_input_that_is_not_a_json_object_becomes_a_refusal_the_model_reads(
    arguments: str, said: str, tmp_path: Path
) -> None:
    sentinel = tmp_path / "ran"
    call = ("toolu_1", "Bash", fragments(arguments.replace("SENTINEL", str(sentinel)), 4))
    turns = [Events(anthropic_events([], [call])), Events(anthropic_events(["Sorry."]))]
    with model_server(turns) as server:
        result = Agent(client(server.url("")), cwd=tmp_path, permission_mode="bypassPermissions")
        result = result.run_sync("go")
    (refusal,) = result.tool_calls
    assert refusal.status == "failed" and said in refusal.content
    assert refusal.input == {REFUSED_KEY: refusal.content}
    answer = server.bodies()[1]["messages"][-1]["content"][0]
    assert answer["type"] == "tool_result" and answer["is_error"] and said in answer["content"]
    assert not sentinel.exists()


@pytest.mark.parametrize(
    ("status", "said"),
    [
        (400, "Anthropic refused the request (400: nope): check ANTHROPIC_MODEL ('test-model')"),
        (401, "ANTHROPIC_API_KEY was refused (401: nope): set a valid key"),
        (403, "ANTHROPIC_API_KEY may not use model 'test-model' (403: nope)"),
        (404, "has no model 'test-model' or no such API (404: nope): set ANTHROPIC_MODEL"),
    ],
)
@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
def test_a_refusal_is_one_line_naming_the_variable_and_is_not_retried(
    status: int, said: str, stream: bool
) -> None:
    with (
        model_server([anthropic_error(status, "nope")]) as server,
        pytest.raises(ModelError) as caught,
    ):
        ask(client(server.url(""), stream=stream))
    assert said in str(caught.value) and "\n" not in str(caught.value)
    assert caught.value.status == status and len(server.seen) == 1


@pytest.mark.parametrize("status", [429, 500, 529])
@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
def test_a_rate_limit_or_overload_is_retried_then_answered(status: int, stream: bool) -> None:
    busy = anthropic_error(status, "busy", "overloaded_error")
    turns = [
        Json(status, busy.body, {"retry-after-ms": "10"}),
        Events(anthropic_events(["ok"])) if stream else Json(200, anthropic_message("ok")),
    ]
    with model_server(turns) as server:
        reply = ask(client(server.url(""), stream=stream))
    assert reply.text == "ok" and len(server.seen) == 2


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
def test_a_garbage_body_is_a_clear_error(stream: bool) -> None:
    with (
        model_server([Raw(200, b"<html>Bad gateway</html>")]) as server,
        pytest.raises(ModelError, match=r"cannot be read .*ANTHROPIC_BASE_URL"),
    ):
        ask(client(server.url(""), stream=stream))


def test_a_run_sums_the_usage_of_its_model_calls(tmp_path: Path) -> None:
    turns = [
        Events(anthropic_events([], [("t1", "Glob", ['{"pattern": "*"}'])], (40, 20, 60))),
        Events(anthropic_events(["Done."], usage=(30, 5, 100))),
    ]
    with model_server(turns) as server:
        result = Agent(client(server.url("")), cwd=tmp_path).run_sync("look around")
    assert result.usage == Usage(input_tokens=70, output_tokens=25, cache_read_input_tokens=160)


def test_settings_come_from_the_environment_and_a_missing_key_says_what_to_set() -> None:
    env = {"ANTHROPIC_API_KEY": "sk-ant", "ANTHROPIC_MODEL": "claude-haiku-4-5"}
    model = AnthropicModel(env=env)
    assert (model.name, model.endpoint.base_url) == (
        "claude-haiku-4-5",
        "https://api.anthropic.com",
    )
    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY: no Anthropic API key is set"):
        AnthropicModel(env={})
