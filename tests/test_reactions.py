"""How hookline reacts to hook output, experiment by experiment of the real CLI's, observed.

Each test is one experiment of the PreToolUse, PostToolUse / PostToolUseFailure / PostToolBatch,
UserPromptSubmit / SessionStart and Stop tables, run with real command hooks from a settings
file (``tests/reaction_hooks/hook.py MODE``), the built-in tools and a scripted model. It checks
what the CLI did (did the tool run, did the loop go on and why did it end, which hooks fired,
how hook runs failed, which hooks overlapped) and what the model read in its next request.
docs/compatibility.md, "Claude Code, as observed", has each experiment and its wording.

hookline gives the model hook text as ``<system-reminder>`` text blocks in the user message
after the tool results (where the CLI puts them for claude-sonnet-4-5), never as role "system"
messages; the tests unwrap those blocks and compare the wording inside.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from cc_scenarios import (
    COUNT_LOG,
    ECHO,
    FINAL,
    PROMPT,
    Outcome,
    bash,
    calls,
    command,
    group,
    handler,
    log_count,
    reminders,
    run_scenario,
    say,
    texts,
    tool_results,
    unwrap,
)
from hookline._agent.messages import ToolResultBlock
from reaction_hooks.hook import (
    BAD_JSON,
    CONTEXT,
    REASON,
    REWRITTEN,
    REWRITTEN_NO_DECISION,
    STDERR,
    STDOUT,
    STOP_REASON,
    SYSTEM_MESSAGE,
)

Run = Callable[..., Outcome]


@pytest.fixture
def run(tmp_path: Path) -> Run:
    """``run(hooks, turns=ECHO, ...)``: the scenario in a fresh project under tmp_path."""
    return partial(run_scenario, tmp_path)


def pre(*handlers: dict[str, Any] | str, matcher: str = "Bash") -> dict[str, Any]:
    """Settings hooks: one PreToolUse group."""
    return {"PreToolUse": [group(*handlers, matcher=matcher)]}


def exit_2(mode: str) -> str:
    """The reason a command hook exiting 2 gives: ``[<cmd>]: <stderr>``."""
    return f"[{command(mode)}]: {STDERR}"


def the_result(outcome: Outcome, content: str, *, is_error: bool = False) -> None:
    """The model's second request ends with exactly this one tool_result and no hook text."""
    added = outcome.added_for(1)
    assert tool_results(added) == [ToolResultBlock("toolu_1", content, is_error)]
    assert texts(added) == []


def went_on(outcome: Outcome) -> None:
    """The loop continued after the tool call and ended normally with the final text."""
    assert outcome.model.calls == 2
    assert outcome.result.stop_reason == "end_turn"
    assert outcome.result.final_text == FINAL


def never_shown(outcome: Outcome, text: str) -> None:
    """``text`` reached no request of the model."""
    for call in range(outcome.model.calls):
        assert text not in json.dumps([m.to_dict() for m in outcome.shown(call)])


# -- PreToolUse -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        pytest.param("exit2", exit_2("exit2"), id="pre_exit2"),
        pytest.param("deny", REASON, id="pre_deny"),
        pytest.param("legacy_block", REASON, id="pre_legacy_block"),
        pytest.param("deny_json_exit1", REASON, id="pre_deny_json_exit1"),
        pytest.param("exit2_json", exit_2("exit2_json"), id="pre_exit2_json"),
    ],
)
def test_pre_refusal(run: Run, mode: str, reason: str) -> None:
    """Exit 2 (even with a JSON allow), a deny (even on exit 1) or a legacy block: the tool
    does not run, the model reads ``PreToolUse:Bash hook error: ...``, the loop goes on."""
    outcome = run(pre(mode))
    assert not outcome.ran
    assert outcome.result.tool_calls[0].status == "blocked"
    assert outcome.observed("PostToolUse") == outcome.observed("PostToolUseFailure") == []
    assert outcome.failures("PreToolUse") == [None]
    the_result(outcome, f"PreToolUse:Bash hook error: {reason}", is_error=True)
    went_on(outcome)


