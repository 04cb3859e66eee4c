"""The Claude Agent SDK's types, errors and message parser on hookline (``hookline.sdk``).

Their fields, keys and types are held to the real SDK's source by tests/test_sdk_contract.py;
here, what a program does with them: constructs them positionally and by keyword, round-trips
permission updates, reads the errors. The parser is fed every line hookline's
``stream-json`` output writes, made by a real run of a scripted agent.
"""

from __future__ import annotations

import ast
import copy
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import hookline
import hookline._agent.messages
import hookline.sdk._hook_types as hook_types
import hookline.sdk._types as t
import hookline.types
from hookline import Agent, ScriptedModel
from hookline._claude.stream_json import ClaudeStream, Timing, result_object
from hookline._errors import HooklineError
from hookline.permissions import PermissionPolicy
from hookline.permissions._rules import PermissionRule
from hookline.sdk._errors import (
    ClaudeSDKError,
    CLIConnectionError,
    CLIJSONDecodeError,
    CLINotFoundError,
    MessageParseError,
    ProcessError,
    ResultError,
)
from hookline.sdk._parse import parse_message


def test_positional_construction_fills_the_sdks_field_order() -> None:
    message = t.AssistantMessage([t.TextBlock("hi")], "claude-x", "toolu_1", None, {"n": 1})
    assert (message.parent_tool_use_id, message.usage, message.session_id) == (
        "toolu_1",
        {"n": 1},
        None,
    )
    result = t.ResultMessage("success", 12, 3, False, 2, "sess", "end_turn", 0.5)
    assert (result.num_turns, result.session_id, result.total_cost_usd) == (2, "sess", 0.5)
    deny = t.PermissionResultDeny(message="no", interrupt=True)
    assert (deny.behavior, deny.message, deny.interrupt) == ("deny", "no", True)


def test_the_sdk_names_hookline_has_its_own_of_are_hooklines() -> None:
    from hookline._agent.subagent_types import AgentDefinition
    from hookline._events import PermissionMode
    from hookline._hooks.sdk_matchers import HookMatcher
    from hookline.sdk._options import ClaudeAgentOptions

    assert (t.HookMatcher, t.AgentDefinition, t.PermissionMode, t.ClaudeAgentOptions) == (
        HookMatcher,
        AgentDefinition,
        PermissionMode,
        ClaudeAgentOptions,
    )


def test_every_hook_type_is_exported_by_the_types_module() -> None:
    tree = ast.parse(Path(hook_types.__file__).read_text(encoding="utf-8"))
    defined = {n.name for n in tree.body if isinstance(n, ast.ClassDef)} | {
        target.id
        for n in tree.body
        if isinstance(n, ast.Assign)
        for target in n.targets
        if isinstance(target, ast.Name)
    }
    public = {name for name in defined if not name.startswith("_")}
    assert len(public) > 40
    assert public <= set(t.__all__)
    assert all(getattr(t, name) is getattr(hook_types, name) for name in public)


# -- PermissionUpdate ------------------------------------------------------------------------------

RULES = [t.PermissionRuleValue("Bash", "npm test"), t.PermissionRuleValue("Read")]
UPDATES = [
    t.PermissionUpdate("addRules", rules=RULES, behavior="allow", destination="localSettings"),
    t.PermissionUpdate("replaceRules", rules=RULES, behavior="deny", destination="session"),
    t.PermissionUpdate("removeRules", rules=[], behavior="ask", destination="userSettings"),
    t.PermissionUpdate("setMode", mode="acceptEdits", destination="session"),
    t.PermissionUpdate("addDirectories", directories=["/srv"], destination="projectSettings"),
    t.PermissionUpdate("removeDirectories", directories=["/tmp"], destination="session"),
]


@pytest.mark.parametrize("update", UPDATES, ids=lambda u: u.type)
def test_a_permission_update_survives_to_dict_and_from_dict(update: t.PermissionUpdate) -> None:
    assert t.PermissionUpdate.from_dict(update.to_dict()) == update


