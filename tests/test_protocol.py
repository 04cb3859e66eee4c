"""Reading Claude Code hook output (its JSON answer shape) into a Decision."""

from __future__ import annotations

import pytest

from hookline import NO_DECISION, Decision, InvalidHookOutput
from hookline._hooks.protocol import MAX_ANSWER_DEPTH, answer_text, decision_from_output, loads


def pre(**specific):
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", **specific}}


def permission_request(**decision):
    return {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}}


@pytest.mark.parametrize(
    ("output", "decision"),
    [
        (pre(permissionDecision="allow"), Decision.allow()),
        (pre(permissionDecision="deny", permissionDecisionReason="R"), Decision.deny("R")),
        (pre(permissionDecision="ask", permissionDecisionReason="sure?"), Decision.ask("sure?")),
        (pre(permissionDecision="defer", permissionDecisionReason="L"), Decision.defer("L")),
        (
            pre(permissionDecision="allow", updatedInput={"command": "ls -la"}),
            Decision.allow(updated_input={"command": "ls -la"}),
        ),
        (pre(updatedInput={"command": "pwd"}), Decision.rewrite({"command": "pwd"})),
        (pre(additionalContext="C"), Decision.context("C")),
        ({"decision": "approve", "reason": "fine"}, Decision.allow("fine")),
        ({"decision": "block", "reason": "R"}, Decision.deny("R")),
        ({"decision": "block"}, Decision.deny("blocked by hook")),
        ({"continue": False, "stopReason": "T"}, Decision.stop("T")),
        ({"continue_": False, "stopReason": "T"}, Decision.stop("T")),
        ({"continue": True}, NO_DECISION),
        ({"systemMessage": "M"}, Decision.message("M")),
        ({}, NO_DECISION),
        ({"suppressOutput": True, "someFutureKey": {"x": 1}}, NO_DECISION),
        (pre(permissionDecision="deny", permissionDecisionReason="R", new=1), Decision.deny("R")),
    ],
)  # fmt: skip
def test_pre_tool_use_output_becomes_a_decision(output, decision):
    assert decision_from_output("PreToolUse", output) == decision


def test_hook_specific_permission_overrides_the_legacy_decision():
    output = {"decision": "approve", **pre(permissionDecision="deny", permissionDecisionReason="R")}
    assert decision_from_output("PreToolUse", output) == Decision.deny("R")


def test_a_hook_specific_output_for_another_event_is_rejected_with_the_cli_message():
    output = {"hookSpecificOutput": {"hookEventName": "PostToolUse", "permissionDecision": "deny"}}
    with pytest.raises(InvalidHookOutput) as caught:
        decision_from_output("PreToolUse", output)
    assert str(caught.value) == (
        "Hook returned incorrect event name: expected 'PreToolUse' but got 'PostToolUse'"
    )
    assert caught.value.kind == "wrong_event"


@pytest.mark.parametrize(
    "output",
    [
        pre(permissionDecision="maybe"),
        pre(permissionDecision=True),
        pre(permissionDecision="deny", permissionDecisionReason=42),
        pre(updatedInput="command=ls"),
        pre(additionalContext=["C"]),
        {"hookSpecificOutput": "deny"},
        {"continue": "false"},
        {"stopReason": 1},
        {"systemMessage": {"text": "M"}},
        {"decision": "allow"},
        {"decision": True},
        {"reason": ["R"], "decision": "block"},
    ],
)
def test_a_field_of_the_wrong_type_or_value_makes_the_answer_invalid(output):
    with pytest.raises(InvalidHookOutput):
        decision_from_output("PreToolUse", output)


@pytest.mark.parametrize("output", [None, "deny", 2, ["deny"], ("allow",)])
def test_anything_but_a_json_object_is_invalid(output):
    with pytest.raises(InvalidHookOutput, match="expected a JSON object"):
        decision_from_output("PreToolUse", output)


