"""Prompt (LLM-judge) hooks: a settings handler ``{"type": "prompt"}`` asks a model about the
event and reads ``{ok, reason}``. The judge is a scripted model handed in as the project's
``judge_models``; the agent's own model is another scripted model, so the two never mix."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hookline import Agent, ScriptedModel
from hookline._agent.result import RunResult
from hookline._errors import ConfigError
from hookline._project import judge_model, load_project
from recording_model import HeldModel

RULE = "Refuse any command that writes files."


def settings(tmp: Path, event: str, **handler: Any) -> None:
    hook = {"type": "prompt", "prompt": RULE, **handler}
    group = {"matcher": "Bash", "hooks": [hook]} if event == "PreToolUse" else {"hooks": [hook]}
    (tmp / ".claude").mkdir(exist_ok=True)
    (tmp / ".claude" / "settings.json").write_text(json.dumps({"hooks": {event: [group]}}))


def run(tmp: Path, judge: Any, turns: list[dict[str, Any]]) -> tuple[RunResult, ScriptedModel]:
    """One run in ``tmp`` whose prompt hooks ask ``judge``; the agent's model and its result."""
    asked: list[str | None] = []

    def models(spec: str | None) -> Any:
        asked.append(spec)
        return judge

    project = load_project(tmp, mode="bypassPermissions", judge_models=models)
    assert asked == [None]  # one client per handler, made when the settings load
    model = ScriptedModel(turns)
    return Agent(model, **project.agent_options()).run_sync("make the file"), model


def touch(tmp: Path) -> list[dict[str, Any]]:
    command = f"touch {tmp / 'sentinel'}"
    return [{"tool_calls": [{"name": "Bash", "input": {"command": command}}]}, {"text": "done"}]


def judged(*answers: str) -> ScriptedModel:
    return ScriptedModel([{"text": answer} for answer in answers])


NO = json.dumps({"ok": False, "reason": "writing files is not allowed here"})
YES = json.dumps({"ok": True})


def test_a_judge_that_says_no_denies_the_call_and_ends_the_turn(tmp_path: Path) -> None:
    settings(tmp_path, "PreToolUse")
    result, model = run(tmp_path, judged(NO), touch(tmp_path))
    assert not (tmp_path / "sentinel").exists()
    (call,) = result.tool_calls
    assert "writing files is not allowed here" in call.content
    assert (result.stop_reason, model.calls) == ("hook_stopped", 1)


def test_with_continue_on_block_the_reason_reaches_the_model(tmp_path: Path) -> None:
    settings(tmp_path, "PreToolUse", continueOnBlock=True)
    result, model = run(tmp_path, judged(NO), touch(tmp_path))
    assert not (tmp_path / "sentinel").exists()
    assert (result.stop_reason, result.final_text) == ("end_turn", "done")
    assert "writing files is not allowed here" in str(model.shown(1)[-1])


def test_a_judge_that_says_yes_lets_the_call_run(tmp_path: Path) -> None:
    settings(tmp_path, "PreToolUse")
    result, _ = run(tmp_path, judged(YES), touch(tmp_path))
    assert (tmp_path / "sentinel").exists()
    assert result.stop_reason == "end_turn"


