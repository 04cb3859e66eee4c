"""Subagents: the Agent tool runs a child loop in which every hook and rule applies.

The scripted model serves the parent and its subagents alike: a subagent's requests take the
next turns of the script, so each script below reads in the order the requests happen. Command
hooks are real processes from a settings file (``tests/reaction_hooks/hook.py``); the
SubagentStart, SubagentStop and in-subagent PreToolUse payloads are compared with those the
real CLI sent (``tests/reaction_hooks/payloads/``).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from cc_scenarios import (
    FINAL,
    MARKER,
    OBSERVED_EVENTS,
    Outcome,
    bash,
    calls,
    command,
    group,
    recorder,
    reminders,
    say,
    texts,
    tool_results,
)
from hookline import (
    Agent,
    Decision,
    HookRegistry,
    HookRunner,
    Message,
    Observer,
    PermissionPolicy,
    RunResult,
    tool,
)
from hookline._agent.saved.state import Turn
from hookline._agent.session import Session
from hookline._agent.subagent_types import AgentDefinition
from hookline._claude.session_env import env_file_for
from hookline._claude.settings import load_settings
from hookline._errors import ConfigError, ModelError
from hookline._events import HookEvent
from hookline._tools.base import ToolResult
from hookline.audit import unfolded
from hookline.permissions._rules import PermissionRule
from hookline.storage import SqliteStore
from reaction_hooks.hook import CONTEXT, REASON
from recording_model import RecordingModel, Request
from test_conformance import differences, fixed_values, observed

#: Claude Code's agent ids: "a" and 16 hex digits.
AGENT_ID = re.compile(r"a[0-9a-f]{16}")
SUBTASK = "SUBTASK-MARKER: print sub with bash"


def delegate(
    prompt: str = SUBTASK, kind: str | None = "general-purpose", *, call_id: str = "toolu_agent"
) -> dict[str, Any]:
    """A model turn asking for one Agent call (``kind`` None: no ``subagent_type``)."""
    tool_input: dict[str, Any] = {"description": "Sub task", "prompt": prompt}
    if kind is not None:
        tool_input["subagent_type"] = kind
    return calls({"id": call_id, "name": "Agent", "input": tool_input})


def script(*turns: dict[str, Any]) -> list[dict[str, Any]]:
    """The model's turns, in the order the requests (the parent's and subagents') happen."""
    return list(turns)


#: The parent delegates; the subagent runs one Bash call and reports; the parent answers.
SUB_SCRIPT = script(
    delegate(),
    calls(bash("echo sub", call_id="toolu_sub", description="sub")),
    say("sub result: printed sub"),
    say(),
)


class Recording(RecordingModel):
    """The recording model (every request, the parent's and subagents'), raising ``failure``
    instead of answering request ``fail_at`` (from 0)."""

    def __init__(self, turns: Sequence[dict[str, Any]], *, fail_at: int | None = None,
                 failure: Exception | None = None) -> None:  # fmt: skip
        super().__init__(turns)
        self.fail_at, self.failure = fail_at, failure

    async def complete(
        self, messages: Sequence[Message], tools: Sequence[dict[str, Any]], *,
        system: str | None = None,
    ) -> Message:  # fmt: skip
        reply = await super().complete(messages, tools, system=system)  # the turn is used up
        if len(self.seen) - 1 == self.fail_at and self.failure is not None:
            raise self.failure
        return reply


def project(root: Path, hooks: Mapping[str, Sequence[dict[str, Any]]] | None = None) -> tuple[
    Path, HookRegistry
]:  # fmt: skip
    """A project folder whose settings hold ``hooks`` (and a recorder on every other event the
    tests read), and the registry they load into."""
    folder, home, managed = (root / name for name in ("project", "home", "managed"))
    for made in (folder / ".claude", home, managed):
        made.mkdir(parents=True)
    configured = {event: list(groups) for event, groups in (hooks or {}).items()}
    for event in (*OBSERVED_EVENTS, "SubagentStart", "SubagentStop"):
        configured.setdefault(event, [group(recorder())])
    settings_file = folder / ".claude" / "settings.json"
    settings_file.write_text(json.dumps({"hooks": configured}), encoding="utf-8")
    settings = load_settings(folder, home=home, managed_dir=managed)
    assert not settings.warnings, [str(w) for w in settings.warnings]
    registry = HookRegistry()
    settings.register(registry, project_dir=str(folder), env_file=env_file_for)
    return folder, registry


