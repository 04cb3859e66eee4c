"""Session events: /clear, SessionEnd's reasons and shared budget, CwdChanged, FileChanged,
ConfigChange, a model switch and the idle notification, with real command hooks from a
project's settings and a scripted model (payload shapes: ``test_conformance.py``)."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

import hookline
from cc_scenarios import bash, calls, say
from hookline import Agent, ConfigError, Decision, HookRegistry, HookRun, ScriptedModel, tool
from hookline._agent import surroundings
from hookline._agent.ending import BUDGET_ENV, session_end_budget
from hookline._agent.surroundings import IDLE_MESSAGE
from hookline._agent.switch import ModelSwitch
from hookline._claude.settings import MANAGED_DIR_ENV
from hookline._events import HookEvent
from hookline._hooks.spec import HookSpec
from hookline._tools.approvals import Approval
from hookline.audit._chain import verify_rows
from hookline.storage import SqliteStore

#: A command hook that appends its payload to ``events.jsonl`` in the project.
RECORD = 'cat >> "$CLAUDE_PROJECT_DIR/events.jsonl"'


def command(code: str, **extra: Any) -> dict[str, Any]:
    return {"type": "command", "command": code, **extra}


def group(*handlers: dict[str, Any], matcher: str | None = None) -> dict[str, Any]:
    return {"hooks": list(handlers), **({"matcher": matcher} if matcher else {})}


def answer(event: str, **fields: Any) -> dict[str, Any]:
    """A command hook that answers ``hookSpecificOutput`` with ``fields``."""
    out = json.dumps({"hookSpecificOutput": {"hookEventName": event, **fields}})
    return command(f"printf '%s' '{out}'")


def project_with(root: Path, hooks: dict[str, list[dict[str, Any]]]) -> Path:
    project = root.resolve() / "project"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    return project


def agent_in(project: Path, model: ScriptedModel | list[dict[str, Any]], **options: Any) -> Agent:
    """An agent built from the project's settings as the CLI builds it (without its permission
    rules: the hooks alone decide here)."""
    loaded = hookline.load_project(project)
    assert loaded.warnings == ()
    model = model if isinstance(model, ScriptedModel) else ScriptedModel(model)
    return Agent(model, **{**loaded.agent_options(), "permissions": None, **options})


def received(project: Path, event: str) -> list[dict[str, Any]]:
    """The payloads RECORD hooks received for ``event``, in order."""
    path = project / "events.jsonl"
    lines = path.read_text().splitlines() if path.exists() else []
    return [p for p in map(json.loads, lines) if p["hook_event_name"] == event]


def hook_runs(agent: Agent, event: str) -> list[HookRun]:
    """Every run of ``event``'s hooks from now on (the list fills as they end)."""
    runs: list[HookRun] = []
    agent.watch(lambda x: runs.append(x) if isinstance(x, HookRun) and x.event == event else None)
    return runs


def recorded(project: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (project / "events.jsonl").read_text().splitlines()]


# -- /clear and SessionEnd's reasons ----------------------------------------------------------


def test_clear_ends_the_session_and_starts_a_new_one_both_on_record(tmp_path: Path) -> None:
    events = ("SessionStart", "SessionEnd", "UserPromptSubmit")
    project = project_with(tmp_path, {e: [group(command(RECORD))] for e in events})
    store = SqliteStore(tmp_path / "audit.db")
    model = ScriptedModel([say("first answer"), say("second answer")])
    agent = agent_in(project, model, audit=True, store=store)

    async def main() -> tuple[hookline.RunResult, hookline.RunResult]:
        async with agent:
            first = await agent.run("one")
            await agent.clear()
            return first, await agent.run("two")

    first, second = asyncio.run(main())
    one, two = first.session_id, second.session_id
    assert one != two and first.transcript_path != second.transcript_path
    starts = [(p["source"], p["session_id"]) for p in received(project, "SessionStart")]
    ends = [(p["reason"], p["session_id"]) for p in received(project, "SessionEnd")]
    assert (starts, ends) == ([("startup", one), ("clear", two)], [("clear", one), ("other", two)])
    assert [m.text for m in model.shown(1)] == ["two"]  # a fresh conversation
    assert "one" in Path(first.transcript_path).read_text()
    assert "one" not in Path(second.transcript_path).read_text()
    rows = store.audit_rows()
    assert {r.session_id for r in rows if r.event == "SessionEnd"} == {one, two}
    assert {r.session_id for r in rows if r.event == "UserPromptSubmit"} == {one, two}
    assert verify_rows(rows) is None
    store.close()


