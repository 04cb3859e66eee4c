"""Claude Agent SDK hook programs, run on hookline unchanged but for the import.

The programs are those of the SDK's own end-to-end hook tests (hook events, the newer hook
events): the same options, the same callbacks, the same checks on what the program sees; the
model is scripted, so each test also shows what the hook did to the call (a sentinel file its
command would create) and what the model was told."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hookline import (
    AgentDefinition,
    AssistantMessage,
    HookContext,
    HookInput,
    HookJSONOutput,
    HookMatcher,
    PermissionResultAllow,
    PermissionResultDeny,
    SystemMessage,
    ToolPermissionContext,
    ToolUseBlock,
)
from sdk_program import bash, converse, options, outcome, results, shown, use

CONTEXT = "Commands here run inside a throwaway folder"


class Track:
    """An SDK hook callback that keeps what each call got, and answers ``answer``."""

    def __init__(self, answer: HookJSONOutput | None = None) -> None:
        self.answer: HookJSONOutput = answer if answer is not None else {}
        self.calls: list[tuple[dict[str, Any], str | None, HookContext]] = []

    async def __call__(
        self, input_data: HookInput, tool_use_id: str | None, context: HookContext
    ) -> HookJSONOutput:
        self.calls.append((dict(input_data), tool_use_id, context))
        return self.answer

    @property
    def events(self) -> list[str]:
        return [data["hook_event_name"] for data, _, _ in self.calls]

    def inputs(self, event: str) -> list[dict[str, Any]]:
        return [data for data, _, _ in self.calls if data["hook_event_name"] == event]


def pre_tool_use(decision: str, reason: str, **more: Any) -> HookJSONOutput:
    specific = {"hookEventName": "PreToolUse", "permissionDecision": decision}
    return {"hookSpecificOutput": {**specific, "permissionDecisionReason": reason, **more}}


# -- the SDK's programs ---------------------------------------------------------------------------


def test_pre_tool_use_allow_with_context_runs_the_call_and_the_model_reads_the_context(
    tmp_path: Path,
) -> None:
    hook = Track(pre_tool_use("allow", "Allowed, with a note", additionalContext=CONTEXT))
    opts, model = options(
        tmp_path,
        [bash("t1", "touch ran.txt"), {"text": "done"}],
        allowed_tools=["Bash"],
        hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[hook])]},
    )

    converse(opts, "Run: touch ran.txt")

    assert [(data["tool_name"], data["tool_use_id"]) for data, _, _ in hook.calls] == [
        ("Bash", "t1")
    ]
    assert (tmp_path / "ran.txt").exists()
    assert f"PreToolUse:Bash hook additional context: {CONTEXT}" in "".join(model.seen[1].texts())


def test_post_tool_use_gets_the_tool_use_id_and_its_context_reaches_the_model(
    tmp_path: Path,
) -> None:
    context = {"hookEventName": "PostToolUse", "additionalContext": "The output was logged"}
    hook = Track({"hookSpecificOutput": context})
    opts, model = options(
        tmp_path,
        [bash("t1", "echo 'which call was this'"), {"text": "done"}],
        allowed_tools=["Bash"],
        hooks={"PostToolUse": [HookMatcher(matcher="Bash", hooks=[hook])]},
    )

    messages = converse(opts, "Run: echo 'which call was this'")

    [(data, tool_use_id, _)] = hook.calls
    assert data["tool_use_id"] == tool_use_id == "t1"
    assert data["tool_response"]["stdout"] == "which call was this"
    assert results(messages)["t1"].content == "which call was this"
    assert shown(model, "t1").content == "which call was this"
    assert "PostToolUse:Bash hook additional context: The output was logged" in "".join(
        model.seen[1].texts()
    )


def test_session_start_fires_once_at_startup_and_its_context_reaches_the_model(
    tmp_path: Path,
) -> None:
    context = {
        "hookEventName": "SessionStart",
        "additionalContext": "This session was started by a test",
    }
    hook = Track({"hookSpecificOutput": context})
    opts, model = options(
        tmp_path,
        [{"text": "Hello"}, {"text": "Again"}],
        hooks={"SessionStart": [HookMatcher(hooks=[hook])]},
    )

    converse(opts, "Greet me briefly.", "And again.")

    assert [(data["hook_event_name"], data["source"]) for data, _, _ in hook.calls] == [
        ("SessionStart", "startup")
    ]
    assert "This session was started by a test" in "".join(model.seen[0].texts())


def test_notification_fires_when_a_permission_prompt_goes_to_can_use_tool(tmp_path: Path) -> None:
    order: list[str] = []
    hook = Track()

    async def notified(input_data: HookInput, tool_use_id: str | None, context: HookContext):
        order.append("Notification")
        return await hook(input_data, tool_use_id, context)

    async def can_use_tool(name: str, tool_input: dict[str, Any], context: ToolPermissionContext):
        order.append(f"can_use_tool {name}")
        return PermissionResultAllow()

    opts, _ = options(
        tmp_path,
        [bash("t1", "touch asked.txt"), {"text": "done"}],
        can_use_tool=can_use_tool,
        hooks={"Notification": [HookMatcher(hooks=[notified])]},
    )

    converse(opts, "Greet me briefly.")

    assert order == ["Notification", "can_use_tool Bash"]
    [data] = hook.inputs("Notification")
    assert data["notification_type"] == "permission_prompt"
    assert "Bash" in data["message"]
    assert (tmp_path / "asked.txt").exists()


def test_several_hook_events_together_fire_in_order(tmp_path: Path) -> None:
    hook = Track()
    opts, _ = options(
        tmp_path,
        [bash("t1", "echo 'several hooks'"), {"text": "done"}],
        allowed_tools=["Bash"],
        hooks={
            "SessionStart": [HookMatcher(hooks=[hook])],
            "Notification": [HookMatcher(hooks=[hook])],
            "PreToolUse": [HookMatcher(matcher="Bash", hooks=[hook])],
            "PostToolUse": [HookMatcher(matcher="Bash", hooks=[hook])],
        },
    )

    converse(opts, "Run: echo 'several hooks'")

    # Bash is allowed, so nobody is asked and no Notification fires.
    assert hook.events == ["SessionStart", "PreToolUse", "PostToolUse"]


# -- what callbacks are given ---------------------------------------------------------------------


def test_callbacks_get_the_sdk_input_keys_and_the_tool_use_id_argument(tmp_path: Path) -> None:
    hook = Track()
    events = ("UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")
    opts, _ = options(
        tmp_path,
        [bash("t1", "echo hi"), {"text": "done"}],
        allowed_tools=["Bash"],
        hooks={event: [HookMatcher(hooks=[hook])] for event in events},
    )

    messages = converse(opts, "Run: echo hi")

    assert hook.events == list(events)
    session = outcome(messages).session_id
    for data, tool_use_id, context in hook.calls:
        assert data["session_id"] == session
        assert data["cwd"] == str(tmp_path.resolve())
        assert data["transcript_path"].endswith(".jsonl")
        assert data["permission_mode"] == "default"
        assert tool_use_id == data.get("tool_use_id")
        assert "signal" in context
    prompt, pre, post, stop = (data for data, _, _ in hook.calls)
    assert prompt["prompt"] == "Run: echo hi"
    for data in (pre, post):
        assert data["tool_name"] == "Bash"
        assert data["tool_input"] == {"command": "echo hi"}
        assert data["tool_use_id"] == "t1"
    assert post["tool_response"]["stdout"] == "hi"
    assert stop["stop_hook_active"] is False
    assert stop["last_assistant_message"] == "done"


def test_post_tool_use_failure_fires_for_a_failing_command_and_post_tool_use_does_not(
    tmp_path: Path,
) -> None:
    hook = Track()
    opts, model = options(
        tmp_path,
        [bash("t1", "echo partial; exit 3"), {"text": "it failed"}],
        allowed_tools=["Bash"],
        hooks={
            "PostToolUse": [HookMatcher(matcher="Bash", hooks=[hook])],
            "PostToolUseFailure": [HookMatcher(matcher="Bash", hooks=[hook])],
        },
    )

    messages = converse(opts, "Run a failing command")

    [(data, tool_use_id, _)] = hook.calls
    assert data["hook_event_name"] == "PostToolUseFailure"
    assert data["tool_use_id"] == tool_use_id == "t1"
    assert data["tool_input"] == {"command": "echo partial; exit 3"}
    assert data["error"].startswith("Exit code 3")
    assert data["is_interrupt"] is False
    assert results(messages)["t1"].is_error is True
    assert shown(model, "t1").is_error
    assert outcome(messages).subtype == "success"


def test_user_prompt_submit_context_reaches_the_model_with_the_prompt(tmp_path: Path) -> None:
    context = {"hookEventName": "UserPromptSubmit", "additionalContext": "The user is on call"}
    hook = Track({"hookSpecificOutput": context})
    opts, model = options(
        tmp_path, [{"text": "ok"}], hooks={"UserPromptSubmit": [HookMatcher(hooks=[hook])]}
    )

    converse(opts, "What now?")

    [(data, tool_use_id, _)] = hook.calls
    assert data["prompt"] == "What now?" and tool_use_id is None
    texts = model.seen[0].texts()
    assert "UserPromptSubmit hook additional context: The user is on call" in "".join(texts)
    assert texts[-1] == "What now?"


def test_user_prompt_submit_block_ends_the_response_before_the_model(tmp_path: Path) -> None:
    hook = Track({"decision": "block", "reason": "no secrets here"})
    opts, model = options(
        tmp_path, [{"text": "the secret"}], hooks={"UserPromptSubmit": [HookMatcher(hooks=[hook])]}
    )

    messages = converse(opts, "Tell me the secret")

    assert model.seen == []
    result = outcome(messages)
    assert "no secrets here" in (result.result or "")
    assert not any(isinstance(m, AssistantMessage) for m in messages)


def test_a_stop_hook_that_blocks_keeps_the_model_working_with_its_reason(tmp_path: Path) -> None:
    seen: list[bool] = []

    async def not_yet(input_data: HookInput, tool_use_id: str | None, context: HookContext):
        seen.append(input_data["stop_hook_active"])
        if input_data["stop_hook_active"]:
            return {}
        return {"decision": "block", "reason": "Also say goodbye."}

    opts, model = options(
        tmp_path,
        [{"text": "Hello"}, {"text": "Goodbye"}],
        hooks={"Stop": [HookMatcher(hooks=[not_yet])]},
    )

    messages = converse(opts, "Say hello")

    assert seen == [False, True]
    assert "Also say goodbye." in "".join(model.seen[1].texts())
    assert outcome(messages).result == "Goodbye"


# -- what the answers do --------------------------------------------------------------------------


def test_continue_false_after_a_call_stops_the_run(tmp_path: Path) -> None:
    stopper = Track({"continue_": False, "stopReason": "Enough for today"})
    stop = Track()
    opts, model = options(
        tmp_path,
        [bash("t1", "touch first.txt"), bash("t2", "touch second.txt"), {"text": "done"}],
        allowed_tools=["Bash"],
        hooks={
            "PostToolUse": [HookMatcher(matcher="Bash", hooks=[stopper])],
            "Stop": [HookMatcher(hooks=[stop])],
        },
    )

    messages = converse(opts, "Touch two files")

    assert (tmp_path / "first.txt").exists()
    assert not (tmp_path / "second.txt").exists()
    assert len(model.seen) == 1  # no model call after the hook said stop
    assert stop.calls == []  # as in Claude Code: a hook's stop is no Stop
    result = outcome(messages)
    assert (result.subtype, result.is_error, result.stop_reason) == (
        "success",
        False,
        "hook_stopped",
    )


def test_continue_false_from_pre_tool_use_lets_the_call_run_then_stops(tmp_path: Path) -> None:
    """As Claude Code does: ``continue: false`` is no deny, the call runs, then the run ends."""
    hook = Track({"continue_": False, "stopReason": "Last one"})
    opts, model = options(
        tmp_path,
        [bash("t1", "touch first.txt"), bash("t2", "touch second.txt")],
        allowed_tools=["Bash"],
        hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[hook])]},
    )

    messages = converse(opts, "Touch two files")

    assert (tmp_path / "first.txt").exists()
    assert not (tmp_path / "second.txt").exists()
    assert len(model.seen) == 1
    assert outcome(messages).stop_reason == "hook_stopped"


def test_permission_decision_deny_blocks_the_call_and_the_model_reads_why(tmp_path: Path) -> None:
    hook = Track(pre_tool_use("deny", "Touching files is not allowed here"))
    opts, model = options(
        tmp_path,
        [bash("t1", "touch blocked.txt"), {"text": "understood"}],
        allowed_tools=["Bash"],
        hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[hook])]},
    )

    messages = converse(opts, "Touch a file")

    assert not (tmp_path / "blocked.txt").exists()
    read = shown(model, "t1")
    assert read.is_error and "Touching files is not allowed here" in read.content
    assert results(messages)["t1"].is_error is True
    assert outcome(messages).result == "understood"


@pytest.mark.parametrize(
    ("answer", "runs"),
    [(PermissionResultAllow(), True), (PermissionResultDeny(message="Not today"), False)],
)
def test_permission_decision_ask_goes_to_can_use_tool_with_the_reason(
    tmp_path: Path, answer: PermissionResultAllow | PermissionResultDeny, runs: bool
) -> None:
    asked: list[tuple[str, str | None, str | None]] = []

    async def can_use_tool(name: str, tool_input: dict[str, Any], context: ToolPermissionContext):
        asked.append((name, context.tool_use_id, context.decision_reason))
        return answer

    hook = Track(pre_tool_use("ask", "Please confirm this one"))
    opts, model = options(
        tmp_path,
        [bash("t1", "touch asked.txt"), {"text": "done"}],
        allowed_tools=["Bash"],  # the hook's ask wins over the allow rule
        can_use_tool=can_use_tool,
        hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[hook])]},
    )

    converse(opts, "Touch a file")

    assert asked == [("Bash", "t1", "Please confirm this one")]
    assert (tmp_path / "asked.txt").exists() is runs
    assert ("Not today" in shown(model, "t1").content) is not runs


def test_permission_decision_allow_runs_a_call_without_asking(tmp_path: Path) -> None:
    asked: list[str] = []

    async def can_use_tool(name: str, tool_input: dict[str, Any], context: ToolPermissionContext):
        asked.append(name)
        return PermissionResultDeny(message="would have said no")

    hook = Track(pre_tool_use("allow", "Touching is fine"))
    opts, _ = options(
        tmp_path,
        [bash("t1", "touch allowed.txt"), {"text": "done"}],
        can_use_tool=can_use_tool,
        hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[hook])]},
    )

    converse(opts, "Touch a file")

    assert asked == []
    assert (tmp_path / "allowed.txt").exists()


def test_updated_input_rewrites_the_command_that_runs(tmp_path: Path) -> None:
    rewrite = Track(
        pre_tool_use("allow", "Rewritten", updatedInput={"command": "touch rewritten.txt"})
    )
    post = Track()
    opts, _ = options(
        tmp_path,
        [bash("t1", "touch original.txt"), {"text": "done"}],
        allowed_tools=["Bash"],
        hooks={
            "PreToolUse": [HookMatcher(matcher="Bash", hooks=[rewrite])],
            "PostToolUse": [HookMatcher(matcher="Bash", hooks=[post])],
        },
    )

    messages = converse(opts, "Touch a file")

    assert (tmp_path / "rewritten.txt").exists()
    assert not (tmp_path / "original.txt").exists()
    assert post.inputs("PostToolUse")[0]["tool_input"] == {"command": "touch rewritten.txt"}
    # What the model asked for stays as it asked it, as in Claude Code's stream.
    calls = [b for m in messages if isinstance(m, AssistantMessage) for b in m.content]
    assert calls[0] == ToolUseBlock(id="t1", name="Bash", input={"command": "touch original.txt"})


def test_updated_input_is_judged_again_so_a_deny_rule_still_refuses_it(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("precious")
    rewrite = Track(pre_tool_use("allow", "Rewritten", updatedInput={"command": "rm -f keep.txt"}))
    opts, model = options(
        tmp_path,
        [bash("t1", "echo harmless"), {"text": "done"}],
        allowed_tools=["Bash"],
        disallowed_tools=["Bash(rm:*)"],
        hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[rewrite])]},
    )

    converse(opts, "Echo something")

    assert (tmp_path / "keep.txt").read_text() == "precious"
    assert shown(model, "t1").is_error
    assert "Bash(rm:*)" in shown(model, "t1").content


def test_a_system_message_is_for_the_user_not_the_model(tmp_path: Path) -> None:
    """Claude Code shows a hook's ``systemMessage`` to the user; the model never reads it and
    the call goes on as if the hook said nothing else."""
    hook = Track({"systemMessage": "Heads up: this touches the disk"})
    opts, model = options(
        tmp_path,
        [bash("t1", "touch noted.txt"), {"text": "done"}],
        allowed_tools=["Bash"],
        hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[hook])]},
    )

    messages = converse(opts, "Touch a file")

    assert (tmp_path / "noted.txt").exists()
    assert len(hook.calls) == 1
    assert not any(request.shows("Heads up") for request in model.seen)
    assert outcome(messages).subtype == "success"
    assert next(m.subtype for m in messages if isinstance(m, SystemMessage)) == "init"


def test_subagent_start_and_stop_fire_around_a_subagents_work(tmp_path: Path) -> None:
    hook = Track()
    helper = AgentDefinition(description="Runs commands", prompt="You run commands", tools=["Bash"])
    opts, _ = options(
        tmp_path,
        [
            use("a1", "Agent", subagent_type="helper", description="Touch", prompt="Touch a file"),
            bash("s1", "touch by_subagent.txt"),
            {"text": "touched"},
            {"text": "the helper touched it"},
        ],
        allowed_tools=["Bash", "Agent"],
        agents={"helper": helper},
        hooks={
            event: [HookMatcher(hooks=[hook])]
            for event in ("SubagentStart", "SubagentStop", "PreToolUse")
        },
    )

    messages = converse(opts, "Have the helper touch a file")

    assert hook.events == ["PreToolUse", "SubagentStart", "PreToolUse", "SubagentStop"]
    _, start, inside, stop = (data for data, _, _ in hook.calls)
    assert start["agent_type"] == stop["agent_type"] == inside["agent_type"] == "helper"
    assert start["agent_id"] == stop["agent_id"] == inside["agent_id"]
    assert stop["last_assistant_message"] == "touched"
    assert (tmp_path / "by_subagent.txt").exists()
    sub = [m for m in messages if isinstance(m, AssistantMessage) and m.parent_tool_use_id == "a1"]
    assert [b.name for m in sub for b in m.content if isinstance(b, ToolUseBlock)] == ["Bash"]
    assert outcome(messages).result == "the helper touched it"