def run(
    root: Path,
    turns: Sequence[dict[str, Any]],
    hooks: Mapping[str, Sequence[dict[str, Any]]] | None = None,
    **options: Any,
) -> Outcome:
    """One prompt in a fresh project with settings hooks; the outcome's model is a Recording."""
    folder, registry = project(root, hooks)
    model = Recording(turns)
    agent = Agent(model, hooks=registry, cwd=folder, **options)
    return Outcome(Path(agent.session.cwd), model, agent.run_sync("Delegate the subtask."))


def agent_call(result: RunResult) -> ToolResult:
    """The one Agent call of the parent's run."""
    (found,) = [r for r in result.tool_calls if r.call.name == "Agent"]
    return found


def seen(outcome: Outcome) -> list[Request]:
    assert isinstance(outcome.model, Recording)
    return outcome.model.seen


def inside(outcome: Outcome, event: str, tool_name: str | None = None) -> list[dict[str, Any]]:
    """The payloads of ``event`` the recorder received from inside a subagent."""
    return [
        p
        for p in outcome.observed(event)
        if "agent_id" in p and (tool_name is None or p.get("tool_name") == tool_name)
    ]


@pytest.fixture(scope="module")
def delegated(tmp_path_factory: pytest.TempPathFactory) -> Outcome:
    """SUB_SCRIPT run once, with a recorder on every event, for the tests that only read it."""
    return run(tmp_path_factory.mktemp("delegated"), SUB_SCRIPT)


# -- what hooks read --------------------------------------------------------------------------


def test_subagent_payloads_have_the_fields_and_types_claude_code_sends(delegated: Outcome) -> None:
    done = delegated
    (start,) = done.observed("SubagentStart")
    (stop,) = done.observed("SubagentStop")
    (in_child,) = inside(done, "PreToolUse", "Bash")
    (parents_call,) = [p for p in done.observed("PreToolUse") if p["tool_name"] == "Agent"]
    pairs = [
        ("SubagentStart.json", start),
        ("SubagentStop.json", stop),
        ("PreToolUse.in_subagent.json", in_child),
        ("PreToolUse.Agent.json", parents_call),
    ]
    for name, ours in pairs:
        theirs = observed(name)
        assert differences(theirs, ours) == [], name
        assert fixed_values(ours) == fixed_values(theirs), name
    assert parents_call["tool_input"] == observed("PreToolUse.Agent.json")["tool_input"] | {
        "prompt": SUBTASK
    }


def test_events_inside_a_subagent_carry_its_id_and_type_and_the_parents_session(
    delegated: Outcome,
) -> None:
    done = delegated
    (start,) = done.observed("SubagentStart")
    (stop,) = done.observed("SubagentStop")
    (parents_call,) = [p for p in done.observed("PreToolUse") if p["tool_name"] == "Agent"]
    child = [start, stop, *inside(done, "PreToolUse"), *inside(done, "PostToolUse")]
    agent_id = start["agent_id"]
    assert AGENT_ID.fullmatch(agent_id)
    assert len(child) == 4 and {(p["agent_id"], p["agent_type"]) for p in child} == {
        (agent_id, "general-purpose")
    }
    for payload in child:  # the parent's session and transcript, as in Claude Code
        assert payload["session_id"] == parents_call["session_id"]
        assert payload["transcript_path"] == parents_call["transcript_path"]
    parents = [p for e in ("Stop", "PostToolUse", "UserPromptSubmit") for p in done.observed(e)]
    assert [p for p in parents if "agent_id" in p] == inside(done, "PostToolUse")
    assert stop["stop_hook_active"] is False
    assert stop["last_assistant_message"] == "sub result: printed sub"


