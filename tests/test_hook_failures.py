"""A hook's failure words itself: each kind's sentence is on its exception class, and the
refusal a fail-closed hook gives reads it from there."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import hookline._claude.command
import hookline._claude.handlers
import hookline._claude.http
import hookline._claude.mcp_tool
import hookline._claude.prompt_hook  # noqa: F401  (each defines failure kinds of its own)
from hookline import HookRegistry, PreToolUse
from hookline._errors import HookFailure, HookTimeout
from hookline._hooks import failures
from hookline._hooks.spec import HookSpec


def failure_classes(cls: type[HookFailure] = HookFailure) -> list[type[HookFailure]]:
    return [cls, *(sub for child in cls.__subclasses__() for sub in failure_classes(child))]


@pytest.mark.parametrize("cls", failure_classes(), ids=lambda cls: cls.__name__)
def test_a_failure_class_that_names_a_kind_words_it_too(cls: type[HookFailure]) -> None:
    assert "kind" not in vars(cls) or "failed" in vars(cls), f"{cls.__name__} needs `failed`"


def test_one_kind_is_worded_one_way() -> None:
    worded: dict[str, set[str]] = {}
    for cls in failure_classes():
        worded.setdefault(cls.kind, set()).add(cls.failed)
    assert {kind: words for kind, words in worded.items() if len(words) > 1} == {}


class SlowToAnswer(HookTimeout):
    kind = "slow"
    failed = "took its time"


def gate_spec() -> HookSpec:
    registry = HookRegistry()
    registry.add("PreToolUse", lambda event: None, name="gate", failure="closed")
    (spec,) = registry.specs("PreToolUse")
    return spec


def test_the_refusal_reads_the_wording_from_the_failure(
    pre_tool_use: Callable[..., PreToolUse],
) -> None:
    refused = failures.refusal(gate_spec(), pre_tool_use("Bash"), SlowToAnswer("after 5s"))
    assert refused.permission == "deny"
    assert refused.reason is not None
    assert refused.reason.startswith("The PreToolUse hook 'gate' took its time (after 5s), and it")


def test_anything_else_a_hook_raises_is_a_failure_of_kind_exception() -> None:
    failed = failures.failure(KeyError("x"), timeout="unused")
    assert (failed.kind, failed.failed, str(failed)) == (
        "exception",
        "raised an exception",
        "KeyError: 'x'",
    )
    assert failures.failure(TimeoutError(), timeout="within 1s").kind == "timeout"
