"""The transcript: shaped like the real Claude Code CLI's, one compact JSON entry a line.

``fixtures/claude_transcript/real.jsonl`` is an excerpt of a transcript the real CLI wrote
(see the README beside it); hookline's entries must have its keys and JSON types, except for the
deliberate differences named here and in the module docstring of ``hookline._agent.transcript``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from hookline import Agent, Decision, ScriptedModel
from hookline._agent import transcript
from hookline._agent.messages import Message, ToolResultBlock
from hookline._agent.transcript import Transcript
from hookline._tools.base import ToolCall, ToolResult
from hookline._wording import reminder

REAL = Path(__file__).parent / "fixtures" / "claude_transcript" / "real.jsonl"

#: What the transcript is not told (the session or the CLI knows it).
NOT_TOLD = {"promptId", "permissionMode", "gitBranch", "entrypoint"}
#: What a ModelClient does not report.
NOT_REPORTED_BY_THE_MODEL = {
    "usage", "stop_details", "requestId", "requestRef", "promptCacheRequested", "effort",
    "perTurnEffort", "toolInputStreamMs",
}  # fmt: skip
#: The CLI's own bookkeeping.
CLI_BOOKKEEPING = {
    "promptSource", "sentAtMs", "rowSource", "turnOrigin", "turnPosition", "sandboxed",
    "permissionDecision",
}  # fmt: skip
DELIBERATE = NOT_TOLD | NOT_REPORTED_BY_THE_MODEL | CLI_BOOKKEEPING

BASH_HELLO = {"id": "toolu_1", "name": "Bash",
              "input": {"command": "echo hello", "description": "Print hello"}}  # fmt: skip


def read(path: str | Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in Path(path).read_text("utf-8").splitlines()]


def shape(value: Any) -> Any:
    """Key sets and JSON types, recursively, without the deliberate differences."""
    if isinstance(value, dict):
        return {k: shape(v) for k, v in value.items() if k not in DELIBERATE}
    if isinstance(value, list):
        return [shape(v) for v in value]
    return type(value).__name__


def kind(entry: dict[str, Any]) -> str:
    content = entry["message"]["content"]
    if entry["type"] == "user":
        return "prompt" if isinstance(content, str) else content[0]["type"]
    return f"assistant {content[0]['type']}"


def run(tmp_path: Path, turns: list[dict[str, Any]], **hooks: Decision) -> list[dict[str, Any]]:
    agent = Agent(ScriptedModel(turns), cwd=tmp_path)
    for event, decision in hooks.items():
        agent.registry.add(event, lambda e, d=decision: d)
    return read(agent.run_sync("Please print hello with bash.").transcript_path)


def new(tmp_path: Path) -> Transcript:
    return Transcript(tmp_path / "t.jsonl", session_id="s-1", cwd=str(tmp_path))


def call_and_result(transcript: Transcript, text: str, n: int = 1) -> None:
    call = ToolCall(f"toolu_{n}", "echo", {"text": text})
    transcript.append(Message("assistant", (call,)), model="m")
    result = ToolResult(call, "executed", text, call.input, output={"said": text})
    transcript.append(Message("user", (ToolResultBlock(call.id, text),)), results=[result])


# -- the shape of the real CLI's transcript ----------------------------------------------------


def test_each_entry_kind_has_the_keys_and_json_types_of_the_real_cli(tmp_path: Path) -> None:
    real = {kind(e): e for e in read(REAL)}
    ours = {kind(e): e for e in run(tmp_path, [{"tool_calls": [BASH_HELLO]},
                                               {"text": "Printed hello."}])}  # fmt: skip
    assert list(ours) == list(real) == [
        "prompt", "assistant tool_use", "tool_result", "assistant text"
    ]  # fmt: skip
    for name in real:
        assert shape(ours[name]) == shape(real[name]), name


def test_the_deliberate_differences_are_real_fields_and_are_documented() -> None:
    fields = set(re.findall(r'"(\w+)":', REAL.read_text("utf-8")))
    assert fields >= DELIBERATE
    assert all(f"``{name}``" in (transcript.__doc__ or "") for name in sorted(DELIBERATE))


def test_the_prompt_is_string_content_and_hook_text_is_meta(tmp_path: Path) -> None:
    log = run(tmp_path, [{"tool_calls": [BASH_HELLO]}, {"text": "done"}],
              UserPromptSubmit=Decision.context("UPS-CTX"),
              PostToolUse=Decision.context("POST-CTX"))  # fmt: skip
    users = [(e["message"]["content"], e.get("isMeta")) for e in log if e["type"] == "user"]
    assert [(c if isinstance(c, str) else c[0]["type"], meta) for c, meta in users] == [
        (reminder("UserPromptSubmit hook additional context: UPS-CTX"), True),
        ("Please print hello with bash.", None),
        ("tool_result", None),
        (reminder("PostToolUse:Bash hook additional context: POST-CTX"), True),
    ]


def test_a_reply_is_one_entry_per_block_sharing_one_message_envelope(tmp_path: Path) -> None:
    read_nope = {"id": "toolu_2", "name": "Read", "input": {"file_path": "nope.txt"}}
    log = run(tmp_path, [{"text": "Let me look.", "tool_calls": [BASH_HELLO, read_nope]},
                         {"text": "done"}])  # fmt: skip
    reply = [e for e in log if e["type"] == "assistant"][:3]
    assert [e["message"]["content"][0]["type"] for e in reply] == ["text", "tool_use", "tool_use"]
    assert [e["apiBlockIndex"] for e in reply] == [0, 1, 2]
    assert len({e["message"]["id"] for e in reply}) == 1
    assert {e["message"]["stop_reason"] for e in reply} == {"tool_use"}
    assert log[-1]["message"]["stop_reason"] == "end_turn"
    assert log[-1]["message"]["id"] != reply[0]["message"]["id"]


def test_each_tool_result_is_an_entry_with_its_structured_output(tmp_path: Path) -> None:
    read_nope = {"id": "toolu_2", "name": "Read", "input": {"file_path": "nope.txt"}}
    log = run(tmp_path, [{"tool_calls": [BASH_HELLO, read_nope]}, {"text": "done"}])
    results = [e for e in log if "toolUseResult" in e]
    assert [len(e["message"]["content"]) for e in results] == [1, 1]
    assert results[0]["toolUseResult"] == {
        "stdout": "hello", "stderr": "", "interrupted": False, "isImage": False,
        "noOutputExpected": False,
    }  # fmt: skip
    failed = results[1]["message"]["content"][0]
    assert failed["is_error"] is True
    assert results[1]["toolUseResult"] == f"Error: {failed['content']}"


def test_a_refused_call_has_the_error_text_as_tool_use_result(tmp_path: Path) -> None:
    log = run(tmp_path, [{"tool_calls": [BASH_HELLO]}, {"text": "done"}],
              PreToolUse=Decision.deny("not now"))  # fmt: skip
    (refused,) = [e for e in log if "toolUseResult" in e]
    assert refused["toolUseResult"] == "Error: PreToolUse:Bash hook error: not now"


# -- the chain ----------------------------------------------------------------------------------


def test_parent_uuid_chains_entries_in_order(tmp_path: Path) -> None:
    log = run(tmp_path, [{"tool_calls": [BASH_HELLO]}, {"tool_calls": [BASH_HELLO]},
                         {"text": "done"}])  # fmt: skip
    assert [e["parentUuid"] for e in log] == [None] + [e["uuid"] for e in log[:-1]]


def test_parallel_results_point_at_their_tool_use_and_the_next_entry_at_the_last(
    tmp_path: Path,
) -> None:
    second = {**BASH_HELLO, "id": "toolu_2"}
    log = run(tmp_path, [{"tool_calls": [BASH_HELLO, second]}, {"text": "done"}])
    prompt, use_1, use_2, result_1, result_2, final = log
    assert (use_1["parentUuid"], use_2["parentUuid"]) == (prompt["uuid"], use_1["uuid"])
    for use, result in [(use_1, result_1), (use_2, result_2)]:
        assert result["parentUuid"] == result["sourceToolAssistantUUID"] == use["uuid"]
    assert final["parentUuid"] == result_2["uuid"]


def test_ids_are_unique_and_uuid_shaped(tmp_path: Path) -> None:
    one, two = new(tmp_path), Transcript(tmp_path / "u.jsonl", session_id="s-2", cwd="/")
    for t in (one, two):
        t.append(Message.user("go"))
        for n in range(50):
            call_and_result(t, "x", n)
        t.close()
    ids = [e["uuid"] for e in read(one.path) + read(two.path)]
    assert len(ids) == len(set(ids)) == 202
    assert all(re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}", i)
               for i in ids)  # fmt: skip
    message_ids = [e["message"]["id"] for e in read(one.path) if e["type"] == "assistant"]
    assert len(set(message_ids)) == 50


# -- the file -----------------------------------------------------------------------------------


def test_one_compact_line_per_entry_with_claude_code_timestamps(tmp_path: Path) -> None:
    t = new(tmp_path)
    t.append(Message.user("go"))
    call_and_result(t, "x")
    t.append(Message.assistant("done"), model="m")
    t.close()
    lines = t.path.read_text("utf-8").splitlines()
    log = [json.loads(line) for line in lines]
    assert lines == [json.dumps(e, ensure_ascii=False, separators=(",", ":")) for e in log]
    assert [e["type"] for e in log] == ["user", "assistant", "user", "assistant"]
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", e["timestamp"]) for e in log)
    assert {(e["sessionId"], e["cwd"], e["isSidechain"]) for e in log} == {
        ("s-1", str(tmp_path), False)
    }


def test_entries_reach_the_file_on_flush_and_not_before(tmp_path: Path) -> None:
    t = new(tmp_path)
    t.append(Message.user("go"))
    assert not t.path.exists()
    t.flush()
    assert len(read(t.path)) == 1
    call_and_result(t, "x")
    assert len(read(t.path)) == 1
    t.flush()
    t.flush()
    assert len(read(t.path)) == 3
    t.close()


def test_close_flushes_what_is_pending(tmp_path: Path) -> None:
    t = new(tmp_path)
    t.append(Message.user("go"))
    call_and_result(t, "x")
    t.close()
    assert [e["type"] for e in read(t.path)] == ["user", "assistant", "user"]
    t.close()  # closing twice is harmless


@pytest.mark.parametrize(
    "text",
    [
        "héllo wörld ✓ 日本語 🎉",
        'nul \x00 bell \x07 tab \t cr \r newline \n escape \x1b[31m quote " backslash \\',
        "line separators \u2028 \u2029 next line \x85 form feed \x0c",
        "a lone surrogate \udcff from a badly decoded file name",
    ],
)
def test_any_text_is_one_valid_json_line(tmp_path: Path, text: str) -> None:
    t = new(tmp_path)
    t.append(Message.user(text))
    call_and_result(t, text)
    t.close()
    raw = t.path.read_bytes().decode("utf-8")  # strict UTF-8
    assert len(raw.splitlines()) == 3
    log = [json.loads(line) for line in raw.splitlines()]
    assert log[0]["message"]["content"] == text
    assert log[1]["message"]["content"][0]["input"] == {"text": text}
    assert log[2]["toolUseResult"] == {"said": text}