def test_the_subagents_transcript_is_a_side_chain_where_subagent_stop_says(
    delegated: Outcome,
) -> None:
    done = delegated
    (stop,) = done.observed("SubagentStop")
    path = Path(stop["agent_transcript_path"])
    parent = Path(stop["transcript_path"])
    assert path == parent.with_suffix("") / "subagents" / f"agent-{stop['agent_id']}.jsonl"
    entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert [e["type"] for e in entries] == ["user", "assistant", "user", "assistant"]
    assert entries[0]["message"]["content"] == SUBTASK
    assert {(e["isSidechain"], e["agentId"], e["sessionId"]) for e in entries} == {
        (True, stop["agent_id"], stop["session_id"])
    }
    mains = [json.loads(line) for line in parent.read_text(encoding="utf-8").splitlines()]
    assert not any(e["isSidechain"] or "agentId" in e for e in mains)
    assert "echo sub" not in parent.read_text(encoding="utf-8")  # its calls stay in its own


# -- what the models read ---------------------------------------------------------------------


def test_the_agent_tool_returns_the_subagents_final_message(delegated: Outcome) -> None:
    done = delegated
    result = agent_call(done.result)
    assert (result.status, result.content) == ("executed", "sub result: printed sub")
    assert result.output["status"] == "completed"
    assert result.output["agentId"] == done.observed("SubagentStart")[0]["agent_id"]
    assert result.output["totalToolUseCount"] == 1
    assert done.result.final_text == FINAL and done.result.stop_reason == "end_turn"
    requests = seen(done)
    assert len(requests) == 4
    child = requests[1:3]
    assert [texts(m) for m in child[0].messages] == [[SUBTASK]]  # nothing of the parent's
    assert not requests[3].shows("echo sub")  # the parent reads the report, not the work
    assert tool_results(requests[3].messages[-1])[0].content == "sub result: printed sub"


def test_subagent_start_context_reaches_the_subagent_only(tmp_path: Path) -> None:
    done = run(tmp_path, SUB_SCRIPT, {"SubagentStart": [group("ctx")]})
    requests = seen(done)
    opening = requests[1].messages[0]
    assert reminders(opening) == [f"SubagentStart hook additional context: {CONTEXT}"]
    assert texts(opening)[-1] == SUBTASK
    assert [r.shows(CONTEXT) for r in requests] == [False, True, True, False]


def test_subagent_start_hooks_match_on_the_agent_type(tmp_path: Path) -> None:
    reviewer = AgentDefinition(description="Reviews code", prompt="You review code.")
    hooks = {"SubagentStart": [group("ctx", matcher="reviewer")]}
    turns = script(delegate(), say("plain"), delegate("review it", "reviewer", call_id="t2"),
                   say("reviewed"), say())  # fmt: skip
    done = run(tmp_path, turns, hooks, agents={"reviewer": reviewer})
    requests = seen(done)
    assert [r.shows(CONTEXT) for r in requests] == [False, False, False, True, False]
    assert [e["payload"]["agent_type"] for e in done.hook_log("ctx")] == ["reviewer"]


def test_a_subagent_stop_block_makes_one_more_subagent_request(tmp_path: Path) -> None:
    hooks = {"SubagentStop": [group("stopblock-once", recorder())]}
    done = run(tmp_path, script(delegate(), say("first"), say("second"), say()), hooks)
    assert [p["stop_hook_active"] for p in done.observed("SubagentStop")] == [False, True]
    assert [p["last_assistant_message"] for p in done.observed("SubagentStop")] == [
        "first",
        "second",
    ]
    requests = seen(done)
    assert len(requests) == 4
    feedback = reminders(requests[2].messages[-1])
    assert len(feedback) == 2
    assert feedback[0].endswith(f"SubagentStop hook feedback:\n{REASON}")
    cmd = command("stopblock-once")
    assert feedback[1] == f'SubagentStop hook blocking error from command: "{cmd}": {REASON}'
    assert agent_call(done.result).content == "second"
    assert [p["stop_hook_active"] for p in done.observed("Stop")] == [False]  # the parent's


def test_subagent_stop_blocking_forever_ends_at_the_cap_and_the_parent_goes_on(
    tmp_path: Path,
) -> None:
    model = Recording(script(delegate(), say("a"), say("b"), say("c"), say("d"), say()))
    agent = Agent(model, cwd=tmp_path, stop_hook_block_cap=2)
    agent.registry.add("SubagentStop", lambda e: Decision.block("keep going"))
    result = agent.run_sync("go")
    (call,) = result.tool_calls
    assert call.is_error and call.status == "failed"
    assert (
        call.content
        == "subagent stopped (stop_hook_cap): SubagentStop hooks blocked 2 times in a row"
    )
    assert len(model.seen) == 5  # the first answer and two more, then the parent's
    assert (result.stop_reason, result.final_text) == ("end_turn", "d")


