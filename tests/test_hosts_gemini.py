"""Gemini CLI's hook payloads read as hookline's events, and decisions written as Gemini's
answers (``hookline._hosts.gemini``), with no server.

The payloads follow Gemini CLI's ``packages/core/src/hooks/types.ts``: ``HookInput``
(session_id, transcript_path, cwd, hook_event_name, timestamp), ``BeforeToolInput`` (tool_name,
tool_input, mcp_context, original_request_name), ``AfterToolInput`` (tool_response with
llmContent, returnDisplay, error) and ``BeforeAgentInput`` (prompt); the tools' names and
arguments follow ``packages/core/src/tools/definitions/base-declarations.ts``.
"""

from __future__ import annotations

from typing import Any

import pytest

from hookline import Decision
from hookline._errors import ConfigError
from hookline._hooks.wire import event_from_payload
from hookline._hosts import gemini


def gemini_payload(event: str = "BeforeTool", **fields: Any) -> dict[str, Any]:
    common = {
        "session_id": "8f0c2d9e-5b1a-4c7e-9d3f-2a6b1c0e4f57",
        "transcript_path": "/home/u/.gemini/tmp/p/chats/session-8f0c.json",
        "cwd": "/home/u/work",
        "hook_event_name": event,
        "timestamp": "2026-12-07T06:20:00.000Z",
    }
    return {**common, **fields}


def before_tool(name: str, args: dict[str, Any]) -> dict[str, Any]:
    return gemini_payload("BeforeTool", tool_name=name, tool_input=args)


@pytest.mark.parametrize(
    ("name", "args", "tool", "judged"),
    [
        ("run_shell_command", {"command": "ls", "description": "list"}, "Bash",
         {"command": "ls", "description": "list"}),
        ("run_shell_command", {"command": "sleep 9", "is_background": True}, "Bash",
         {"command": "sleep 9", "run_in_background": True}),
        ("read_file", {"file_path": "a.txt", "start_line": 3, "end_line": 9}, "Read",
         {"file_path": "a.txt"}),
        ("write_file", {"file_path": "a.txt", "content": "x"}, "Write",
         {"file_path": "a.txt", "content": "x"}),
        ("replace", {"file_path": "a.txt", "old_string": "a", "new_string": "b",
                     "instruction": "rename", "allow_multiple": True}, "Edit",
         {"file_path": "a.txt", "old_string": "a", "new_string": "b", "replace_all": True}),
        ("glob", {"pattern": "**/*.py", "dir_path": "src", "case_sensitive": False}, "Glob",
         {"pattern": "**/*.py", "path": "src"}),
        ("grep_search", {"pattern": "TODO", "dir_path": "src", "include_pattern": "*.py",
                         "names_only": True}, "Grep",
         {"pattern": "TODO", "path": "src", "glob": "*.py"}),
        ("search_file_content", {"pattern": "TODO"}, "Grep", {"pattern": "TODO"}),
        ("google_web_search", {"query": "hooks"}, "google_web_search", {"query": "hooks"}),
        ("mcp__github__create_issue", {"title": "t"}, "mcp__github__create_issue", {"title": "t"}),
    ],
)  # fmt: skip
def test_a_tool_call_is_read_as_hooklines_tool_with_its_arguments_renamed(
    name: str, args: dict[str, Any], tool: str, judged: dict[str, Any]
) -> None:
    event = gemini.event_payload(before_tool(name, args))
    assert event is not None
    assert (event["hook_event_name"], event["tool_name"], event["tool_input"]) == (
        "PreToolUse",
        tool,
        judged,
    )
    read, _ = event_from_payload(event)  # what the judge takes
    assert read.name == "PreToolUse"


def test_a_command_run_in_another_folder_is_judged_as_the_cd_that_gets_there() -> None:
    event = gemini.event_payload(
        before_tool("run_shell_command", {"command": "rm -rf x", "dir_path": "/etc"})
    )
    assert event is not None
    assert event["tool_input"] == {"command": "cd -- /etc && rm -rf x"}
    relative = gemini.event_payload(
        before_tool("run_shell_command", {"command": "ls", "dir_path": "a b"})
    )
    assert relative is not None
    assert relative["tool_input"] == {"command": "cd -- '/home/u/work/a b' && ls"}


def test_a_fixed_string_search_is_judged_as_the_literal_it_is() -> None:
    event = gemini.event_payload(
        before_tool("grep_search", {"pattern": "a(b", "fixed_strings": True})
    )
    assert event is not None
    assert event["tool_input"] == {"pattern": r"a\(b"}


def test_a_call_has_one_id_before_and_after_it_runs() -> None:
    args = {"file_path": "a.txt"}
    before = gemini.event_payload(before_tool("read_file", args))
    response = {"llmContent": "hello", "returnDisplay": "hello"}
    after = gemini.event_payload(
        gemini_payload("AfterTool", tool_name="read_file", tool_input=args, tool_response=response)
    )
    assert before is not None and after is not None
    assert before["tool_use_id"] == after["tool_use_id"]
    assert (after["hook_event_name"], after["tool_response"]) == ("PostToolUse", response)


