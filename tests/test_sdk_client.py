"""ClaudeSDKClient, query and ClaudeAgentOptions on hookline: what each option does, what one
hookline cannot honour says, interrupts, settings sources, the model an option names."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from hookline import (
    Agent,
    ClaudeAgentOptions,
    ClaudeSDKClient,
    ConfigError,
    HookMatcher,
    ModelError,
    ScriptedModel,
    create_sdk_mcp_server,
    query,
    tool,
)
from hookline._tools.approvals import ApprovalRequest
from hookline._wording import INTERRUPTED
from hookline.sdk._build import model_for
from hookline.sdk._errors import CLIConnectionError
from hookline.sdk._options import system_prompt
from hookline.sdk._permission import CanUseTool
from hookline.sdk._types import (
    AssistantMessage,
    HookEventMessage,
    PermissionResultAllow,
    PermissionResultDeny,
    PermissionRuleValue,
    PermissionUpdate,
    ResultMessage,
    StreamEvent,
    SystemMessage,
    ToolResultBlock,
    UserMessage,
)
from model_servers import Events, anthropic_events, model_server
from recording_model import RecordingModel


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


def bash(*commands: str, end: str = "done") -> list[dict[str, Any]]:
    """A script: one Bash call per command, each in its own turn, then ``end``."""
    turns: list[dict[str, Any]] = [
        {"tool_calls": [{"name": "Bash", "input": {"command": c}}]} for c in commands
    ]
    return [*turns, {"text": end}]


async def answer(options: ClaudeAgentOptions, *prompts: str) -> list[Any]:
    """Every message of each prompt's response, in one connected client."""
    seen: list[Any] = []
    async with ClaudeSDKClient(options=options) as client:
        for prompt in prompts:
            await client.query(prompt)
            seen.extend([m async for m in client.receive_response()])
    return seen


def results(messages: list[Any]) -> list[ToolResultBlock]:
    return [
        b
        for m in messages
        if isinstance(m, UserMessage) and isinstance(m.content, list)
        for b in m.content
        if isinstance(b, ToolResultBlock)
    ]


# -- options hookline cannot honour ---------------------------------------------------------------


def test_unsupported_options_are_one_error_naming_each_and_nothing_runs(project: Path) -> None:
    sentinel = project / "ran"
    options = ClaudeAgentOptions(
        cwd=project,
        allowed_tools=["Bash"],
        model=ScriptedModel(bash(f"touch {sentinel}")),
        max_budget_usd=1.0,
        thinking={"type": "adaptive"},
    )
    with pytest.raises(ConfigError) as raised:
        asyncio.run(answer(options, "go"))
    said = str(raised.value)
    assert "max_budget_usd" in said and "thinking" in said and "docs/agent-sdk.md" in said
    assert not sentinel.exists()


def test_options_for_the_sdks_subprocess_warn_that_they_do_nothing(project: Path) -> None:
    options = ClaudeAgentOptions(cwd=project, cli_path="/opt/claude", model=ScriptedModel([{}]))
    with pytest.warns(UserWarning, match="cli_path has no effect"):
        asyncio.run(answer(options, "hello"))


def test_a_transport_is_refused() -> None:
    with pytest.raises(ConfigError, match="no transport"):
        ClaudeSDKClient(transport=object())


def test_a_client_not_connected_says_so() -> None:
    async def early() -> None:
        await ClaudeSDKClient().query("hello")

    with pytest.raises(CLIConnectionError, match="connect"):
        asyncio.run(early())


def test_a_bad_hookline_option_is_a_config_error(project: Path) -> None:
    options = ClaudeAgentOptions(cwd=project, model=ScriptedModel([{}]), hookline={"audti": True})
    with pytest.raises(ConfigError, match="audti"):
        asyncio.run(answer(options, "hello"))


# -- messages, and the two ways to prompt ---------------------------------------------------------


