"""The hook registry and engine: registration, order, kinds, concurrency, isolation, failure."""

from __future__ import annotations

import asyncio
import time

import pytest

from hookline import (
    NO_DECISION,
    ConfigError,
    Decision,
    HookEngine,
    HookRegistry,
    HookRun,
    PostToolUse,
    PreToolUse,
    Stop,
    UserPromptSubmit,
)
from hookline._hooks.runners import SdkCallbackHook


def dispatch(registry, event):
    return asyncio.run(HookEngine(registry).dispatch(event))


def event_named(scope, name):
    tool_call = {"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t1"}
    fields = {
        "PreToolUse": (PreToolUse, tool_call),
        "PostToolUse": (PostToolUse, tool_call),
        "UserPromptSubmit": (UserPromptSubmit, {"prompt": "hi"}),
        "Stop": (Stop, {}),
    }
    cls, values = fields[name]
    return scope.event(cls, **values)


def boom(event):
    raise RuntimeError("boom")


# -- registration -------------------------------------------------------------------------------


def test_add_returns_a_handle_that_unregisters_and_a_second_call_is_harmless(pre_tool_use):
    registry = HookRegistry()
    handle = registry.add("PreToolUse", lambda e: Decision.deny("no"))
    assert dispatch(registry, pre_tool_use("Bash")).decision.permission == "deny"
    handle()
    handle()
    assert len(registry) == 0
    assert dispatch(registry, pre_tool_use("Bash")).decision == NO_DECISION


def test_the_decorator_registers_and_returns_the_function(pre_tool_use):
    registry = HookRegistry()

    @registry.on("PreToolUse", matcher="Bash")
    def no_bash(event):
        return Decision.deny("no bash")

    assert no_bash(pre_tool_use("Bash")) == Decision.deny("no bash")
    assert dispatch(registry, pre_tool_use("Bash")).decision.reason == "no bash"
    assert dispatch(registry, pre_tool_use("Read")).decision == NO_DECISION


def test_declared_order_is_priority_first_then_registration(pre_tool_use):
    registry = HookRegistry()
    ran = []
    for name, priority in [("a", 0), ("b", 5), ("c", 0), ("d", 5), ("e", -1)]:
        registry.add("PreToolUse", lambda e, n=name: ran.append(n), name=name, priority=priority)
    assert [s.name for s in registry.specs("PreToolUse")] == ["b", "d", "a", "c", "e"]
    dispatch(registry, pre_tool_use("Bash"))
    assert ran == ["b", "d", "a", "c", "e"]


def test_an_unknown_event_is_a_config_error_that_suggests_the_name():
    with pytest.raises(ConfigError) as caught:
        HookRegistry().add("PreToolUs", lambda e: None)
    assert caught.value.key == "event"
    assert caught.value.fix == "did you mean 'PreToolUse'?"


def test_a_claude_code_event_not_fired_yet_is_refused_as_such():
    with pytest.raises(ConfigError, match="does not fire yet"):
        HookRegistry().add("TeammateIdle", lambda e: None)


def test_only_hooks_whose_matcher_accepts_the_event_run(pre_tool_use, recorder):
    registry = HookRegistry()
    writes, everything = recorder(), recorder()
    registry.add("PreToolUse", writes, matcher="Write|Edit")
    registry.add("PreToolUse", everything)
    dispatch(registry, pre_tool_use("Bash"))
    assert (writes.names, everything.names) == ([], ["PreToolUse:Bash"])


# -- kinds --------------------------------------------------------------------------------------


def test_sync_and_async_hooks_both_answer(pre_tool_use):
    registry = HookRegistry()

    async def later(event):
        await asyncio.sleep(0)
        return Decision.context("from async")

    registry.add("PreToolUse", lambda e: Decision.context("from sync"))
    registry.add("PreToolUse", later)
    merged = dispatch(registry, pre_tool_use("Bash")).decision
    assert merged.additional_context == ("from sync", "from async")


