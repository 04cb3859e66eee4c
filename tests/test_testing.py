"""The doubles hookline ships for its users' tests: RecordingHook and FakeRunner."""

from __future__ import annotations

from hookline import Agent, Decision, ScriptedModel, tool
from hookline.testing import FakeRunner, RecordingHook


@tool
def ping(host: str) -> str:
    """Pretend to ping a host."""
    return f"pong from {host}"


def test_recording_hook_attached_to_every_event_records_a_whole_run(tmp_path):
    script = [{"tool_calls": [{"name": "ping", "input": {"host": "a"}}]}, {"text": "done"}]
    agent = Agent(ScriptedModel(script), tools=[ping], cwd=tmp_path)
    recording = RecordingHook()
    recording.attach(agent.registry)
    agent.run_sync("ping a")
    assert recording.names == [
        "SessionStart", "UserPromptSubmit", "TurnStart", "PreModelRequest", "PostModelResponse",
        "PreToolUse:ping", "PostToolUse:ping", "PostToolBatch", "PreModelRequest",
        "PostModelResponse", "Stop", "TurnEnd", "SessionEnd",
    ]  # fmt: skip


def test_fake_runner_is_a_hook_whose_answer_counts(tmp_path):
    script = [{"tool_calls": [{"name": "ping", "input": {"host": "a"}}]}, {"text": "done"}]
    agent = Agent(ScriptedModel(script), tools=[ping], cwd=tmp_path)
    fake = FakeRunner(Decision.deny("no pinging today"), name="no-ping")
    agent.registry.add("PreToolUse", fake)
    result = agent.run_sync("ping a")
    assert fake.calls == 1
    assert result.tool_calls[0].status == "blocked"
    assert result.hook_runs[0].hook == "no-ping"
