"""Async command hooks (``"async": true``, ``"asyncRewake": true``), with real subprocesses.

They run in the background: the run never waits for them, their answer decides nothing, what
they say reaches the model at its next call, and the session's end stops the ones still running.
The model double below holds a call until the test has done its part, so nothing depends on time.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from hookline import Agent, ScriptedModel, tool
from hookline._agent.messages import Message, TextBlock, ToolResultBlock
from hookline._claude.lint import lint
from hookline._claude.settings import Settings, load_settings
from hookline._hooks.engine import HookRun
from hookline._hooks.registry import HookRegistry

#: Waits (at most about 30 s, so a run that wrongly waited for it fails rather than hangs) for
#: the file ``go`` that the test creates only once the tool result is back.
WAIT_FOR_GO = "for i in $(seq 600); do [ -f go ] && break; sleep 0.05; done; [ -f go ] || exit 1; "


class HeldModel(ScriptedModel):
    """A scripted model that, before answering call ``i``, awaits ``before[i]``."""

    def __init__(self, script: Sequence[dict[str, Any]]) -> None:
        super().__init__(script)
        self.before: dict[int, Callable[[], Awaitable[None]]] = {}

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[dict[str, Any]],
        *,
        system: str | None = None,
    ) -> Message:
        step = self.before.get(self.calls)
        if step is not None:
            await step()
        return await super().complete(messages, tools, system=system)


SCRIPT = [
    {"tool_calls": [{"id": "t1", "name": "touch", "input": {"name": "sentinel"}}]},
    {"tool_calls": [{"id": "t2", "name": "noop", "input": {}}]},
    {"text": "done"},
]


def settings_with(
    project: Path, event: str, handler: dict[str, Any]
) -> tuple[Settings, HookRegistry]:
    """A project whose settings hold one ``handler`` for ``event`` on the ``touch`` tool."""
    file = project / ".claude" / "settings.json"
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(json.dumps({"hooks": {event: [{"matcher": "touch", "hooks": [handler]}]}}))
    settings = load_settings(project, home=project / "home", managed_dir=project / "managed")
    registry = HookRegistry()
    settings.register(registry, project_dir=project)
    return settings, registry


def agent_for(project: Path, registry: HookRegistry, model: ScriptedModel) -> Agent:
    @tool
    def touch(name: str) -> str:
        """Create a file."""
        (project / name).write_text("ran")
        return f"created {name}"

    @tool
    def noop() -> str:
        """Do nothing."""
        return "nothing done"

    return Agent(model, tools=[touch, noop], hooks=registry, cwd=project)


class Runs:
    """The hook runs as they are recorded, and an event set when the ``touch`` hook's ends."""

    def __init__(self, agent: Agent) -> None:
        self.all: list[HookRun] = []
        self.finished = asyncio.Event()
        agent.stream.subscribe(HookRun, self._add)

    def _add(self, run: HookRun) -> None:
        self.all.append(run)
        if run.kind == "observer":
            self.finished.set()

    async def wait(self) -> None:
        await self.finished.wait()


def shown_text(model: ScriptedModel, call: int) -> str:
    """The texts and tool results model call ``call`` was shown."""
    blocks = [b for m in model.shown(call) for b in m.content]
    return "\n".join(b.text if isinstance(b, TextBlock) else b.content for b in blocks
                     if isinstance(b, TextBlock | ToolResultBlock))  # fmt: skip


def test_an_async_hook_runs_while_the_run_goes_on_and_its_context_reaches_the_next_call(
    tmp_path: Path,
) -> None:
    answer = {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "green"}}
    code = f"{WAIT_FOR_GO}echo '{json.dumps(answer)}'"
    hook = {"type": "command", "async": True, "command": code}
    _, registry = settings_with(tmp_path, "PostToolUse", hook)
    model = HeldModel(SCRIPT)

    async def main() -> None:
        async with agent_for(tmp_path, registry, model) as agent:
            runs = Runs(agent)

            async def go() -> None:  # the tool result is back: only now can the hook answer
                (tmp_path / "go").touch()
                await runs.wait()

            model.before[1] = go
            result = await agent.run("work")
        assert result.final_text == "done"
        (run,) = [r for r in runs.all if r.event == "PostToolUse"]
        assert run.failure is None and run.answer.additional_context == ("green",)

    asyncio.run(main())
    told = "PostToolUse:touch hook additional context: green"
    assert told not in shown_text(model, 1)
    assert f"<system-reminder>\n{told}\n</system-reminder>" in shown_text(model, 2)


