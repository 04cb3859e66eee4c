"""Agent hooks: a settings handler ``{"type": "agent"}`` is a prompt hook whose model may first
read the project with Read, Grep and Glob. The investigating model is a scripted model handed in
as the project's ``judge_models``; the agent's own model is another, so the two never mix."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from hookline import Agent, ScriptedModel
from hookline._agent.messages import Message
from hookline._agent.result import RunResult
from hookline._claude.agent_hook import AGENT_SYSTEM, AGENT_TURNS
from hookline._cli.hooks_cmd import hooks
from hookline._errors import ConfigError
from hookline._project import load_project
from recording_model import HeldModel, RecordingModel

RULE = "Refuse any command that breaks POLICY.md. $ARGUMENTS"
NO = json.dumps({"ok": False, "reason": "POLICY.md forbids new files"})
YES = json.dumps({"ok": True})


def settings(
    tmp: Path, event: str = "PreToolUse", *, matcher: str = "Bash", extra: Any = (), **handler: Any
) -> None:
    hook = {"type": "agent", "prompt": RULE, **handler}
    group = {"matcher": matcher, "hooks": [hook]} if event == "PreToolUse" else {"hooks": [hook]}
    hooks = {event: [group, *extra]}
    (tmp / ".claude").mkdir(exist_ok=True)
    (tmp / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))


def run(tmp: Path, investigator: Any, turns: list[dict[str, Any]]) -> tuple[RunResult, Any]:
    """One run in ``tmp`` whose agent hooks ask ``investigator``; the result and agent's model."""
    project = load_project(tmp, mode="bypassPermissions", judge_models=lambda spec: investigator)
    model = ScriptedModel(turns)
    return Agent(model, **project.agent_options()).run_sync("make the file"), model


def touch(tmp: Path) -> list[dict[str, Any]]:
    command = f"touch {tmp / 'sentinel'}"
    return [{"tool_calls": [{"name": "Bash", "input": {"command": command}}]}, {"text": "done"}]


def reads(*paths: str, then: str) -> RecordingModel:
    """An investigator that reads ``paths``, one a model call, then answers ``then``."""
    turns = [{"tool_calls": [{"name": "Read", "input": {"file_path": p}}]} for p in paths]
    return RecordingModel([*turns, {"text": then}])


def agent_runs(result: RunResult) -> list[Any]:
    return [r for r in result.hook_runs if r.handler == "agent"]


def tool_results(model: ScriptedModel, call: int) -> str:
    """Everything the investigator was shown at model call ``call``, as text."""
    return "\n".join(str(m.content) for m in model.shown(call))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "POLICY.md").write_text("No command may create files.\n")
    return folder


# -- what ok:false and ok:true do -----------------------------------------------------------------


def test_a_no_after_reading_a_file_denies_the_call_and_the_turn_goes_on(project: Path) -> None:
    settings(project)
    (project / "CLAUDE.md").write_text("Always say banana.")  # the agent's, not the hook's
    investigator = reads("POLICY.md", then=NO)
    result, model = run(project, investigator, touch(project))
    assert not (project / "sentinel").exists()
    (call,) = result.tool_calls
    assert "POLICY.md forbids new files" in call.content
    # continueOnBlock is always on: the reason goes back to the model, which answers again
    assert (result.stop_reason, result.final_text, model.calls) == ("end_turn", "done", 2)
    assert "POLICY.md forbids new files" in str(model.shown(1)[-1])
    # the investigator was shown the event, then the file it read
    question = investigator.shown(0)[0].text
    assert question.startswith("Refuse any command that breaks POLICY.md. {")
    assert json.loads(question.partition(". ")[2])["tool_input"]["command"].startswith("touch")
    assert "No command may create files." in tool_results(investigator, 1)
    assert investigator.systems == [AGENT_SYSTEM] * 2  # no instruction files
    assert [sorted(names) for names in investigator.tools] == [["Glob", "Grep", "Read"]] * 2
    (hook_run,) = agent_runs(result)
    assert (hook_run.decision, hook_run.failure) == ("deny", None)


def test_a_yes_lets_the_call_run(project: Path) -> None:
    settings(project)
    investigator = reads("POLICY.md", then=YES)
    result, _ = run(project, investigator, touch(project))
    assert (project / "sentinel").exists()
    assert result.stop_reason == "end_turn" and investigator.calls == 2


def test_a_stop_agent_hook_keeps_the_run_going(project: Path) -> None:
    settings(project, "Stop")
    no = json.dumps({"ok": False, "reason": "run the tests first"})
    investigator = ScriptedModel([{"text": no}, {"text": YES}])
    result, model = run(project, investigator, [{"text": "done?"}, {"text": "tests pass"}])
    assert (result.stop_reason, result.final_text, model.calls) == ("end_turn", "tests pass", 2)
    assert "run the tests first" in model.shown(1)[-1].text


