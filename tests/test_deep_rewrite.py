"""A hook's rewrite nested far deeper than a tool input may be (800 levels) ends in a failed call
saying why: no traceback from the audit's redaction, the tool never runs, the session ends."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hookline import Agent, Decision, ScriptedModel, tool
from hookline.storage import open_store


def test_an_800_deep_updated_input_fails_the_call_in_one_line(tmp_path: Path) -> None:
    ran = tmp_path / "ran.txt"

    @tool
    def echo(text: str) -> str:
        """Echo a text."""
        ran.write_text(text)
        return "echoed"

    deep: Any = "x"
    for _ in range(800):
        deep = {"k": deep}
    call = {"id": "t1", "name": "echo", "input": {"text": "hi"}}
    model = ScriptedModel([{"tool_calls": [call]}, {"text": "done"}])
    agent = Agent(model, tools=[echo], cwd=tmp_path, audit=True, checkpoint=True)
    agent.registry.add("PreToolUse", lambda e: Decision.allow(updated_input={"text": deep}))
    result = agent.run_sync("echo")
    (failed,) = result.tool_calls
    assert failed.status == "failed"
    assert failed.reason == (
        "a PreToolUse hook rewrote the input to one it cannot take: tool input is nested 801 "
        "deep; the limit is 64"
    )
    assert not ran.exists()  # the sentinel: the body never ran
    assert result.final_text == "done"
    store = open_store(None, state_dir=tmp_path / ".hookline" / "state")
    assert store.get_session(result.session_id).status == "done"  # type: ignore[union-attr]
    rows = [r for r in store.audit_rows() if r.tool_use_id == "t1"]
    assert any("nested deeper than 64 levels" in str(r.data) for r in rows)  # a preview kept
    store.close()
