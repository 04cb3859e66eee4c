"""What a Claude Agent SDK program reads from hookline: the messages of a response, in the SDK's
types and order, from ``ClaudeSDKClient`` and from ``query`` (a string prompt, or a stream of
user messages). Hooks, permissions and SDK MCP tools have their own files
(``test_sdk_e2e_hooks``, ``test_sdk_e2e_permissions``, ``test_sdk_e2e_mcp``)."""

from __future__ import annotations

import asyncio
import gc
import warnings
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from hookline import (
    AssistantMessage,
    HookMatcher,
    ResultMessage,
    SystemMessage,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
    query,
)
from sdk_program import bash, converse, options, outcome


def collect(prompt: Any, opts: Any) -> list[Any]:
    """Every message ``query`` yields."""

    async def program() -> list[Any]:
        return [message async for message in query(prompt=prompt, options=opts)]

    return asyncio.run(program())


def test_a_response_is_init_then_assistant_and_user_messages_then_one_result(
    tmp_path: Path,
) -> None:
    turn = {**bash("t1", "echo hello"), "text": "Running it"}
    opts, _ = options(tmp_path, [turn, {"text": "It said hello"}], allowed_tools=["Bash"])

    messages = converse(opts, "Run: echo hello")

    assert [type(m) for m in messages] == [
        SystemMessage,
        AssistantMessage,
        UserMessage,
        AssistantMessage,
        ResultMessage,
    ]
    init, first, tool_results, last, result = messages
    assert isinstance(init, SystemMessage) and init.subtype == "init"
    assert init.data["cwd"] == str(tmp_path.resolve())
    assert init.data["model"] == "scripted"
    assert "Bash" in init.data["tools"]
    assert isinstance(first, AssistantMessage)
    assert first.content == [
        TextBlock("Running it"),
        ToolUseBlock(id="t1", name="Bash", input={"command": "echo hello"}),
    ]
    assert isinstance(tool_results, UserMessage)
    assert tool_results.content == [ToolResultBlock("t1", "hello", is_error=False)]
    assert isinstance(last, AssistantMessage) and last.content == [TextBlock("It said hello")]
    assert isinstance(result, ResultMessage)
    assert (result.subtype, result.is_error, result.num_turns) == ("success", False, 2)
    assert result.result == "It said hello"
    assert isinstance(result.usage, dict) and "input_tokens" in result.usage
    sessions = {init.data["session_id"], first.session_id, result.session_id}
    assert len(sessions) == 1 and None not in sessions


def test_each_prompt_to_a_client_is_answered_in_turn_in_one_session(tmp_path: Path) -> None:
    opts, model = options(tmp_path, [{"text": "one"}, {"text": "two"}])

    messages = converse(opts, "first", "second")

    answers = [m for m in messages if isinstance(m, ResultMessage)]
    assert [a.result for a in answers] == ["one", "two"]
    assert answers[0].session_id == answers[1].session_id
    assert model.seen[1].texts() == ["first", "one", "second"]


def test_max_turns_ends_the_response_with_an_error_result(tmp_path: Path) -> None:
    opts, _ = options(
        tmp_path, [bash("t1", "echo 1"), {"text": "never"}], allowed_tools=["Bash"], max_turns=1
    )

    result = outcome(converse(opts, "Count"))

    assert (result.subtype, result.is_error) == ("error_max_turns", True)


def test_query_with_a_string_prompt(tmp_path: Path) -> None:
    opts, model = options(tmp_path, [{"text": "4"}])

    messages = collect("What is 2 + 2?", opts)

    assert isinstance(messages[0], SystemMessage) and messages[0].subtype == "init"
    assert outcome(messages).result == "4"
    assert model.seen[0].texts() == ["What is 2 + 2?"]


def test_query_with_a_stream_of_user_messages_answers_each_in_one_session(tmp_path: Path) -> None:
    opts, model = options(tmp_path, [{"text": "Hi there"}, {"text": "Bye"}])

    async def prompts() -> AsyncIterator[dict[str, Any]]:
        yield {"type": "user", "message": {"role": "user", "content": "Hello"}}
        text = {"type": "text", "text": "Goodbye"}
        yield {"type": "user", "message": {"role": "user", "content": [text]}}

    messages = collect(prompts(), opts)

    answers = [m for m in messages if isinstance(m, ResultMessage)]
    assert [a.result for a in answers] == ["Hi there", "Bye"]
    assert len({a.session_id for a in answers}) == 1
    assert model.seen[1].texts() == ["Hello", "Hi there", "Goodbye"]


def test_a_program_that_stops_reading_query_at_the_result_still_ends_the_session(
    tmp_path: Path,
) -> None:
    """The SDK's own tests break out of ``query`` on the ResultMessage: the session must still
    end (SessionEnd hooks run, the transcript is closed), not wait for a cleanup that a closing
    event loop drops."""
    ended: list[str] = []

    async def session_end(input_data: Any, tool_use_id: str | None, context: Any) -> Any:
        ended.append(input_data["hook_event_name"])
        return {}

    opts, _ = options(
        tmp_path, [{"text": "done"}], hooks={"SessionEnd": [HookMatcher(hooks=[session_end])]}
    )

    async def program() -> list[Any]:
        seen = []
        async for message in query(prompt="Say done", options=opts):
            seen.append(message)
            if isinstance(message, ResultMessage):
                break
        return seen

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        messages = asyncio.run(program())
        gc.collect()  # what the session left open, once nothing holds it

    assert outcome(messages).result == "done"
    assert ended == ["SessionEnd"]
    assert [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)] == []