def test_a_response_is_init_then_the_conversation_then_one_result(project: Path) -> None:
    options = ClaudeAgentOptions(
        cwd=project, allowed_tools=["Bash"], model=ScriptedModel(bash("echo hi"))
    )
    messages = asyncio.run(answer(options, "say hi"))
    kinds = [type(m).__name__ for m in messages]
    assert kinds == [
        "SystemMessage", "AssistantMessage", "UserMessage", "AssistantMessage", "ResultMessage",
    ]  # fmt: skip
    init, result = messages[0], messages[-1]
    assert isinstance(init, SystemMessage) and init.subtype == "init"
    assert init.data["cwd"] == str(project) and "Bash" in init.data["tools"]
    assert [b.content for b in results(messages)] == ["hi"]
    assert isinstance(result, ResultMessage) and not result.is_error
    assert (result.subtype, result.result, result.num_turns) == ("success", "done", 2)
    assert result.session_id == init.data["session_id"]


def test_query_takes_a_string_or_a_stream_of_user_messages(project: Path) -> None:
    async def stream() -> AsyncIterator[dict[str, Any]]:
        for text in ("first", "second"):
            yield {"type": "user", "message": {"role": "user", "content": text}}

    async def run(prompt: Any) -> list[Any]:
        model = RecordingModel([{"text": "one"}, {"text": "two"}])
        options = ClaudeAgentOptions(cwd=project, model=model)
        found = [m async for m in query(prompt=prompt, options=options)]
        assert [r.texts()[-1] for r in model.seen] == (
            ["first", "second"] if not isinstance(prompt, str) else ["only"]
        )
        return found

    one = asyncio.run(run("only"))
    assert [m.result for m in one if isinstance(m, ResultMessage)] == ["one"]
    both = asyncio.run(run(stream()))
    assert [m.result for m in both if isinstance(m, ResultMessage)] == ["one", "two"]


def test_a_streamed_message_that_is_not_text_is_refused(project: Path) -> None:
    async def stream() -> AsyncIterator[dict[str, Any]]:
        yield {"type": "user", "message": {"role": "user", "content": [{"type": "image"}]}}

    async def run() -> None:
        options = ClaudeAgentOptions(cwd=project, model=ScriptedModel([{}]))
        async for _ in query(prompt=stream(), options=options):
            pass

    with pytest.raises(ConfigError, match="text content only"):
        asyncio.run(run())


# -- interrupt ------------------------------------------------------------------------------------


def test_interrupt_stops_the_call_in_flight_and_the_next_prompt_goes_on(project: Path) -> None:
    started, finished = asyncio.Event(), []

    @tool("wait", "Waits until interrupted.", {})
    async def wait(args: dict[str, Any]) -> dict[str, Any]:
        started.set()
        await asyncio.Event().wait()  # only a cancellation ends this
        finished.append(True)
        return {"content": [{"type": "text", "text": "finished"}]}

    model = RecordingModel(
        [{"tool_calls": [{"name": "mcp__slow__wait", "input": {}}]}, {"text": "after"}]
    )
    options = ClaudeAgentOptions(
        cwd=project,
        model=model,
        allowed_tools=["mcp__slow__wait"],
        mcp_servers={"slow": create_sdk_mcp_server("slow", tools=[wait])},
    )

    async def run() -> tuple[list[Any], list[Any]]:
        async with ClaudeSDKClient(options=options) as client:
            await client.query("wait")
            await started.wait()
            await client.interrupt()
            first = [m async for m in client.receive_response()]
            await client.query("and now?")
            return first, [m async for m in client.receive_response()]

    first, second = asyncio.run(run())
    stopped = first[-1]
    assert isinstance(stopped, ResultMessage) and stopped.is_error
    assert stopped.subtype == "error_during_execution"
    assert finished == []
    assert model.seen[-1].shows(INTERRUPTED)  # the call is answered: the API takes the history
    assert [m.result for m in second if isinstance(m, ResultMessage)] == ["after"]