# -- rules hold inside --------------------------------------------------------------------------


def test_a_pretooluse_deny_hook_holds_inside_a_subagent(tmp_path: Path) -> None:
    hooks = {"PreToolUse": [group("deny", recorder(), matcher="Bash")]}
    touch = calls(bash(f"touch {MARKER}", call_id="toolu_touch"))
    done = run(tmp_path, script(delegate(), touch, say("it was refused"), say()), hooks)
    assert not done.ran  # the tool never ran
    (denied,) = done.hook_log("deny")
    assert AGENT_ID.fullmatch(denied["payload"]["agent_id"])
    refusal = tool_results(seen(done)[2].messages[-1])[0]
    assert refusal.is_error and REASON in refusal.content
    assert agent_call(done.result).content == "it was refused"
    assert done.result.stop_reason == "end_turn"


def test_permission_rules_hold_inside_a_subagent_and_can_refuse_a_subagent_type(
    tmp_path: Path,
) -> None:
    rules = ("Bash(touch *)", "Agent(reviewer)")
    policy = PermissionPolicy(deny=tuple((PermissionRule.parse(r), "test") for r in rules))
    reviewer = AgentDefinition(description="Reviews code", prompt="You review code.")
    turns = script(
        delegate("review", "reviewer", call_id="t_review"),
        delegate(),
        calls(bash(f"touch {MARKER}", call_id="toolu_touch")),
        say("refused"),
        say(),
    )
    model = Recording(turns)
    events: list[HookEvent] = []
    agent = Agent(model, cwd=tmp_path, permissions=policy, agents={"reviewer": reviewer})
    agent.registry.add("SubagentStart", events.append, kind="observer")
    result = agent.run_sync("go")
    refused, ran = result.tool_calls
    assert refused.status == "blocked" and "Agent(reviewer)" in refused.content
    assert [e.agent_type for e in events] == ["general-purpose"]  # the reviewer never started
    assert ran.status == "executed" and ran.content == "refused"  # the Agent tool asks nobody
    assert not (tmp_path / MARKER).exists()
    touch_result = tool_results(model.seen[3].messages[-1])[0]
    assert touch_result.is_error and "Bash(touch *)" in touch_result.content


class Told(Observer):
    """Which conversation (by agent_id) each pause, checkpoint and tool result was told of."""

    def __init__(self) -> None:
        self.pauses: list[str | None] = []
        self.checkpoints: list[str | None] = []
        self.finished: list[tuple[str, str | None]] = []

    def paused(self, session: Session, turn: Turn) -> None:
        self.pauses.append(session.scope.agent_id)

    def checkpoint(self, session: Session, turn: Turn) -> None:
        self.checkpoints.append(session.scope.agent_id)

    def tool_finished(self, session: Session, result: ToolResult) -> None:
        self.finished.append((result.call.name, session.scope.agent_id))


def test_a_call_that_would_pause_inside_a_subagent_is_refused_and_nothing_pauses(
    tmp_path: Path,
) -> None:
    turns = script(delegate(), calls(bash(f"touch {MARKER}")), say("could not"), say())
    model = Recording(turns)
    agent = Agent(model, cwd=tmp_path, checkpoint=True, defer_asks=True)
    agent.registry.add("PreToolUse", lambda e: Decision.defer("a person must look"), matcher="Bash")
    told = Told()
    agent.observe(told)
    result = agent.run_sync("go")
    assert not (tmp_path / MARKER).exists()
    refusal = tool_results(model.seen[2].messages[-1])[0]
    assert refusal.is_error and "a call inside a subagent cannot wait" in refusal.content
    assert "a person must look" in refusal.content
    assert result.stop_reason == "end_turn" and agent_call(result).content == "could not"
    assert told.pauses == [] and told.checkpoints and set(told.checkpoints) == {None}
    assert told.finished == [("Bash", told.finished[0][1]), ("Agent", None)]
    assert AGENT_ID.fullmatch(told.finished[0][1] or "")