def test_to_dict_writes_claude_codes_shape() -> None:
    update = t.PermissionUpdate("addRules", rules=RULES, behavior="allow")
    assert update.to_dict() == {
        "type": "addRules",
        "destination": "session",  # none given: this session only
        "rules": [{"toolName": "Bash", "ruleContent": "npm test"}, {"toolName": "Read"}],
        "behavior": "allow",
    }
    assert t.PermissionUpdate("setMode", mode="plan").to_dict() == {
        "type": "setMode",
        "destination": "session",
        "mode": "plan",
    }


@pytest.mark.parametrize(
    ("update", "names"),
    [
        (t.PermissionUpdate("addRules", behavior="allow"), "rules"),
        (t.PermissionUpdate("replaceRules", rules=RULES), "behavior"),
        (t.PermissionUpdate("setMode"), "mode"),
        (t.PermissionUpdate("removeDirectories"), "directories"),
        (t.PermissionUpdate("bogus"), "bogus"),  # type: ignore[arg-type]
    ],
)
def test_to_dict_refuses_an_update_claude_code_would_drop(
    update: t.PermissionUpdate, names: str
) -> None:
    with pytest.raises(ValueError, match=names):
        update.to_dict()


def test_from_dict_reads_a_missing_rule_content_as_none_and_needs_a_type() -> None:
    read = t.PermissionUpdate.from_dict({"type": "addRules", "rules": [{"toolName": "Read"}]})
    assert read.rules == [t.PermissionRuleValue("Read", None)]
    assert (read.behavior, read.destination) == (None, None)
    with pytest.raises(KeyError, match="type"):
        t.PermissionUpdate.from_dict({"rules": []})
    with pytest.raises(KeyError, match="toolName"):
        t.PermissionUpdate.from_dict({"type": "addRules", "rules": [{"ruleContent": "x"}]})


# -- errors ----------------------------------------------------------------------------------------


def test_the_sdk_errors_are_hookline_errors_with_the_sdks_messages() -> None:
    assert issubclass(ClaudeSDKError, HooklineError)
    assert issubclass(CLINotFoundError, CLIConnectionError)
    assert issubclass(ResultError, ProcessError)
    assert str(ClaudeSDKError("boom")) == "boom"
    assert str(CLINotFoundError()) == "Claude Code not found"
    assert str(CLINotFoundError("missing", cli_path="/bin/claude")) == "missing: /bin/claude"
    error = ProcessError("failed", exit_code=2, stderr="bad flag")
    assert str(error) == "failed (exit code: 2)\nError output: bad flag"
    assert (error.exit_code, error.stderr) == (2, "bad flag")
    assert str(ProcessError("failed")) == "failed"
    line = "x" * 150
    decode = CLIJSONDecodeError(line, ValueError("no"))
    assert str(decode) == f"Failed to decode JSON: {'x' * 100}..."
    assert (decode.line, str(decode.original_error)) == (line, "no")
    parse = MessageParseError("odd", {"type": "x"})
    assert (str(parse), parse.data) == ("odd", {"type": "x"})


def test_a_result_error_reads_its_result_and_survives_copy_and_pickle() -> None:
    data = {
        "subtype": "error_max_turns",
        "errors": ["  too many turns ", "", 7],
        "result": "partial",
        "api_error_status": 529,
        "terminal_reason": "max_turns",
        "session_id": "sess",
    }
    error = ResultError("run failed", data, exit_code=1)
    assert str(error) == "run failed (exit code: 1)"
    assert (error.subtype, error.errors, error.result) == (
        "error_max_turns",
        ["too many turns"],
        "partial",
    )
    assert (error.api_error_status, error.terminal_reason, error.session_id) == (
        529,
        "max_turns",
        "sess",
    )
    assert ResultError("x", {"errors": "one line"}).errors == ["one line"]
    for again in (copy.copy(error), pickle.loads(pickle.dumps(error))):
        assert (str(again), again.subtype, again.exit_code) == (str(error), "error_max_turns", 1)