def test_disconnecting_mid_call_stops_it_before_the_session_ends(project: Path) -> None:
    started, order = asyncio.Event(), []

    @tool("wait", "Waits until cancelled.", {})
    async def wait(args: dict[str, Any]) -> dict[str, Any]:
        started.set()
        try:
            await asyncio.Event().wait()
        finally:  # a cleanup that takes a few turns of the loop, as closing a connection does
            for _ in range(5):
                await asyncio.sleep(0)
            order.append("call ended")
        return {"content": []}

    async def ended(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> dict:
        order.append("session ended")
        return {}

    options = ClaudeAgentOptions(
        cwd=project,
        model=ScriptedModel([{"tool_calls": [{"name": "mcp__slow__wait", "input": {}}]}]),
        allowed_tools=["mcp__slow__wait"],
        mcp_servers={"slow": create_sdk_mcp_server("slow", tools=[wait])},
        hooks={"SessionEnd": [HookMatcher(hooks=[ended])]},
    )

    async def run() -> None:
        async with ClaudeSDKClient(options=options) as client:
            await client.query("wait")
            await started.wait()

    asyncio.run(run())
    assert order == ["call ended", "session ended"]


# -- settings sources, rules, tools --------------------------------------------------------------


def write_settings(project: Path, data: dict[str, Any]) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps(data))


def test_the_projects_settings_apply_unless_setting_sources_leave_them_out(project: Path) -> None:
    write_settings(project, {"permissions": {"deny": ["Bash(touch:*)"]}})
    sentinel = project / "touched"

    def options(**extra: Any) -> ClaudeAgentOptions:
        model = ScriptedModel(bash(f"touch {sentinel}"))
        return ClaudeAgentOptions(cwd=project, allowed_tools=["Bash"], model=model, **extra)

    asyncio.run(answer(options(), "touch"))
    assert not sentinel.exists()  # the project's deny rule held (setting_sources None: all)
    asyncio.run(answer(options(setting_sources=["user"]), "touch"))
    assert sentinel.exists()


def test_disallowed_tools_deny_and_allowed_tools_allow(project: Path) -> None:
    sentinel = project / "touched"
    model = ScriptedModel(bash(f"touch {sentinel}", "echo fine"))
    options = ClaudeAgentOptions(
        cwd=project, model=model, allowed_tools=["Bash"], disallowed_tools=["Bash(touch:*)"]
    )
    denied, ran = results(asyncio.run(answer(options, "go")))
    assert denied.is_error and not sentinel.exists()
    assert (ran.content, ran.is_error) == ("fine", False)


def test_a_tool_disallowed_whole_is_not_offered_to_the_model(project: Path) -> None:
    model = RecordingModel([{"text": "ok"}])
    options = ClaudeAgentOptions(cwd=project, model=model, disallowed_tools=["Write", "Bash(rm:*)"])
    init = asyncio.run(answer(options, "hi"))[0]
    assert "Write" not in init.data["tools"] and "Write" not in model.seen[0].tools
    assert "Bash" in init.data["tools"] and "Bash" in model.seen[0].tools


def test_a_call_no_rule_allows_is_refused_without_can_use_tool(project: Path) -> None:
    sentinel = project / "touched"
    options = ClaudeAgentOptions(cwd=project, model=ScriptedModel(bash(f"touch {sentinel}")))
    (refused,) = results(asyncio.run(answer(options, "go")))
    assert refused.is_error and not sentinel.exists()


def test_the_tools_option_chooses_the_built_in_tools(project: Path) -> None:
    model = RecordingModel([{"text": "ok"}])
    asyncio.run(answer(ClaudeAgentOptions(cwd=project, model=model, tools=["Read", "Grep"]), "hi"))
    assert model.seen[0].tools == ["Read", "Grep"]
    with pytest.raises(ConfigError, match="no built-in tool 'Browse'"):
        asyncio.run(answer(ClaudeAgentOptions(cwd=project, model=model, tools=["Browse"]), "hi"))


def test_env_reaches_bash_commands(project: Path) -> None:
    options = ClaudeAgentOptions(
        cwd=project,
        allowed_tools=["Bash"],
        env={"HOOKLINE_GREETING": "hola"},
        model=ScriptedModel(bash("echo $HOOKLINE_GREETING")),
    )
    (said,) = results(asyncio.run(answer(options, "greet")))
    assert said.content == "hola"


