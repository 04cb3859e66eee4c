"""What the model reads about hook outcomes: each phrasing chosen by where the answer came from
(its origin), never by reading the answer's text back."""

from __future__ import annotations

import hookline._wording as wording
from hookline._decisions import Decision, merge
from hookline._hooks.engine import HookRun


def stop_run(hook: str, answer: Decision, *, handler: str = "command") -> HookRun:
    return HookRun("Stop", hook, "settings", "gate", answer, 1.0, handler=handler)


def test_a_command_that_exits_2_gets_no_note_naming_it() -> None:
    reason = wording.exit_code_2("check.sh", "keep going")
    run = stop_run("check.sh", Decision("deny", reason, origin="exit_code_2"))
    notes = wording.stop_block("Stop", [run])
    assert len(notes) == 1 and reason in notes[0]


def test_a_json_block_gets_a_note_naming_the_command_even_if_it_reads_like_exit_2() -> None:
    reason = wording.exit_code_2("check.sh", "looks like exit 2, but is JSON")
    run = stop_run("check.sh", Decision("deny", reason, origin="json"))
    feedback, note = wording.stop_block("Stop", [run])
    assert reason in feedback
    assert 'Stop hook blocking error from command: "check.sh"' in note


def test_a_python_hooks_block_gets_no_command_note() -> None:
    run = stop_run("mine", Decision.deny("write the tests"), handler="python")
    assert len(wording.stop_block("Stop", [run])) == 1


def test_plain_stdout_stays_as_its_runner_worded_it_and_the_rest_is_worded_as_context() -> None:
    worded = wording.success("UserPromptSubmit", None, "the build is green")
    stdout = Decision(additional_context=(worded,), origin="stdout")
    answers = [Decision.context("from python"), stdout, Decision(additional_context=("j",))]
    assert wording.contexts("UserPromptSubmit", None, merge(answers)) == [
        "UserPromptSubmit hook additional context: from python",
        "UserPromptSubmit hook success: the build is green",
        "UserPromptSubmit hook additional context: j",
    ]


def test_text_that_reads_like_stdout_is_still_worded_when_a_hook_gave_it_as_context() -> None:
    lookalike = Decision.context("UserPromptSubmit hook success: not really")
    assert wording.contexts("UserPromptSubmit", None, lookalike) == [
        "UserPromptSubmit hook additional context: UserPromptSubmit hook success: not really"
    ]