# -- parse_message on hookline's own stream-json lines ---------------------------------------------


def streamed(tmp_path: Path, turns: list[Any], **options: Any) -> list[dict[str, Any]]:
    """Every line ``hookline run --output-format stream-json`` writes for a run of ``turns``."""
    agent = Agent(ScriptedModel(turns), cwd=tmp_path, **options)
    lines: list[dict[str, Any]] = []
    agent.observe(ClaudeStream(agent, lines.append))
    timing = Timing(agent)
    result = agent.run_sync("go")
    lines.append(result_object(result, timing=timing, max_turns=agent.options.max_turns))
    return lines


def test_every_line_of_a_hookline_run_parses_as_claude_code_s_would(tmp_path: Path) -> None:
    """A subagent reads a file, then a Bash call is denied by a rule: the SDK messages come out
    in order, the subagent's marked with the Agent call; the denied command never ran."""
    notes = tmp_path / "notes.txt"
    notes.write_text("hello\n")
    sentinel = tmp_path / "SENTINEL"
    delegate = {"description": "look", "prompt": "read it", "subagent_type": "general-purpose"}
    turns = [
        {"tool_calls": [{"id": "toolu_agent", "name": "Agent", "input": delegate}]},
        {"tool_calls": [{"id": "toolu_read", "name": "Read", "input": {"file_path": str(notes)}}]},
        {"text": "it says hello"},
        {"text": "now", "tool_calls": [{"id": "toolu_bash", "name": "Bash",
                                        "input": {"command": f"touch {sentinel}"}}]},
        {"text": "done"},
    ]  # fmt: skip
    deny = PermissionPolicy(deny=((PermissionRule.parse("Bash(touch:*)"), "test"),))
    lines = streamed(tmp_path, turns, permissions=deny)
    parsed = [parse_message(line) for line in lines]
    own = {line["type"] for line, message in zip(lines, parsed, strict=True) if message is None}
    assert own == {"event", "tool_call"}  # hookline's own lines (no hooks ran: no hook_run)
    messages = [m for m in parsed if m is not None]
    shapes = [(type(m).__name__, getattr(m, "parent_tool_use_id", None)) for m in messages]
    assert shapes == [
        ("SystemMessage", None),
        ("AssistantMessage", None),
        ("AssistantMessage", "toolu_agent"),
        ("UserMessage", "toolu_agent"),
        ("AssistantMessage", "toolu_agent"),
        ("UserMessage", None),
        ("AssistantMessage", None),
        ("UserMessage", None),
        ("AssistantMessage", None),
        ("ResultMessage", None),
    ]
    init, call, *_, answer, result = messages
    assert isinstance(init, t.SystemMessage) and init.subtype == "init"
    assert isinstance(result, t.ResultMessage)
    assert init.data["session_id"] == result.session_id
    assert isinstance(call, t.AssistantMessage)
    assert call.content == [t.ToolUseBlock("toolu_agent", "Agent", delegate)]
    assert (call.model, call.session_id) == ("scripted", result.session_id)
    assert call.message_id is not None and call.message_id.startswith("msg_")
    assert call.usage is not None and call.usage["input_tokens"] == 0
    assert call.uuid
    sub_result = messages[3]
    assert isinstance(sub_result, t.UserMessage)
    assert sub_result.content == [t.ToolResultBlock("toolu_read", "1\thello\n2\t", False)]
    denied = messages[7]
    assert isinstance(denied, t.UserMessage) and isinstance(denied.content, list)
    (block,) = denied.content
    assert isinstance(block, t.ToolResultBlock) and block.is_error is True
    assert "denied" in str(block.content)
    assert isinstance(answer, t.AssistantMessage) and answer.content == [t.TextBlock("done")]
    assert (result.subtype, result.is_error, result.result, result.errors) == (
        "success",
        False,
        "done",
        None,
    )
    assert result.permission_denials is not None
    assert [d["tool_use_id"] for d in result.permission_denials] == ["toolu_bash"]
    assert result.total_cost_usd == 0 and result.uuid
    assert not sentinel.exists()