def test_env_reaches_the_settings_command_hooks_too(project: Path) -> None:
    marker = project / "marker"
    hook = {"type": "command", "command": f'printf %s "$HOOKLINE_MARK" > {marker}'}
    write_settings(project, {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}})
    options = ClaudeAgentOptions(
        cwd=project,
        allowed_tools=["Bash"],
        env={"HOOKLINE_MARK": "from the program"},
        model=ScriptedModel(bash("true")),
    )
    asyncio.run(answer(options, "go"))
    assert marker.read_text() == "from the program"


def test_set_permission_mode_judges_later_calls(project: Path) -> None:
    target = project / "notes.txt"
    write = {"name": "Write", "input": {"file_path": str(target), "content": "x"}}
    model = ScriptedModel([{"tool_calls": [write]}, {"text": "tried"}] * 2)
    options = ClaudeAgentOptions(cwd=project, model=model, permission_mode="acceptEdits")

    async def run() -> None:
        async with ClaudeSDKClient(options=options) as client:
            await client.set_permission_mode("plan")
            await client.query("write")
            [m async for m in client.receive_response()]

    asyncio.run(run())
    assert not target.exists()  # plan mode: nothing is written
    asyncio.run(answer(options, "write"))
    assert target.read_text() == "x"  # acceptEdits, as the options say


# -- the model ------------------------------------------------------------------------------------


def test_a_claude_model_name_is_the_anthropic_api_at_the_configured_address(project: Path) -> None:
    with model_server([Events(anthropic_events(["Hello from ", "the API."]))]) as server:
        options = ClaudeAgentOptions(
            cwd=project,
            model="claude-sonnet-4-5",
            env={"ANTHROPIC_BASE_URL": server.url(""), "ANTHROPIC_API_KEY": "sk-fake"},
        )
        messages = asyncio.run(answer(options, "hi"))
    (body,) = server.bodies()
    assert body["model"] == "claude-sonnet-4-5"
    assert [m.result for m in messages if isinstance(m, ResultMessage)] == ["Hello from the API."]


def test_partial_messages_are_the_models_text_deltas_as_it_writes(project: Path) -> None:
    with model_server([Events(anthropic_events(["Hel", "lo", " there"]))]) as server:
        options = ClaudeAgentOptions(
            cwd=project,
            model="claude-sonnet-4-5",
            include_partial_messages=True,
            env={"ANTHROPIC_BASE_URL": server.url(""), "ANTHROPIC_API_KEY": "sk-fake"},
        )
        messages = asyncio.run(answer(options, "hi"))
    kinds = [type(m).__name__ for m in messages]
    assert kinds == [
        "SystemMessage", "StreamEvent", "StreamEvent", "StreamEvent", "AssistantMessage",
        "ResultMessage",
    ]  # fmt: skip
    pieces = [m.event["delta"]["text"] for m in messages if isinstance(m, StreamEvent)]
    assert pieces == ["Hel", "lo", " there"]
    assert messages[-2].content[0].text == "Hello there"


def test_a_provider_prefix_picks_another_client() -> None:
    openai = model_for("openai:gpt-test", {"OPENAI_API_KEY": "sk-fake"})
    anthropic = model_for(None, {"ANTHROPIC_API_KEY": "sk-fake", "ANTHROPIC_MODEL": "claude-x"})
    rules = model_for("rules", {})
    assert (openai.name, anthropic.name) == ("gpt-test", "claude-x")
    assert type(rules).__name__ == "RuleModel"


# -- system prompt forms, Agent(options=...) ------------------------------------------------------


