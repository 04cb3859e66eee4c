"""The advisory layer: CLAUDE.md, AGENTS.md, .claude/rules and skills in the model's context."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest

from hookline import Agent, ScriptedModel
from hookline._agent.instructions import MAX_BYTES, Instructions, front_matter
from hookline._events import InstructionsLoaded
from hookline.testing import RecordingHook
from recording_model import RecordingModel

Ran = tuple[Any, RecordingModel, RecordingHook]


def run(tmp_path: Path, turns: list[dict[str, Any]], **options: Any) -> Ran:
    model = RecordingModel(turns)
    agent = Agent(model, cwd=tmp_path, **options)
    hook = RecordingHook()
    hook.attach(agent.registry, ["InstructionsLoaded"])
    result = agent.run_sync("go")
    return result, model, hook


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def read(path: str) -> dict[str, Any]:
    return {"name": "Read", "input": {"file_path": path}}


def test_claude_md_and_agents_md_reach_the_system_prompt_and_fire_instructions_loaded(
    tmp_path: Path,
) -> None:
    write(tmp_path / "CLAUDE.md", "Always answer in French.")
    write(tmp_path / "AGENTS.md", "Run the tests with make check.")
    result, model, hook = run(tmp_path, [{"text": "ok"}], system_prompt="You are careful.")
    assert result.stop_reason == "end_turn"
    system = model.systems[0] or ""
    assert system.startswith("You are careful.\n\n")
    assert "Always answer in French." in system and "Run the tests with make check." in system
    assert system.index("French") < system.index("make check")
    payloads = [e.to_payload() for e in hook.events]
    assert [(p["file_path"], p["load_reason"]) for p in payloads] == [
        (str(tmp_path / "CLAUDE.md"), "session_start"),
        (str(tmp_path / "AGENTS.md"), "session_start"),
    ]
    # the fields of the payload Claude Code sends, in its order
    assert list(payloads[0]) == [
        "session_id", "transcript_path", "cwd", "hook_event_name", "file_path", "memory_type",
        "load_reason",
    ]  # fmt: skip
    assert payloads[0]["memory_type"] == "Project"


def test_the_user_claude_md_is_loaded_as_user_memory(tmp_path: Path) -> None:
    home = Path.home()  # an empty home for each test (conftest)
    write(home / ".claude" / "CLAUDE.md", "Sign every answer.")
    project = tmp_path / "project"
    project.mkdir()
    _, model, hook = run(project, [{"text": "ok"}])
    assert "Sign every answer." in (model.systems[0] or "")
    assert [e.memory_type for e in hook.events if isinstance(e, InstructionsLoaded)] == ["User"]


def test_a_path_scoped_rule_joins_the_prompt_after_a_read_of_a_matching_file(
    tmp_path: Path,
) -> None:
    write(tmp_path / ".claude" / "rules" / "python.md",
          '---\npaths: ["src/**/*.py"]\n---\nUse type hints everywhere.\n')  # fmt: skip
    write(tmp_path / ".claude" / "rules" / "always.md", "Be brief.\n")
    write(tmp_path / "README.md", "readme")
    target = write(tmp_path / "src" / "pkg" / "a.py", "x = 1\n")
    turns = [
        {"tool_calls": [read(str(tmp_path / "README.md"))]},
        {"tool_calls": [read(str(target))]},
        {"text": "done"},
    ]
    result, model, hook = run(tmp_path, turns)
    assert result.stop_reason == "end_turn"
    before = [s or "" for s in model.systems[:2]]
    assert all("Be brief." in s and "type hints" not in s for s in before)
    assert "Use type hints everywhere." in (model.systems[2] or "")
    matched = [e for e in hook.events if e.load_reason == "path_glob_match"]
    assert len(matched) == 1
    payload = matched[0].to_payload()
    assert payload["file_path"] == str(tmp_path / ".claude" / "rules" / "python.md")
    assert payload["globs"] == ["src/**/*.py"]
    assert payload["trigger_file_path"] == str(target)
    assert payload["memory_type"] == "Project"
    started = [e.file_path for e in hook.events if e.load_reason == "session_start"]
    assert started == [str(tmp_path / ".claude" / "rules" / "always.md")]


def test_a_rule_loads_once_however_many_matching_files_are_read(tmp_path: Path) -> None:
    write(tmp_path / ".claude" / "rules" / "py.md", "---\npaths:\n  - '*.py'\n---\nRule.\n")
    a, b = write(tmp_path / "a.py", "a"), write(tmp_path / "b.py", "b")
    turns = [{"tool_calls": [read(str(a)), read(str(b))]}, {"tool_calls": [read(str(a))]}, {}]
    _, model, hook = run(tmp_path, turns)
    assert [e.trigger_file_path for e in hook.events] == [str(a)]
    assert (model.systems[-1] or "").count("Rule.") == 1


def test_a_skill_is_listed_and_the_skill_tool_returns_its_body(tmp_path: Path) -> None:
    write(tmp_path / ".claude" / "skills" / "release" / "SKILL.md",
          "---\nname: release\ndescription: How to cut a release\n---\n"
          "1. Bump the version.\n")  # fmt: skip
    turns = [{"tool_calls": [{"name": "Skill", "input": {"skill": "release"}}]}, {"text": "ok"}]
    result, model, _ = run(tmp_path, turns)
    assert "- release: How to cut a release" in (model.systems[0] or "")
    assert "Bump the version." not in (model.systems[0] or "")
    assert "Skill" in model.tools[0]
    (call,) = result.tool_calls
    assert call.status == "executed" and "1. Bump the version." in call.content
    assert "description:" not in call.content  # the front matter is not the instructions


def test_an_unknown_skill_is_an_error_the_model_reads(tmp_path: Path) -> None:
    write(tmp_path / ".claude" / "skills" / "release" / "SKILL.md",
          "---\nname: release\ndescription: Releases\n---\nbody\n")  # fmt: skip
    turns = [{"tool_calls": [{"name": "Skill", "input": {"skill": "deploy"}}]}, {"text": "ok"}]
    result, model, _ = run(tmp_path, turns)
    (call,) = result.tool_calls
    assert call.is_error and "Unknown skill: deploy" in call.content and "release" in call.content
    answer = model.shown(1)[-1]
    assert "Unknown skill: deploy" in str(answer.content)


@pytest.mark.parametrize(
    ("content", "problem"),
    [(b"x" * (MAX_BYTES + 1), "larger than"), (b"caf\xe9 au lait", "not UTF-8")],
)
def test_a_huge_or_non_utf8_file_is_left_out_with_a_warning_and_the_run_goes_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, content: bytes, problem: str
) -> None:
    write(tmp_path / "CLAUDE.md", content)
    write(tmp_path / "AGENTS.md", "Still here.")
    with caplog.at_level(logging.WARNING, logger="hookline._agent.instructions"):
        result, model, hook = run(tmp_path, [{"text": "ok"}])
    assert result.stop_reason == "end_turn"
    assert "Still here." in (model.systems[0] or "")
    assert "xxxx" not in (model.systems[0] or "") and "lait" not in (model.systems[0] or "")
    (line,) = [r.getMessage() for r in caplog.records]
    assert line.startswith(f"{tmp_path / 'CLAUDE.md'}: ") and problem in line
    assert [e.file_path for e in hook.events] == [str(tmp_path / "AGENTS.md")]


def test_a_skill_without_a_description_is_left_out_with_a_warning(tmp_path: Path) -> None:
    write(tmp_path / ".claude" / "skills" / "x" / "SKILL.md", "---\nname: x\n---\nbody\n")
    found = Instructions.discover(tmp_path)
    assert found.skills == [] and "'description'" in found.warnings[0]


def test_with_no_files_the_model_input_is_unchanged(tmp_path: Path) -> None:
    turns = [{"tool_calls": [read(str(write(tmp_path / "a.py", "a")))]}, {"text": "ok"}]
    _, model, hook = run(tmp_path, turns, system_prompt="Base.")
    _, plain, _ = run(tmp_path, turns, system_prompt="Base.", instructions=False)
    assert model.systems == ["Base.", "Base."] == plain.systems
    assert model.tools == plain.tools and "Skill" not in model.tools[0]
    assert hook.events == []


def test_turning_instructions_off_leaves_the_files_out(tmp_path: Path) -> None:
    write(tmp_path / "CLAUDE.md", "Always answer in French.")
    write(tmp_path / ".claude" / "skills" / "s" / "SKILL.md", "---\ndescription: d\n---\nb")
    _, model, hook = run(tmp_path, [{"text": "ok"}], instructions=False)
    assert model.systems == [None] and "Skill" not in model.tools[0] and hook.events == []


def test_front_matter_reads_the_yaml_subset_these_files_use() -> None:
    text = "---\nname: 'a b'\npaths: [\"x/*.py\", 'y/**']\nmore:\n  - one\n  - \"two\"\n---\nBody"
    assert front_matter(text) == (
        {"name": "a b", "paths": ["x/*.py", "y/**"], "more": ["one", "two"]},
        "Body",
    )
    assert front_matter("no front matter") == ({}, "no front matter")
    assert front_matter("---\nunclosed: 1\n") == ({}, "---\nunclosed: 1\n")


def test_instructions_loaded_fires_without_a_model_call_when_the_session_starts(
    tmp_path: Path,
) -> None:
    write(tmp_path / "CLAUDE.local.md", "Mine.")
    agent = Agent(ScriptedModel([]), cwd=tmp_path)
    hook = RecordingHook()
    hook.attach(agent.registry, ["InstructionsLoaded"])

    async def started() -> None:
        async with agent:
            await agent.start()

    asyncio.run(started())
    assert [(e.memory_type, e.load_reason) for e in hook.events] == [("Local", "session_start")]
