"""``run_eagerly``: a coroutine runs at once up to its first wait, and what is left of it goes on
exactly where it stopped; in the engine, async hooks that never wait need no task, and those
that wait still run together and under their timeout."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from hookline import Decision, HookEngine, HookMatcher, HookRegistry, PreToolUse
from hookline._events import HookEvent, Scope
from hookline._hooks.runners import PythonHook, SdkCallbackHook
from hookline._support.eager import Rest, run_eagerly

SCOPE = Scope("s1", "/tmp/t.jsonl", "/tmp")


def pre() -> PreToolUse:
    return SCOPE.event(PreToolUse, tool_name="Bash", tool_input={"command": "ls"}, tool_use_id="t1")


def test_a_coroutine_that_never_waits_gives_its_result_at_once() -> None:
    steps: list[str] = []

    async def quick() -> int:
        steps.append("ran")
        return 7

    assert run_eagerly(quick()) == 7
    assert steps == ["ran"]


def test_what_the_first_step_raises_is_raised_at_once() -> None:
    async def broken() -> None:
        raise ValueError("no")

    with pytest.raises(ValueError, match="no"):
        run_eagerly(broken())


def test_the_rest_goes_on_where_the_coroutine_stopped() -> None:
    steps: list[str] = []

    async def waits(gate: asyncio.Event) -> str:
        steps.append("before")
        await gate.wait()
        steps.append("after")
        return "done"

    async def main() -> str:
        gate = asyncio.Event()
        rest = run_eagerly(waits(gate))
        assert isinstance(rest, Rest) and steps == ["before"]
        asyncio.get_running_loop().call_soon(gate.set)
        return await rest

    assert asyncio.run(main()) == "done"
    assert steps == ["before", "after"]


def test_a_timeout_on_the_rest_cancels_the_coroutine_where_it_waits() -> None:
    seen: list[str] = []

    async def hangs() -> None:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            seen.append("cancelled")
            raise

    async def main() -> None:
        rest = run_eagerly(hangs())
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.01):
                await rest  # type: ignore[misc]

    asyncio.run(main())
    assert seen == ["cancelled"]


def test_other_awaitables_are_returned_as_they_are() -> None:
    async def main() -> None:
        future = asyncio.get_running_loop().create_future()
        assert run_eagerly(future) is future
        future.cancel()

    asyncio.run(main())


def _engine(hooks: list[Any], *, timeout: float | None = None) -> HookEngine:
    registry = HookRegistry()
    registry.add_matchers({"PreToolUse": [HookMatcher(hooks=hooks, timeout=timeout)]})
    return HookEngine(registry)


def test_an_async_callback_that_never_waits_runs_on_the_dispatching_task() -> None:
    tasks: list[asyncio.Task[Any] | None] = []

    async def gate(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> dict:
        tasks.append(asyncio.current_task())
        return {}

    async def main() -> asyncio.Task[Any] | None:
        await _engine([gate, gate]).dispatch(pre())
        return asyncio.current_task()

    dispatching = asyncio.run(main())
    assert tasks == [dispatching, dispatching]


def test_callbacks_that_wait_still_run_together() -> None:
    """Each waits for the other: run one after the other, neither would ever answer."""
    first, second = asyncio.Event(), asyncio.Event()

    async def one(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> dict:
        first.set()
        await second.wait()
        return {}

    async def two(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> dict:
        second.set()
        await first.wait()
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny"}}

    dispatch = asyncio.run(_engine([one, two], timeout=30).dispatch(pre()))
    assert [run.failure for run in dispatch.runs] == [None, None]
    assert dispatch.decision.permission == "deny"


def test_the_timeout_still_stops_a_callback_that_waits_too_long() -> None:
    async def hangs(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> dict:
        await asyncio.Event().wait()
        return {}

    async def quick(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> dict:
        return {}

    dispatch = asyncio.run(_engine([hangs, quick], timeout=0.05).dispatch(pre()))
    assert [run.failure for run in dispatch.runs] == ["timeout", None]
    assert dispatch.decision == Decision.deny(dispatch.decision.reason)  # SDK gates fail closed


def test_a_callback_that_waits_stays_in_the_task_it_started_in() -> None:
    """Cancel scopes and timeouts belong to a task: a hook entering one, waiting, and leaving it
    must do so in one task (anyio, httpx and ``asyncio.timeout`` raise otherwise)."""
    tasks: dict[str, list[object]] = {"one": [], "two": [], "three": []}

    def waiting(name: str) -> Any:
        async def hook(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> dict:
            tasks[name].append(asyncio.current_task())
            async with asyncio.timeout(30):
                await asyncio.sleep(0)
            tasks[name].append(asyncio.current_task())
            return {}

        return hook

    dispatch = asyncio.run(_engine([waiting(n) for n in tasks], timeout=30).dispatch(pre()))
    assert [run.failure for run in dispatch.runs] == [None, None, None]
    assert all(before is after for before, after in tasks.values())


def test_a_callback_that_hands_back_a_future_is_awaited_and_its_answer_read() -> None:
    """A plain function returning an awaitable that is not a coroutine: awaited, then read."""
    deny = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny"}}

    def later(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> Any:
        future = asyncio.get_running_loop().create_future()
        asyncio.get_running_loop().call_soon(future.set_result, deny)
        return future

    dispatch = asyncio.run(_engine([later], timeout=30).dispatch(pre()))
    assert [run.failure for run in dispatch.runs] == [None]
    assert dispatch.decision.permission == "deny"


def test_a_plain_hook_that_returns_a_coroutine_is_awaited_and_its_answer_read() -> None:
    async def waits() -> dict[str, Any]:
        await asyncio.sleep(0)
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask"}}

    registry = HookRegistry()
    registry.add("PreToolUse", lambda event: waits())
    dispatch = asyncio.run(HookEngine(registry).dispatch(pre()))
    assert [run.failure for run in dispatch.runs] == [None]
    assert dispatch.decision.permission == "ask"


def test_a_runner_with_a_run_of_its_own_is_run_by_it() -> None:
    """The shortcut past ``run`` is for the runners as they are: a subclass's ``run`` holds."""
    said: list[str] = []

    class Logged(PythonHook):
        async def run(self, event: HookEvent) -> Decision | None:
            said.append("python")
            return Decision.deny("logged")

    class LoggedSdk(SdkCallbackHook):
        async def run(self, event: HookEvent) -> Decision | None:
            said.append("sdk")
            return None

    registry = HookRegistry()
    registry.add("PreToolUse", Logged(lambda event: None))
    registry.add("PreToolUse", LoggedSdk(lambda data, tool_use_id, context: {}))
    dispatch = asyncio.run(HookEngine(registry).dispatch(pre()))
    assert said == ["python", "sdk"]
    assert dispatch.decision.reason == "logged"