def test_system_prompt_forms(tmp_path: Path) -> None:
    (tmp_path / "prompt.md").write_text("From a file.")
    preset = {"type": "preset", "preset": "claude_code", "append": "Be brief."}
    assert system_prompt(preset, tmp_path) == "Be brief."
    assert system_prompt({"type": "custom", "prompt": "Custom."}, tmp_path) == "Custom."
    assert system_prompt({"type": "file", "path": "prompt.md"}, tmp_path) == "From a file."
    with pytest.raises(ConfigError, match="system_prompt"):
        system_prompt({"type": "file", "path": "missing.md"}, tmp_path)
    with pytest.raises(ConfigError, match="not a form"):
        system_prompt({"type": "poem"}, tmp_path)


def test_agent_takes_sdk_options_and_refuses_what_only_the_client_honours(project: Path) -> None:
    seen: list[str] = []

    async def note(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> dict:
        seen.append(input_data["hook_event_name"])
        return {}

    options = ClaudeAgentOptions(cwd=project, hooks={"Stop": [HookMatcher(hooks=[note])]})
    Agent(ScriptedModel([{"text": "ok"}]), options=options).run_sync("hi")
    assert seen == ["Stop"]
    with pytest.raises(ConfigError, match="allowed_tools"):
        Agent(ScriptedModel([]), options=ClaudeAgentOptions(cwd=project, allowed_tools=["Bash"]))


# -- can_use_tool, as an approver -----------------------------------------------------------------


def request() -> ApprovalRequest:
    return ApprovalRequest("s", "toolu_1", "Bash", {"command": "ls"}, reason="asked")


@pytest.mark.parametrize(
    ("callback", "said"),
    [
        (lambda n, i, c: 1 / 0, "can_use_tool raised ZeroDivisionError"),
        (lambda n, i, c: "yes", "returned str, not PermissionResultAllow"),
        (lambda n, i, c: PermissionResultAllow(updated_input="ls"), "updated_input is a str"),  # type: ignore[arg-type]
    ],
)
def test_a_broken_can_use_tool_refuses_the_call(callback: Any, said: str) -> None:
    answer = asyncio.run(CanUseTool(callback).approve(request()))
    assert answer.permission == "deny" and said in (answer.message or "")


def test_can_use_tool_gets_the_call_and_its_answers_stand() -> None:
    calls: list[tuple[str, dict[str, Any], str | None, str | None]] = []
    stopped: list[bool] = []

    async def decide(name: str, given: dict[str, Any], context: Any) -> Any:
        calls.append((name, given, context.tool_use_id, context.decision_reason))
        if given["command"] == "ls":
            return PermissionResultAllow(updated_input={"command": "ls -a"})
        return PermissionResultDeny(message="no", interrupt=True)

    approver = CanUseTool(decide, lambda: stopped.append(True))
    allowed = asyncio.run(approver.approve(request()))
    assert (allowed.permission, allowed.updated_input) == ("allow", {"command": "ls -a"})
    other = ApprovalRequest("s", "toolu_2", "Bash", {"command": "rm x"})
    denied = asyncio.run(approver.approve(other))
    assert (denied.permission, denied.message, stopped) == ("deny", "no", [True])
    assert calls[0] == ("Bash", {"command": "ls"}, "toolu_1", "asked")


def test_results_are_assistant_text_and_tool_results(project: Path) -> None:
    options = ClaudeAgentOptions(
        cwd=project, allowed_tools=["Bash"], model=ScriptedModel(bash("printf x"))
    )
    messages = asyncio.run(answer(options, "go"))
    texts = [m for m in messages if isinstance(m, AssistantMessage)]
    assert texts[-1].content[0].text == "done"  # type: ignore[union-attr]


# -- permission updates from can_use_tool ---------------------------------------------------------


def remembering(*updates: PermissionUpdate) -> tuple[Any, list[str]]:
    """A can_use_tool that allows each call it is asked about, with ``updates``, and notes it."""
    asked: list[str] = []

    async def decide(name: str, given: dict[str, Any], context: Any) -> PermissionResultAllow:
        asked.append(given.get("command") or given.get("file_path") or name)
        return PermissionResultAllow(updated_permissions=list(updates))

    return decide, asked


def test_an_allow_can_add_a_rule_for_the_rest_of_the_session(project: Path) -> None:
    rule = PermissionRuleValue("Bash", "mkdir:*")
    decide, asked = remembering(PermissionUpdate("addRules", [rule], behavior="allow"))
    model = ScriptedModel(bash("mkdir one", "mkdir two"))
    options = ClaudeAgentOptions(cwd=project, model=model, can_use_tool=decide)
    said = results(asyncio.run(answer(options, "make")))
    assert [r.is_error for r in said] == [False, False] and asked == ["mkdir one"]
    assert (project / "one").is_dir() and (project / "two").is_dir()


def test_an_added_deny_rule_holds_and_a_teams_deny_rule_cannot_be_removed(project: Path) -> None:
    victim, copy = project / "victim", project / "copy"
    victim.write_text("keep")
    decide, asked = remembering(
        PermissionUpdate("addRules", [PermissionRuleValue("Bash", "cp:*")], behavior="deny"),
        PermissionUpdate("removeRules", [PermissionRuleValue("Bash", "rm:*")], behavior="deny"),
        PermissionUpdate("replaceRules", [], behavior="deny"),  # only the session's own go
        PermissionUpdate("addRules", [PermissionRuleValue("Bash", "cp:*")], behavior="deny"),
    )
    model = ScriptedModel(bash("mkdir asked", f"rm {victim}", f"cp {victim} {copy}"))
    options = ClaudeAgentOptions(
        cwd=project, model=model, can_use_tool=decide, disallowed_tools=["Bash(rm:*)"]
    )
    said = results(asyncio.run(answer(options, "go")))
    assert asked == ["mkdir asked"] and [r.is_error for r in said] == [False, True, True]
    assert victim.read_text() == "keep" and not copy.exists()


def test_an_update_can_switch_the_mode_and_a_malformed_one_is_skipped(project: Path) -> None:
    target = project / "notes.txt"
    decide, asked = remembering(
        PermissionUpdate("addRules", [PermissionRuleValue("Bash")]),  # no behavior: skipped
        PermissionUpdate("setMode", mode="acceptEdits"),
    )
    write = {"name": "Write", "input": {"file_path": str(target), "content": "x"}}
    model = ScriptedModel([*bash("mkdir d")[:1], {"tool_calls": [write]}, {"text": "done"}])
    options = ClaudeAgentOptions(cwd=project, model=model, can_use_tool=decide)
    said = results(asyncio.run(answer(options, "go")))
    assert [r.is_error for r in said] == [False, False] and asked == ["mkdir d"]
    assert target.read_text() == "x"


def test_a_hooks_system_message_is_an_informational_system_message(project: Path) -> None:
    async def warn(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> dict:
        return {"systemMessage": "careful with that"}

    model = RecordingModel(bash("echo hi"))
    options = ClaudeAgentOptions(
        cwd=project,
        allowed_tools=["Bash"],
        model=model,
        hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[warn])]},
    )
    messages = asyncio.run(answer(options, "go"))
    notes = [m for m in messages if isinstance(m, SystemMessage) and m.subtype == "informational"]
    assert [n.data["content"] for n in notes] == ["PreToolUse:Bash says: careful with that"]
    assert not any(request.shows("careful") for request in model.seen)  # for the user only


