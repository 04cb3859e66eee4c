"""A deferred call's deadline, in the library: set with ``defer_deadline`` (or ``deferDeadline``
in settings), saved with the pause, named on the ``deferred`` record, and enforced by the claim.

Time is the agent's runtime clock, handed in: the pause happens at ``T0`` and the resume at a
time the test picks, so nothing sleeps. The paused call writes ``sentinel.txt``: it exists only
when the call ran.
"""

from __future__ import annotations

import asyncio
import json
import math
from pathlib import Path
from typing import Any

import pytest

from hookline import Agent, ConfigError, Decision, tool
from hookline._agent.runtime import Runtime
from hookline._agent.saved import seal
from hookline._agent.saved.deadline import EXPIRED_BY, seconds
from hookline._agent.saved.hidden import hidden, revealed
from hookline._agent.saved.state import STATE_VERSION, load_state
from hookline._project import load_project
from hookline._tools.approvals import Approval
from hookline.storage import SessionRecord, open_store
from recording_model import RecordingModel

T0 = 1_800_000_000.0
WAIT = 3600.0
SENTINEL = "sentinel.txt"
SCRIPT = [
    {"tool_calls": [
        {"id": "t_a", "name": "ship", "input": {"what": "a"}},
        {"id": "t_b", "name": "ship", "input": {"what": "b"}},
    ]},
    {"text": "done"},
]  # fmt: skip


class Clock:
    """The runtime's clock: it says ``now``, which the test moves."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def agent(
    project: Path, clock: Clock, model: RecordingModel | None = None, **options: Any
) -> Agent:
    """An agent whose ``ship`` calls wait for a person (a PreToolUse defer) and, when they run,
    append to the sentinel file."""

    @tool
    def ship(what: str) -> str:
        """Ship a thing."""
        with open(project / SENTINEL, "a") as out:
            out.write(what + "\n")
        return f"shipped {what}"

    made = Agent(
        model or RecordingModel(SCRIPT),
        tools=[ship],
        cwd=project,
        audit=True,
        runtime=Runtime(clock=clock),
        **options,
    )
    made.registry.add("PreToolUse", lambda e: Decision.defer("a person ships"), matcher="ship")
    return made


def paused(project: Path, clock: Clock, **options: Any) -> str:
    """A run that pauses on both ``ship`` calls at ``clock``'s time; its session id."""
    result = agent(project, clock, **options).run_sync("ship both")
    assert result.stop_reason == "tool_deferred"
    assert not (project / SENTINEL).exists()
    return result.session_id


def resume(project: Path, clock: Clock, session: str, answer: Any) -> tuple[Any, RecordingModel]:
    model = RecordingModel(SCRIPT[1:])

    async def go() -> Any:
        async with agent(project, clock, model) as resumer:
            return await resumer.resume(session, answer)

    return asyncio.run(go()), model


def records(project: Path, kind: str) -> list[dict[str, Any]]:
    lines = (project / ".hookline" / "state" / "audit.jsonl").read_text().splitlines()
    return [r for r in map(json.loads, lines) if r["kind"] == kind]


def stored(project: Path, session: str) -> SessionRecord:
    record = open_store(None, state_dir=project / ".hookline" / "state").get_session(session)
    assert record is not None
    return record


def test_the_pause_saves_its_deadline_and_the_deferred_records_name_it(tmp_path: Path) -> None:
    session = paused(tmp_path, Clock(T0), defer_deadline=WAIT)
    record = stored(tmp_path, session)
    _, _, turn = load_state(record.state, where="test")
    assert (record.version, turn.deadline) == (STATE_VERSION, T0 + WAIT)
    deferred = [r for r in records(tmp_path, "tool") if r["decision"] == "deferred"]
    assert [(r["tool_use_id"], r["data"]["deadline"]) for r in deferred] == [
        ("t_a", T0 + WAIT),
        ("t_b", T0 + WAIT),
    ]


def test_a_resume_before_the_deadline_runs_the_calls_as_answered(tmp_path: Path) -> None:
    session = paused(tmp_path, Clock(T0), defer_deadline=WAIT)
    result, _ = resume(tmp_path, Clock(T0 + WAIT - 1), session, Approval.allow(approver="cli:ann"))
    assert [r.status for r in result.tool_calls] == ["executed", "executed"]
    assert (tmp_path / SENTINEL).read_text() == "a\nb\n"
    given = records(tmp_path, "resume")
    assert [(r["data"]["answered_by"], "expired" in r["data"]) for r in given] == [
        ("cli:ann", False),
        ("cli:ann", False),
    ]


def test_a_resume_at_or_after_the_deadline_denies_every_waiting_call_once(tmp_path: Path) -> None:
    session = paused(tmp_path, Clock(T0), defer_deadline=WAIT)
    late = Clock(T0 + WAIT)  # the deadline itself is past
    result, model = resume(tmp_path, late, session, Approval.allow(approver="cli:ann"))
    assert not (tmp_path / SENTINEL).exists()
    assert [(r.status, r.approver, r.origin) for r in result.tool_calls] == [
        ("blocked", EXPIRED_BY, "unanswered"),
        ("blocked", EXPIRED_BY, "unanswered"),
    ]
    assert all("waited past its deadline" in (r.reason or "") for r in result.tool_calls)
    assert model.seen[0].shows("waited past its deadline")  # the model reads why
    given = records(tmp_path, "resume")
    assert [(r["tool_use_id"], r["decision"], r["data"]["answered_by"]) for r in given] == [
        ("t_a", "deny", EXPIRED_BY),
        ("t_b", "deny", EXPIRED_BY),
    ]
    assert given[0]["data"]["expired"] == {
        "deadline": T0 + WAIT,
        "at": T0 + WAIT,
        "refused": "approve",
    }
    with pytest.raises(ConfigError, match="has finished"):  # the expiry answered it, once
        resume(tmp_path, late, session, Approval.allow(approver="cli:ann"))
    assert not (tmp_path / SENTINEL).exists()