def test_a_subagent_has_no_agent_tool(tmp_path: Path) -> None:
    nested = delegate("go deeper", call_id="toolu_nested")
    model = Recording(script(delegate(), nested, say("no deeper"), say()))
    result = Agent(model, cwd=tmp_path).run_sync("go")
    assert "Agent" in model.seen[0].tools and "Agent" not in model.seen[1].tools
    assert {"Bash", "Read", "Write", "Edit", "Glob", "Grep"} <= set(model.seen[1].tools)
    refusal = tool_results(model.seen[2].messages[-1])[0]
    assert refusal.is_error and refusal.content == "Error: No such tool available: Agent"
    assert agent_call(result).content == "no deeper"


# -- when it goes wrong ---------------------------------------------------------------------------


def test_an_unknown_subagent_type_is_an_error_naming_the_types(tmp_path: Path) -> None:
    reviewer = AgentDefinition(description="Reviews code", prompt="You review code.")
    model = Recording(script(delegate("x", "nope"), say()))
    result = Agent(model, cwd=tmp_path, agents={"reviewer": reviewer}).run_sync("go")
    (call,) = result.tool_calls
    assert call.status == "failed"
    assert (
        call.content == "Agent type 'nope' not found. Available agents: general-purpose, reviewer"
    )
    assert (result.stop_reason, result.final_text, len(model.seen)) == ("end_turn", FINAL, 2)


def test_the_agent_tools_description_lists_the_types_and_their_tools(tmp_path: Path) -> None:
    reviewer = AgentDefinition(
        description="Reviews code", prompt="You review code.", tools=["Read", "Grep"]
    )
    agent = Agent(Recording([]), cwd=tmp_path, agents={"reviewer": reviewer})
    tool_spec = next(s for s in agent.tools.specs() if s["name"] == "Agent")
    assert "- general-purpose: " in tool_spec["description"]
    assert "- reviewer: Reviews code (Tools: Read, Grep)" in tool_spec["description"]
    assert set(tool_spec["input_schema"]["properties"]) == {
        "description", "prompt", "subagent_type", "model"
    }  # fmt: skip


@pytest.mark.parametrize(
    ("fail_at", "failure", "said"),
    [
        (1, ModelError("the model is overloaded"), "subagent stopped (model_error): "),
        (2, RuntimeError("boom"), "subagent stopped (crashed): RuntimeError: boom"),
    ],
    ids=["model_error", "crash"],
)
def test_a_failing_subagent_stops_and_the_parent_goes_on_whole(
    tmp_path: Path, fail_at: int, failure: Exception, said: str
) -> None:
    turns = script(delegate(), calls(bash("echo sub", call_id="toolu_sub")), say("never"))
    model = Recording(turns, fail_at=fail_at, failure=failure)
    agent = Agent(model, cwd=tmp_path, audit=True)
    result = agent.run_sync("go")
    call = agent_call(result)
    assert call.is_error and call.content.startswith(said)
    assert tool_results(model.seen[-1].messages[-1])[0].content == call.content
    assert result.stop_reason == "end_turn" and len(model.seen) == fail_at + 2
    rows = audit_rows(agent)
    assert [(r.tool, r.decision) for r in rows if r.kind == "tool"][-1] == ("Agent", "failed")
    assert verify_all(agent, rows)


def test_a_subagent_that_runs_out_of_model_calls_stops_with_max_turns(tmp_path: Path) -> None:
    short = AgentDefinition(description="Short", prompt="Be brief.", maxTurns=2)
    again = [calls(bash(f"echo {n}", call_id=f"toolu_{n}")) for n in range(3)]
    model = Recording(script(delegate("loop", "short"), *again, say("parent done")))
    result = Agent(model, cwd=tmp_path, agents={"short": short}).run_sync("go")
    call = agent_call(result)
    assert call.content == "subagent stopped (max_turns): stopped after 2 model calls"
    assert (result.stop_reason, result.final_text) == ("end_turn", "parent done")


def test_a_hook_stopping_inside_a_subagent_stops_the_subagent_only(tmp_path: Path) -> None:
    turns = script(delegate(), {"text": "trying", **calls(bash("echo x"))}, say("parent done"))
    model = Recording(turns)
    agent = Agent(model, cwd=tmp_path)
    agent.registry.add("PostToolUse", lambda e: Decision.stop("enough") if e.agent_id else None)
    result = agent.run_sync("go")
    assert agent_call(result).content == (
        "subagent stopped (hook_stopped): enough\nIts last message: trying"
    )
    assert (result.stop_reason, result.final_text) == ("end_turn", "parent done")