# -- the rules hold whatever the spelling (the same rule engine as hookline run) -------------------

SPELLINGS = [
    "echo hi; touch {s}",
    "echo hi && touch {s}",
    "echo $(touch {s})",
    "echo `touch {s}`",
    "echo hi | sh -c 'touch {s}'",
    "env touch {s}",
    "/usr/bin/touch {s}",
    "'touch' {s}",
    "t\\ouch {s}",
    'bash -c "touch {s}"',
    "echo hi\ntouch {s}",
]


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_an_allow_rule_never_lets_another_command_ride_along(project: Path, spelling: str) -> None:
    sentinel = project / "sentinel"
    options = ClaudeAgentOptions(
        cwd=project,
        allowed_tools=["Bash(echo:*)"],
        model=ScriptedModel(bash(spelling.format(s=sentinel))),
    )
    (refused,) = results(asyncio.run(answer(options, "go")))
    assert refused.is_error and not sentinel.exists()


@pytest.mark.parametrize("spelling", SPELLINGS[5:])
def test_a_disallowed_command_is_refused_however_it_is_spelled(
    project: Path, spelling: str
) -> None:
    sentinel = project / "sentinel"
    options = ClaudeAgentOptions(
        cwd=project,
        allowed_tools=["Bash"],
        disallowed_tools=["Bash(touch:*)"],
        model=ScriptedModel(bash(spelling.format(s=sentinel))),
    )
    (refused,) = results(asyncio.run(answer(options, "go")))
    assert refused.is_error and not sentinel.exists()