def test_pre_exit2_write(run: Run, tmp_path: Path) -> None:
    target = tmp_path / "project" / "b.txt"
    write = {
        "id": "toolu_1",
        "name": "Write",
        "input": {"file_path": str(target), "content": "x\n"},
    }
    outcome = run(pre("exit2", matcher="Write"), [calls(write), say()])
    assert not target.exists()
    the_result(outcome, f"PreToolUse:Write hook error: {exit_2('exit2')}", is_error=True)
    went_on(outcome)


def test_pre_exit1(run: Run) -> None:
    """Exit 1 is a non-blocking error: the tool runs and the model reads nothing of it."""
    outcome = run(pre("exit1"))
    assert outcome.ran
    assert outcome.failures("PreToolUse") == ["exit"]
    errors = [r.error for r in outcome.result.hook_runs if r.event == "PreToolUse"]
    assert errors == [f"Failed with non-blocking status code: {STDERR}"]
    assert len(outcome.observed("PostToolUse")) == 1
    the_result(outcome, "hello")
    never_shown(outcome, STDERR)
    went_on(outcome)


@pytest.mark.parametrize(
    "mode", ["allow", "legacy_approve"], ids=["pre_allow_unlisted", "pre_legacy_approve"]
)
def test_pre_allow(run: Run, mode: str) -> None:
    """An allow (or a legacy approve) lets the call run, and no PermissionRequest fires.

    In the CLI the call would otherwise be refused (Bash not allow-listed in -p); that half
    needs hookline's permission layer (docs/compatibility.md).
    """
    outcome = run(pre(mode))
    assert outcome.ran
    decisions = [r.decision for r in outcome.result.hook_runs if r.event == "PreToolUse"]
    assert decisions == ["allow"]
    assert outcome.observed("PermissionRequest") == []
    the_result(outcome, "hello")
    went_on(outcome)


def test_pre_ask(run: Run, tmp_path: Path) -> None:
    """Deliberate difference: Claude Code's -p refuses a headless ``ask`` at once without asking
    PermissionRequest hooks (pre_ask_permreq_allow). hookline asks them, and with none that
    answers refuses with a reason that says so (docs/compatibility.md)."""
    refused = run(pre("ask"))
    assert not refused.ran
    the_result(
        refused,
        f"Bash was not run: it needs approval ({REASON}) and nobody gave it: "
        "no approver is configured.",
        is_error=True,
    )
    went_on(refused)
    approved = run_scenario(
        tmp_path / "second", {**pre("ask"), "PermissionRequest": [group("perm_allow")]}
    )
    assert approved.ran
    assert len(approved.hook_log("perm_allow")) == 1


@pytest.mark.parametrize(
    ("mode", "rewritten"),
    [
        pytest.param("rewrite", REWRITTEN, id="pre_rewrite"),
        pytest.param("rewrite_nodecision", REWRITTEN_NO_DECISION, id="pre_rewrite_nodecision"),
    ],
)
def test_pre_rewrite(run: Run, mode: str, rewritten: str) -> None:
    """The tool runs the rewritten input, PostToolUse sees it, the history keeps the original."""
    outcome = run(pre(mode))
    assert not outcome.ran  # the original command would have created MARKER
    (post,) = outcome.observed("PostToolUse")
    assert post["tool_input"] == {"command": rewritten, "description": "Print hello"}
    assistant = outcome.shown(1)[1]
    assert assistant.tool_calls[0].input == ECHO[0]["tool_calls"][0]["input"]
    the_result(outcome, rewritten.removeprefix("echo "))
    went_on(outcome)


def test_pre_ctx(run: Run) -> None:
    outcome = run(pre("ctx"))
    assert outcome.ran
    added = outcome.added_for(1)
    assert tool_results(added) == [ToolResultBlock("toolu_1", "hello", False)]
    assert reminders(added) == [f"PreToolUse:Bash hook additional context: {CONTEXT}"]
    assert isinstance(added.content[0], ToolResultBlock)  # the context follows the result
    went_on(outcome)


