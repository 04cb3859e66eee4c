"""The scripted model server's Responses API, as Codex CLI reads it (``POST /v1/responses``,
streamed): which turn answers a request is counted from its ``input``, and the events carry the
turn's text and function calls."""

from __future__ import annotations

import json
from typing import Any

from hookline.models._scripted import Script, ScriptTurn
from hookline.models._serve import answer

CALL = {"id": "call_1", "name": "exec_command", "input": {"cmd": "ls"}}
SCRIPT = Script(turns=[ScriptTurn(text="looking", tool_calls=[CALL])], final_text="done")


def events(request: dict[str, Any]) -> list[dict[str, Any]]:
    reply = answer(SCRIPT, "responses", request)
    assert reply.status == 200 and reply.events is not None
    found = []
    for event in reply.events:
        data = next(line for line in event.decode().splitlines() if line.startswith("data: "))
        found.append(json.loads(data.removeprefix("data: ")))
    return found


def items(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [e["item"] for e in events(request) if e["type"] == "response.output_item.done"]


def test_the_first_request_gets_the_first_turn_and_the_next_the_final_text() -> None:
    user = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}
    first = items({"input": [user], "stream": True})
    assert [i["type"] for i in first] == ["message", "function_call"]
    call = first[1]
    assert (call["call_id"], call["name"], json.loads(call["arguments"])) == (
        "call_1", "exec_command", {"cmd": "ls"}
    )  # fmt: skip
    answered = [user, first[0], call, {"type": "function_call_output", "call_id": "call_1",
                                       "output": "a.txt"}]  # fmt: skip
    second = items({"input": answered, "stream": True})
    assert [(i["type"], i["content"][0]["text"]) for i in second] == [("message", "done")]
    kinds = [e["type"] for e in events({"input": answered})]
    assert (kinds[0], kinds[-1]) == ("response.created", "response.completed")


def test_a_request_without_an_input_list_is_a_400_in_openais_shape() -> None:
    reply = answer(SCRIPT, "responses", {"messages": []})
    assert reply.status == 400 and reply.body is not None
    assert "input" in reply.body["error"]["message"]
