"""A paused session's state: one typed model of a tool result, saved and read back whole.

What a pause saves and what a caller reports both come from ``ToolResult``'s own fields, so a
field cannot be saved by one and lost by the other (a resume once lost ``approver``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from hookline import Agent, ConfigError, Decision, ScriptedModel, tool
from hookline._agent.messages import Message, ToolResultBlock
from hookline._agent.saved.hidden import revealed
from hookline._agent.saved.state import STATE_VERSION, Turn, dump_state, load_state
from hookline._tools.approvals import Approval
from hookline._tools.base import LOOP_ONLY, ToolCall, ToolResult
from hookline.storage import open_store

SESSION = {
    "id": "sess-1",
    "cwd": "/work/project",
    "state_dir": "/work/project/.hookline/state",
    "roots": ["/work/project"],
    "permission_mode": "default",
    "prompt_id": None,
    "user": "ana",
    "tenant": None,
    "prompts": 1,
}
CALL = ToolCall("toolu_1", "note", {"text": "paid", "n": 2})
#: A result with every field set to something other than its default.
FULL = ToolResult(
    call=CALL,
    status="executed",
    content="noted",
    input={"text": "paid (edited)", "n": 2},
    output={"saved": True, "lines": [1, 2]},
    reason="allowed by the notes rule",
    context=("a reminder", "another"),
    stop_reason="enough for today",
    stopped=True,
    duration_ms=12.5,
    approver="hook:approve-notes",
    permission="allow",
    origin="approver",
    deadline=1_900_000_000.5,
)


def round_trip(turn: Turn, messages: list[Message] | None = None) -> Turn:
    """``turn`` saved, stored as JSON text and loaded, as a pause and a resume do."""
    saved = json.loads(json.dumps(dump_state(dict(SESSION), messages or [], turn)))
    _, _, loaded = load_state(saved, where="session sess-1")
    return loaded


def test_the_full_result_sets_every_field_so_the_round_trip_covers_them_all() -> None:
    unset = [
        f.name
        for f in dataclasses.fields(ToolResult)
        if f.default is not dataclasses.MISSING and getattr(FULL, f.name) == f.default
    ]
    assert unset == [], f"set {unset} in FULL, so the round trip checks them too"


def test_a_result_with_every_field_set_survives_save_and_load_unchanged() -> None:
    waiting = ToolCall("toolu_2", "pay", {"amount": 30})
    turn = Turn("settle", steps=2, calls=[FULL], batch=[(waiting, None), (CALL, FULL)])
    loaded = round_trip(turn)
    assert loaded.calls == [FULL]
    assert loaded.batch == [(waiting, None), (CALL, FULL)]
    assert loaded.calls[0].approver == "hook:approve-notes"


def test_what_a_caller_reports_is_every_field_but_the_loops_own() -> None:
    reported = FULL.to_dict()
    fields = {f.name for f in dataclasses.fields(ToolResult)} - LOOP_ONLY - {"call"}
    assert set(reported) == {"tool_use_id", "name"} | fields
    assert (reported["tool_use_id"], reported["name"]) == ("toolu_1", "note")
    assert {name: reported[name] for name in fields} == {
        name: getattr(FULL, name) for name in fields
    }
    assert reported["approver"] == "hook:approve-notes"


def test_a_state_saved_before_results_had_an_approver_still_loads() -> None:
    """Exactly what hookline wrote for a result before ``approver`` (and the permission fields)
    were saved: each missing field takes its default."""
    old = {
        "version": 3,
        "session": dict(SESSION),
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "settle"}]},
            {"role": "assistant", "content": [{"type": "tool_use", **CALL.to_dict()}]},
        ],
        "turn": {
            "prompt": "settle",
            "steps": 1,
            "stop_blocks": 0,
            "final_text": "",
            "detail": "payments over 20 wait for finance",
            "calls": [],
            "batch": [
                {
                    "call": {"id": "toolu_1", "name": "note", "input": {"text": "paid", "n": 2}},
                    "result": {
                        "call": {"id": "toolu_1", "name": "note", "input": {"text": "paid"}},
                        "status": "executed",
                        "content": "noted",
                        "input": {"text": "paid", "n": 2},
                        "output": "noted",
                        "reason": None,
                        "context": [],
                        "stop_reason": None,
                        "stopped": False,
                        "duration_ms": 3,
                    },
                },
            ],
        },
        "launch": None,
        "owner": {"host": "elsewhere", "pid": 1},
    }
    session, messages, turn = load_state(old, where="session sess-1")
    assert session == SESSION
    assert [m.role for m in messages] == ["user", "assistant"]
    ((call, result),) = turn.batch
    assert call == CALL
    assert result == ToolResult(
        ToolCall("toolu_1", "note", {"text": "paid"}),
        "executed",
        "noted",
        {"text": "paid", "n": 2},
        output="noted",
        duration_ms=3.0,
    )
    assert (result.approver, result.permission, result.origin) == (None, None, None)


@pytest.mark.parametrize(
    ("path", "value", "words"),
    [
        (("status",), "maybe", "turn.calls.0.status"),
        (("stopped",), "maybe", "turn.calls.0.stopped"),
        (("approver",), 7, "turn.calls.0.approver"),
        (("call", "id"), None, "turn.calls.0.call.id"),
    ],
)
def test_a_result_of_the_wrong_shape_is_refused_as_damaged_naming_the_field(
    path: tuple[str, ...], value: Any, words: str
) -> None:
    saved = json.loads(json.dumps(dump_state(dict(SESSION), [], Turn("settle", calls=[FULL]))))
    target = saved["turn"]["calls"][0]
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(ConfigError, match=f"damaged \\({words}"):
        load_state(saved, where="session sess-1")


def test_a_message_of_a_paused_session_round_trips_with_its_blocks() -> None:
    messages = [
        Message.user("settle"),
        Message("assistant", (CALL,)),
        Message("user", (ToolResultBlock("toolu_1", "noted", True),)),
    ]
    saved = json.loads(json.dumps(dump_state(dict(SESSION), messages, Turn("settle"))))
    assert load_state(saved, where="session sess-1")[1] == messages


# -- through a real pause and resume ----------------------------------------------------------


def approving_agent(cwd: Path) -> Agent:
    """``pay`` waits for finance (deferred); ``note`` asks, and a PermissionRequest hook
    approves it, so its result names that hook as its approver."""

    @tool
    def pay(amount: int) -> str:
        """Pay an amount."""
        (cwd / "paid").write_text(str(amount))
        return f"paid {amount}"

    @tool
    def note(text: str) -> str:
        """Write a note."""
        return "noted"

    script = [
        {"tool_calls": [{"id": "t_note", "name": "note", "input": {"text": "paid"}},
                        {"id": "t_pay", "name": "pay", "input": {"amount": 30}}]},
        {"text": "all settled"},
    ]  # fmt: skip
    agent = Agent(ScriptedModel(script), tools=[pay, note], cwd=cwd)
    agent.registry.add("PreToolUse", lambda e: Decision.defer("finance"), matcher="pay")
    agent.registry.add("PreToolUse", lambda e: Decision.ask("notes need a yes"), matcher="note")
    agent.registry.add(
        "PermissionRequest", lambda e: Decision.allow(), matcher="note", name="approve-notes"
    )
    return agent


def test_a_pause_and_a_resume_keep_the_approver_of_a_call_that_finished_before_it(
    tmp_path: Path,
) -> None:
    paused = approving_agent(tmp_path).run_sync("settle the invoice")
    assert paused.stop_reason == "tool_deferred"
    (note,) = [r for r in paused.tool_calls if r.call.name == "note"]
    assert note.approver == "hook:approve-notes"

    store = open_store(None, state_dir=tmp_path / ".hookline" / "state")
    record = store.get_session(paused.session_id)
    assert record is not None and record.version == STATE_VERSION
    saved = {b["call"]["id"]: b["result"] for b in revealed(record.state)["turn"]["batch"]}
    assert saved["t_pay"] is None
    assert saved["t_note"]["approver"] == "hook:approve-notes"

    async def resume() -> Any:
        async with approving_agent(tmp_path) as agent:
            return await agent.resume(paused.session_id, Approval.allow(approver="cli"))

    resumed = asyncio.run(resume())
    assert resumed.stop_reason == "end_turn"
    by_name = {r.call.name: r for r in resumed.tool_calls}
    assert by_name["note"] == note  # read back from the store, every field as it was
    assert (by_name["pay"].status, by_name["pay"].approver) == ("executed", "cli")
    assert (tmp_path / "paid").read_text() == "30"