@pytest.mark.parametrize(
    ("mode", "stdout"),
    [
        pytest.param("stdout", STDOUT, id="pre_stdout"),
        pytest.param("badjson", BAD_JSON, id="pre_badjson"),
    ],
)
def test_pre_plain_stdout_is_ignored(run: Run, mode: str, stdout: str) -> None:
    """Plain (or invalid-JSON) stdout on exit 0 says nothing; invalid JSON is kept on record as
    a failure (the CLI reports a success), which a fail-open hook survives."""
    outcome = run(pre(mode))
    assert outcome.ran
    assert outcome.failures("PreToolUse") == [None if mode == "stdout" else "invalid_json"]
    the_result(outcome, "hello")
    never_shown(outcome, stdout)
    went_on(outcome)


def test_pre_wrong_event_name(run: Run) -> None:
    """An answer naming another event is rejected whole: its deny is ignored, the tool runs."""
    outcome = run(pre("wrong_event_name"))
    assert outcome.ran
    assert outcome.failures("PreToolUse") == ["wrong_event"]
    (error,) = [r.error for r in outcome.result.hook_runs if r.event == "PreToolUse"]
    assert "Hook returned incorrect event name: expected 'PreToolUse' but got 'PostToolUse'" in (
        error or ""
    )
    the_result(outcome, "hello")
    went_on(outcome)


def test_pre_sysmsg(run: Run) -> None:
    """A systemMessage is for the user: recorded on the hook run, never shown to the model."""
    outcome = run(pre("sysmsg"))
    assert outcome.ran
    messages = [
        r.answer.system_message for r in outcome.result.hook_runs if r.event == "PreToolUse"
    ]
    assert messages == [(SYSTEM_MESSAGE,)]
    the_result(outcome, "hello")
    never_shown(outcome, SYSTEM_MESSAGE)
    went_on(outcome)


def test_pre_continue_false(run: Run) -> None:
    """continue:false does not stop the tool: it runs, PostToolUse fires, then the loop ends
    with no further model call and no Stop hook (pre_continue_false, pre_continue_false_touch)."""
    outcome = run(pre("continue_false"))
    assert outcome.ran
    assert len(outcome.observed("PostToolUse")) == 1
    assert outcome.model.calls == 1
    assert outcome.observed("Stop") == []
    assert outcome.result.stop_reason == "hook_stopped"
    assert outcome.result.final_text == ""
    assert outcome.result.stop_detail == STOP_REASON


def test_pre_timeout2(run: Run) -> None:
    """A hook past its timeout gets SIGTERM (and time to act on it: its process group is killed
    only after the kill grace) and gives no verdict: the tool runs, after the hook has gone."""
    hooks = {"PreToolUse": [group(handler("sleep5", timeout=1), matcher="Bash")]}
    outcome = run(hooks, [calls(bash(COUNT_LOG.format(kind="signal"))), say()])
    signals = outcome.hook_log("sleep5", kind="signal")
    assert len(signals) == 1, "the hook was killed before it could act on SIGTERM"
    (signal,) = signals
    assert signal["signal"] == 15  # SIGTERM
    assert outcome.hook_log("sleep5", kind="end") == []  # cut off, not waited out
    assert outcome.failures("PreToolUse") == ["timeout"]
    assert outcome.result.tool_calls[0].status == "executed"
    assert log_count(outcome) == 1  # when the tool ran, the hook had handled SIGTERM
    assert texts(outcome.added_for(1)) == []
    went_on(outcome)


@pytest.mark.parametrize(
    "hooks",
    [
        pytest.param(
            pre(handler("meet2", label="a"), handler("meet2", label="b")), id="pre_two_same_group"
        ),
        pytest.param(
            {
                "PreToolUse": [
                    group(handler("meet2", label="a"), matcher="Bash"),
                    group(handler("meet2", label="b"), matcher="*"),
                ]
            },
            id="pre_two_groups",
        ),
    ],
)
def test_pre_matching_hooks_run_in_parallel(run: Run, hooks: dict[str, Any]) -> None:
    """Two different matching commands run at the same time: each waits until both have
    started (hook.py's meet2, a barrier), which, run in turn, neither would see. The call runs
    after both have answered."""
    outcome = run(hooks, [calls(bash(COUNT_LOG.format(kind="end"))), say()])
    assert len(outcome.hook_log("meet2")) == 2
    assert [entry["met"] for entry in outcome.hook_log("meet2", kind="end")] == [True, True]
    assert outcome.failures("PreToolUse") == [None, None]
    assert log_count(outcome) == 2  # both hooks had ended when the tool ran