def test_transformers_chain_gates_see_the_result_observers_see_the_final_input(pre_tool_use):
    registry = HookRegistry()
    seen = {}

    def adding(key, value, answer=Decision.rewrite):
        """A hook that notes the input it saw and answers ``answer(input + {key: value})``."""

        def hook(event):
            seen[key] = dict(event.tool_input)
            return answer({**event.tool_input, key: value})

        return hook

    def allow_with(updated_input):
        return Decision.allow(updated_input=updated_input)

    def deny(_):
        return Decision.deny("an observer cannot block")

    registry.add("PreToolUse", adding("observer", 0, deny), kind="observer")
    registry.add("PreToolUse", adding("gate", 3, allow_with))
    registry.add("PreToolUse", adding("a", 1), kind="transformer")
    registry.add("PreToolUse", adding("b", 2), kind="transformer")

    result = dispatch(registry, pre_tool_use("Bash", command="ls"))

    assert seen["a"] == {"command": "ls"}
    assert seen["b"] == {"command": "ls", "a": 1}
    assert seen["gate"] == {"command": "ls", "a": 1, "b": 2}
    assert seen["observer"] == {"command": "ls", "a": 1, "b": 2, "gate": 3}
    assert result.decision.permission == "allow"
    assert result.decision.updated_input == {"command": "ls", "a": 1, "b": 2, "gate": 3}
    assert result.event.tool_input == {"command": "ls", "a": 1, "b": 2}
    observer_run = next(r for r in result.runs if r.kind == "observer")
    assert observer_run.decision == "deny"  # recorded, but it did not count


def long_listing(event):
    return Decision.rewrite({"command": "ls -la"})


def test_a_transformer_rewrite_reaches_the_decision_without_any_gate(pre_tool_use):
    registry = HookRegistry()
    registry.add("PreToolUse", long_listing, kind="transformer")
    decision = dispatch(registry, pre_tool_use("Bash", command="ls")).decision
    assert decision.updated_input == {"command": "ls -la"}


def test_a_deny_drops_the_transformers_rewrite(pre_tool_use):
    registry = HookRegistry()
    registry.add("PreToolUse", long_listing, kind="transformer")
    registry.add("PreToolUse", lambda e: Decision.deny("no"))
    decision = dispatch(registry, pre_tool_use("Bash", command="ls")).decision
    assert (decision.permission, decision.reason, decision.updated_input) == ("deny", "no", None)


def test_a_block_keeps_a_transformers_output_replacement(scope):
    registry = HookRegistry()
    registry.add("PostToolUse", lambda e: Decision.replace_output("[redacted]"), kind="transformer")
    registry.add("PostToolUse", lambda e: Decision.block("lint failed"))
    event = scope.event(PostToolUse, tool_name="Bash", tool_input={}, tool_use_id="t1",
                        tool_response="password=hunter2")  # fmt: skip
    decision = dispatch(registry, event).decision
    assert (decision.permission, decision.updated_output) == ("deny", "[redacted]")


def test_agent_sdk_callbacks_after_a_rewrite_are_given_the_rewritten_payload(pre_tool_use):
    """The payload is made once per event, and a rewrite makes a new event: callbacks after a
    transformer see its rewrite, though one before it had the payload of the event as sent."""
    registry = HookRegistry()
    seen = []

    def callback(updated=None):
        async def hook(input_data, tool_use_id, context):
            seen.append(input_data["tool_input"])
            if updated is None:
                return {}
            output = {"hookEventName": "PreToolUse", "updatedInput": updated}
            return {"hookSpecificOutput": output}

        return SdkCallbackHook(hook)

    registry.add("PreToolUse", callback({"command": "ls -la"}), kind="transformer")
    registry.add("PreToolUse", callback(), kind="gate")
    registry.add("PreToolUse", callback(), kind="observer")

    result = dispatch(registry, pre_tool_use("Bash", command="ls"))

    assert seen == [{"command": "ls"}, {"command": "ls -la"}, {"command": "ls -la"}]
    assert result.event.to_payload()["tool_input"] == {"command": "ls -la"}


def test_two_async_gates_run_concurrently(pre_tool_use):
    """Each gate waits at a barrier for two: only gates running side by side both pass it.
    Run in turn, the first would wait alone until its safety timeout and fail closed (a deny)."""
    registry = HookRegistry()
    both = asyncio.Barrier(2)

    async def meet(event):
        await asyncio.wait_for(both.wait(), timeout=10)
        return Decision.context("met")

    registry.add("PreToolUse", meet, name="one")
    registry.add("PreToolUse", meet, name="two")
    decision = dispatch(registry, pre_tool_use("Bash")).decision
    assert decision.permission is None
    assert decision.additional_context == ("met", "met")


# -- isolation and failure ----------------------------------------------------------------------


def test_a_hook_that_raises_does_not_stop_the_others(pre_tool_use, recorder):
    registry = HookRegistry()
    after = recorder(Decision.context("still here"))
    registry.add("PreToolUse", boom, name="boom", failure="open")
    registry.add("PreToolUse", after)
    result = dispatch(registry, pre_tool_use("Bash"))
    assert after.names == ["PreToolUse:Bash"]
    assert result.decision.additional_context == ("still here",)
    failed = result.runs[0]
    assert (failed.hook, failed.failure) == ("boom", "exception")
    assert failed.error == "RuntimeError: boom"