def test_the_judge_is_shown_the_event_json_in_place_of_arguments(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    hook = {"type": "prompt", "prompt": "Rule: no writes.\n<event>$ARGUMENTS</event>\nAnswer."}
    hooks = {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    judge = judged(YES)
    run(tmp_path, judge, touch(tmp_path))
    (question,) = judge.shown(0)
    before, _, rest = question.text.partition("<event>")
    payload, _, after = rest.partition("</event>")
    assert (before, after) == ("Rule: no writes.\n", "\nAnswer.")
    event = json.loads(payload)
    assert event["hook_event_name"] == "PreToolUse"
    assert event["tool_input"] == {"command": f"touch {tmp_path / 'sentinel'}"}


def test_a_prompt_without_arguments_gets_the_event_json_appended(tmp_path: Path) -> None:
    settings(tmp_path, "PreToolUse")
    judge = judged(YES)
    run(tmp_path, judge, touch(tmp_path))
    rule, _, payload = judge.shown(0)[0].text.partition("\n\n")
    assert rule == RULE
    assert json.loads(payload)["tool_name"] == "Bash"


def test_a_stop_judge_that_says_no_keeps_the_run_going(tmp_path: Path) -> None:
    settings(tmp_path, "Stop")
    no = json.dumps({"ok": False, "reason": "run the tests first"})
    result, model = run(tmp_path, judged(no, YES), [{"text": "done?"}, {"text": "tests pass"}])
    assert (result.stop_reason, result.final_text, model.calls) == ("end_turn", "tests pass", 2)
    assert "run the tests first" in model.shown(1)[-1].text


def test_a_fenced_json_answer_is_read(tmp_path: Path) -> None:
    settings(tmp_path, "PreToolUse")
    result, _ = run(tmp_path, judged(f"Here you go:\n```json\n{NO}\n```"), touch(tmp_path))
    assert not (tmp_path / "sentinel").exists()
    assert "writing files is not allowed here" in result.tool_calls[0].content


@pytest.mark.parametrize("blocks", [True, False])
def test_an_answer_that_is_not_ok_json_fails_closed_only_when_asked(
    tmp_path: Path, blocks: bool
) -> None:
    settings(tmp_path, "PreToolUse", **({"onFailure": "block"} if blocks else {}))
    result, _ = run(tmp_path, judged("I think it is probably fine."), touch(tmp_path))
    assert (tmp_path / "sentinel").exists() is not blocks
    (hook_run,) = [r for r in result.hook_runs if r.handler == "prompt"]
    assert hook_run.failure == "invalid"
    assert "did not answer" in (hook_run.error or "")


def test_a_judge_that_overruns_its_timeout_fails_closed(tmp_path: Path) -> None:
    settings(tmp_path, "PreToolUse", timeout=0.05, onFailure="block")
    judge = HeldModel(YES)
    result, _ = run(tmp_path, judge, touch(tmp_path))
    judge.release.set()
    assert judge.asked == 1
    assert not (tmp_path / "sentinel").exists()
    (hook_run,) = [r for r in result.hook_runs if r.handler == "prompt"]
    assert hook_run.failure == "timeout"


def test_the_settings_load_and_the_default_timeout_is_thirty_seconds(tmp_path: Path) -> None:
    settings(tmp_path, "PreToolUse", model="claude-haiku-4-5")
    asked: list[str | None] = []
    project = load_project(tmp_path, judge_models=lambda spec: asked.append(spec) or judged(YES))
    assert project.warnings == ()
    (spec,) = [s for s in project.hooks if s.runner.handler == "prompt"]
    assert (spec.timeout, asked) == (30.0, ["claude-haiku-4-5"])


def test_an_event_that_takes_no_prompt_hooks_is_a_load_error(tmp_path: Path) -> None:
    settings(tmp_path, "SessionStart")
    with pytest.raises(ConfigError) as caught:
        load_project(tmp_path, judge_models=lambda spec: judged(YES))
    assert "SessionStart does not take prompt hooks" in str(caught.value)
    assert "hooks.SessionStart[0].hooks[0].type" in str(caught.value)


def test_without_a_configured_model_a_prompt_hook_cannot_load(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ConfigError, match="no model is configured to run prompt hooks"):
        judge_model(None)


@pytest.mark.parametrize(
    "answer",
    ['{"ok": "true"}', '{"ok": 1}', '{"ok": false, "ok": true}', '{"ok": true} {"ok": true}',
     '```json\n{"ok": true}\n```\n```json\n{"ok": true}\n```', "[true]", "ok", "",
     '{"OK": true}', '{"ok": null}'],
)  # fmt: skip
def test_an_answer_that_only_looks_like_yes_fails_closed(tmp_path: Path, answer: str) -> None:
    """Strings, numbers, a key given twice, two answers, a differently cased key: none is a
    yes, and a fail-closed judge denies (the sentinel the command would make stays absent)."""
    settings(tmp_path, "PreToolUse", onFailure="block")
    result, _ = run(tmp_path, judged(answer), touch(tmp_path))
    assert not (tmp_path / "sentinel").exists()
    (hook_run,) = [r for r in result.hook_runs if r.handler == "prompt"]
    assert hook_run.failure == "invalid"