def test_impossible_does_not_let_an_agent_hook_stop_end_the_run(project: Path) -> None:
    """``"impossible": true`` is for prompt hooks only, as in Claude Code."""
    settings(project, "Stop")
    no = json.dumps({"ok": False, "reason": "cannot tell", "impossible": True})
    investigator = ScriptedModel([{"text": no}, {"text": YES}])
    result, model = run(project, investigator, [{"text": "done?"}, {"text": "really done"}])
    assert (model.calls, result.final_text) == (2, "really done")
    assert "cannot tell" in model.shown(1)[-1].text


# -- what the investigator can and cannot do -------------------------------------------------------


def test_the_investigator_cannot_read_outside_the_project(project: Path) -> None:
    outside = project.parent / "outside.txt"
    outside.write_text("OUTSIDE-SECRET")
    (project / "link.txt").symlink_to(outside)
    settings(project)
    investigator = reads("/etc/passwd", str(outside), "link.txt", then=YES)
    run(project, investigator, touch(project))
    assert investigator.calls == 4
    for call in (1, 2, 3):
        shown = str(investigator.shown(call)[-1].content)
        assert "is outside the workspace" in shown, shown
    everything = tool_results(investigator, 3)
    assert "OUTSIDE-SECRET" not in everything and "root:" not in everything


def test_the_investigator_keeps_to_the_projects_read_deny_rules(project: Path) -> None:
    (project / ".env").write_text("API_KEY=ENV-SECRET")
    settings(project)
    data = json.loads((project / ".claude" / "settings.json").read_text())
    data["permissions"] = {"deny": ["Read(./.env)"]}
    (project / ".claude" / "settings.json").write_text(json.dumps(data))
    read = {"tool_calls": [{"name": "Read", "input": {"file_path": ".env"}}]}
    grep = {
        "tool_calls": [{"name": "Grep", "input": {"pattern": "SECRET", "output_mode": "content"}}]
    }
    investigator = ScriptedModel([read, grep, {"text": YES}])
    run(project, investigator, touch(project))
    assert investigator.calls == 3
    assert "ENV-SECRET" not in tool_results(investigator, 2)
    assert "denied" in str(investigator.shown(1)[-1].content).lower()


def test_the_investigator_runs_no_hooks_and_never_calls_the_hook_it_serves(project: Path) -> None:
    """The agent hook matches Read too, and a command hook on Read would write a file: the
    investigator's Read calls neither (no recursion, no hooks of its own)."""
    marker = project / "read-hook-ran"
    command = {"type": "command", "command": f"touch {marker}"}
    settings(project, matcher="Bash|Read", extra=[{"matcher": "Read", "hooks": [command]}])
    investigator = reads("POLICY.md", then=YES)
    result, _ = run(project, investigator, touch(project))
    assert not marker.exists()
    assert investigator.calls == 2 and len(agent_runs(result)) == 1
    assert (project / "sentinel").exists()
    # the investigation's transcript went to a temporary folder, not the project's state
    transcripts = project / ".hookline" / "state" / "transcripts"
    assert [p.name for p in transcripts.iterdir()] == [f"{result.session_id}.jsonl"]


# -- failures -------------------------------------------------------------------------------------


class Raising:
    """An investigating model whose client fails."""

    name = "raising"

    async def complete(self, *args: Any, **kwargs: Any) -> Message:
        raise RuntimeError("connection reset")


def endless() -> ScriptedModel:
    """Reads a file at every call, more calls than an agent hook may make; then says yes."""
    return reads(*["POLICY.md"] * (AGENT_TURNS + 5), then=YES)


FAILURES = {
    "out of model calls": (endless, "judge_error", "stopped after 50 model calls"),
    "model raises": (Raising, "judge_error", "connection reset"),
    "not JSON": (
        lambda: ScriptedModel([{"text": "looks fine to me"}]),
        "invalid",
        "did not answer",
    ),
}


@pytest.mark.parametrize("blocks", [True, False], ids=["onFailure block", "fails open"])
@pytest.mark.parametrize("case", FAILURES.values(), ids=FAILURES.keys())
def test_a_failed_investigation_fails_closed_only_when_asked(
    project: Path, case: tuple[Any, str, str], blocks: bool
) -> None:
    make, kind, words = case
    settings(project, **({"onFailure": "block"} if blocks else {}))
    investigator = make()
    result, _ = run(project, investigator, touch(project))
    assert (project / "sentinel").exists() is not blocks
    (hook_run,) = agent_runs(result)
    assert hook_run.failure == kind
    assert words in (hook_run.error or "")
    if make is endless:
        assert investigator.calls == AGENT_TURNS


