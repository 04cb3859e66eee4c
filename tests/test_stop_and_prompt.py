"""``continue: false`` on every event, one row of docs/compatibility.md's table each.

Stop blocks, ``stop_hook_active``, the block cap and UserPromptSubmit (block, context, plain
stdout, its 30 s default timeout) are covered in test_loop.py, test_reactions.py,
test_cc_fidelity.py and test_settings.py; this file adds the events they leave out.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hookline import Agent, Decision, ScriptedModel, ToolError, tool

STOPPED = "Operation stopped by hook: T"

#: event -> (stop_reason, model calls, the calls whose body ran, final text)
ROWS = {
    "SessionStart": ("hook_stopped", 0, [], STOPPED),
    "UserPromptSubmit": ("hook_stopped", 0, [], STOPPED),
    "TurnStart": ("hook_stopped", 0, [], STOPPED),
    "PreToolUse": ("hook_stopped", 1, ["one"], ""),
    "PostToolUse": ("hook_stopped", 1, ["one"], ""),
    "PostToolUseFailure": ("hook_stopped", 1, ["fail"], ""),
    "PostToolBatch": ("hook_stopped", 1, ["one"], ""),
    "Stop": ("hook_stopped", 3, ["one", "two"], "done"),
    "ToolBlocked": ("end_turn", 3, [], "done"),
    "InstructionsLoaded": ("end_turn", 3, ["one", "two"], "done"),
    "TurnEnd": ("end_turn", 3, ["one", "two"], "done"),
    "SessionEnd": ("end_turn", 3, ["one", "two"], "done"),
}


def sentinel_tool(folder: Path):  # type: ignore[no-untyped-def]
    """``mark(text)`` creates ``ran-<text>`` in ``folder``; ``fail`` then raises."""

    def mark(text: str) -> str:
        (folder / f"ran-{text}").touch()
        if text == "fail":
            raise ToolError("failed on purpose")
        return "marked"

    return tool(mark, name="mark")


def calling(text: str) -> dict[str, object]:
    return {"tool_calls": [{"id": f"toolu_{text}", "name": "mark", "input": {"text": text}}]}


@pytest.mark.parametrize("event", list(ROWS))
def test_continue_false_on_each_event(event: str, tmp_path: Path) -> None:
    project, marks = tmp_path / "project", tmp_path / "marks"
    project.mkdir(), marks.mkdir()
    (project / "CLAUDE.md").write_text("Be brief.\n", "utf-8")  # so InstructionsLoaded fires
    first = "fail" if event == "PostToolUseFailure" else "one"
    model = ScriptedModel([calling(first), calling("two"), {"text": "done"}])
    agent = Agent(model, tools=[sentinel_tool(marks)], cwd=project)
    fired: list[str] = []
    agent.registry.add(event, lambda e: fired.append(e.name), kind="observer")
    agent.registry.add(event, lambda e: Decision.stop("T"))
    if event == "ToolBlocked":
        agent.registry.add("PreToolUse", lambda e: Decision.deny("not now"))

    result = agent.run_sync("go")

    stop_reason, calls, ran, text = ROWS[event]
    assert fired, f"{event} never fired"
    assert (result.stop_reason, model.calls, result.final_text) == (stop_reason, calls, text)
    assert sorted(p.name for p in marks.iterdir()) == [f"ran-{name}" for name in ran]
    if stop_reason == "hook_stopped":
        assert result.stop_detail == "T"
