"""The scripted model server's Gemini API, as Gemini CLI reads it (``POST
/v1beta/models/MODEL:streamGenerateContent?alt=sse``, and ``:generateContent`` whole): which turn
answers a request is counted from the ``model`` turns of its ``contents``, and the answer carries
the turn's text and ``functionCall`` parts in Gemini's ``GenerateContentResponse`` shape."""

from __future__ import annotations

import json
from typing import Any

from hookline.models._scripted import Script, ScriptTurn
from hookline.models._serve import answer

CALL = {"id": "call_1", "name": "run_shell_command", "input": {"command": "ls"}}
SCRIPT = Script(turns=[ScriptTurn(text="looking", tool_calls=[CALL])], final_text="done")
STREAM = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
WHOLE = "/v1beta/models/gemini-2.5-flash:generateContent"
USER = {"role": "user", "parts": [{"text": "go"}]}


def chunks(request: dict[str, Any]) -> list[dict[str, Any]]:
    reply = answer(SCRIPT, "gemini", request, path=STREAM)
    assert reply.status == 200 and reply.events is not None and reply.served is not None
    assert reply.served.streamed
    found = []
    for event in reply.events:
        assert event.startswith(b"data: ") and event.endswith(b"\n\n")
        found.append(json.loads(event.removeprefix(b"data: ")))
    return found


def parts(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [part for chunk in found for part in chunk["candidates"][0]["content"]["parts"]]


def test_the_first_request_streams_the_first_turn_and_the_next_the_final_text() -> None:
    first = chunks({"contents": [USER]})
    assert "".join(p.get("text", "") for p in parts(first)) == "looking"
    call = parts(first)[-1]["functionCall"]
    assert (call["id"], call["name"], call["args"]) == (
        "call_1",
        "run_shell_command",
        {"command": "ls"},
    )
    assert [c["candidates"][0].get("finishReason") for c in first][-1] == "STOP"
    assert first[-1]["modelVersion"] == "gemini-2.5-flash"
    assert first[-1]["usageMetadata"]["totalTokenCount"] > 0
    told = {"functionResponse": {"id": "call_1", "name": "run_shell_command",
                                 "response": {"output": "a.txt"}}}  # fmt: skip
    answered = [USER, {"role": "model", "parts": parts(first)}, {"role": "user", "parts": [told]}]
    assert [p.get("text") for p in parts(chunks({"contents": answered}))] == ["done"]


def test_a_whole_answer_is_one_response_with_the_turns_parts() -> None:
    reply = answer(SCRIPT, "gemini", {"contents": [USER]}, path=WHOLE)
    assert reply.status == 200 and reply.body is not None and reply.events is None
    candidate = reply.body["candidates"][0]
    assert candidate["finishReason"] == "STOP" and candidate["content"]["role"] == "model"
    assert [next(iter(p)) for p in candidate["content"]["parts"]] == ["text", "functionCall"]


def test_a_request_without_contents_is_a_400_in_googles_shape() -> None:
    reply = answer(SCRIPT, "gemini", {"messages": []}, path=STREAM)
    assert reply.status == 400 and reply.body is not None
    error = reply.body["error"]
    assert (error["code"], error["status"]) == (400, "INVALID_ARGUMENT")
    assert "contents" in error["message"]