def test_a_prompt_is_read_as_user_prompt_submit() -> None:
    event = gemini.event_payload(gemini_payload("BeforeAgent", prompt="fix the tests"))
    assert event is not None
    assert (event["hook_event_name"], event["prompt"]) == ("UserPromptSubmit", "fix the tests")


@pytest.mark.parametrize("name", ["BeforeModel", "AfterModel", "BeforeToolSelection"])
def test_events_hookline_does_not_judge_are_none(name: str) -> None:
    assert gemini.event_payload(gemini_payload(name)) is None


@pytest.mark.parametrize(
    ("name", "fields", "judged"),
    [
        (
            "AfterAgent",
            {"prompt": "fix it", "prompt_response": "done", "stop_hook_active": True},
            {"hook_event_name": "Stop", "last_assistant_message": "done", "stop_hook_active": True},
        ),
        (
            "SessionStart",
            {"source": "resume"},
            {"hook_event_name": "SessionStart", "source": "resume"},
        ),
        ("SessionEnd", {"reason": "exit"}, {"hook_event_name": "SessionEnd", "reason": "other"}),
        ("SessionEnd", {"reason": "logout"}, {"hook_event_name": "SessionEnd", "reason": "logout"}),
        ("PreCompress", {"trigger": "auto"}, {"hook_event_name": "PreCompact", "trigger": "auto"}),
        (
            "Notification",
            {"notification_type": "ToolPermission", "message": "ok?", "details": {}},
            {
                "hook_event_name": "Notification",
                "notification_type": "permission_prompt",
                "message": "ok?",
            },
        ),
    ],
)
def test_geminis_session_events_are_read_as_hooklines(
    name: str, fields: dict[str, Any], judged: dict[str, Any]
) -> None:
    event = gemini.event_payload(gemini_payload(name, **fields))
    assert event is not None
    common = {"session_id", "transcript_path", "cwd"}
    assert {key: value for key, value in event.items() if key not in common} == judged


def test_a_compaction_block_gemini_cannot_carry_out_is_not_answered() -> None:
    blocked = Decision("deny", "keep the whole history", system_message=("compacting",))
    said = gemini.answer(gemini_payload("PreCompress"), gemini.effective("PreCompress", blocked))
    assert said == {"systemMessage": "compacting"}


@pytest.mark.parametrize(
    "fields",
    [
        {"tool_input": {"command": "ls"}},
        {"tool_name": "run_shell_command", "tool_input": "ls"},
        {
            "tool_name": "read_file",
            "tool_input": {"file_path": "a", "absolute_path": "/etc/shadow"},
        },
    ],
)
def test_a_tool_call_without_a_tool_or_its_arguments_is_a_config_error(
    fields: dict[str, Any],
) -> None:
    with pytest.raises(ConfigError):
        gemini.event_payload(gemini_payload("BeforeTool", **fields))


def test_a_deny_is_geminis_deny_with_the_reason() -> None:
    said = gemini.answer(before_tool("write_file", {}), Decision.deny("no writes"))
    assert said == {"decision": "deny", "reason": "no writes"}


@pytest.mark.parametrize("decision", [Decision.ask("a change"), Decision.defer("later")])
def test_an_ask_or_a_defer_of_a_tool_call_is_a_deny_saying_the_way_out(decision: Decision) -> None:
    made = gemini.effective("BeforeTool", decision)
    said = gemini.answer(before_tool("write_file", {}), made)
    assert said["decision"] == "deny"
    assert "cannot ask" in said["reason"] and "hookline break-glass" in said["reason"]


def test_an_allow_is_an_allow_and_nothing_decided_is_an_empty_answer() -> None:
    assert gemini.answer(before_tool("read_file", {}), Decision.allow("read-only")) == {
        "decision": "allow"
    }
    assert gemini.answer(before_tool("read_file", {}), Decision()) == {}


def test_a_rewritten_input_goes_back_in_geminis_argument_names() -> None:
    sent = before_tool("replace", {"absolute_path": "a", "old_string": "x", "new_string": "y"})
    rewritten = {"file_path": "b", "old_string": "x", "new_string": "y", "replace_all": False}
    said = gemini.answer(sent, Decision.allow(updated_input=rewritten))
    assert said["hookSpecificOutput"]["tool_input"] == {
        "absolute_path": "b",
        "old_string": "x",
        "new_string": "y",
        "allow_multiple": False,
    }


def test_a_rewritten_tool_output_reaches_the_model_in_place_of_the_real_one() -> None:
    """Gemini cannot replace an output (its AfterTool reads no tool_output): a deny's reason
    is what the model gets instead, so a redaction is never dropped."""
    sent = gemini_payload("AfterTool", tool_name="read_file", tool_input={}, tool_response={})
    said = gemini.answer(sent, Decision(updated_output="[redacted]"))
    assert said == {"decision": "deny", "reason": "[redacted]"}


def test_context_a_message_and_a_stop_are_carried() -> None:
    decision = Decision(
        additional_context=("a", "b"), system_message=("hi",), continue_=False, stop_reason="done"
    )
    said = gemini.answer(gemini_payload("BeforeAgent", prompt="p"), decision)
    assert said == {
        "hookSpecificOutput": {"additionalContext": "a\n\nb"},
        "systemMessage": "hi",
        "continue": False,
        "stopReason": "done",
    }
