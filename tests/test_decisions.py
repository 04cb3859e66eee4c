"""The merge algebra of hook answers, pinned by one table; the named constructors; the one
permission vocabulary; and where an answer came from (its origin), kept through a merge."""

from __future__ import annotations

from typing import get_args

import pytest

from hookline import NO_DECISION, Decision, merge
from hookline._decisions import PRECEDENCE, UNCHANGED, Answer, Permission, Refusal

allow, deny, ask, defer = Decision.allow, Decision.deny, Decision.ask, Decision.defer
rewrite, replace_output, context = Decision.rewrite, Decision.replace_output, Decision.context

LS = {"command": "ls", "cwd": "/a"}

# (answers in declared order, base_input, base_output, the merged answer)
MERGE_TABLE = [
    pytest.param([], None, UNCHANGED, NO_DECISION, id="no answers -> no decision"),
    pytest.param([allow("ok"), deny("no")], None, UNCHANGED, deny("no"), id="deny > allow"),
    pytest.param([deny("no"), defer("later")], None, UNCHANGED, deny("no"), id="deny > defer"),
    pytest.param([ask("a"), defer("d")], None, UNCHANGED, defer("d"), id="defer > ask"),
    pytest.param([allow("fine"), ask("check")], None, UNCHANGED, ask("check"), id="ask > allow"),
    pytest.param(
        [context("c"), allow("fine")], None, UNCHANGED,
        Decision("allow", "fine", additional_context=("c",)),
        id="allow > no opinion",
    ),
    pytest.param(
        [deny("first"), allow("x"), ask("y"), deny("second")], None, UNCHANGED,
        deny("first\nsecond"),
        id="reasons of the winning permission, in order",
    ),
    pytest.param(
        [context("a"), Decision("deny", "r", additional_context=("b",)), context("c", "d")],
        None, UNCHANGED,
        Decision("deny", "r", additional_context=("a", "b", "c", "d")),
        id="every additional_context, in order",
    ),
    pytest.param(
        [Decision.message("m1"), allow(), Decision.message("m2")], None, UNCHANGED,
        Decision("allow", system_message=("m1", "m2")),
        id="every system message, in order",
    ),
    pytest.param(
        [allow("ok"), Decision.stop("first"), deny("no"), Decision.stop("second")],
        None, UNCHANGED,
        Decision("deny", "no", continue_=False, stop_reason="first"),
        id="continue=false wins and keeps the first stop_reason",
    ),
    pytest.param(
        [Decision.stop(), allow(), Decision.stop("why")], None, UNCHANGED,
        Decision("allow", continue_=False, stop_reason="why"),
        id="continue=false over allow; the first stop_reason given",
    ),
    pytest.param(
        [rewrite({"command": "ls -la", "cwd": "/a"}), rewrite({"command": "ls", "cwd": "/b"})],
        LS, UNCHANGED,
        rewrite({"command": "ls -la", "cwd": "/b"}),
        id="rewrites of different keys both apply",
    ),
    pytest.param(
        [rewrite({"command": "one", "cwd": "/a"}), rewrite({"command": "two", "cwd": "/a"})],
        LS, UNCHANGED,
        rewrite({"command": "two", "cwd": "/a"}),
        id="a conflicting rewrite goes to the later hook",
    ),
    pytest.param(
        [rewrite({"command": "ls"}), rewrite({"command": "ls", "cwd": "/a", "x": 1})],
        LS, UNCHANGED,
        rewrite({"command": "ls", "x": 1}),
        id="a removed key is removed, an added key added",
    ),
    pytest.param(
        [rewrite({"command": "ls -la", "cwd": "/a"}), deny("no")], LS, UNCHANGED, deny("no"),
        id="rewrites dropped on deny",
    ),
    pytest.param(
        [Decision("deny", "no", updated_input={"command": "x"})], LS, UNCHANGED, deny("no"),
        id="a lone deny drops its own rewrite",
    ),
    pytest.param(
        [rewrite({"command": "ls -la", "cwd": "/a"}), defer("later")], LS, UNCHANGED,
        defer("later"),
        id="rewrites dropped on defer",
    ),
    pytest.param(
        [rewrite({"command": "ls -la", "cwd": "/a"}), ask("check")], LS, UNCHANGED,
        ask("check", updated_input={"command": "ls -la", "cwd": "/a"}),
        id="rewrites kept on ask",
    ),
    pytest.param(
        [allow("ok", updated_input={"command": "pwd", "cwd": "/a"}), context("c")], LS, UNCHANGED,
        Decision("allow", "ok", {"command": "pwd", "cwd": "/a"}, additional_context=("c",)),
        id="rewrites kept on allow",
    ),
    pytest.param(
        [
            replace_output({"stdout": "REDACTED", "stderr": "e"}),
            replace_output({"stdout": "x", "stderr": ""}),
        ],
        None, {"stdout": "x", "stderr": "e"},
        replace_output({"stdout": "REDACTED", "stderr": ""}),
        id="dict outputs compose as key patches",
    ),
    pytest.param(
        [replace_output("a"), replace_output("b")], None, "raw", replace_output("b"),
        id="non-dict outputs: the last wins",
    ),
    pytest.param(
        [replace_output({"stdout": "y"}), replace_output("plain")], None, {"stdout": "x"},
        replace_output("plain"),
        id="a non-dict output among dicts: the last wins",
    ),
    pytest.param(
        [replace_output("a"), replace_output(None)], None, "raw", replace_output(None),
        id="None is a real replacement output",
    ),
    pytest.param(
        [replace_output("[redacted]"), deny("lint failed")], None, "password=hunter2",
        Decision("deny", "lint failed", updated_output="[redacted]"),
        id="an output replacement survives a block",
    ),
    pytest.param(
        [replace_output(None), context("c")], None, "raw",
        Decision(updated_output=None, additional_context=("c",)),
        id="a lone None output survives merging",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("answers", "base_input", "base_output", "merged"), MERGE_TABLE)
def test_merge_follows_the_precedence_table(answers, base_input, base_output, merged):
    assert merge(answers, base_input=base_input, base_output=base_output) == merged


def test_named_constructors_fill_the_fields_they_name():
    assert Decision.allow("ok", updated_input={"a": 1}) == Decision("allow", "ok", {"a": 1})
    assert Decision.deny("why") == Decision(permission="deny", reason="why")
    assert Decision.block("why") == Decision.deny("why")
    assert Decision.ask("sure?", updated_input={"a": 2}) == Decision("ask", "sure?", {"a": 2})
    assert Decision.defer("later") == Decision(permission="defer", reason="later")
    assert Decision.rewrite({"a": 3}) == Decision(updated_input={"a": 3})
    assert Decision.replace_output([1]) == Decision(updated_output=[1])
    assert Decision.context("a", "b").additional_context == ("a", "b")
    assert Decision.message("m").system_message == ("m",)
    assert Decision.stop("done") == Decision(continue_=False, stop_reason="done")


def test_no_decision_is_empty_and_none_output_is_not():
    assert NO_DECISION.is_empty
    assert Decision().is_empty
    assert not Decision.replace_output(None).is_empty
    assert Decision.replace_output(None).updated_output is None
    assert Decision().updated_output is UNCHANGED


@pytest.mark.parametrize(
    ("decision", "label"),
    [
        (Decision.stop("s"), "stop"),
        (Decision("deny", "r", continue_=False), "stop"),
        (Decision.deny("r"), "deny"),
        (Decision.defer(), "defer"),
        (Decision.ask(updated_input={"a": 1}), "ask"),
        (Decision.allow(), "allow"),
        (Decision.rewrite({"a": 1}), "rewrite"),
        (Decision.replace_output(None), "replace_output"),
        (Decision.context("c"), "context"),
        (Decision.message("m"), None),
        (NO_DECISION, None),
    ],
)
def test_label_names_the_most_significant_part(decision, label):
    assert decision.label == label


def test_one_permission_vocabulary_from_refusal_to_answer_to_permission():
    assert set(get_args(Refusal)) == {"deny", "defer"}
    assert set(get_args(Answer)) == {"allow", "deny", "defer"}
    assert set(get_args(Permission)) == {"allow", "deny", "defer", "ask"}
    assert set(PRECEDENCE) == {None, *get_args(Permission)}


def json_deny(reason: str) -> Decision:
    return Decision("deny", reason, origin="json")


def test_origin_is_who_said_it_not_what_was_said():
    assert json_deny("no") == Decision.deny("no")  # the same answer, from elsewhere
    assert (json_deny("no").origin, Decision.deny("no").origin) == ("json", "hook")
    assert "origin='json'" in repr(json_deny("no"))


@pytest.mark.parametrize(
    ("answers", "origin"),
    [
        ([Decision.allow(), json_deny("no"), Decision.deny("also")], "json"),
        ([Decision.deny("first"), json_deny("second")], "hook"),
        ([Decision("allow", origin="json"), Decision.stop("s")], "json"),
        ([Decision.context("c"), Decision(continue_=False, origin="exit_code_2")], "exit_code_2"),
        ([Decision("allow", origin="stdout")], "stdout"),
    ],
    ids=["the winner's", "the first winner's", "the winner over a stop", "a stop's", "alone"],
)
def test_merge_keeps_the_origin_of_the_answer_that_decides(answers, origin):
    assert merge(answers).origin == origin


def test_each_context_keeps_its_origin_through_merges_and_rewrites():
    stdout = Decision(additional_context=("UserPromptSubmit hook success: out",), origin="stdout")
    merged = merge([Decision.context("a", "b"), stdout, Decision("allow", origin="json")])
    assert merged.additional_context == ("a", "b", "UserPromptSubmit hook success: out")
    assert merged.context_origin() == ("hook", "hook", "stdout")
    again = merge([merged, Decision(additional_context=("j",), origin="json")])
    assert again.context_origin() == ("hook", "hook", "stdout", "json")
    assert again.with_rewrites({"a": 1}, UNCHANGED).context_origin() == again.context_origin()
    assert again.without_rewrites().origin == again.origin


def test_allow_is_one_answer_shared_and_a_subclass_or_a_reason_gets_its_own() -> None:
    """``Decision.allow()`` with nothing else is one frozen answer, shared: equal to any other
    bare allow, unchangeable, and never handed to a subclass or mixed with a reason."""
    import dataclasses

    class Mine(Decision):
        __slots__ = ()

    bare = Decision.allow()
    assert bare is Decision.allow() and bare == Decision("allow")
    with pytest.raises(dataclasses.FrozenInstanceError):
        bare.reason = "changed"  # type: ignore[misc]
    assert type(Mine.allow()) is Mine
    assert Decision.allow("fine").reason == "fine" and bare.reason is None
    assert Decision.allow(updated_input={"a": 1}).updated_input == {"a": 1}
    assert bare.updated_input is None