@pytest.mark.parametrize(
    "hooks",
    [
        pytest.param(
            {"PreToolUse": [group("record", matcher="Bash"), group("record", matcher="Bash")]},
            id="pre_dup_identical",
        ),
        pytest.param(pre("record", "record"), id="pre_dup_same_group"),
        pytest.param(
            {
                "PreToolUse": [
                    group(handler("record", timeout=30), matcher="Bash"),
                    group(handler("record", timeout=40), matcher="Bash"),
                ]
            },
            id="pre_dup_diff_timeout",
        ),
    ],
)
def test_pre_identical_commands_run_once(run: Run, hooks: dict[str, Any]) -> None:
    outcome = run(hooks)
    assert [entry["event"] for entry in outcome.hook_log("record")] == ["PreToolUse"]
    assert outcome.ran


def test_pre_deny_vs_allow(run: Run) -> None:
    outcome = run(pre("allow", "deny"))
    assert not outcome.ran
    the_result(outcome, f"PreToolUse:Bash hook error: {REASON}", is_error=True)
    went_on(outcome)


def test_pre_matcher_miss(run: Run) -> None:
    outcome = run(pre("exit2", matcher="Write|Edit"))
    assert outcome.hook_log() == []
    assert outcome.ran
    the_result(outcome, "hello")
    went_on(outcome)


def test_pre_parallel_calls_sleep(run: Run) -> None:
    """Two calls in one turn: their PreToolUse hooks overlap (each waits until both have
    started, hook.py's meet2, which checks run in turn would never see), both tools run, and
    one PostToolBatch follows."""
    one = bash("echo one", call_id="toolu_1", description="one")
    two = bash("echo two", call_id="toolu_2", description="two")
    outcome = run(pre("meet2"), [calls(one, two), say()])
    assert len(outcome.hook_log("meet2")) == 2
    assert [entry["met"] for entry in outcome.hook_log("meet2", kind="end")] == [True, True]
    assert [call.status for call in outcome.result.tool_calls] == ["executed", "executed"]
    (batch,) = outcome.observed("PostToolBatch")
    assert [c["tool_use_id"] for c in batch["tool_calls"]] == ["toolu_1", "toolu_2"]
    went_on(outcome)


# -- PostToolUse / PostToolUseFailure / PostToolBatch -----------------------------------------


def test_post_ctx(run: Run) -> None:
    outcome = run({"PostToolUse": [group("ctx", matcher="Bash")]})
    added = outcome.added_for(1)
    assert tool_results(added) == [ToolResultBlock("toolu_1", "hello", False)]
    assert reminders(added) == [f"PostToolUse:Bash hook additional context: {CONTEXT}"]
    went_on(outcome)


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        pytest.param("exit2", exit_2("exit2"), id="post_exit2"),
        pytest.param("block", REASON, id="post_block"),
    ],
)
def test_post_block(run: Run, mode: str, reason: str) -> None:
    """After the tool ran, a block is feedback beside the unchanged result; the loop goes on."""
    outcome = run({"PostToolUse": [group(mode, matcher="Bash")]})
    added = outcome.added_for(1)
    assert tool_results(added) == [ToolResultBlock("toolu_1", "hello", False)]
    feedback = f'PostToolUse:Bash hook blocking error from command: "{command(mode)}": {reason}'
    assert reminders(added) == [feedback]
    went_on(outcome)


def test_post_stdout(run: Run) -> None:
    outcome = run({"PostToolUse": [group("stdout", matcher="Bash")]})
    the_result(outcome, "hello")
    never_shown(outcome, STDOUT)
    went_on(outcome)


def test_post_continue_false(run: Run) -> None:
    outcome = run({"PostToolUse": [group("continue_false", matcher="Bash")]})
    assert outcome.ran
    assert outcome.model.calls == 1
    assert outcome.observed("Stop") == []
    assert outcome.result.stop_reason == "hook_stopped"
    assert outcome.result.final_text == ""