def test_an_async_pre_tool_use_deny_does_not_stop_the_tool(tmp_path: Path) -> None:
    deny = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                   "permissionDecisionReason": "never"}}  # fmt: skip
    hook = {"type": "command", "async": True, "command": f"echo '{json.dumps(deny)}'"}
    _, registry = settings_with(tmp_path, "PreToolUse", hook)
    model = HeldModel(SCRIPT)

    async def main() -> list[HookRun]:
        async with agent_for(tmp_path, registry, model) as agent:
            runs = Runs(agent)
            model.before[1] = runs.wait
            result = await agent.run("work")
        assert [c.status for c in result.tool_calls] == ["executed", "executed"]
        return runs.all

    runs = asyncio.run(main())
    (run,) = [r for r in runs if r.event == "PreToolUse"]
    assert run.answer.permission == "deny" and run.kind == "observer"  # said, and ignored
    assert (tmp_path / "sentinel").read_text() == "ran"
    assert "never" not in shown_text(model, 2)


@pytest.mark.parametrize(
    ("code", "said"),
    [
        ("echo 'tests failed: 3' >&2; exit 2", "tests failed: 3"),
        ("echo 'lint: 2'; exit 2", "lint: 2"),  # no stderr: its stdout
    ],
)
def test_async_rewake_exit_2_tells_the_model_its_stderr_or_stdout_next(
    tmp_path: Path, code: str, said: str
) -> None:
    hook = {"type": "command", "asyncRewake": True, "command": code}
    _, registry = settings_with(tmp_path, "PostToolUse", hook)
    model = HeldModel(SCRIPT)

    async def main() -> None:
        async with agent_for(tmp_path, registry, model) as agent:
            runs = Runs(agent)
            model.before[1] = runs.wait
            await agent.run("work")

    asyncio.run(main())
    told = f'PostToolUse:touch hook blocking error from command: "{code}": {said}'
    assert told in shown_text(model, 2)
    assert told not in shown_text(model, 1)


def test_the_session_end_kills_a_still_running_async_hook_and_records_it_cancelled(
    tmp_path: Path,
) -> None:
    hook = {"type": "command", "async": True, "command": "echo $$ > hook.pid; exec sleep 600"}
    _, registry = settings_with(tmp_path, "PostToolUse", hook)
    model = HeldModel(SCRIPT)
    pid_file = tmp_path / "hook.pid"

    async def started() -> None:  # a barrier on the hook's own pid file
        while not pid_file.exists() or not pid_file.read_text().endswith("\n"):
            await asyncio.sleep(0.01)

    async def main() -> list[HookRun]:
        agent = agent_for(tmp_path, registry, model)
        runs = Runs(agent)
        model.before[1] = started
        await agent.run("work")
        os.killpg(int(pid_file.read_text()), 0)  # still running when the run ends
        await agent.close()
        return runs.all

    runs = asyncio.run(main())
    with pytest.raises(ProcessLookupError):
        os.killpg(int(pid_file.read_text()), 0)
    (run,) = [r for r in runs if r.event == "PostToolUse"]
    assert run.failure == "cancelled" and run.answer.additional_context == ()


def test_lint_warns_that_an_async_gate_cannot_block(tmp_path: Path) -> None:
    guard = {"type": "command", "async": True, "command": "./guard.sh"}
    settings, registry = settings_with(tmp_path, "PreToolUse", guard)
    findings = [f for f in lint(registry, settings, known_tools=["touch"]) if "async" in f.message]
    assert [(f.severity, f.event) for f in findings] == [("warning", "PreToolUse")]
    assert findings[0].message.startswith("async hooks cannot block")

    settings, registry = settings_with(tmp_path, "PostToolUse", guard)
    assert not [f for f in lint(registry, settings, known_tools=["touch"]) if "async" in f.message]