def test_a_run_cut_short_by_the_turn_limit_parses_as_an_error_result(tmp_path: Path) -> None:
    sentinel = tmp_path / "SENTINEL"
    turns = [{"tool_calls": [{"name": "Glob", "input": {"pattern": "*"}}]}, {"text": "never"}]
    lines = streamed(tmp_path, turns, max_turns=1)
    result = parse_message(lines[-1])
    assert isinstance(result, t.ResultMessage)
    assert (result.subtype, result.is_error) == ("error_max_turns", True)
    assert result.errors == ["Reached maximum number of turns (1)"]
    assert not sentinel.exists()


# -- parse_message on Claude Code's other shapes ---------------------------------------------------

SESSION = {"session_id": "sess", "uuid": "u-1"}


def test_assistant_blocks_of_every_kind_are_read_and_unknown_ones_left_out() -> None:
    line = {
        "type": "assistant",
        **SESSION,
        "error": "rate_limit",
        "message": {
            "model": "claude-x",
            "id": "msg_1",
            "stop_reason": "tool_use",
            "content": [
                {"type": "thinking", "thinking": "hmm", "signature": "sig"},
                {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {"q": 1}},
                {"type": "advisor_tool_result", "tool_use_id": "s1", "content": {"type": "r"}},
                {"type": "image", "source": {}},
                {"type": "text", "text": "hi"},
            ],
        },
    }
    message = parse_message(line)
    assert message == t.AssistantMessage(
        content=[
            t.ThinkingBlock("hmm", "sig"),
            t.ServerToolUseBlock("s1", "web_search", {"q": 1}),
            t.ServerToolResultBlock("s1", {"type": "r"}),
            t.TextBlock("hi"),
        ],
        model="claude-x",
        error="rate_limit",
        message_id="msg_1",
        stop_reason="tool_use",
        session_id="sess",
        uuid="u-1",
    )


def test_a_user_message_keeps_text_content_and_its_origin() -> None:
    line = {
        "type": "user",
        "message": {"role": "user", "content": "plain prompt"},
        "origin": {"kind": "human"},
        "tool_use_result": {"stdout": "x"},
    }
    assert parse_message(line) == t.UserMessage(
        "plain prompt", origin={"kind": "human"}, tool_use_result={"stdout": "x"}
    )
    blocks = {"role": "user", "content": [{"type": "thinking", "thinking": "x", "signature": "s"}]}
    odd = parse_message({"type": "user", "message": blocks, "origin": {"kind": 3}})
    assert odd == t.UserMessage([], origin=None)  # no thinking from a user; a kind is a string


def test_a_result_reads_model_usage_and_a_deferred_call() -> None:
    line = {
        "type": "result",
        "subtype": "success",
        "duration_ms": 5,
        "duration_api_ms": 2,
        "is_error": False,
        "num_turns": 1,
        "session_id": "sess",
        "modelUsage": {"claude-x": {"inputTokens": 1}},
        "deferred_tool_use": {"id": "toolu_1", "name": "Bash", "input": {"command": "ls"}},
        "stop_reason": "tool_deferred",
    }
    result = parse_message(line)
    assert isinstance(result, t.ResultMessage)
    assert result.model_usage == {"claude-x": {"inputTokens": 1}}
    assert result.deferred_tool_use == t.DeferredToolUse("toolu_1", "Bash", {"command": "ls"})
    assert result.stop_reason == "tool_deferred"


def test_a_stream_event_and_a_system_line_of_any_subtype_are_read() -> None:
    event = {"type": "content_block_delta", "delta": {"type": "text_delta", "text": "h"}}
    line = {"type": "stream_event", **SESSION, "event": event, "parent_tool_use_id": "toolu_9"}
    assert parse_message(line) == t.StreamEvent("u-1", "sess", event, "toolu_9")
    status = {"type": "system", "subtype": "status", "status": "compacting"}
    assert parse_message(status) == t.SystemMessage("status", status)


