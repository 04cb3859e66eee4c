"""Python hook runners: where a sync hook runs decides whether its timeout can stop it.

A sync hook with no declared timeout runs inline (the cheap path; its default timeout is checked
when it returns). One that declares a timeout runs in a worker thread, so the timeout applies
while it is still running: the run moves on, and a fail-closed gate's timeout is a deny. The
hooks here block on events that the test sets only after it has seen the outcome.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import pytest

from cli_runner import src_env
from hookline import Agent, Decision, ScriptedModel, tool
from hookline._claude.settings import load_settings
from hookline._hooks.registry import HookRegistry
from hookline._hooks.runners import PythonHook

#: Seconds a held hook waits at most: a guard, so that a hook run where its timeout cannot stop
#: it fails its test (late) instead of hanging it. Never a timing assertion.
GUARD = 60


class Held:
    """A sync hook that signals it is running, then waits until the test releases it."""

    def __init__(self, answer: Decision | None = None) -> None:
        self.entered, self.released = threading.Event(), threading.Event()
        self.threads: list[int] = []
        self.answer = answer

    def __call__(self, event: Any) -> Decision | None:
        self.threads.append(threading.get_ident())
        self.entered.set()
        self.released.wait(GUARD)
        return self.answer


@pytest.fixture
def held() -> Any:
    hook = Held(Decision.allow())
    yield hook
    hook.released.set()  # whatever happened, let the worker thread finish


def touching_agent(cwd: Path) -> Agent:
    """An agent with one tool, ``touch``, that leaves a sentinel file when it runs."""

    @tool
    def touch(name: str) -> str:
        """Create a file."""
        (cwd / name).write_text("ran")
        return "touched"

    return Agent(ScriptedModel([]), tools=[touch], cwd=cwd)


def call_touch(agent: Agent) -> Any:
    async def go() -> Any:
        async with agent:
            return await agent.call_tool("touch", {"name": "sentinel"})

    return asyncio.run(go())


def test_a_sync_gate_that_declares_a_timeout_is_stopped_by_it_and_denies(
    tmp_path: Path, held: Held
) -> None:
    agent = touching_agent(tmp_path)
    agent.registry.add("PreToolUse", held, timeout=0.2, name="slow-gate")
    result = call_touch(agent)
    assert held.entered.is_set()  # it was running, still blocked, when its timeout came
    assert not held.released.is_set()
    assert result.status == "blocked"
    assert "'slow-gate' did not answer in time" in result.reason
    assert not (tmp_path / "sentinel").exists()


def test_a_fail_open_sync_hook_that_times_out_gives_no_decision_and_the_tool_runs(
    tmp_path: Path, held: Held
) -> None:
    agent = touching_agent(tmp_path)
    agent.registry.add("PreToolUse", held, timeout=0.2, failure="open")
    result = call_touch(agent)
    assert held.entered.is_set() and not held.released.is_set()
    assert result.status == "executed"
    assert (tmp_path / "sentinel").read_text() == "ran"


def test_only_a_declared_timeout_moves_a_sync_hook_off_the_event_loop(held: Held) -> None:
    registry = HookRegistry()
    inline = registry.add("PreToolUse", lambda e: None).spec
    threaded = registry.add("PreToolUse", held, timeout=5).spec
    asynchronous = registry.add("PreToolUse", _async_hook, timeout=5).spec
    assert inline.runner.inline
    assert not threaded.runner.inline and threaded.runner.threaded
    assert not asynchronous.runner.inline and not asynchronous.runner.threaded


async def _async_hook(event: Any) -> None:
    return None


def test_a_threaded_hook_answers_from_another_thread(tmp_path: Path) -> None:
    hook = Held(Decision.deny("no"))
    hook.released.set()
    agent = touching_agent(tmp_path)
    agent.registry.add("PreToolUse", hook, timeout=30)
    result = call_touch(agent)
    assert (result.status, result.reason) == ("blocked", "no")
    assert hook.threads and hook.threads[0] != threading.get_ident()
    assert not (tmp_path / "sentinel").exists()


def test_a_settings_python_handler_with_a_timeout_is_stopped_by_it(tmp_path: Path) -> None:
    """``{"type": "python", "timeout": N}``: the declared timeout applies; without one, the
    handler runs inline."""
    module = "held_gate_for_runner_tests"
    (tmp_path / f"{module}.py").write_text(
        textwrap.dedent("""
            import threading
            entered, released = threading.Event(), threading.Event()

            def gate(event):
                entered.set()
                released.wait(60)  # a guard: this test releases it

            def look(event):
                return None
        """)
    )
    handlers = [
        {"type": "python", "callable": f"{module}:gate", "timeout": 0.2},
        {"type": "python", "callable": f"{module}:look"},
    ]
    (tmp_path / ".claude").mkdir()
    pre_group, post_group = ({"matcher": "touch", "hooks": [h]} for h in handlers)
    settings = {"hooks": {"PreToolUse": [pre_group], "PostToolUse": [post_group]}}
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps(settings))
    sys.path.insert(0, str(tmp_path))
    try:
        loaded = load_settings(tmp_path, home=tmp_path / "home", managed_dir=tmp_path / "m")
        agent = touching_agent(tmp_path)
        assert loaded.register(agent.registry, project_dir=tmp_path) == 2, loaded.warnings
        (pre,) = agent.registry.specs("PreToolUse")
        (post,) = agent.registry.specs("PostToolUse")
        assert isinstance(pre.runner, PythonHook) and not pre.runner.inline
        assert post.runner.inline
        held = sys.modules[module]
        try:
            result = call_touch(agent)
            assert held.entered.is_set() and not held.released.is_set()
        finally:
            held.released.set()
        assert result.status == "blocked"
        assert "did not answer in time" in result.reason
        assert not (tmp_path / "sentinel").exists()
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop(module, None)


def test_a_hook_thread_that_never_returns_does_not_keep_the_process_alive(
    tmp_path: Path,
) -> None:
    """The worker thread cannot be killed; it must not hold the process open after the run."""
    code = textwrap.dedent("""
        import asyncio, threading
        from hookline import Agent, ScriptedModel, tool

        @tool
        def touch(name: str) -> str:
            return "touched"

        agent = Agent(ScriptedModel([]), tools=[touch])
        never = threading.Event()
        agent.registry.add("PreToolUse", lambda event: never.wait(), timeout=0.2)

        async def go():
            async with agent:
                return await agent.call_tool("touch", {"name": "x"})

        result = asyncio.run(go())
        print(result.status)
    """)
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=src_env(keep_pythonpath=False),
        capture_output=True,
        text=True,
        timeout=120,  # a guard against a hang, not a timing assertion
        check=False,
    )
    assert (done.returncode, done.stdout.strip()) == (0, "blocked"), done.stderr