def test_subagent_type_defaults_to_general_purpose(tmp_path: Path) -> None:
    events: list[HookEvent] = []
    agent = Agent(Recording(script(delegate(kind=None), say("ok"), say())), cwd=tmp_path)
    agent.registry.add("SubagentStart", events.append, kind="observer")
    result = agent.run_sync("go")
    assert [e.agent_type for e in events] == ["general-purpose"]
    assert agent_call(result).content == "ok"


def test_a_subagent_tool_that_raises_is_a_failed_call_the_subagent_reads(tmp_path: Path) -> None:
    @tool(name="explode")
    def explode(text: str) -> str:
        """Fails."""
        raise RuntimeError(f"kaboom {text}")

    turns = script(delegate(), calls({"id": "t_x", "name": "explode", "input": {"text": "x"}}),
                   say("it broke"), say())  # fmt: skip
    model = Recording(turns)
    helper = AgentDefinition(description="Uses explode", prompt="p", tools=["explode"])
    result = Agent(
        model, tools=[explode], cwd=tmp_path, agents={"general-purpose": helper}
    ).run_sync("go")
    failed = tool_results(model.seen[2].messages[-1])[0]
    assert failed.is_error and "RuntimeError: kaboom x" in failed.content
    assert agent_call(result).content == "it broke"


# -- the audit --------------------------------------------------------------------------------


def audit_rows(agent: Agent) -> list[Any]:
    store = SqliteStore(agent.session.state_dir / "hookline.db")
    try:
        return store.audit_rows()
    finally:
        store.close()


def verify_all(agent: Agent, rows: list[Any]) -> bool:
    from hookline.audit import verify_jsonl, verify_rows

    return (
        verify_rows(rows) is None and verify_jsonl(agent.session.state_dir / "audit.jsonl") is None
    )


def test_the_audit_records_a_subagents_hooks_and_calls_with_its_agent_id(tmp_path: Path) -> None:
    model = Recording(SUB_SCRIPT)
    agent = Agent(model, cwd=tmp_path, audit=True)
    agent.registry.add("PreToolUse", lambda e: None, name="gate")
    agent.registry.add("SubagentStop", lambda e: None, name="stopper")
    result = agent.run_sync("go")
    rows = audit_rows(agent)
    agent_id = agent_call(result).output["agentId"]
    tools = [(r.kind, r.tool, r.data.get("agent_id")) for r in rows if r.kind != "hook"]
    assert tools == [
        ("tool_started", "Agent", None),
        ("tool_started", "Bash", agent_id),
        ("tool", "Bash", agent_id),
        ("tool", "Agent", None),
    ]
    hooks = [(r.event, r.tool, r.data.get("agent_id")) for r in unfolded(rows) if r.kind == "hook"]
    assert hooks == [
        ("PreToolUse", "Agent", None),
        ("PreToolUse", "Bash", agent_id),
        ("SubagentStop", None, agent_id),
    ]
    assert {r.session_id for r in rows} == {result.session_id}
    assert verify_all(agent, rows)


# -- where subagent types come from ----------------------------------------------------------------


def agent_file(folder: Path, name: str, text: str) -> None:
    (folder / ".claude" / "agents").mkdir(parents=True, exist_ok=True)
    (folder / ".claude" / "agents" / f"{name}.md").write_text(text, encoding="utf-8")


REVIEWER_FILE = """---
name: reviewer
description: Reviews a change for bugs
tools: Read, Grep, WebFetch
model: sonnet
---
You are a careful code reviewer. REVIEWER-PROMPT.
"""


def test_project_agent_files_define_subagent_types(tmp_path: Path) -> None:
    agent_file(tmp_path, "reviewer", REVIEWER_FILE)
    agent_file(tmp_path, "broken", "---\nname: broken\n---\nno description\n")
    model = Recording(script(delegate("review", "reviewer"), say("looks fine"), say()))
    agent = Agent(model, cwd=tmp_path)
    assert sorted(agent.subagents.types) == ["general-purpose", "reviewer"]
    assert len(agent.subagents.warnings) == 2
    assert "WebFetch, a tool this agent does not have" in agent.subagents.warnings[1]
    assert "needs 'name' and 'description'" in agent.subagents.warnings[0]
    result = agent.run_sync("go")
    child = model.seen[1]
    assert child.tools == ["Read", "Grep"]
    assert child.system is not None and child.system.startswith("You are a careful code reviewer.")
    assert "REVIEWER-PROMPT" not in (model.seen[0].system or "")
    assert agent_call(result).content == "looks fine"


