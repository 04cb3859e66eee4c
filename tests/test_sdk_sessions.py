"""The Agent SDK's session options on hookline: ``resume``, ``continue_conversation``,
``fork_session`` and ``session_id``. A finished session is read back from its transcript, so a
program goes on with a conversation in another process, as it does with Claude Code."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from hookline import ClaudeAgentOptions, ClaudeSDKClient, ConfigError, HookMatcher
from hookline._agent.transcript import read_conversation
from hookline.sdk._types import ResultMessage
from recording_model import RecordingModel

SID = "0b7f4c4e-2f0a-4a8e-9f59-3d1f0c6a7b21"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


def once(project: Path, model: RecordingModel, prompt: str, **options: Any) -> ResultMessage:
    """One prompt in a fresh client (a fresh process, as far as hookline knows); its result."""

    async def run() -> ResultMessage:
        given = ClaudeAgentOptions(cwd=project, model=model, allowed_tools=["Bash"], **options)
        async with ClaudeSDKClient(options=given) as client:
            await client.query(prompt)
            found = [m async for m in client.receive_response()]
        assert isinstance(found[-1], ResultMessage)
        return found[-1]

    return asyncio.run(run())


def transcript(project: Path, session_id: str) -> Path:
    return project / ".hookline" / "state" / "transcripts" / f"{session_id}.jsonl"


#: The first session's script: the number is in a tool result, not only in text. (The scripted
#: model goes on with a resumed conversation where its script left off.)
FIRST = [
    {"tool_calls": [{"name": "Bash", "input": {"command": "echo 4242"}}]},
    {"text": "Noted."},
]


def first_session(project: Path) -> str:
    return once(project, RecordingModel(FIRST), "Remember the number echo prints.").session_id


def going_on(text: str) -> RecordingModel:
    """A model for a resumed conversation, answering ``text``."""
    return RecordingModel([*FIRST, {"text": text}])


def test_resume_goes_on_with_the_conversation_under_its_id(project: Path) -> None:
    sid = first_session(project)
    before = transcript(project, sid).read_text()
    sources: list[str] = []

    async def started(input_data: dict[str, Any], tool_use_id: Any, context: Any) -> dict:
        sources.append(input_data["source"])
        return {}

    model = going_on("It was 4242.")
    hooks = {"SessionStart": [HookMatcher(hooks=[started])]}
    result = once(project, model, "Which number?", resume=sid, hooks=hooks)
    assert result.session_id == sid and result.result == "It was 4242."
    (request,) = model.seen
    assert request.shows("4242") and request.texts()[0] == "Remember the number echo prints."
    assert request.texts()[-1] == "Which number?"
    assert sources == ["resume"]
    after = transcript(project, sid).read_text()
    assert after.startswith(before) and "Which number?" in after[len(before) :]


def test_continue_conversation_picks_the_latest_session(project: Path) -> None:
    first_session(project)
    latest = first_session(project)
    model = going_on("ok")
    result = once(project, model, "And now?", continue_conversation=True)
    assert (result.session_id, result.result) == (latest, "ok") and model.seen[0].shows("4242")


def test_fork_session_copies_the_conversation_and_leaves_the_old_one(project: Path) -> None:
    sid = first_session(project)
    before = transcript(project, sid).read_bytes()
    model = going_on("forked")
    result = once(project, model, "Branch off.", resume=sid, fork_session=True, session_id=SID)
    assert (result.session_id, result.result) == (SID, "forked") and model.seen[0].shows("4242")
    assert transcript(project, sid).read_bytes() == before
    assert "4242" in transcript(project, SID).read_text()


def test_session_id_names_a_new_session_once(project: Path) -> None:
    result = once(project, RecordingModel([{"text": "hi"}]), "Hello.", session_id=SID)
    assert result.session_id == SID and transcript(project, SID).is_file()
    with pytest.raises(ConfigError, match="already exists"):
        once(project, RecordingModel([{"text": "hi"}]), "Hello.", session_id=SID)


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ({"resume": "../../../etc/passwd"}, "is not a session id"),
        ({"resume": f"{SID}/../x"}, "is not a session id"),
        ({"resume": SID}, "there is no session"),
        ({"session_id": "my-session"}, "is not a session id"),
        ({"resume": SID, "continue_conversation": True}, "cannot both be set"),
        ({"fork_session": True}, "needs a session to fork"),
        ({"continue_conversation": True}, "no earlier session"),
    ],
)
def test_a_session_option_that_cannot_be_honoured_is_one_error(
    project: Path, options: dict[str, Any], said: str
) -> None:
    model = RecordingModel([{"text": "hi"}])
    with pytest.raises(ConfigError, match=said):
        once(project, model, "Hello.", **options)
    assert model.seen == []  # nothing was asked of the model


def test_resume_with_a_new_session_id_needs_fork_session(project: Path) -> None:
    sid = first_session(project)
    with pytest.raises(ConfigError, match="needs fork_session"):
        once(project, RecordingModel([{"text": "hi"}]), "Hello.", resume=sid, session_id=SID)


def test_a_damaged_transcript_is_refused_naming_the_file(project: Path) -> None:
    sid = first_session(project)
    path = transcript(project, sid)
    path.write_text(path.read_text() + "not json\n{}\n")
    with pytest.raises(ConfigError, match="is not a transcript entry") as raised:
        once(project, RecordingModel([{"text": "hi"}]), "Hello.", resume=sid)
    assert raised.value.file == str(path)


def test_a_transcript_reads_back_as_the_conversation_it_recorded(project: Path) -> None:
    async def context(input_data: dict[str, Any], tool_use_id: Any, ctx: Any) -> dict:
        event = input_data["hook_event_name"]
        return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": "be brief"}}

    script = [
        {"text": "Two calls.", "tool_calls": [
            {"name": "Bash", "input": {"command": "echo a"}},
            {"name": "Bash", "input": {"command": "false"}},
        ]},
        {"text": "Done."},
    ]  # fmt: skip
    hooks = {e: [HookMatcher(hooks=[context])] for e in ("UserPromptSubmit", "PostToolUse")}
    options = ClaudeAgentOptions(
        cwd=project, model=RecordingModel(script), allowed_tools=["Bash"], hooks=hooks
    )

    async def run() -> tuple[str, list[Any]]:
        async with ClaudeSDKClient(options=options) as client:
            await client.query("Go.")
            [m async for m in client.receive_response()]
            session = client._agent.session  # type: ignore[union-attr]
            return session.id, list(session.messages)

    sid, conversation = asyncio.run(run())
    assert read_conversation(transcript(project, sid)) == conversation
    kinds = [type(b).__name__ for b in conversation[2].content]  # results, then the context
    assert kinds == ["ToolResultBlock", "ToolResultBlock", "TextBlock"]
    assert [getattr(b, "is_error", None) for b in conversation[2].content] == [False, True, None]


def test_a_fork_into_a_session_that_exists_is_refused(project: Path) -> None:
    sid = first_session(project)
    other = first_session(project)
    before = transcript(project, other).read_bytes()
    with pytest.raises(ConfigError, match="already exists"):
        once(project, going_on("x"), "Hello.", resume=sid, fork_session=True, session_id=other)
    assert transcript(project, other).read_bytes() == before