def test_postfail_ctx(run: Run) -> None:
    failing = bash("exit 3", description="fail")
    outcome = run({"PostToolUseFailure": [group("ctx", matcher="Bash")]}, [calls(failing), say()])
    added = outcome.added_for(1)
    assert tool_results(added) == [ToolResultBlock("toolu_1", "Exit code 3", True)]
    assert reminders(added) == [f"PostToolUseFailure:Bash hook additional context: {CONTEXT}"]
    assert outcome.observed("PostToolUse") == []
    went_on(outcome)


def test_postbatch_ctx(run: Run) -> None:
    outcome = run({"PostToolBatch": [group("ctx")]})
    added = outcome.added_for(1)
    assert tool_results(added) == [ToolResultBlock("toolu_1", "hello", False)]
    assert reminders(added) == [f"PostToolBatch hook additional context: {CONTEXT}"]
    went_on(outcome)


def test_postbatch_exit2(run: Run) -> None:
    """Exit 2 on PostToolBatch stops the loop before the next model call, without Stop."""
    outcome = run({"PostToolBatch": [group("exit2")]})
    assert outcome.ran
    assert outcome.model.calls == 1
    assert outcome.observed("Stop") == []
    assert outcome.result.stop_reason == "hook_stopped"
    assert outcome.result.final_text == ""


# -- UserPromptSubmit / SessionStart ----------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "text"),
    [
        pytest.param("ctx", f"UserPromptSubmit hook additional context: {CONTEXT}", id="ups_ctx"),
        pytest.param("stdout", f"UserPromptSubmit hook success: {STDOUT}", id="ups_stdout"),
    ],
)
def test_ups_context(run: Run, mode: str, text: str) -> None:
    """The hook's text is a reminder block in the first user message, before the prompt."""
    outcome = run({"UserPromptSubmit": [group(mode)]})
    first = outcome.shown(0)[0]
    assert [unwrap(t) or t for t in texts(first)] == [text, PROMPT]
    went_on(outcome)


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        pytest.param("block", REASON, id="ups_block"),
        pytest.param("exit2", exit_2("exit2"), id="ups_exit2"),
    ],
)
def test_ups_block(run: Run, mode: str, reason: str) -> None:
    outcome = run({"UserPromptSubmit": [group(mode)]})
    assert outcome.model.calls == 0
    assert outcome.result.stop_reason == "prompt_blocked"
    assert outcome.result.final_text == (
        f"UserPromptSubmit operation blocked by hook:\n{reason}\n\nOriginal prompt: {PROMPT}"
    )


def test_ups_continue_false(run: Run) -> None:
    outcome = run({"UserPromptSubmit": [group("continue_false")]})
    assert outcome.model.calls == 0
    assert outcome.result.stop_reason == "hook_stopped"
    assert outcome.result.final_text == f"Operation stopped by hook: {STOP_REASON}"


@pytest.mark.parametrize(
    "mode",
    [
        pytest.param("continue_false_exit2", id="ups_exit2_continue_false"),
        pytest.param("block_continue_false", id="ups_block_and_continue_false"),
    ],
)
def test_ups_continue_false_wins_over_a_block(run: Run, mode: str) -> None:
    """``continue: false`` on stdout stops the prompt even when the hook also blocks it (exit 2
    with an empty stderr, or ``decision: block``): the stop reason, not a block, is the text."""
    outcome = run({"UserPromptSubmit": [group(mode)]})
    assert outcome.model.calls == 0
    assert (outcome.result.stop_reason, outcome.result.stop_detail) == (
        "hook_stopped",
        STOP_REASON,
    )
    assert outcome.result.final_text == f"Operation stopped by hook: {STOP_REASON}"


@pytest.mark.parametrize(
    ("mode", "text"),
    [
        pytest.param("ctx", f"SessionStart hook additional context: {CONTEXT}", id="ss_ctx"),
        pytest.param("stdout", f"SessionStart:startup hook success: {STDOUT}", id="ss_stdout"),
    ],
)
def test_ss_context(run: Run, mode: str, text: str) -> None:
    """SessionStart's text opens the first user message, as its first reminder block."""
    outcome = run({"SessionStart": [group(mode)]})
    first = outcome.shown(0)[0]
    assert [unwrap(t) or t for t in texts(first)] == [text, PROMPT]
    went_on(outcome)