def test_one_answer_per_call_after_the_deadline_is_replaced_too(tmp_path: Path) -> None:
    session = paused(tmp_path, Clock(T0), defer_deadline=WAIT)
    answers = {"t_a": Approval.allow(approver="cli:ann"), "t_b": Approval.deny("no")}
    result, _ = resume(tmp_path, Clock(T0 + 2 * WAIT), session, answers)
    assert [r.approver for r in result.tool_calls] == [EXPIRED_BY, EXPIRED_BY]
    refused = [r["data"]["expired"]["refused"] for r in records(tmp_path, "resume")]
    assert refused == ["approve", "deny"] and not (tmp_path / SENTINEL).exists()


def test_without_a_deadline_a_pause_waits_as_long_as_it_is_kept(tmp_path: Path) -> None:
    session = paused(tmp_path, Clock(T0))
    _, _, turn = load_state(stored(tmp_path, session).state, where="test")
    assert turn.deadline is None
    deferred = [r for r in records(tmp_path, "tool") if r["decision"] == "deferred"]
    assert deferred and all("deadline" not in r["data"] for r in deferred)
    result, _ = resume(tmp_path, Clock(T0 + 400 * 86400), session, Approval.allow())
    assert [r.status for r in result.tool_calls] == ["executed", "executed"]


def test_a_session_saved_before_deadlines_existed_still_resumes(tmp_path: Path) -> None:
    """A version-4 state, as an older hookline sealed it: no deadline key at all."""
    session = paused(tmp_path, Clock(T0))
    store = open_store(None, state_dir=tmp_path / ".hookline" / "state")
    record = stored(tmp_path, session)
    state = revealed(record.state, where="test")
    state["version"] = 4
    del state["turn"]["deadline"]
    old = hidden({k: v for k, v in state.items() if k != "seal"})
    old_record = SessionRecord(session, "deferred", 4, old, record.user, record.tenant)
    old["seal"] = seal.seal(old, old_record)
    store.put_session(old_record)
    assert "deadline" not in revealed(store.get_session(session).state, where="t")["turn"]  # type: ignore[union-attr]
    result, _ = resume(tmp_path, Clock(T0 + 400 * 86400), session, Approval.allow())
    assert [r.status for r in result.tool_calls] == ["executed", "executed"]
    assert (tmp_path / SENTINEL).read_text() == "a\nb\n"


DURATIONS = {"2d": 172800.0, "12h": 43200.0, "30m": 1800.0, "90s": 90.0, " 1.5H ": 5400.0,
             "3600": 3600.0, 7200: 7200.0, 0.5: 0.5}  # fmt: skip
NOT_DURATIONS = ["", "soon", "2w", "-1", "0s", 0, -5, True, "1e3", math.nan, math.inf, "4000d",
                 None, [1]]  # fmt: skip


@pytest.mark.parametrize(("given", "expected"), DURATIONS.items(), ids=str)
def test_a_duration_is_a_number_and_a_unit_or_seconds(given: Any, expected: float) -> None:
    assert seconds(given, key="k") == expected


@pytest.mark.parametrize("given", NOT_DURATIONS, ids=repr)
def test_anything_else_is_refused_naming_the_key_and_the_fix(given: Any) -> None:
    with pytest.raises(ConfigError) as caught:
        seconds(given, key="hookline.deferDeadline", file="/p/settings.json")
    said = str(caught.value)
    assert said.startswith("/p/settings.json: hookline.deferDeadline: ") and '"2d"' in said


def test_the_python_option_takes_seconds_only(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="defer_deadline: '2d' is not a number of seconds"):
        Agent(RecordingModel([]), cwd=tmp_path, defer_deadline="2d")  # type: ignore[arg-type]
    assert Agent(RecordingModel([]), cwd=tmp_path, defer_deadline=60).options.defer_deadline == 60


def settings(folder: Path, where: str, data: dict[str, Any]) -> None:
    path = folder / where
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def test_a_bad_setting_stops_the_load_naming_the_file_the_key_and_the_fix(tmp_path: Path) -> None:
    settings(tmp_path, ".claude/settings.json", {"hookline": {"deferDeadline": "two days"}})
    with pytest.raises(ConfigError) as caught:
        load_project(tmp_path, lenient=True)  # even lenient: the deadline would be lost
    error = caught.value
    assert error.file is not None and error.file.endswith(".claude/settings.json")
    assert error.key == "hookline.deferDeadline"
    assert "'two days'" in error.message and '"2d"' in (error.fix or "")


def test_the_shortest_deadline_of_the_layers_applies(tmp_path: Path) -> None:
    settings(tmp_path, ".claude/settings.json", {"hookline": {"deferDeadline": "2d"}})
    settings(tmp_path, ".claude/settings.local.json", {"hookline": {"deferDeadline": 7200}})
    project = load_project(tmp_path)
    assert project.defer_deadline == 7200.0
    assert project.agent_options()["defer_deadline"] == 7200.0
    bare = tmp_path / "bare"
    bare.mkdir()
    assert load_project(bare).defer_deadline is None  # none set: no deadline
