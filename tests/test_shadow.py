"""Shadow rules and hooks: they run and are recorded ("would have denied"), and decide nothing.

From Python (``registry.add(..., shadow=True)``) and from hookline's own settings (the
``shadow`` object under ``hookline``: permission rules and hooks), in a real agent run with
the audit on: the tool a shadow deny would have stopped runs (its sentinel is set), its audit
record says what the shadow would have done, ``hookline audit --decision deny`` does not list
it, and ``hookline replay`` counts it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import hookline
from hookline import Agent, Decision, HookRegistry, PostToolUse, PreToolUse, ScriptedModel
from hookline._cli.main import cli
from hookline._errors import ConfigError
from hookline._hooks.engine import HookEngine
from hookline._project import load_project
from hookline.audit import attach_audit
from hookline.storage import SqliteStore

RAN: list[str] = []


@hookline.tool
def wipe(path: str) -> str:
    """Delete a folder."""
    RAN.append(path)
    return "wiped"


def script(*paths: str) -> list[dict[str, Any]]:
    turns: list[dict[str, Any]] = [
        {"tool_calls": [{"id": f"c{i}", "name": "wipe", "input": {"path": p}}]}
        for i, p in enumerate(paths)
    ]
    return [*turns, {"text": "done"}]


def audited(project: Path, registry: HookRegistry, *paths: str) -> list[Any]:
    agent = Agent(ScriptedModel(script(*paths)), tools=[wipe], hooks=registry, cwd=project)
    with attach_audit(agent):
        agent.run_sync("go")
    store = SqliteStore(project / ".hookline" / "state" / "hookline.db")
    try:
        return list(store.audit_rows())
    finally:
        store.close()


def test_a_shadow_gate_is_recorded_and_decides_nothing(tmp_path: Path) -> None:
    RAN.clear()
    registry = HookRegistry()
    registry.add("PreToolUse", lambda e: Decision.deny("not /prod"), name="no_prod", shadow=True)
    registry.add("PreToolUse", lambda e: None, name="live")
    rows = audited(tmp_path, registry, "/prod")
    assert RAN == ["/prod"]  # the shadow deny stopped nothing
    [started] = [r for r in rows if r.kind == "tool_started"]
    hooks = {h["hook"]: h for h in started.data["hooks"]}
    assert hooks["no_prod"]["shadow"] is True and hooks["no_prod"]["decision"] == "deny"
    assert "shadow" not in hooks["live"]
    assert started.permission == "allow"


def test_a_shadow_transformer_rewrites_nothing_and_a_live_deny_still_decides() -> None:
    registry = HookRegistry()
    registry.add(
        "PreToolUse",
        lambda e: Decision(updated_input={"path": "/elsewhere"}),
        kind="transformer",
        name="moved",
        shadow=True,
    )
    registry.add("PreToolUse", lambda e: Decision.deny("live says no"), name="live")
    engine = HookEngine(registry)
    event = PreToolUse(
        session_id="s", transcript_path="", cwd="/", hook_event_name="PreToolUse",
        tool_name="wipe", tool_input={"path": "/prod"}, tool_use_id="t1",
    )  # fmt: skip
    done = asyncio.run(engine.dispatch(event))
    assert done.event.tool_input == {"path": "/prod"}  # the gates saw the input unrewritten
    assert done.decision.permission == "deny" and done.decision.updated_input is None
    assert done.decided_by == "live"
    shadowed = asyncio.run(HookEngine(_only_shadow()).dispatch(event))
    assert shadowed.decision.permission is None and len(shadowed.runs) == 1


def _only_shadow() -> HookRegistry:
    registry = HookRegistry()
    registry.add("PreToolUse", lambda e: Decision.deny("no"), name="would", shadow=True)
    return registry


SHADOW_SETTINGS = {
    "hookline": {
        "shadow": {
            "permissions": {"deny": ["wipe"], "ask": ["Bash(git log *)"]},
        }
    }
}


def project_with(tmp_path: Path, settings: dict[str, Any]) -> Path:
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps(settings))
    return tmp_path


def test_shadow_rules_in_settings_are_recorded_and_the_audit_says_what_they_would_do(
    tmp_path: Path,
) -> None:
    RAN.clear()
    project = project_with(tmp_path, SHADOW_SETTINGS)
    loaded = load_project(project, trust=True)
    names = [spec.name for spec in loaded.hooks if spec.shadow]
    assert names == ["deny wipe", "ask Bash(git log *)"]
    rows = audited(project, loaded.hooks, "/prod")
    assert RAN == ["/prod"]
    [started] = [r for r in rows if r.kind == "tool_started"]
    runs = {run["hook"]: run for run in started.data["hooks"]}
    assert (runs["deny wipe"]["decision"], runs["deny wipe"]["shadow"]) == ("deny", True)
    assert runs["ask Bash(git log *)"]["decision"] is None  # it had no say on this call
    listed = CliRunner().invoke(cli, ["audit", "--cwd", str(project), "--decision", "deny"])
    assert listed.exit_code == 0, listed.output
    assert "deny wipe" not in listed.output  # nothing was denied
    every = CliRunner().invoke(cli, ["audit", "--cwd", str(project)])
    assert "shadow deny wipe" in every.output


def test_a_shadow_rule_that_cannot_be_read_is_an_error_naming_the_file(tmp_path: Path) -> None:
    bad = {"hookline": {"shadow": {"permissions": {"deny": ["Bash(unclosed"]}}}}
    project = project_with(tmp_path, bad)
    with pytest.raises(ConfigError, match="unclosed"):
        load_project(project, trust=True)  # a strict load stops, as for a live rule
    loaded = load_project(project, trust=True, lenient=True)
    [warning] = [w for w in loaded.warnings if "Bash(unclosed" in w.message]
    assert warning.severity == "error" and warning.file.endswith("settings.json")
    assert warning.key == "hookline.shadow.permissions.deny"


def test_a_misspelt_shadow_key_is_an_error(tmp_path: Path) -> None:
    project = project_with(tmp_path, {"hookline": {"shadow": {"permisions": {}}}})
    loaded = load_project(project, trust=True, lenient=True)
    assert any(w.severity == "error" and "permisions" in w.message for w in loaded.warnings), (
        loaded.warnings
    )


def test_replay_lists_what_the_shadow_rules_would_have_done(tmp_path: Path) -> None:
    session = tmp_path / "cc.jsonl"
    base = {"cwd": str(tmp_path), "sessionId": "cc-1"}
    use = {
        "type": "tool_use",
        "id": "t1",
        "name": "Bash",
        "input": {"command": "git log --oneline"},
    }
    result = {"type": "tool_result", "tool_use_id": "t1", "content": "ok", "is_error": False}
    lines = [
        {**base, "type": "assistant", "message": {"role": "assistant", "content": [use]}},
        {**base, "type": "user", "message": {"role": "user", "content": [result]}},
    ]
    session.write_text("".join(json.dumps(line) + "\n" for line in lines))
    (tmp_path / "policy").mkdir()
    live = {"permissions": {"allow": ["Bash(git log *)"]}}
    policy = project_with(tmp_path / "policy", live | SHADOW_SETTINGS)
    done = CliRunner().invoke(
        cli, ["replay", str(session), "--cwd", str(policy), "--json", "--all"]
    )
    assert done.exit_code == 0, done.output
    report = json.loads(done.output)
    [event] = report["events"]
    assert event["now"]["permission"] == "allow" and event["change"] is None  # live: allowed
    assert event["now"]["shadow"] == [
        {
            "hook": "ask Bash(git log *)",
            "would": "ask",
            "reason": event["now"]["shadow"][0]["reason"],
        }
    ]
    assert report["totals"]["shadow"] == {"ask Bash(git log *): would ask": 1}
    assert event["now"]["shadow"][0]["reason"].startswith("shadow rule ask Bash(git log *)")


def test_a_shadow_hook_s_rewrite_of_the_model_request_never_reaches_the_model(
    tmp_path: Path,
) -> None:
    """What reads an answer from a hook's run (a PreModelRequest rewrite, a block's feedback)
    reads only the runs that count: a shadow hook's would otherwise decide after all."""
    registry = HookRegistry()
    planted = {"messages": [{"role": "user", "content": "SHADOW WROTE THIS"}]}
    registry.add("PreModelRequest", lambda e: Decision(updated_input=planted), name="rewriter",
                 shadow=True)  # fmt: skip
    registry.add("PostToolUse", lambda e: Decision.deny("SHADOW FEEDBACK"), name="post",
                 shadow=True)  # fmt: skip
    registry.add("PostToolUse", lambda e: Decision.deny("live feedback"), name="live_post")
    model = ScriptedModel(script("/tmp/x"))
    agent = Agent(model, tools=[wipe], hooks=registry, cwd=tmp_path)
    agent.run_sync("go")
    shown = [json.dumps(m.to_dict()) for call in range(2) for m in model.shown(call)]
    assert not any("SHADOW WROTE THIS" in text for text in shown)
    assert '"go"' in json.dumps(model.shown(0)[0].to_dict())  # the prompt, as it was
    assert any("live feedback" in text for text in shown)
    assert not any("SHADOW FEEDBACK" in text for text in shown)


def test_a_shadow_background_hook_s_late_answer_is_not_kept_for_the_model() -> None:
    """A background hook's finished run waits to be told to the model (``take_late``); a
    shadow one's is recorded and never told."""
    from hookline._hooks.runners import PythonHook

    def later(fn: Any) -> PythonHook:  # as an ``async`` command hook runs: in the background
        hook = PythonHook(fn)
        hook.background, hook.inline = True, False
        return hook

    async def go() -> list[Any]:
        registry = HookRegistry()
        said = Decision(additional_context=("SHADOW CONTEXT",))
        registry.add("PostToolUse", later(lambda e: said), kind="observer", name="bg", shadow=True)
        registry.add("PostToolUse", later(lambda e: said), kind="observer", name="live")
        engine = HookEngine(registry)
        event = PostToolUse(
            session_id="s", transcript_path="", cwd="/", hook_event_name="PostToolUse",
            tool_name="wipe", tool_input={"path": "/x"}, tool_response="ok", tool_use_id="t1",
        )  # fmt: skip
        await engine.dispatch(event)
        await engine.drain()
        return [run.hook for _, run in engine.take_late()]

    assert asyncio.run(go()) == ["live"]