def test_close_takes_claude_codes_reasons_only(tmp_path: Path) -> None:
    project = project_with(tmp_path, {"SessionEnd": [group(command(RECORD))]})
    agent = agent_in(project, [say()])

    async def main() -> None:
        await agent.run("hi")
        with pytest.raises(ConfigError, match="unknown session end reason 'bye'") as raised:
            await agent.close("bye")
        assert "prompt_input_exit" in str(raised.value)  # the fix lists them
        assert received(project, "SessionEnd") == []
        await agent.close("prompt_input_exit")

    asyncio.run(main())
    assert [p["reason"] for p in received(project, "SessionEnd")] == ["prompt_input_exit"]


@tool
def pay(amount: int) -> str:
    """Pay an amount."""
    return f"paid {amount}"


def test_resuming_another_session_ends_this_one_with_reason_resume(tmp_path: Path) -> None:
    """A paused session X; /clear opens Y; resuming X ends Y (reason resume), as /resume."""
    seen: list[tuple[str, str, str]] = []

    def note(event: HookEvent) -> None:
        why = str(getattr(event, "source", None) or getattr(event, "reason", ""))
        seen.append((event.name, why, event.session_id))

    call = {"id": "t_pay", "name": "pay", "input": {"amount": 30}}
    agent = Agent(ScriptedModel([calls(call), say()]), tools=[pay], cwd=tmp_path)
    for event in ("SessionStart", "SessionEnd"):
        agent.registry.add(event, note, kind="observer")
    agent.registry.add("PreToolUse", lambda e: Decision.defer("finance decides"), matcher="pay")

    async def main() -> tuple[str, str]:
        async with agent:
            paused = await agent.run("pay the invoice")
            assert paused.stop_reason == "tool_deferred"
            await agent.clear()
            cleared = agent.session.id
            await agent.resume(paused.session_id, Approval.allow(approver="ann"))
            return paused.session_id, cleared

    x, y = asyncio.run(main())
    assert seen == [
        ("SessionStart", "startup", x),
        ("SessionEnd", "clear", x),
        ("SessionStart", "clear", y),
        ("SessionEnd", "resume", y),
        ("SessionStart", "resume", x),
        ("SessionEnd", "other", x),
    ]


# -- SessionEnd's shared budget ----------------------------------------------------------------