def test_ss_env_file(run: Run) -> None:
    """What a SessionStart hook exports to $CLAUDE_ENV_FILE is set in later Bash commands."""
    export = "echo 'export HOOK_ENV_FROM_SESSIONSTART=yes-it-works' >> \"$CLAUDE_ENV_FILE\""
    hooks = {"SessionStart": [{"hooks": [{"type": "command", "command": export}]}]}
    echo = bash('echo "HOOKVAR=$HOOK_ENV_FROM_SESSIONSTART"', description="env")
    outcome = run(hooks, [calls(echo), say()])
    the_result(outcome, "HOOKVAR=yes-it-works")


# -- Stop -------------------------------------------------------------------------------------

#: The known parts of Claude Code's preamble before Stop-hook feedback (the recording elides
#: the middle of it with "…"; docs/compatibility.md, "The Stop preamble").
PREAMBLE_START = (
    "The text below is the output of a hook that the user, their organization or this "
    "environment set up. Follow what the hook itself asks as their standing instruction"
)
PREAMBLE_END = "It carries no message, answer or approval from the user.\n"


def stop_feedback(text: str, reason: str) -> None:
    assert text.startswith(PREAMBLE_START)
    assert text.endswith(f"{PREAMBLE_END}Stop hook feedback:\n{reason}")


def test_stop_block(run: Run) -> None:
    """A Stop block makes one more model call with two additions; Stop fires again with
    stop_hook_active true, says nothing, and the run ends."""
    outcome = run({"Stop": [group("stopblock-once")]}, [*ECHO, say("FINAL-2")])
    stops = [entry["payload"]["stop_hook_active"] for entry in outcome.hook_log("stopblock-once")]
    assert stops == [False, True]
    assert outcome.model.calls == 3
    assert outcome.shown(2)[-2].text == FINAL
    feedback, blocking = reminders(outcome.added_for(2))
    stop_feedback(feedback, REASON)
    assert (
        blocking
        == f'Stop hook blocking error from command: "{command("stopblock-once")}": {REASON}'
    )
    assert outcome.result.stop_reason == "end_turn"
    assert outcome.result.final_text == "FINAL-2"


def test_stop_exit2_once(run: Run) -> None:
    """Exit 2 on Stop adds only the feedback reminder, with ``[<cmd>]: <stderr>``."""
    outcome = run({"Stop": [group("exit2-once")]}, [*ECHO, say("FINAL-2")])
    assert outcome.model.calls == 3
    (feedback,) = reminders(outcome.added_for(2))
    stop_feedback(feedback, exit_2("exit2-once"))
    assert outcome.result.final_text == "FINAL-2"


def test_stop_continue_false(run: Run) -> None:
    """continue:false on Stop ends the run and keeps the final text."""
    outcome = run({"Stop": [group("continue_false")]})
    assert len(outcome.hook_log("continue_false")) == 1
    assert outcome.model.calls == 2
    assert outcome.result.stop_reason == "hook_stopped"
    assert outcome.result.final_text == FINAL


#: One answer per model call, numbered, so a test can tell which one a capped turn kept.
NUMBERED = [say(f"FINAL_{n:02d}") for n in range(12)]


@pytest.mark.parametrize(
    ("mode", "kept"),
    [
        pytest.param("ctx", "FINAL_08", id="stop_ctx_always"),
        pytest.param("block", "", id="stop_block_always"),
    ],
)
def test_stop_hook_that_never_lets_go_is_capped(run: Run, mode: str, kept: str) -> None:
    """A Stop hook that answers every time (ignoring ``stop_hook_active``) keeps the turn going
    nine model calls, as the CLI's cap does; then the turn ends. Context alone keeps the last
    answer as the result; a block leaves it empty (both as the CLI ends such a turn)."""
    outcome = run({"Stop": [group(mode)]}, NUMBERED)
    assert outcome.model.calls == 9
    assert len(outcome.hook_log(mode)) == 9
    assert outcome.result.stop_reason == "stop_hook_cap"
    assert outcome.result.final_text == kept
