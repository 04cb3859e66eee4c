"""An agent's conversations: what is shared (``hookline._agent.conversation.Shared``) and what
each conversation has of its own, replaced in one place."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from hookline import Agent, HookMatcher, ScriptedModel, tool
from hookline._agent.messages import Message
from hookline._agent.result import RunResult
from hookline._agent.subagents import Subagent
from hookline._agent.transcript import read_conversation
from hookline._tools.base import ToolCall
from hookline.permissions import PermissionPolicy
from hookline.permissions._rules import PermissionRule
from hookline.permissions._session import SessionGrant

SRC = Path(__file__).resolve().parents[1] / "src" / "hookline"
COPIES = re.compile(r"vars\([^)]*\)\.update|__dict__\.update")


def test_no_module_copies_one_objects_fields_into_another() -> None:
    copying = [
        f"{path.relative_to(SRC)}:{number}"
        for path in sorted(SRC.rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if COPIES.search(line)
    ]
    assert copying == []


def test_the_pattern_finds_a_copy() -> None:
    assert COPIES.search("        vars(self).update(vars(parent))")
    assert COPIES.search("self.__dict__.update(other.__dict__)")


def test_a_subagent_shares_the_agents_parts_and_has_a_conversation_of_its_own(
    tmp_path: Path,
) -> None:
    agent = Agent(ScriptedModel([]), cwd=tmp_path, instructions=False)
    child = Subagent(agent, "general-purpose", agent.subagents.types["general-purpose"])
    assert child.registry is agent.registry and child.runtime is agent.runtime
    assert child.observers is agent.observers and child.lent is agent.lent
    assert child.session is not agent.session and child.session.id == agent.session.id
    assert child.tools is not agent.tools and "Agent" not in child.tools
    assert child.pipeline.permit is not agent.pipeline.permit
    assert child.session.scope.agent_id == child.agent_id


def test_clear_starts_a_new_conversation_that_keeps_the_grants(tmp_path: Path) -> None:
    agent = Agent(ScriptedModel([]), cwd=tmp_path, instructions=False)
    before, old = agent._conversation, agent.session
    grant = SessionGrant(mode="acceptEdits")

    async def clear() -> bool:
        agent.session.grants.append(grant)
        await agent.clear()
        started = agent.session.started  # clear starts it (SessionStart, source clear)
        await agent.close()
        return started

    assert asyncio.run(clear())
    assert agent._conversation is not before and agent.session is not old
    assert agent.session.id != old.id and agent.session.grants == [grant]


def test_making_an_agent_writes_nothing_to_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(project)
    agent = Agent(ScriptedModel([]))
    assert agent.session.cwd == project.resolve()
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == [
        Path("home"),
        Path("project"),
    ]


# -- many conversations on one agent's parts, at once ----------------------------------------------

CONVERSATIONS = 100


class Echo:
    """A model with no state of its own: it answers each conversation from what it is shown (a
    ``note`` call carrying the prompt, then the prompt back), so one model serves them all."""

    name = "echo"

    async def complete(
        self, messages: Sequence[Message], tools: Sequence[dict[str, Any]], **_: Any
    ) -> Message:
        prompt = messages[0].text
        if len(messages) == 1:
            return Message.assistant("", (ToolCall(f"toolu_{prompt}", "note", {"text": prompt}),))
        return Message.assistant(f"done {prompt}")


@tool(name="note", read_only=True)
def note(text: str) -> str:
    """Note it."""
    return text


def test_a_hundred_conversations_on_one_agent_keep_their_state_apart(tmp_path: Path) -> None:
    seen: list[tuple[str, str, str]] = []
    gate = asyncio.Event()

    async def hold(data: dict[str, Any], tool_use_id: str | None, context: Any) -> dict[str, Any]:
        seen.append((data["session_id"], data["transcript_path"], data["tool_input"]["text"]))
        if len(seen) == CONVERSATIONS:
            gate.set()  # every conversation's hook is in flight now
        await gate.wait()
        return {}

    agent = Agent(
        Echo(),
        tools=[note],
        hooks={"PreToolUse": [HookMatcher(matcher="note", hooks=[hold])]},
        cwd=tmp_path,
        instructions=False,
        permissions=PermissionPolicy(),
    )
    talks = [agent, *(agent.conversation() for _ in range(CONVERSATIONS - 1))]
    grants = [SessionGrant(rules=(PermissionRule("Bash", f"echo {n}"),)) for n in range(len(talks))]
    for talk, grant in zip(talks, grants, strict=True):
        talk.pipeline.permit.grant(grant)

    async def run_all() -> list[RunResult]:
        results = await asyncio.gather(*(t.run(f"p{n}") for n, t in enumerate(talks)))
        for talk in reversed(talks):  # the agent that made the parts closes last
            await talk.close()
        return results

    results = asyncio.run(run_all())
    assert len({talk.session.id for talk in talks}) == CONVERSATIONS
    assert agent.registry is talks[-1].registry and agent.runtime is talks[-1].runtime
    by_session = {sid: (path, said) for sid, path, said in seen}
    for n, (talk, result, grant) in enumerate(zip(talks, results, grants, strict=True)):
        session = talk.session
        assert result.session_id == session.id and result.final_text == f"done p{n}"
        assert by_session[session.id] == (str(session.transcript.path), f"p{n}")
        assert [run.tool_use_id for run in result.hook_runs] == [f"toolu_p{n}"]
        assert session.grants == [grant]
        policy = talk.pipeline.permit.policy
        assert policy is not None and [rule for rule, _ in policy.allow] == list(grant.rules)
        said = [m.text for m in read_conversation(session.transcript.path)]
        assert said == [f"p{n}", "", "", f"done p{n}"]  # prompt, call, result, answer