def test_session_end_hooks_share_one_budget_and_a_stuck_hook_is_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hook would write LATE after 5 s, within its own 30 s timeout; the budget (0.3 s,
    by Claude Code's variable) stops it first. The quick hook beside it answers; the audit
    has both runs and its chain is whole."""
    monkeypatch.setenv(BUDGET_ENV, "300")
    stuck = command('sleep 5; touch "$CLAUDE_PROJECT_DIR/LATE"', timeout=30)
    project = project_with(tmp_path, {"SessionEnd": [group(stuck, command(RECORD))]})
    store = SqliteStore(tmp_path / "audit.db")
    agent = agent_in(project, [say()], audit=True, store=store)
    runs = hook_runs(agent, "SessionEnd")
    agent.run_sync("hi")  # returns: close() did not wait for the hook
    assert not (project / "LATE").exists()
    by_hook = {run.hook: run for run in runs}
    assert by_hook[stuck["command"]].failure == "timeout"
    assert by_hook[stuck["command"]].error == (
        "still running when the SessionEnd hooks' budget of 0.3s ran out"
    )
    assert by_hook[RECORD].failure is None and len(received(project, "SessionEnd")) == 1
    rows = [r for r in store.audit_rows() if r.event == "SessionEnd"]
    assert sorted(r.data.get("failure") or "-" for r in rows) == ["-", "timeout"]
    assert verify_rows(store.audit_rows()) is None
    store.close()


def test_a_session_end_hook_that_never_ends_does_not_hold_close(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(BUDGET_ENV, "100")
    reached: list[bool] = []

    async def never(event: HookEvent) -> None:
        await asyncio.Event().wait()
        reached.append(True)

    agent = Agent(ScriptedModel([say()]), cwd=tmp_path)
    agent.registry.add("SessionEnd", never, name="never")  # its own timeout: 60 s
    runs = hook_runs(agent, "SessionEnd")
    agent.run_sync("hi")
    assert reached == []
    assert [(r.failure, r.error) for r in runs] == [
        ("timeout", "still running when the SessionEnd hooks' budget of 0.1s ran out")
    ]


def test_the_budget_is_claude_codes() -> None:
    """1.5 s, raised to the highest timeout of a SessionEnd hook, at most 60 s; the variable
    (milliseconds) sets it outright, and an unreadable one is ignored."""
    registry = HookRegistry()

    def ends() -> tuple[HookSpec, ...]:
        return registry.plan("SessionEnd").specs

    assert session_end_budget(ends(), {}) == 1.5
    registry.add("SessionEnd", lambda e: None)  # no timeout given: the event's own, 1.5 s
    assert session_end_budget(ends(), {}) == 1.5
    registry.add("SessionEnd", lambda e: None, timeout=1)
    assert session_end_budget(ends(), {}) == 1.5
    registry.add("SessionEnd", lambda e: None, timeout=10)
    assert session_end_budget(ends(), {}) == 10
    registry.add("SessionEnd", lambda e: None, timeout=120)
    assert session_end_budget(ends(), {}) == 60
    assert session_end_budget(ends(), {BUDGET_ENV: "250"}) == 0.25
    assert session_end_budget(ends(), {BUDGET_ENV: "soon"}) == 60
    assert session_end_budget(ends(), {BUDGET_ENV: "-5"}) == 60


# -- CwdChanged ---------------------------------------------------------------------------------


def test_a_cd_fires_cwd_changed_whose_env_file_reaches_later_bash_calls(tmp_path: Path) -> None:
    export = "echo 'export FROM_CWD_HOOK=moved-here' >> \"$CLAUDE_ENV_FILE\""
    project = project_with(tmp_path, {"CwdChanged": [group(command(f"{RECORD}; {export}"))]})
    script = [
        calls(bash("mkdir -p sub && cd sub", call_id="t1")),
        calls(bash('echo "[$FROM_CWD_HOOK]"; cd .; pwd', call_id="t2")),
        say(),
    ]
    result = agent_in(project, script).run_sync("go into sub")
    assert result.tool_calls[1].output["stdout"] == f"[moved-here]\n{project / 'sub'}"
    (moved,) = received(project, "CwdChanged")  # once: the second call did not move
    sub = str(project / "sub")
    assert (moved["old_cwd"], moved["new_cwd"], moved["cwd"]) == (str(project), sub, sub)


# -- FileChanged --------------------------------------------------------------------------------


def test_watched_files_fire_file_changed_for_any_writer(tmp_path: Path) -> None:
    """The agent's own Bash calls change, add and delete watched files; each difference fires
    once, before the next model request. A group for another file does not run."""
    other = command('touch "$CLAUDE_PROJECT_DIR/OTHER_RAN"')
    hooks = {
        "FileChanged": [
            group(command(RECORD), matcher=".envrc|.env"),
            group(other, matcher="other.txt"),
        ]
    }
    project = project_with(tmp_path, hooks)
    (project / ".envrc").write_text("export A=1\n")
    script = [
        calls(bash("echo export B=22 >> .envrc && echo X=1 > .env", call_id="t1")),
        calls(bash("rm .envrc", call_id="t2")),
        say(),
    ]
    agent_in(project, script).run_sync("edit the env files")
    changes = [(Path(p["file_path"]), p["event"]) for p in received(project, "FileChanged")]
    envrc, env = project / ".envrc", project / ".env"
    assert changes == [(envrc, "change"), (env, "add"), (envrc, "unlink")]
    assert not (project / "OTHER_RAN").exists()


def test_a_change_made_between_runs_fires_at_the_next_request(tmp_path: Path) -> None:
    project = project_with(tmp_path, {"FileChanged": [group(command(RECORD), matcher="notes.md")]})
    notes = project / "notes.md"
    agent = agent_in(project, [say("one"), say("two")])

    async def main() -> None:
        async with agent:
            await agent.run("first")
            assert received(project, "FileChanged") == []
            notes.write_text("written by someone else\n")
            await agent.run("second")

    asyncio.run(main())
    assert [(p["file_path"], p["event"]) for p in received(project, "FileChanged")] == [
        (str(notes), "add")
    ]


def test_nothing_is_looked_at_when_no_hook_watches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    looked: list[Path] = []
    monkeypatch.setattr(surroundings, "_stat", lambda path: looked.append(path))
    project = project_with(tmp_path, {"Stop": [group(command(RECORD))]})
    agent = agent_in(project, [calls(bash("echo hi > notes.md")), say()])
    assert agent.surroundings.settings  # the settings files are known, yet nobody listens
    agent.run_sync("write")
    assert looked == [] and len(received(project, "Stop")) == 1


# -- ConfigChange -------------------------------------------------------------------------------


def settings_edit(path: str, next_call: str = "touch SENTINEL") -> list[dict[str, Any]]:
    """The model writes a settings file, then tries ``next_call``."""
    return [
        calls(bash(f"echo '{{\"hooks\": {{}}}}' > {path}", call_id="t1")),
        calls(bash(next_call, call_id="t2")),
        say(),
    ]


def test_a_config_change_hook_that_blocks_ends_the_run_before_the_next_tool(
    tmp_path: Path,
) -> None:
    block = command(f'{RECORD}; echo "settings are frozen" >&2; exit 2')
    project = project_with(tmp_path, {"ConfigChange": [group(block)]})
    model = ScriptedModel(settings_edit(".claude/settings.local.json"))
    result = agent_in(project, model).run_sync("loosen the rules")
    local = project / ".claude" / "settings.local.json"
    assert (result.stop_reason, model.calls) == ("hook_stopped", 1)
    assert str(local) in (result.stop_detail or "")
    assert "settings are frozen" in (result.stop_detail or "")
    assert not (project / "SENTINEL").exists()
    (change,) = received(project, "ConfigChange")
    assert (change["source"], change["file_path"]) == ("local_settings", str(local))


def test_a_changed_settings_file_is_never_applied_to_the_running_session(tmp_path: Path) -> None:
    """The model empties .claude/settings.json; the PreToolUse hook it held still refuses."""
    refuse = command('echo "no touching" >&2; exit 2', **{"if": "Bash(touch *)"})
    hooks = {
        "PreToolUse": [group(refuse, matcher="Bash")],
        "ConfigChange": [group(command(RECORD))],
    }
    project = project_with(tmp_path, hooks)
    result = agent_in(project, settings_edit(".claude/settings.json")).run_sync("loosen")
    assert json.loads((project / ".claude" / "settings.json").read_text()) == {"hooks": {}}
    assert [c.status for c in result.tool_calls] == ["executed", "blocked"]
    assert not (project / "SENTINEL").exists()
    assert [p["source"] for p in received(project, "ConfigChange")] == ["project_settings"]
    assert result.stop_reason == "end_turn"


def test_a_policy_settings_change_cannot_be_blocked(tmp_path: Path) -> None:
    """As in Claude Code: the hook runs, its block is not obeyed (nor is the change applied)."""
    block = command(f'{RECORD}; echo "no" >&2; exit 2')
    project = project_with(tmp_path, {"ConfigChange": [group(block)]})
    managed = Path(os.environ[MANAGED_DIR_ENV]) / "managed-settings.json"
    result = agent_in(project, settings_edit(str(managed))).run_sync("change policy")
    assert result.stop_reason == "end_turn" and (project / "SENTINEL").exists()
    (change,) = received(project, "ConfigChange")
    assert (change["source"], change["file_path"]) == ("policy_settings", str(managed))


def test_an_agent_built_in_code_names_its_own_settings_files(tmp_path: Path) -> None:
    """The seam without ``load_project``: a relative path is in the agent's folder."""
    changes: list[tuple[str, str | None]] = []

    def note(event: HookEvent) -> None:
        changes.append((getattr(event, "source", ""), getattr(event, "file_path", None)))

    (tmp_path / "team.json").write_text("{}")
    script = [calls(bash("echo '{\"x\": 1}' > team.json")), say()]
    files = [("project_settings", "team.json")]
    agent = Agent(ScriptedModel(script), cwd=tmp_path, settings_files=files)
    agent.registry.add("ConfigChange", note, kind="observer")
    agent.run_sync("edit")
    assert changes == [("project_settings", str(tmp_path.resolve() / "team.json"))]


def test_settings_files_need_a_source_claude_code_knows(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"settings_files\[0\]") as raised:
        Agent(ScriptedModel([]), cwd=tmp_path, settings_files=[("team_settings", "t.json")])
    assert "project_settings" in str(raised.value)


# -- model switch --------------------------------------------------------------------------------


class Named(ScriptedModel):
    """A scripted model with a name of its own, which counts its ``aclose`` calls."""

    def __init__(self, name: str, script: list[dict[str, Any]]) -> None:
        super().__init__(script)
        self.name = name
        self.closed = 0

    async def aclose(self) -> None:
        self.closed += 1


def switched_in(agent: Agent, to: Any) -> ModelSwitch:
    """Run one prompt, then switch to ``to``, in one session."""

    async def main() -> ModelSwitch:
        async with agent:
            await agent.run("first")
            return await agent.switch_model(to)

    return asyncio.run(main())


def test_a_switch_fires_both_events_and_the_new_model_reads_the_context(tmp_path: Path) -> None:
    context = answer("PostModelSwitch", additionalContext="you are the fast model now")
    hooks = {
        "PreModelSwitch": [group(command(RECORD))],
        "PostModelSwitch": [group(command(RECORD), context)],
    }
    project = project_with(tmp_path, hooks)
    old = Named("model-a", [say("one")])
    new = Named("model-b", [say("(not asked: its first turn is the second answer)"), say("two")])
    agent = agent_in(project, old)

    async def main() -> Any:
        async with agent:
            await agent.run("first")
            done = await agent.switch_model(new)
            assert (old.closed, new.closed) == (1, 0)  # released at once
            return done, await agent.run("second")

    done, second = asyncio.run(main())
    assert done.switched and done.reason is None and agent.model is new
    names = (done.from_model, done.to_model, done.requested_model)
    assert names == ("model-a", "model-b", "model-b")
    pre, post = received(project, "PreModelSwitch")[0], received(project, "PostModelSwitch")[0]
    for payload in (pre, post):
        assert (payload["from_model"], payload["to_model"]) == ("model-a", "model-b")
        assert payload["context_tokens"] == done.context_tokens > 0
    told = new.shown(0)[-1].text
    assert "PostModelSwitch hook additional context: you are the fast model now" in told
    assert second.final_text == "two" and old.calls == 1


@pytest.mark.parametrize(
    ("answer_with", "why"),
    [
        (command('echo "stay on the approved model" >&2; exit 2'), "stay on the approved model"),
        (
            answer("PreModelSwitch", permissionDecision="ask", permissionDecisionReason="a human"),
            "none can answer here: a human",
        ),
    ],
    ids=["deny", "ask"],
)
def test_a_refused_switch_keeps_the_model(
    tmp_path: Path, answer_with: dict[str, Any], why: str
) -> None:
    post = command('touch "$CLAUDE_PROJECT_DIR/POST_RAN"')
    hooks = {"PreModelSwitch": [group(answer_with)], "PostModelSwitch": [group(post)]}
    old = Named("model-a", [say()])
    agent = agent_in(project_with(tmp_path, hooks), old)
    done = switched_in(agent, Named("model-b", []))
    assert not done.switched and why in (done.reason or "")
    assert agent.model is old and not (tmp_path / "project" / "POST_RAN").exists()


def test_a_fail_closed_pre_model_switch_hook_that_raises_refuses(tmp_path: Path) -> None:
    def broken(event: HookEvent) -> None:
        raise RuntimeError("the policy service is down")

    announced: list[HookEvent] = []
    old = Named("model-a", [say()])
    agent = Agent(old, cwd=tmp_path)
    agent.registry.add("PreModelSwitch", broken, name="broken")  # in-process: fails closed
    agent.registry.add("PostModelSwitch", announced.append, kind="observer")
    done = switched_in(agent, Named("model-b", []))
    assert not done.switched and "fails closed" in (done.reason or "")
    assert agent.model is old and announced == [] and old.closed == 1  # closed with the agent


def test_a_model_name_is_resolved_as_the_cli_resolves_it(tmp_path: Path) -> None:
    script = tmp_path / "next.json"
    script.write_text(json.dumps({"turns": [{"text": "hello"}]}))
    old = Named("model-a", [say()])
    agent = Agent(old, cwd=tmp_path)
    done = switched_in(agent, f"scripted:{script}")
    assert done.switched and done.requested_model == f"scripted:{script}"
    assert isinstance(agent.model, ScriptedModel) and agent.model is not old
    assert done.to_model == agent.model.name


@pytest.mark.parametrize(
    ("model", "problem"),
    [(42, "is not a model"), ("  ", "the model name is empty"), ("nope:x", "unknown model")],
)
def test_switch_model_refuses_what_names_no_model(tmp_path: Path, model: Any, problem: str) -> None:
    project = project_with(tmp_path, {"PreModelSwitch": [group(command(RECORD))]})
    agent = agent_in(project, [say()])
    with pytest.raises(ConfigError, match=problem):
        asyncio.run(agent.switch_model(model))
    assert not (project / "events.jsonl").exists()  # nothing fired, not even SessionStart


# -- Notification idle_prompt ---------------------------------------------------------------


def test_idle_prompt_fires_once_the_agent_has_waited(tmp_path: Path) -> None:
    asked = command('touch "$CLAUDE_PROJECT_DIR/PERMISSION_RAN"')
    hooks = {
        "Notification": [
            group(command(RECORD), matcher="idle_prompt"),
            group(asked, matcher="permission_prompt"),
        ]
    }
    project = project_with(tmp_path, hooks)
    agent = agent_in(project, [say()], idle_after=0)

    async def main() -> None:
        heard = asyncio.Event()
        agent.watch(lambda x: heard.set() if isinstance(x, HookRun) else None)
        async with agent:
            await agent.run("hi")
            await asyncio.wait_for(heard.wait(), 60)  # a safety bound, not a timing

    asyncio.run(main())
    (idle,) = received(project, "Notification")
    assert (idle["notification_type"], idle["message"]) == ("idle_prompt", IDLE_MESSAGE)
    assert set(idle) == {
        *("session_id", "transcript_path", "cwd", "prompt_id", "hook_event_name"),
        *("message", "notification_type"),
    }
    assert not (project / "PERMISSION_RAN").exists()


def test_the_next_run_and_close_call_the_idle_prompt_off(tmp_path: Path) -> None:
    project = project_with(tmp_path, {"Notification": [group(command(RECORD))]})
    agent = agent_in(project, [say("one"), say("two")], idle_after=0)
    dispatched: list[str] = []

    async def main() -> None:
        agent.watch(lambda x: dispatched.append(x.name) if isinstance(x, HookEvent) else None)
        async with agent:
            await agent.run("first")  # its notification is due at once...
            await agent.run("second")  # ...but this run calls it off, and close the next one
        for _ in range(20):  # had one been left, it would fire within these turns of the loop
            await asyncio.sleep(0)

    asyncio.run(main())
    assert "Notification" not in dispatched and "SessionEnd" in dispatched
    assert received(project, "Notification") == []


@pytest.mark.parametrize("after", [-1, "soon", float("inf"), True])
def test_idle_after_must_be_seconds_or_none(tmp_path: Path, after: Any) -> None:
    with pytest.raises(ConfigError, match="idle_after"):
        Agent(ScriptedModel([]), cwd=tmp_path, idle_after=after)