def test_agent_files_are_not_read_with_instructions_off(tmp_path: Path) -> None:
    agent_file(tmp_path, "reviewer", REVIEWER_FILE)
    agent = Agent(Recording([]), cwd=tmp_path, instructions=False)
    assert list(agent.subagents.types) == ["general-purpose"]


def test_options_agents_win_over_agent_files(tmp_path: Path) -> None:
    agent_file(tmp_path, "reviewer", REVIEWER_FILE)
    mine = {"reviewer": {"description": "Mine", "prompt": "CODE-PROMPT", "tools": ["Glob"]}}
    model = Recording(script(delegate("review", "reviewer"), say("ok"), say()))
    Agent(model, cwd=tmp_path, agents=mine).run_sync("go")
    assert model.seen[1].tools == ["Glob"] and model.seen[1].system == "CODE-PROMPT"


def test_the_agent_tool_joins_explicit_tools_only_when_agents_are_defined(
    tmp_path: Path,
) -> None:
    @tool(name="echo")
    def echo(text: str) -> str:
        """Echo."""
        return text

    helper = AgentDefinition(description="Echoes", prompt="Echo it.", tools=["echo"])
    assert "Agent" in Agent(Recording([]), cwd=tmp_path).tools
    assert "Agent" not in Agent(Recording([]), tools=[echo], cwd=tmp_path).tools
    agent_file(tmp_path, "reviewer", REVIEWER_FILE)  # a file alone adds no tool
    assert "Agent" not in Agent(Recording([]), tools=[echo], cwd=tmp_path).tools
    assert "Agent" in Agent(Recording([]), tools=[echo], cwd=tmp_path, agents={"e": helper}).tools


@pytest.mark.parametrize(
    ("agents", "key", "message"),
    [
        ({"r": {"description": "d"}}, "agents.r", "description and prompt are required"),
        ({"r": {"description": "d", "prompt": "p", "tool": ["Read"]}}, "agents.r.tool", "unknown"),
        ({"r": AgentDefinition("d", "p", tools=["Bsh"])}, "agents.r", "'Bsh', a tool"),
        ({"r": AgentDefinition("d", "p", tools="Read")}, "agents.r.tools", "list of tool names"),
        ({"r": AgentDefinition("d", "p", maxTurns=0)}, "agents.r.maxTurns", "whole number"),
        ({"r": AgentDefinition("", "p")}, "agents.r.description", "must be a text"),
        ({"r": "reviewer"}, "agents.r", "is not an AgentDefinition"),
    ],
)
def test_a_wrong_agent_definition_is_one_config_error(
    tmp_path: Path, agents: dict[str, Any], key: str, message: str
) -> None:
    with pytest.raises(ConfigError) as raised:
        Agent(Recording([]), cwd=tmp_path, agents=agents)
    assert raised.value.key == key and message in str(raised.value)


def test_files_and_settings_a_subagent_changes_are_noticed_once_by_the_main_conversation(
    tmp_path: Path,
) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text("{}", encoding="utf-8")
    write = {"name": "Write", "input": {"file_path": str(settings), "content": '{"x": 1}'}}
    notes = {"name": "Write", "input": {"file_path": str(tmp_path / "notes.txt"), "content": "n"}}
    turns = script(delegate(), calls({"id": "t_w", **write}, {"id": "t_n", **notes}),
                   say("changed"), say("never read"))  # fmt: skip
    model = Recording(turns)
    agent = Agent(model, cwd=tmp_path, settings_files=[("project_settings", settings)])
    events: list[HookEvent] = []
    agent.registry.add("FileChanged", events.append, matcher="notes.txt", kind="observer")
    agent.registry.add("ConfigChange", lambda e: events.append(e) or Decision.deny("frozen"))
    result = agent.run_sync("go")
    assert [(e.name, e.agent_id) for e in events] == [("FileChanged", None), ("ConfigChange", None)]
    assert agent_call(result).content == "changed"
    assert result.stop_reason == "hook_stopped" and "frozen" in (result.stop_detail or "")
    assert len(model.seen) == 3  # the whole run ended before the parent's next request


