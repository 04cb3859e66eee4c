"""Cursor's hook payloads read as hookline's events, and decisions written as Cursor's answers
(``hookline._hosts.cursor``), with no server.

The payloads follow Cursor's hooks documentation: every event has ``conversation_id``,
``generation_id``, ``hook_event_name`` and ``workspace_roots`` (and ``cursor_version``,
``model``, ``user_email``); ``beforeShellExecution`` adds ``command`` and ``cwd``,
``beforeReadFile`` ``file_path``, ``content`` and ``attachments``, ``beforeMCPExecution``
``tool_name`` and ``tool_input`` (JSON text), ``afterFileEdit`` ``file_path`` and ``edits``,
``beforeSubmitPrompt`` ``prompt``, ``stop`` ``status`` and ``loop_count``.
"""

from __future__ import annotations

from typing import Any

import pytest

from hookline import Decision
from hookline._errors import ConfigError
from hookline._hooks.wire import event_from_payload
from hookline._hosts import cursor


def cursor_payload(event: str, **fields: Any) -> dict[str, Any]:
    common = {
        "conversation_id": "c7a1e2f0-3b4d-4e5f-8a9b-0c1d2e3f4a5b",
        "generation_id": "g-42",
        "hook_event_name": event,
        "workspace_roots": ["/home/u/work"],
        "cursor_version": "2.1.0",
        "model": "claude-sonnet",
        "user_email": "dev@example.com",
    }
    return {**common, **fields}


@pytest.mark.parametrize(
    ("sent", "judged"),
    [
        (cursor_payload("beforeShellExecution", command="rm -rf x", cwd="/home/u/work/sub"),
         ("PreToolUse", "Bash", {"command": "rm -rf x"}, "/home/u/work/sub")),
        (cursor_payload("beforeReadFile", file_path="/home/u/work/.env", content="KEY=1",
                        attachments=[]),
         ("PreToolUse", "Read", {"file_path": "/home/u/work/.env"}, "/home/u/work")),
        (cursor_payload("beforeMCPExecution", tool_name="query", tool_input='{"sql": "drop"}'),
         ("PreToolUse", "query", {"sql": "drop"}, "/home/u/work")),
        (cursor_payload("preToolUse", tool_name="Shell", tool_input={"command": "ls"}),
         ("PreToolUse", "Bash", {"command": "ls"}, "/home/u/work")),
        (cursor_payload("afterFileEdit", file_path="/home/u/work/a.ts",
                        edits=[{"old_string": "1", "new_string": "2"}]),
         ("PostToolUse", "Edit", {"file_path": "/home/u/work/a.ts",
                                  "edits": [{"old_string": "1", "new_string": "2"}]},
          "/home/u/work")),
    ],
)  # fmt: skip
def test_a_tool_event_is_read_as_hooklines_tool_call(
    sent: dict[str, Any], judged: tuple[str, str, dict[str, Any], str]
) -> None:
    event = cursor.event_payload(sent)
    assert event is not None
    assert (event["hook_event_name"], event["tool_name"], event["tool_input"], event["cwd"]) == (
        judged
    )
    assert "content" not in event["tool_input"]  # a file's content is not judged, nor recorded
    read, _ = event_from_payload(event)  # what the judge takes
    assert read.session_id == sent["conversation_id"]


def test_a_call_has_one_id_before_and_after_it_runs() -> None:
    before = cursor.event_payload(cursor_payload("beforeShellExecution", command="ls", cwd="/w"))
    after = cursor.event_payload(
        cursor_payload("afterShellExecution", command="ls", cwd="/w", output="a\n", duration=3)
    )
    assert before is not None and after is not None
    assert before["tool_use_id"] == after["tool_use_id"]
    assert after["tool_response"] == "a\n"


def test_a_prompt_and_a_stop_are_read_as_hooklines() -> None:
    prompt = cursor.event_payload(cursor_payload("beforeSubmitPrompt", prompt="hi", attachments=[]))
    assert prompt is not None and (prompt["hook_event_name"], prompt["prompt"]) == (
        "UserPromptSubmit",
        "hi",
    )
    again = cursor.event_payload(cursor_payload("stop", status="completed", loop_count=2))
    assert again is not None and (again["hook_event_name"], again["stop_hook_active"]) == (
        "Stop",
        True,
    )
    assert cursor.event_payload(cursor_payload("afterAgentThought", text="hm")) is None


@pytest.mark.parametrize(
    ("sent", "says"),
    [
        ({"command": "ls"}, "hook_event_name"),
        (cursor_payload("beforeShellExecution", cwd="/w"), "no command"),
        ({**cursor_payload("beforeReadFile", file_path="a"), "workspace_roots": []}, "no cwd"),
        (cursor_payload("beforeMCPExecution", tool_name="q", tool_input="{not json"), "not JSON"),
        (cursor_payload("beforeMCPExecution", tool_name="q", tool_input="[1]"), "not an object"),
    ],
)
def test_a_payload_that_is_not_cursors_is_an_error(sent: dict[str, Any], says: str) -> None:
    with pytest.raises(ConfigError, match=says):
        cursor.event_payload(sent)


@pytest.mark.parametrize("event", sorted(cursor.PERMISSION_EVENTS))
def test_a_tool_call_hookline_would_ask_about_is_denied_saying_the_way_out(event: str) -> None:
    said = cursor.answer(event, cursor.effective(event, Decision.ask("git push needs a person")))
    assert said["permission"] == "deny"
    assert "git push needs a person" in said["agent_message"]
    assert "ask does not hold" in said["user_message"] and "break-glass" in said["agentMessage"]


def test_answers_in_cursors_words() -> None:
    assert cursor.answer("beforeShellExecution", Decision.allow("a rule")) == {
        "permission": "allow"
    }
    assert cursor.answer("beforeShellExecution", Decision()) == {}
    assert cursor.answer("preToolUse", Decision.rewrite({"command": "ls -a"})) == {
        "updated_input": {"command": "ls -a"}
    }
    assert cursor.answer("beforeSubmitPrompt", Decision.block("no secrets")) == {
        "continue": False, "user_message": "no secrets", "userMessage": "no secrets"
    }  # fmt: skip
    assert cursor.answer("beforeSubmitPrompt", Decision()) == {"continue": True}
    assert cursor.answer("stop", Decision.block("run the tests")) == {
        "followup_message": "run the tests"
    }
    assert cursor.answer("afterFileEdit", Decision.block("too late to refuse")) == {}
