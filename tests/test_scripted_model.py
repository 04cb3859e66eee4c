"""The scripted model: each call answers with the next turn, the script is checked when the
model is made, and what a run does with an answer never changes the script."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from hookline import Message, ScriptedModel
from hookline._errors import ConfigError
from hookline.models import Script

pytestmark = pytest.mark.unit

TURNS: list[dict[str, Any]] = [
    {"text": "first", "tool_calls": [{"name": "Read", "input": {"file_path": "a.txt"}}]},
    {"tool_calls": [{"id": "mine", "name": "Bash", "input": {"command": "ls"}}]},
]


def _answers(model: ScriptedModel, count: int) -> list[Message]:
    async def ask() -> list[Message]:
        return [await model.complete([], []) for _ in range(count)]

    return asyncio.run(ask())


def test_each_call_answers_the_next_turn_then_the_final_text() -> None:
    first, second, third = _answers(ScriptedModel(TURNS), 3)
    assert first.text == "first"
    assert [(c.id, c.name, c.input) for c in first.tool_calls] == [
        ("toolu_01_1", "Read", {"file_path": "a.txt"})
    ]
    assert [c.id for c in second.tool_calls] == ["mine"]
    assert third.text == "(the script has no more turns)"


def test_a_call_whose_input_is_changed_leaves_the_script_as_it_was() -> None:
    script = Script.model_validate({"turns": TURNS})
    (answer,) = _answers(ScriptedModel(script), 1)
    answer.tool_calls[0].input["file_path"] = "/etc/shadow"
    (again,) = _answers(ScriptedModel(script), 1)
    assert again.tool_calls[0].input == {"file_path": "a.txt"}


def test_a_malformed_script_file_names_the_file_and_the_key(tmp_path: Path) -> None:
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"turns": [{"tool_calls": [{"name": ""}]}]}))
    with pytest.raises(ConfigError) as caught:
        ScriptedModel.from_file(path)
    assert str(path) in str(caught.value)
    assert "turns[0].tool_calls[0].name" in str(caught.value)
