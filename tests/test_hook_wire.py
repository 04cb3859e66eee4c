"""The protocol the other way round: a host's payload read into an event, a Decision written as
the answer the host reads, and read back by the reader of hook answers as what was written."""

from __future__ import annotations

from typing import Any

import pytest

from hookline._decisions import Decision
from hookline._errors import ConfigError
from hookline._events import PreToolUse
from hookline._hooks.protocol import decision_from_output
from hookline._hooks.wire import answer_for, event_from_payload

PRE_TOOL_USE = {
    "session_id": "d0bec9ad",
    "transcript_path": "/home/u/.claude/projects/p/d0bec9ad.jsonl",
    "cwd": "/work/repo",
    "prompt_id": "f267b3ef",
    "permission_mode": "default",
    "effort": {"level": "medium"},
    "hook_event_name": "PreToolUse",
    "tool_name": "Bash",
    "tool_input": {"command": "echo hello", "description": "Print hello"},
    "tool_use_id": "toolu_801a",
}

ROUND_TRIPS = [
    ("PreToolUse", Decision(permission="deny", reason="no")),
    ("PreToolUse", Decision(permission="allow", reason="fine", updated_input={"command": "ls"})),
    ("PreToolUse", Decision(permission="ask", reason="a person must look")),
    ("PreToolUse", Decision(permission="defer", reason="later")),
    ("PreToolUse", Decision(updated_input={"command": "ls -a"})),
    ("PreToolUse", Decision(additional_context=("mind the tests",))),
    ("PreToolUse", Decision(continue_=False, stop_reason="enough")),
    ("PermissionRequest", Decision(permission="allow")),
    ("PermissionRequest", Decision(permission="allow", updated_input={"command": "ls"})),
    ("PermissionRequest", Decision(permission="deny", reason="not that")),
    ("PostToolUse", Decision(permission="deny", reason="look again")),
    ("PostToolUse", Decision(updated_output={"stdout": "[masked]"})),
    ("UserPromptSubmit", Decision(permission="deny", reason="not this prompt")),
    ("Stop", Decision(permission="deny", reason="the tests fail", system_message=("note",))),
    ("SessionStart", Decision(additional_context=("the repo is frozen",))),
    ("Notification", Decision()),
]


@pytest.mark.parametrize(("event", "decision"), ROUND_TRIPS)
def test_an_answer_reads_back_as_the_decision_it_was_written_from(
    event: str, decision: Decision
) -> None:
    assert decision_from_output(event, answer_for(event, decision)) == decision


@pytest.mark.parametrize(
    ("event", "decision", "answer"),
    [
        ("PreToolUse", Decision(), {}),
        ("PermissionRequest", Decision(permission="ask", reason="ask them"), {}),
        (
            "PreToolUse",
            Decision(permission="deny", reason="no"),
            {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": "no",
                }
            },
        ),
        (
            "Stop",
            Decision(permission="deny", reason="go on"),
            {"decision": "block", "reason": "go on"},
        ),
    ],
)
def test_each_event_is_answered_in_its_own_pattern(
    event: str, decision: Decision, answer: dict[str, Any]
) -> None:
    assert answer_for(event, decision) == answer


def test_a_payload_becomes_the_event_and_says_which_fields_it_left_out() -> None:
    event, ignored = event_from_payload(PRE_TOOL_USE)
    assert isinstance(event, PreToolUse)
    assert (event.tool_name, event.tool_use_id, event.cwd) == ("Bash", "toolu_801a", "/work/repo")
    assert event.tool_input == {"command": "echo hello", "description": "Print hello"}
    assert ignored == ("effort",)


@pytest.mark.parametrize(
    ("payload", "said"),
    [
        ({**PRE_TOOL_USE, "hook_event_name": None}, "no hook_event_name"),
        ({**PRE_TOOL_USE, "hook_event_name": "PreToolUze"}, "unknown event 'PreToolUze'"),
        ({**PRE_TOOL_USE, "tool_input": "rm -rf /"}, "not a PreToolUse event: tool_input"),
        ({k: v for k, v in PRE_TOOL_USE.items() if k != "tool_name"}, "tool_name: Field required"),
    ],
)
def test_a_payload_that_is_not_an_event_says_what_is_wrong(
    payload: dict[str, Any], said: str
) -> None:
    with pytest.raises(ConfigError, match=said):
        event_from_payload(payload)