@pytest.mark.parametrize(
    ("output", "decision"),
    [
        (
            {"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": {"a": 1}}},
            Decision.replace_output({"a": 1}),
        ),
        (
            {"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedMCPToolOutput": "x"}},
            Decision.replace_output("x"),
        ),
        (
            {"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": None}},
            Decision.replace_output(None),
        ),
        ({"decision": "block", "reason": "tests fail"}, Decision.block("tests fail")),
        (
            {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "C"}},
            Decision.context("C"),
        ),
    ],
)
def test_post_tool_use_output_becomes_a_decision(output, decision):
    assert decision_from_output("PostToolUse", output) == decision


@pytest.mark.parametrize(
    ("output", "decision"),
    [
        (permission_request(behavior="allow"), Decision.allow()),
        (
            permission_request(behavior="allow", updatedInput={"file_path": "/w/a"}),
            Decision.allow(updated_input={"file_path": "/w/a"}),
        ),
        (permission_request(behavior="deny", message="M"), Decision.deny("M")),
        (permission_request(behavior="deny"), Decision.deny("denied by PermissionRequest hook")),
        (
            permission_request(behavior="deny", message="M", interrupt=True),
            Decision("deny", "M", continue_=False),
        ),
        (permission_request(behavior="deny", message="M", interrupt=False), Decision.deny("M")),
    ],
)
def test_permission_request_decision_behavior(output, decision):
    assert decision_from_output("PermissionRequest", output) == decision


def test_permission_request_with_an_unknown_behavior_is_invalid():
    with pytest.raises(InvalidHookOutput, match="behavior"):
        decision_from_output("PermissionRequest", permission_request(behavior="ask"))


def test_stop_block_keeps_its_reason_for_the_model():
    decision = decision_from_output("Stop", {"decision": "block", "reason": "run the tests"})
    assert decision == Decision.block("run the tests")


# -- from bytes to JSON -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        b'{"a": 1}',
        b' \n\t{"a": 1}',
        b'\xef\xbb\xbf{"a": 1}',
        b'\xef\xbb\xbf \xef\xbb\xbf{"a": 1}',  # a mark, a blank and a mark again
        '{"a": 1}'.encode("utf-16"),
        '{"a": 1}'.encode("utf-16-be"),
        '\ufeff {"a": 1}'.encode("utf-32"),
        '{"a": 1}'.encode("utf-32-le"),
    ],
)
def test_answer_text_reads_utf_8_16_and_32_past_byte_order_marks_and_blanks(raw: bytes) -> None:
    assert loads(answer_text(raw)) == {"a": 1}


def test_answer_text_keeps_what_is_not_in_its_encoding_as_a_replacement_or_refuses_it() -> None:
    assert answer_text(b'{"a": "\xff"}') == '{"a": "\ufffd"}'
    with pytest.raises(UnicodeDecodeError):
        answer_text(b'{"a": "\xff"}', errors="strict")


def test_loads_reads_an_answer_as_deep_as_the_limit_and_refuses_one_level_more() -> None:
    def nested(levels: int) -> str:  # the object is one level, each list one more
        return '{"a":' + "[" * (levels - 1) + "]" * (levels - 1) + "}"

    assert isinstance(loads(nested(MAX_ANSWER_DEPTH)), dict)
    with pytest.raises(ValueError, match=f"nested more than {MAX_ANSWER_DEPTH} levels"):
        loads(nested(MAX_ANSWER_DEPTH + 1))
    brackets_in_a_string = '{"a": "' + "[" * 10 * MAX_ANSWER_DEPTH + '"}'
    assert loads(brackets_in_a_string) == {"a": "[" * 10 * MAX_ANSWER_DEPTH}


@pytest.mark.parametrize("text", ["{", '{"a": 1} x', '{"a": ' + "[" * 100_000, "\ufeff{}"])
def test_loads_refuses_what_does_not_parse_with_a_value_error(text: str) -> None:
    with pytest.raises(ValueError):
        loads(text)
