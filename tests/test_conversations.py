"""An agent's conversations: what is shared (``hookline.agent.conversation.Shared``) and what
each conversation has of its own, replaced in one place."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from hookline import Agent, ScriptedModel
from hookline.agent.subagents import Subagent
from hookline.permissions.session import SessionGrant

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


def test_making_an_agent_writes_nothing_to_disk(tmp_path: Path, monkeypatch) -> None:
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
