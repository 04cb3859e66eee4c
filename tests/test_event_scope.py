"""``Scope.event``: a session's event, built and validated exactly as the event class builds it
from all its fields (equal, the same fields set, the same errors), the first of its class too."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from hookline import PostToolUse, PreToolUse, SessionStart, Stop
from hookline._events import HookEvent, Scope

SCOPE = Scope(
    "s1", "/tmp/t.jsonl", "/work", permission_mode="plan", user="ana", agent_id="a1",
    agent_type="reviewer", project_dir="/work",
)  # fmt: skip

CASES: list[tuple[type[HookEvent], dict[str, Any]]] = [
    (PreToolUse, {"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t1"}),
    (
        PostToolUse,
        {
            "tool_name": "Read",
            "tool_input": {"p": [1]},
            "tool_response": {"n": 2},
            "tool_use_id": "t2",
        },
    ),
    (SessionStart, {"source": "startup"}),
    (Stop, {"stop_hook_active": False, "agent_id": "other"}),
]


def _made_by_class(cls: type[HookEvent], fields: dict[str, Any]) -> HookEvent:
    return cls(
        session_id="s1", transcript_path="/tmp/t.jsonl", cwd="/work",
        permission_mode="plan" if cls.has_mode else None, prompt_id=None, user="ana",
        tenant=None, **{"agent_id": "a1", "agent_type": "reviewer", **fields},
    )  # fmt: skip


@pytest.mark.parametrize(("cls", "fields"), CASES)
def test_an_event_of_a_scope_is_the_one_its_class_builds(cls, fields):
    built, expected = SCOPE.event(cls, **fields), _made_by_class(cls, fields)
    assert type(built) is cls and built == expected
    assert built.model_fields_set == expected.model_fields_set
    assert built.to_payload() == expected.to_payload()
    assert built.project_dir == "/work"
    assert built.agent_id == fields.get("agent_id", "a1")


def test_a_field_of_the_wrong_type_or_an_unknown_one_is_refused():
    with pytest.raises(ValidationError, match="tool_use_id"):
        SCOPE.event(PreToolUse, tool_name="Bash", tool_input={}, tool_use_id=None)
    with pytest.raises(ValidationError, match="colour"):
        SCOPE.event(Stop, stop_hook_active=False, colour="red")


def test_the_first_event_of_a_class_not_built_yet_is_validated():
    class Pinged(HookEvent):
        count: int

    assert Pinged.__pydantic_complete__ is False  # defer_build: built at its first event
    assert SCOPE.event(Pinged, count="3").count == 3
    with pytest.raises(ValidationError, match="count"):
        SCOPE.event(Pinged, count="three")
