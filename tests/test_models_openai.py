"""The OpenAI-compatible client against a local server speaking the chat-completions wire format:
whole and streamed answers, tool calls put together from fragments, usage, retries, and every
failure as one line naming what to fix."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest

from hookline import Agent, Message, ToolCall
from hookline._agent.messages import ToolResultBlock, Usage
from hookline._errors import ConfigError, ModelError
from hookline._tools.limits import REFUSED_KEY
from hookline.models._openai import OpenAIModel
from hookline.storage import SqliteStore
from model_servers import (
    Events,
    Json,
    Raw,
    ask,
    fragments,
    model_server,
    openai_chunks,
    openai_completion,
    openai_error,
    sse,
)

LS = ("call_1", "Bash", fragments('{"command": "ls -la"}', 2))


def client(url: str, **options: Any) -> OpenAIModel:
    return OpenAIModel("test-model", base_url=url, api_key="sk-test", **options)


def test_a_whole_answer_gives_its_text_its_tool_call_and_its_usage() -> None:
    with model_server([Json(200, openai_completion("Listing.", [LS]))]) as server:
        reply = ask(client(server.url("/v1"), stream=False))
    assert reply.text == "Listing."
    assert reply.tool_calls == [ToolCall("call_1", "Bash", {"command": "ls -la"})]
    assert reply.usage == Usage(input_tokens=8, output_tokens=7, cache_read_input_tokens=3)
    ((path, headers, body),) = server.seen
    assert path == "/v1/chat/completions" and headers["Authorization"] == "Bearer sk-test"
    assert "stream" not in body and body["model"] == "test-model"
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "Bash",
                "description": "Run a command.",
                "parameters": {"type": "object"},
            },
        }
    ]


def test_the_conversation_goes_out_as_chat_messages_with_tool_results_after_their_calls() -> None:
    call = ToolCall("call_1", "Bash", {"command": "ls"})
    conversation = [
        Message.user("list the files"),
        Message.assistant("Looking.", (call,)),
        Message(
            "user", (ToolResultBlock("call_1", "a.txt", False), Message.user("note").content[0])
        ),
    ]
    with model_server([Json(200, openai_completion("Done."))]) as server:
        ask(client(server.url("/v1"), stream=False), conversation)
    assert server.bodies()[0]["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "list the files"},
        {
            "role": "assistant",
            "content": "Looking.",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "Bash", "arguments": '{"command": "ls"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "a.txt"},
        {"role": "user", "content": "note"},
    ]


def test_streamed_text_reaches_on_text_while_the_server_is_still_sending() -> None:
    """The server sends the first piece, then waits until the client has shown it: a client
    that waited for the whole answer would leave the server waiting (``released`` False)."""
    shown: list[str] = []
    with model_server([Events(openai_chunks(["Hel", "lo", " there"]), hold=2)]) as server:

        def on_text(piece: str) -> None:
            shown.append(piece)
            server.proceed.set()

        reply = ask(client(server.url("/v1"), on_text=on_text))
    assert server.released == [True]
    assert shown == ["Hel", "lo", " there"] and reply.text == "Hello there"
    body = server.bodies()[0]
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert reply.usage == Usage(input_tokens=8, output_tokens=7, cache_read_input_tokens=3)


def test_streamed_tool_calls_are_put_together_from_many_fragments_by_index() -> None:
    first = '{"command": "git status --short", "description": "See what changed"}'
    second = '{"file_path": "/tmp/notes.txt"}'
    calls = [("call_a", "Bash", fragments(first, 1)), ("call_b", "Read", fragments(second, 2))]
    events = openai_chunks(["Two calls."], calls)
    assert len(events) > 90  # one delta per character of the first input
    with model_server([Events(events)]) as server:
        reply = ask(client(server.url("/v1")))
    assert reply.tool_calls == [
        ToolCall("call_a", "Bash", json.loads(first)),
        ToolCall("call_b", "Read", json.loads(second)),
    ]
    assert reply.text == "Two calls."


def test_fragments_of_two_calls_may_interleave() -> None:
    def delta(index: int, **part: Any) -> bytes:
        choice = {"index": 0, "delta": {"tool_calls": [{"index": index, **part}]}}
        return sse({"object": "chat.completion.chunk", "choices": [choice]})

    events = [
        delta(0, id="c0", type="function", function={"name": "Bash", "arguments": '{"comm'}),
        delta(1, id="c1", type="function", function={"name": "Read", "arguments": '{"file_'}),
        delta(0, function={"arguments": 'and": "ls"}'}),
        delta(1, function={"arguments": 'path": "a"}'}),
        sse(b"[DONE]"),
    ]
    with model_server([Events(events)]) as server:
        reply = ask(client(server.url("/v1")))
    assert reply.tool_calls == [
        ToolCall("c0", "Bash", {"command": "ls"}),
        ToolCall("c1", "Read", {"file_path": "a"}),
    ]
    assert reply.usage is None  # this server reported none


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        ('{"command": "touch SENTINEL"', "not valid JSON"),
        ('["touch", "SENTINEL"]', "an array, not a JSON object"),
        ('{"command": "touch SENTINEL", "x": ' + "[" * 100_000, "nested too deep"),
    ],
    ids=["broken", "not-an-object", "too-deep"],
)
def test_arguments_that_are_not_a_json_object_become_a_refusal_the_model_reads(
    arguments: str, said: str, tmp_path: Path
) -> None:
    sentinel = tmp_path / "ran"
    call = ("call_1", "Bash", [arguments.replace("SENTINEL", str(sentinel))])
    turns = [
        Json(200, openai_completion(None, [call])),
        Json(200, openai_completion("I will send proper JSON.")),
    ]
    with model_server(turns) as server:
        model = client(server.url("/v1"), stream=False)
        result = Agent(model, cwd=tmp_path, permission_mode="bypassPermissions").run_sync("go")
    (refusal,) = result.tool_calls
    assert refusal.status == "failed" and said in refusal.content
    assert refusal.input == {REFUSED_KEY: refusal.content}  # no hook or tool saw the input
    tool_message = next(m for m in server.bodies()[1]["messages"] if m["role"] == "tool")
    assert said in tool_message["content"]  # the model read why
    assert not sentinel.exists() and result.stop_reason == "end_turn"


def test_an_unknown_tool_becomes_an_error_the_model_reads(tmp_path: Path) -> None:
    turns = [
        Events(openai_chunks([], [("call_1", "Teleport", ['{"to": "mars"}'])])),
        Events(openai_chunks(["No such tool, then."])),
    ]
    with model_server(turns) as server:
        result = Agent(client(server.url("/v1")), cwd=tmp_path).run_sync("go")
    assert result.tool_calls[0].status != "executed"
    tool_message = next(m for m in server.bodies()[1]["messages"] if m["role"] == "tool")
    assert "No such tool available: Teleport" in tool_message["content"]
    assert result.final_text == "No such tool, then."


@pytest.mark.parametrize(
    ("status", "said"),
    [
        (400, "OpenAI refused the request (400: bad tools): check OPENAI_MODEL ('test-model')"),
        (401, "OPENAI_API_KEY was refused (401: bad tools): set a valid key"),
        (403, "OPENAI_API_KEY may not use model 'test-model' (403: bad tools)"),
        (404, "has no model 'test-model' or no such API (404: bad tools): set OPENAI_MODEL"),
    ],
)
@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
def test_a_refusal_is_one_line_naming_the_variable_and_is_not_retried(
    status: int, said: str, stream: bool
) -> None:
    with (
        model_server([openai_error(status, "bad tools")]) as server,
        pytest.raises(ModelError) as caught,
    ):
        ask(client(server.url("/v1"), stream=stream))
    assert said in str(caught.value) and "\n" not in str(caught.value)
    assert caught.value.status == status and len(server.seen) == 1


@pytest.mark.parametrize("status", [429, 500, 503])
@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
def test_a_rate_limit_or_server_error_is_retried_then_answered(status: int, stream: bool) -> None:
    wait = {"retry-after-ms": "10"}  # the server asks for a short wait; the client honours it
    turns = [
        Json(status, {"error": {"message": "busy"}}, wait),
        Events(openai_chunks(["ok"])) if stream else Json(200, openai_completion("ok")),
    ]
    with model_server(turns) as server:
        reply = ask(client(server.url("/v1"), stream=stream))
    assert reply.text == "ok" and len(server.seen) == 2


def test_a_server_error_that_lasts_ends_after_the_retries_in_one_line() -> None:
    with (
        model_server([Json(500, {"error": {"message": "down"}}, {"retry-after-ms": "1"})]) as s,
        pytest.raises(ModelError, match=r"kept failing after 2 retries \(500: down\)"),
    ):
        ask(client(s.url("/v1"), max_retries=2))
    assert len(s.seen) == 3


def test_a_server_that_is_not_there_is_named_with_its_variable() -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(ModelError, match=r"cannot reach OpenAI at .* check OPENAI_BASE_URL"):
        ask(client(f"http://127.0.0.1:{port}/v1", max_retries=0))


def test_a_server_that_stops_answering_times_out_in_one_line() -> None:
    with (
        model_server([Events(openai_chunks(["never"]), hold=0)]) as server,
        pytest.raises(ModelError, match=r"gave no answer within 0.2 s"),
    ):
        ask(client(server.url("/v1"), timeout=0.2, max_retries=0))


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
@pytest.mark.parametrize(
    "body",
    [b"<html>Bad gateway</html>", b'{"unexpected": true}', b"data: {not json\n\n"],
    ids=["html", "other-json", "broken-sse"],
)
def test_a_garbage_body_is_a_clear_error(body: bytes, stream: bool) -> None:
    kind = "text/event-stream" if body.startswith(b"data:") else "application/json"
    with model_server([Raw(200, body, kind)]) as server, pytest.raises(ModelError) as caught:
        ask(client(server.url("/v1"), stream=stream))
    assert "sent an answer that cannot be read" in str(caught.value)
    assert "OPENAI_BASE_URL" in str(caught.value)


def test_a_run_sums_the_usage_of_its_model_calls_and_reports_it(tmp_path: Path) -> None:
    turns = [
        Events(openai_chunks([], [("call_1", "Glob", ['{"pattern": "*.txt"}'])], (100, 20, 60))),
        Events(openai_chunks(["Done."], usage=(130, 5, 100))),
    ]
    with model_server(turns) as server:
        result = Agent(client(server.url("/v1")), cwd=tmp_path).run_sync("find text files")
    assert result.model_calls == 2 and result.final_text == "Done."
    assert result.usage == Usage(input_tokens=70, output_tokens=25, cache_read_input_tokens=160)
    assert result.to_dict()["usage"] == {
        "input_tokens": 70,
        "output_tokens": 25,
        "cache_read_input_tokens": 160,
        "cache_creation_input_tokens": 0,
    }


def test_a_failed_call_ends_the_run_with_a_stop_reason_and_the_turn_end_fires(
    tmp_path: Path, recorder: Any
) -> None:
    turn_end = recorder()
    with model_server([openai_error(401, "Incorrect API key")]) as server:
        agent = Agent(client(server.url("/v1")), cwd=tmp_path)
        agent.registry.add("TurnEnd", turn_end, kind="observer")
        result = agent.run_sync("hello")
    assert result.stop_reason == "model_error"
    assert (
        result.stop_detail == "OPENAI_API_KEY was refused (401: Incorrect API key): set a valid key"
    )
    assert [e.stop_reason for e in turn_end.events] == ["model_error"]


def test_settings_come_from_the_environment_and_a_missing_key_says_what_to_set() -> None:
    env = {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_MODEL": "qwen3"}
    model = OpenAIModel(env=env)
    assert (model.name, model.endpoint.base_url) == ("qwen3", "http://127.0.0.1:9/v1")
    assert (
        OpenAIModel(env={"OPENAI_API_KEY": "sk"}).endpoint.base_url == "https://api.openai.com/v1"
    )
    with pytest.raises(ConfigError, match="OPENAI_API_KEY: no OpenAI API key is set"):
        OpenAIModel(env={})
    with pytest.raises(ConfigError, match="OPENAI_BASE_URL: 'localhost:8000' is not an http"):
        OpenAIModel(env={"OPENAI_BASE_URL": "localhost:8000"})


def test_the_audit_records_each_model_call_with_its_usage(tmp_path: Path) -> None:
    turns = [
        Events(openai_chunks([], [("call_1", "Glob", ['{"pattern": "*"}'])], (100, 20, 60))),
        Events(openai_chunks(["Done."], usage=(130, 5, 100))),
    ]
    db = tmp_path / "hookline.db"
    with model_server(turns) as server:
        agent = Agent(client(server.url("/v1")), cwd=tmp_path, store=str(db), audit=True)
        session = agent.run_sync("look").session_id
    store = SqliteStore(db)
    try:
        rows = store.audit_rows(session_id=session)
    finally:
        store.close()
    models = [
        (r.data["model"], r.data["usage"]["output_tokens"]) for r in rows if r.kind == "model"
    ]
    assert models == [("test-model", 20), ("test-model", 5)]


def test_calls_sent_without_an_id_get_one_unique_in_the_conversation(tmp_path: Path) -> None:
    unnamed = {"type": "function", "function": {"name": "Glob", "arguments": '{"pattern": "*"}'}}
    answer = openai_completion()
    answer["choices"][0]["message"]["tool_calls"] = [unnamed]
    turns = [Json(200, answer), Json(200, answer), Json(200, openai_completion("Done."))]
    with model_server(turns) as server:
        result = Agent(client(server.url("/v1"), stream=False), cwd=tmp_path).run_sync("look")
    ids = [r.call.id for r in result.tool_calls]
    assert len(ids) == len(set(ids)) == 2 and all(i.startswith("toolu_hookline_") for i in ids)
    replies = [m for m in server.bodies()[2]["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in replies] == ids