def test_a_hooks_stop_is_the_results_terminal_reason(project: Path) -> None:
    async def halt(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> dict:
        return {"continue_": False, "stopReason": "enough"}

    options = ClaudeAgentOptions(
        cwd=project,
        allowed_tools=["Bash"],
        model=ScriptedModel(bash("echo one", "echo two")),
        hooks={"PostToolUse": [HookMatcher(hooks=[halt])]},
    )
    result = asyncio.run(answer(options, "go"))[-1]
    assert isinstance(result, ResultMessage) and result.terminal_reason == "hook_stopped"
    assert len(results(asyncio.run(answer(options, "go")))) == 1  # "echo two" never ran


def test_a_read_deny_rule_added_mid_session_hides_files_from_grep_at_once(project: Path) -> None:
    (project / "secret.txt").write_text("TOKEN=1\n")
    (project / "notes.txt").write_text("TOKEN here\n")
    rule = PermissionRuleValue("Read", "./secret.txt")
    decide, asked = remembering(PermissionUpdate("addRules", [rule], behavior="deny"))
    grep = {"name": "Grep", "input": {"pattern": "TOKEN", "output_mode": "content"}}
    model = ScriptedModel(
        [
            {"tool_calls": [grep]},
            {"tool_calls": [{"name": "Bash", "input": {"command": "mkdir asked"}}]},
            {"tool_calls": [grep]},
            {"text": "done"},
        ]
    )
    options = ClaudeAgentOptions(cwd=project, model=model, can_use_tool=decide)
    before, made, after = results(asyncio.run(answer(options, "look")))
    assert asked == ["mkdir asked"] and not made.is_error
    assert "secret.txt" in str(before.content) and "notes.txt" in str(before.content)
    assert "secret.txt" not in str(after.content) and "notes.txt" in str(after.content)


def test_hook_events_are_hook_started_and_hook_response_messages(project: Path) -> None:
    async def fine(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> dict:
        return {}

    async def broken(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> dict:
        raise RuntimeError("no luck")

    options = ClaudeAgentOptions(
        cwd=project,
        allowed_tools=["Bash"],
        include_hook_events=True,
        model=ScriptedModel(bash("echo hi")),
        hooks={
            "PreToolUse": [HookMatcher(matcher="Bash", hooks=[fine])],
            "PostToolUse": [HookMatcher(hooks=[broken])],
        },
    )
    events = [m for m in asyncio.run(answer(options, "go")) if isinstance(m, HookEventMessage)]
    seen = [(e.subtype, e.data["hook_name"], e.data.get("outcome")) for e in events]
    assert seen == [
        ("hook_started", "PreToolUse:Bash", None),
        ("hook_response", "PreToolUse:Bash", "success"),
        ("hook_started", "PostToolUse:Bash", None),
        ("hook_response", "PostToolUse:Bash", "error"),
    ]
    assert events[1].data["hook_id"] == events[0].data["hook_id"] and "no luck" in str(
        events[3].data["stderr"]
    )
    assert all(e.hook_event_name in ("PreToolUse", "PostToolUse") for e in events)


def test_a_subagents_text_is_forwarded_only_when_asked(project: Path) -> None:
    agent_call = {
        "id": "toolu_agent",
        "name": "Agent",
        "input": {
            "description": "Sub task",
            "prompt": "print sub",
            "subagent_type": "general-purpose",
        },
    }
    script = [
        {"tool_calls": [agent_call]},
        {"text": "Running it.", "tool_calls": [{"name": "Bash", "input": {"command": "echo sub"}}]},
        {"text": "SUBAGENT-REPORT: printed sub"},
        {"text": "done"},
    ]

    def nested(**extra: Any) -> list[list[str]]:
        options = ClaudeAgentOptions(
            cwd=project, model=ScriptedModel(script), permission_mode="bypassPermissions", **extra
        )
        return [
            [type(b).__name__ for b in m.content]
            for m in asyncio.run(answer(options, "go"))
            if isinstance(m, AssistantMessage) and m.parent_tool_use_id == "toolu_agent"
        ]

    assert nested() == [["ToolUseBlock"]]  # its calls only: its text stays with it
    assert nested(forward_subagent_text=True) == [["TextBlock", "ToolUseBlock"], ["TextBlock"]]


class Failing(RecordingModel):
    """A model whose every call fails for good, as a provider that stays overloaded."""

    async def complete(self, messages: Any, tools: Any, *, system: str | None = None) -> Any:
        self.record(messages, tools, system)
        raise ModelError("Anthropic at http://127.0.0.1 kept answering 529 (overloaded)")


def test_the_fallback_model_answers_when_the_model_fails(project: Path) -> None:
    primary = Failing([])
    options = ClaudeAgentOptions(cwd=project, model=primary, fallback_model="rules")
    result = asyncio.run(answer(options, "hi"))[-1]  # the offline rule model falls back
    assert (result.subtype, result.is_error) == ("success", False) and result.result
    assert len(primary.seen) == 1


def test_without_a_fallback_the_models_failure_ends_the_response(project: Path) -> None:
    options = ClaudeAgentOptions(cwd=project, model=Failing([]))
    result = asyncio.run(answer(options, "hi"))[-1]
    assert (result.subtype, result.is_error) == ("error_during_execution", True)
    assert "529" in result.errors[0] and result.terminal_reason == "api_error"


def make_skill(project: Path, name: str) -> None:
    folder = project / ".claude" / "skills" / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: How to {name}\n---\nSteps.\n"
    )


def test_skills_offers_only_the_skills_named(project: Path) -> None:
    make_skill(project, "release")
    make_skill(project, "deploy")
    call = {"name": "Skill", "input": {"skill": "deploy"}}
    model = RecordingModel([{"tool_calls": [call]}, {"text": "ok"}])
    options = ClaudeAgentOptions(cwd=project, model=model, skills=["release"])
    (refused,) = results(asyncio.run(answer(options, "ship it")))
    system = model.systems[0] or ""
    assert "- release: How to release" in system and "deploy" not in system
    assert refused.is_error  # the skill left out cannot be loaded either
    everything = RecordingModel([{"text": "ok"}])
    asyncio.run(answer(ClaudeAgentOptions(cwd=project, model=everything, skills="all"), "hi"))
    assert "deploy" in (everything.systems[0] or "")
    with pytest.raises(ConfigError, match="no skill is named 'relase'"):
        asyncio.run(answer(ClaudeAgentOptions(cwd=project, model=model, skills=["relase"]), "hi"))


def test_each_tool_result_is_a_user_message_with_its_structured_output(project: Path) -> None:
    both = [{"name": "Bash", "input": {"command": c}} for c in ("echo a", "echo b >&2; false")]
    options = ClaudeAgentOptions(
        cwd=project,
        allowed_tools=["Bash"],
        model=ScriptedModel([{"tool_calls": both}, {"text": "done"}]),
    )
    users = [m for m in asyncio.run(answer(options, "go")) if isinstance(m, UserMessage)]
    assert [len(m.content) for m in users] == [1, 1]
    first, second = (m.tool_use_result for m in users)
    assert isinstance(first, dict) and first["stdout"] == "a"
    assert isinstance(second, str) and second.startswith("Error: ") and "b" in second