def test_a_timed_out_async_hook_is_recorded_and_cancelled(pre_tool_use):
    registry = HookRegistry()
    cancelled = []

    async def sleepy(event):
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            cancelled.append(True)
            raise
        return Decision.allow()

    registry.add("PreToolUse", sleepy, timeout=0.1, failure="open")
    result = dispatch(registry, pre_tool_use("Bash"))
    assert cancelled == [True]  # left to sleep its 5 s, it would answer allow, never cancelled
    assert result.runs[0].failure == "timeout"
    assert result.decision == NO_DECISION


def test_a_sync_hook_that_overruns_its_timeout_is_a_timeout(pre_tool_use):
    registry = HookRegistry()

    def slow(event):
        time.sleep(0.15)
        return Decision.context("too late")

    registry.add("PreToolUse", slow, timeout=0.05, failure="open")
    result = dispatch(registry, pre_tool_use("Bash"))
    assert result.runs[0].failure == "timeout"
    assert result.decision == NO_DECISION


@pytest.mark.parametrize("answer", [42, "deny", ["deny"], {"decision": "maybe"}])
def test_an_invalid_answer_is_recorded_as_invalid(answer, pre_tool_use):
    registry = HookRegistry()
    registry.add("PreToolUse", lambda e: answer, failure="open")
    result = dispatch(registry, pre_tool_use("Bash"))
    assert result.runs[0].failure == "invalid"
    assert result.decision == NO_DECISION


def test_a_fail_closed_failure_is_a_deny_naming_the_hook(pre_tool_use):
    registry = HookRegistry()
    registry.add("PreToolUse", boom, name="policy-check", failure="closed")
    decision = dispatch(registry, pre_tool_use("Bash")).decision
    assert decision.permission == "deny"
    assert "'policy-check'" in decision.reason and "RuntimeError: boom" in decision.reason


def test_a_fail_open_failure_gives_no_decision(pre_tool_use):
    registry = HookRegistry()
    registry.add("PreToolUse", boom, failure="open")
    assert dispatch(registry, pre_tool_use("Bash")).decision == NO_DECISION


@pytest.mark.parametrize(
    ("event", "policy", "blocks"),
    [
        ("PreToolUse", "closed", True),
        ("UserPromptSubmit", "closed", True),
        ("PostToolUse", "open", False),
        ("Stop", "open", False),
    ],
)
def test_python_gates_fail_closed_only_where_a_block_guards_an_action(event, policy, blocks, scope):
    registry = HookRegistry()
    handle = registry.add(event, boom)
    assert handle.spec.failure == policy
    decision = dispatch(registry, event_named(scope, event)).decision
    assert (decision.permission == "deny") is blocks


def test_a_fail_closed_post_hook_withholds_the_output_it_could_not_check(scope):
    registry = HookRegistry()
    registry.add("PostToolUse", boom, kind="transformer", name="redact", failure="closed")
    decision = dispatch(registry, event_named(scope, "PostToolUse")).decision
    assert decision.permission == "deny" and "'redact'" in decision.reason
    assert decision.updated_output.startswith("[output withheld]")


def test_a_fail_closed_stop_hook_does_not_keep_the_model_working(scope):
    registry = HookRegistry()
    run = registry.add("Stop", boom, failure="closed")
    result = dispatch(registry, event_named(scope, "Stop"))
    assert result.runs[0].failure == "exception" and run.spec.failure == "closed"
    assert result.decision == NO_DECISION


def test_observers_never_block_even_when_told_to_fail_closed(scope):
    registry = HookRegistry()
    assert registry.add("PreToolUse", boom, kind="observer").spec.failure == "open"
    registry.add("PreToolUse", boom, kind="observer", failure="closed")
    result = dispatch(registry, event_named(scope, "PreToolUse"))
    assert [(r.failure, r.decision) for r in result.runs] == [("exception", None)] * 2
    assert result.decision == NO_DECISION


def test_an_explicit_deny_wins_over_a_failed_hook(pre_tool_use):
    registry = HookRegistry()
    registry.add("PreToolUse", boom, failure="open")
    registry.add("PreToolUse", lambda e: Decision.deny("not on main"))
    assert dispatch(registry, pre_tool_use("Bash")).decision.reason == "not on main"

    registry.add("PreToolUse", lambda e: 42, name="broken", failure="closed")
    decision = dispatch(registry, pre_tool_use("Bash")).decision
    assert decision.permission == "deny"
    assert decision.reason.startswith("not on main")