@pytest.mark.parametrize(
    "line",
    [
        {"type": "rate_limit_event", "rate_limit_info": {"status": "allowed"}},
        {"type": "event", "event": "Stop", "payload": {}},
        {"type": "from_a_newer_claude_code"},
        {"type": 7},
    ],
)
def test_a_line_of_a_type_the_sdk_does_not_read_is_none(line: dict[str, Any]) -> None:
    assert parse_message(line) is None


@pytest.mark.parametrize(
    ("line", "named"),
    [
        ({"subtype": "init"}, "'type'"),
        ({"type": ""}, "'type'"),
        ({"type": "system"}, "'subtype'"),
        ({"type": "result", "subtype": "success", "duration_api_ms": 1}, "'duration_ms'"),
        ({"type": "assistant", "message": {"content": []}}, "'model'"),
        ({"type": "assistant", "message": {"model": "m", "content": "hi"}}, "a list"),
        ({"type": "assistant", "message": {"model": "m", "content": ["hi"]}}, "JSON object"),
        ({"type": "assistant", "message": {"model": "m", "content": [{"text": "x"}]}}, "'type'"),
        ({"type": "user", "message": {"content": [{"type": "text"}]}}, "'text'"),
        ({"type": "user", "message": "hello"}, "malformed"),
        ({"type": "stream_event", "uuid": "u", "session_id": "s"}, "'event'"),
        ({"type": "result", **dict.fromkeys(("subtype", "duration_ms", "duration_api_ms",
          "is_error", "num_turns", "session_id"), 1), "deferred_tool_use": {"id": "x"}}, "'name'"),
    ],
)  # fmt: skip
def test_a_malformed_line_of_a_known_type_names_what_is_wrong(
    line: dict[str, Any], named: str
) -> None:
    with pytest.raises(MessageParseError, match=named) as caught:
        parse_message(line)
    assert caught.value.data == line


def test_a_line_that_is_not_an_object_is_a_parse_error() -> None:
    with pytest.raises(MessageParseError, match="not list"):
        parse_message(["type", "user"])  # type: ignore[arg-type]


# -- hookline.types and the top-level names --------------------------------------------------------


def test_hookline_types_gives_the_sdk_types_module_names() -> None:
    from hookline.types import AssistantMessage, HookJSONOutput, PermissionUpdate

    assert (AssistantMessage, HookJSONOutput, PermissionUpdate) == (
        t.AssistantMessage,
        t.HookJSONOutput,
        t.PermissionUpdate,
    )
    assert hookline.types.__all__ == t.__all__
    assert all(getattr(hookline.types, name) is getattr(t, name) for name in t.__all__)
    assert hookline.types.Message is t.Message
    assert hookline.Message is hookline._agent.messages.Message  # hookline's own stays its own


def test_an_sdk_name_hookline_lacks_is_an_import_error_pointing_to_the_docs() -> None:
    with pytest.raises(ImportError, match=r"claude_agent_sdk's SessionStore yet: see docs/"):
        from hookline.types import SessionStore  # noqa: F401
    with pytest.raises(ImportError, match="list_sessions"):
        hookline.types.list_sessions  # noqa: B018
    assert not hookline.types.NOT_PROVIDED & set(hookline.types.__all__)


def test_a_name_the_sdk_lacks_too_is_the_usual_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Nonsense'"):
        hookline.types.Nonsense  # noqa: B018
    assert not hasattr(hookline.types, "Nonsense")


def test_the_top_level_names_load_the_sdk_types_only_when_used() -> None:
    script = (
        "import sys, hookline\n"
        "assert 'hookline.sdk._types' not in sys.modules\n"
        "from hookline import AssistantMessage, ClaudeSDKError, PermissionResultAllow\n"
        "import hookline.sdk._types as t, hookline.sdk._errors as e\n"
        "assert AssistantMessage is t.AssistantMessage and ClaudeSDKError is e.ClaudeSDKError\n"
        "assert hookline.PermissionResultAllow is t.PermissionResultAllow\n"
        "print('ok')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "ok\n", "")