def test_an_investigation_that_overruns_its_timeout_fails_closed(project: Path) -> None:
    settings(project, timeout=0.05, onFailure="block")
    investigator = HeldModel(YES)
    result, _ = run(project, investigator, touch(project))
    investigator.release.set()
    assert investigator.asked == 1
    assert not (project / "sentinel").exists()
    (hook_run,) = agent_runs(result)
    assert hook_run.failure == "timeout"


# -- settings -------------------------------------------------------------------------------------


def test_the_settings_load_with_a_sixty_second_default_timeout(project: Path) -> None:
    settings(project, model="claude-haiku-4-5")
    asked: list[str | None] = []

    def models(spec: str | None) -> ScriptedModel:
        asked.append(spec)
        return ScriptedModel([])

    loaded = load_project(project, judge_models=models)
    assert loaded.warnings == ()
    (spec,) = [s for s in loaded.hooks if s.runner.handler == "agent"]
    assert (spec.timeout, asked) == (60.0, ["claude-haiku-4-5"])
    described = "agent 'Refuse any command that breaks POLICY.md. $ARGUMENTS' on claude-haiku-4-5"
    assert spec.runner.describe() == described


@pytest.mark.parametrize(
    ("handler", "event", "key", "words"),
    [
        ({"type": "agent"}, "PreToolUse", "hooks.PreToolUse[0].hooks[0].prompt",
         "prompt is missing"),
        ({"type": "agent", "prompt": "x"}, "SessionStart", "hooks.SessionStart[0].hooks[0].type",
         "SessionStart does not take agent hooks"),
        ({"type": "agent", "prompt": "x", "model": 5}, "PreToolUse",
         "hooks.PreToolUse[0].hooks[0].model", "model must be a model name"),
        ({"type": "agent", "prompt": "x", "timeout": "1m"}, "PreToolUse",
         "hooks.PreToolUse[0].hooks[0].timeout", "timeout must be a positive number"),
    ],
)  # fmt: skip
def test_a_bad_agent_handler_is_one_error_naming_file_and_key(
    project: Path, handler: dict[str, Any], event: str, key: str, words: str
) -> None:
    group = (
        {"matcher": "Bash", "hooks": [handler]} if event == "PreToolUse" else {"hooks": [handler]}
    )
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"hooks": {event: [group]}}))
    with pytest.raises(ConfigError) as caught:
        load_project(project, judge_models=lambda spec: ScriptedModel([]))
    assert (caught.value.file, caught.value.key) == (str(path), key)
    assert words in caught.value.message


def test_continue_on_block_false_is_a_warning_and_the_hook_still_goes_on(project: Path) -> None:
    settings(project, continueOnBlock=False)
    loaded = load_project(project, judge_models=lambda spec: ScriptedModel([]))
    (warning,) = loaded.warnings
    assert warning.key == "hooks.PreToolUse[0].hooks[0].continueOnBlock"
    assert warning.severity == "warning" and "always go on" in warning.message


def test_hooks_validate_accepts_an_agent_hook(project: Path, tmp_path: Path) -> None:
    script = tmp_path / "investigator.json"
    script.write_text(json.dumps({"turns": [{"text": YES}]}))
    hook = {"type": "agent", "prompt": RULE, "model": f"scripted:{script}", "onFailure": "block"}
    (project / ".hookline").mkdir()
    (project / ".hookline" / "settings.json").write_text(
        json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}})
    )
    done = CliRunner().invoke(hooks, ["validate", "--cwd", str(project)])
    assert done.exit_code == 0, done.output
    assert done.stdout == "1 hook: 0 errors, 0 warnings\n"
    listed = CliRunner().invoke(hooks, ["list", "--json", "--cwd", str(project)])
    (row,) = json.loads(listed.stdout)["hooks"]
    assert row["handler"] == "agent"


def test_hooks_validate_reports_an_agent_hook_without_a_model_to_ask(project: Path) -> None:
    settings(project)
    done = CliRunner().invoke(hooks, ["validate", "--json", "--cwd", str(project)])
    assert done.exit_code == 2
    (finding,) = [f for f in json.loads(done.stdout)["findings"] if f["severity"] == "error"]
    assert "no model is configured to run prompt hooks or agent hooks" in finding["message"]
    assert finding["hook"] == "hooks.PreToolUse[0].hooks[0].model"