# -- monitoring and observers -------------------------------------------------------------------


def test_monitor_sees_every_hook_run_until_stopped(pre_tool_use):
    registry = HookRegistry()
    registry.add("PreToolUse", lambda e: Decision.allow(), name="gate")
    registry.add("PreToolUse", lambda e: None, name="watch", kind="observer")
    engine = HookEngine(registry)
    seen = []
    stop = engine.stream.subscribe(HookRun, seen.append)
    asyncio.run(engine.dispatch(pre_tool_use("Bash")))
    runs = [r for r in seen if isinstance(r, HookRun)]
    assert [(r.hook, r.event, r.decision, r.tool_use_id) for r in runs] == [
        ("gate", "PreToolUse", "allow", "t1"),
        ("watch", "PreToolUse", None, "t1"),
    ]
    stop()
    stop()
    before = len(seen)
    asyncio.run(engine.dispatch(pre_tool_use("Bash")))
    assert len(seen) == before


def test_async_observers_are_fire_and_forget_and_drain_waits_for_them(pre_tool_use):
    """The observer waits for an event set only after dispatch has returned: a dispatch that
    waited for it would never return, and the safety timeout turns that into a failure."""
    registry = HookRegistry()
    logged = []

    async def held_log(event):
        await released.wait()
        logged.append(event.tool_name)

    registry.add("PreToolUse", held_log, kind="observer")
    engine = HookEngine(registry)

    async def scenario():
        result = await asyncio.wait_for(engine.dispatch(pre_tool_use("Bash")), timeout=10)
        before = list(logged)
        released.set()
        await engine.drain()
        return result, before

    released = asyncio.Event()
    result, before = asyncio.run(scenario())
    assert before == [] and result.runs == ()
    assert logged == ["Bash"]


# -- mutation -----------------------------------------------------------------------------------


def make_safe(event):
    return Decision.rewrite({"text": "safe"})


def mutate(event):
    event.tool_input["text"] = "rm -rf /"


def test_mutating_the_event_fails_loudly_and_changes_nothing(agent_with, spy):
    echo = spy()
    agent = agent_with([], [echo.tool])
    agent.registry.add("PreToolUse", mutate, name="mutate", failure="open")
    result = asyncio.run(agent.call_tool("echo", {"text": "hello"}))
    assert echo.inputs == [{"text": "hello"}]
    assert result.input == {"text": "hello"}


def test_a_fail_closed_gate_that_mutates_the_event_blocks_the_call(agent_with, spy):
    echo = spy()
    agent = agent_with([], [echo.tool])
    runs = []
    agent.stream.subscribe(HookRun, runs.append)
    agent.registry.add("PreToolUse", mutate, name="mutate")
    result = asyncio.run(agent.call_tool("echo", {"text": "hello"}))
    assert echo.inputs == [] and result.status == "blocked"
    assert runs[0].failure == "exception" and "read-only" in runs[0].error
    assert "Decision.rewrite" in runs[0].error


def test_a_gate_mutating_a_transformed_event_cannot_change_what_runs(agent_with, spy):
    echo = spy()
    agent = agent_with([], [echo.tool])
    agent.registry.add("PreToolUse", make_safe, kind="transformer")
    agent.registry.add("PreToolUse", mutate, failure="open")
    asyncio.run(agent.call_tool("echo", {"text": "hello"}))
    assert echo.inputs == [{"text": "safe"}]


def test_an_observer_mutating_a_rewritten_event_cannot_change_what_runs(agent_with, spy):
    echo = spy()
    agent = agent_with([], [echo.tool])
    agent.registry.add("PreToolUse", make_safe)
    agent.registry.add("PreToolUse", mutate, kind="observer")
    asyncio.run(agent.call_tool("echo", {"text": "hello"}))
    assert echo.inputs == [{"text": "safe"}]


def test_a_rewrite_built_from_the_event_is_a_plain_dict_the_tool_can_use(agent_with, spy):
    echo = spy()
    agent = agent_with([], [echo.tool])
    agent.registry.add("PreToolUse", lambda e: Decision.rewrite({**e.tool_input, "text": "x"}))
    result = asyncio.run(agent.call_tool("echo", {"text": "hello"}))
    assert echo.inputs == [{"text": "x"}] and type(result.input) is dict