def test_late_context_from_background_hooks_is_for_the_main_conversation(tmp_path: Path) -> None:
    finished = asyncio.Event()

    class Late(HookRunner):
        """A background hook (as an ``async`` command hook) that finishes at once."""

        background = True

        async def run(self, event: HookEvent) -> Decision | None:
            finished.set()
            return Decision.context("LATE-NOTE")

    @tool(name="wait")
    async def wait() -> str:
        """Waits until the background hook has finished."""
        await finished.wait()
        return "waited"

    waiter = AgentDefinition(description="Waits", prompt="Wait.", tools=["wait"])
    turns = script(delegate("wait", "waiter"), calls({"id": "t_wait", "name": "wait"}),
                   say("child done"), say())  # fmt: skip
    model = Recording(turns)
    agent = Agent(model, tools=[wait], cwd=tmp_path, agents={"waiter": waiter})
    agent.registry.add("SubagentStart", Late(), kind="observer")
    agent.run_sync("go")
    assert [r.shows("LATE-NOTE") for r in model.seen] == [False, False, False, True]


def test_an_audit_failure_inside_a_subagent_stops_the_whole_run(tmp_path: Path) -> None:
    """The record failing in a subagent is no failed Agent call the parent's model could shrug
    off: the run stops, and the subagent's next call never runs (its sentinel stays absent)."""
    from hookline.audit import AuditError, AuditLog

    first, second = tmp_path / "first.ran", tmp_path / "second.ran"
    turns = script(
        delegate(),
        calls(bash(f"touch {first}", call_id="toolu_first")),
        calls(bash(f"touch {second}", call_id="toolu_second")),
        say("sub done"),
        say("parent done"),
    )

    class Down(AuditLog):
        def tool_finished(self, session: Any, result: Any) -> None:
            if session.scope.agent_id is not None:
                raise AuditError("the audit log could not be written: disk full")
            super().tool_finished(session, result)

    agent = Agent(Recording(turns), cwd=tmp_path, permission_mode="bypassPermissions")
    Down(None, jsonl_path=tmp_path / "audit.jsonl").attach(agent)
    with pytest.raises(AuditError, match="disk full"):
        agent.run_sync("go")
    assert first.exists() and not second.exists()


def test_stream_json_marks_a_subagents_lines_with_its_agent_call(tmp_path: Path) -> None:
    """As Claude Code streams them: a subagent's assistant and user lines carry the id of the
    Agent call that started it; the main conversation's carry none."""
    from cli_runner import hookline

    script_file = tmp_path / "script.json"
    script_file.write_text(json.dumps({"turns": SUB_SCRIPT}))
    done = hookline(
        "run", "--model", f"scripted:{script_file}", "--output-format", "stream-json",
        "--permission-mode", "bypassPermissions", "go", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    said = [(line["type"], line["parent_tool_use_id"]) for line in lines if "message" in line]
    assert said == [
        ("assistant", None),  # the parent asks for the Agent call
        ("assistant", "toolu_agent"),  # the subagent asks for Bash
        ("user", "toolu_agent"),  # its result
        ("assistant", "toolu_agent"),  # the subagent's final message
        ("user", None),  # the Agent call's result
        ("assistant", None),  # the parent's answer
    ]


def test_the_text_view_marks_what_a_subagent_does_as_its_own(tmp_path: Path) -> None:
    from cli_runner import hookline

    script_file = tmp_path / "script.json"
    script_file.write_text(json.dumps({"turns": SUB_SCRIPT}))
    done = hookline(
        "run", "--model", f"scripted:{script_file}", "--permission-mode", "bypassPermissions",
        "go", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    mine = [line for line in lines if line.startswith("[subagent general-purpose] ")]
    assert [line.split("] ", 1)[1].split(" {")[0] for line in mine[:2]] == [
        "model -> Bash",
        "tool Bash ran with",
    ]
    assert lines[0].startswith("model -> Agent ")  # the parent's own call is not marked
    assert any(line.startswith("tool Agent ran with ") for line in lines)
