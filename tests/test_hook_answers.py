"""Generated hook answers, read by the real agent: no way of writing one turns a "no" into a "yes".

Hypothesis (derandomized: the same examples on every run) writes what a hook answers: a deny,
an allow or nothing, as JSON in UTF-8, -16 or -32, behind blanks and byte-order marks, whole,
cut short, nested past what the parser reads, with keys of the wrong type, as plain text, as
random bytes; with the hook's exit code (command hooks: 0, 1, 2, 3 or killed), HTTP status or,
for Python hooks, a returned value, a Decision or an exception. Command hooks are real processes
printing the bytes; HTTP hooks a real server on 127.0.0.1 answering them; Python hooks run in
process, sync, async and threaded. Each example runs one agent whose model calls a tool that
writes a sentinel file, with the hook on PreToolUse or UserPromptSubmit, failing open or closed.

What must hold, whatever was written:

* exit 2 blocks (the call, or the prompt): the sentinel stays unset;
* a fail-closed hook whose answer cannot be read denies, and so blocks;
* every answer that cannot be read is a failure on record with a kind;
* a deny that can be read blocks, and no deny is ever read as an allow;
* nothing raises out of the agent.

And the control, so the test can fail: an answer that can be read and says nothing against the
call lets it run (the sentinel is written).
"""

from __future__ import annotations

import asyncio
import json
import shlex
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hookline import Decision
from hookline._claude.command import CommandHook
from hookline._claude.http import HttpHook
from hookline._errors import HookFailure
from hookline._hooks.protocol import MAX_ANSWER_DEPTH
from hookline._hooks.runners import PythonHook
from local_http import RecordingServer, serve
from sentinel_agent import touch_agent

GATE = "gate"
EVENTS = ("PreToolUse", "UserPromptSubmit")
#: Lists nested inside an answer: read, and past what is read (``MAX_ANSWER_DEPTH``, which
#: counts the answer's own object too).
READABLE_DEPTH, UNREADABLE_DEPTH = MAX_ANSWER_DEPTH - 1, MAX_ANSWER_DEPTH
ENCODINGS = ("utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-be")
#: Forms an answer takes: read as meant, no answer at all, cannot be read, or anything.
READABLE, SILENT, UNREADABLE = {"json"}, {"plain", "empty"}, {"cut", "deep", "invalid"}
PROPERTY = settings(
    max_examples=120,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@dataclass(frozen=True)
class Answer:
    """One generated answer: what it means (``intent``), its ``form``, and its value."""

    intent: str  # "deny", "allow" or "nothing"
    form: str  # "json", "plain", "empty", "cut", "deep", "invalid" or "bytes"
    value: Any  # the bytes written (command, HTTP), or what a Python hook returns

    @property
    def denies(self) -> bool:
        return self.intent == "deny"

    def __repr__(self) -> str:
        shown = repr(self.value)
        shown = shown if len(shown) <= 300 else f"{shown[:150]}...{shown[-150:]} ({len(shown)})"
        return f"Answer({self.intent!r}, {self.form!r}, {shown})"


# -- what a hook means ------------------------------------------------------------------------

REASONS = st.text(st.characters(exclude_categories=["Cs"]), max_size=12)
JUNK = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | REASONS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(REASONS, inner, max_size=3),
    max_leaves=6,
)


@st.composite
def meant(draw: st.DrawFn, event: str) -> tuple[str, dict[str, Any]]:
    """A valid protocol answer for ``event``: its intent and its JSON object."""
    intent = draw(st.sampled_from(["deny", "allow", "nothing"]))
    reason = draw(REASONS) or "no"
    specific: dict[str, Any] = {"hookEventName": event}
    if intent == "deny":
        legacy = event == "UserPromptSubmit" or draw(st.booleans())
        answer = {"decision": "block", "reason": reason}
        if not legacy:
            answer = {"hookSpecificOutput": {**specific, "permissionDecision": "deny",
                                             "permissionDecisionReason": reason}}  # fmt: skip
    elif intent == "allow" and event == "PreToolUse":
        answer = draw(st.sampled_from([
            {"hookSpecificOutput": {**specific, "permissionDecision": "allow"}},
            {"decision": "approve"},
        ]))  # fmt: skip
    elif intent == "allow":  # UserPromptSubmit has no allow: context, which lets it through
        answer = {"hookSpecificOutput": {**specific, "additionalContext": reason}}
    else:
        answer = draw(st.sampled_from([{}, {"suppressOutput": True}, {"systemMessage": reason}]))
    if draw(st.booleans()):
        answer = {"junk": draw(JUNK), **answer} if draw(st.booleans()) else {**answer, "x": 1}
    return intent, answer


#: Keys that make an answer invalid on either event, whatever else it says.
SPOILERS = st.sampled_from([
    {"decision": "bogus"}, {"decision": 5}, {"systemMessage": 5}, {"continue": "no"},
    {"stopReason": []}, {"hookSpecificOutput": "x"},
    {"hookSpecificOutput": {"hookEventName": "PostToolUse"}},
])  # fmt: skip


@st.composite
def written(draw: st.DrawFn, event: str) -> Answer:
    """An answer as a command or HTTP hook writes it: bytes."""
    form = draw(st.sampled_from(["json", "json", "plain", "empty", "cut", "deep", "invalid",
                                 "bytes"]))  # fmt: skip
    if form == "bytes":
        return Answer("unknown", form, draw(st.binary(max_size=64)))
    if form == "empty":
        return Answer(
            "nothing", form, draw(st.sampled_from([b"", b"\n", b" \r\n", b"\xef\xbb\xbf"]))
        )
    if form == "plain":
        text = draw(st.sampled_from(["ok", "deny", "[1, 2]", "null", '"block"', "no {", "7"]))
        return Answer("nothing", form, text.encode())
    intent, answer = draw(meant(event))
    if form == "invalid":
        answer = {**answer, **draw(SPOILERS)}
    ascii_only = draw(st.booleans())
    text = json.dumps(answer, ensure_ascii=ascii_only)
    if form == "json" and draw(st.booleans()):
        text = _nested(text, draw(st.integers(1, READABLE_DEPTH)))
    elif form == "deep":
        text = _nested(text, draw(st.integers(UNREADABLE_DEPTH, 20_000)))
    elif form == "cut":
        text = text[: draw(st.integers(1, len(text) - 1))]
    blanks = draw(st.text(st.sampled_from(" \t\r\n\ufeff"), max_size=3))
    return Answer(intent, form, (blanks + text).encode(draw(st.sampled_from(ENCODINGS))))


def _nested(text: str, depth: int) -> str:
    """``text`` (a JSON object) with one more key holding lists ``depth`` deep."""
    deep = "[" * depth + "]" * depth
    return f'{{"nest":{deep}}}' if text == "{}" else f'{{"nest":{deep},{text[1:]}'


@st.composite
def returned(draw: st.DrawFn, event: str) -> Answer:
    """An answer as a Python hook gives it: a value, a Decision, or an exception."""
    form = draw(st.sampled_from(["json", "decision", "invalid", "wrong_type", "raises"]))
    if form == "raises":
        error = draw(st.sampled_from([ValueError("bad"), RecursionError(), SystemExit(0),
                                      KeyboardInterrupt(), GeneratorExit(), MemoryError(),
                                      asyncio.CancelledError()]))  # fmt: skip
        return Answer("nothing", "invalid", error)
    if form == "wrong_type":
        value = draw(st.sampled_from([[], "deny", 2, 0.5, b"{}", object(), {"deny"}]))
        return Answer("nothing", "invalid", value)
    if form == "decision":
        intent = draw(st.sampled_from(["deny", "allow", "nothing"]))
        if intent == "allow" and event == "UserPromptSubmit":
            return Answer(intent, "json", Decision.context("fine"))
        value = {"deny": Decision.deny("no"), "allow": Decision.allow(), "nothing": None}[intent]
        return Answer(intent, "json", value)
    intent, answer = draw(meant(event))
    if draw(st.booleans()):  # nesting a parser never saw: the engine must still cope
        deep: list[Any] = []
        for _ in range(draw(st.integers(1, 5_000))):
            deep = [deep]
        answer = {"nest": deep, **answer}
    if form == "invalid":
        return Answer(intent, "invalid", {**answer, **draw(SPOILERS)})
    return Answer(intent, "json", answer)


# -- running one example ----------------------------------------------------------------------


@dataclass
class Outcome:
    blocked: bool  # the call (or the prompt) refused
    sentinel: bool  # the tool ran
    failure: str | None
    decision: str | None


def outcome(project: Path, event: str, runner: Any, *, closed: bool) -> Outcome:
    """One agent run: the model calls ``touch``, which writes the sentinel; ``runner`` gates
    ``event``."""
    agent, sentinel = touch_agent(project)
    matcher = "touch" if event == "PreToolUse" else None
    agent.registry.add(event, runner, matcher=matcher, name=GATE,
                       failure="closed" if closed else "open")  # fmt: skip
    result = agent.run_sync("write the file")  # raises, if anything raises out of the engine
    (run,) = [r for r in result.hook_runs if r.event == event and r.hook == GATE]
    if event == "PreToolUse":
        blocked = [c.status for c in result.tool_calls] == ["blocked"]
    else:
        blocked = result.stop_reason == "prompt_blocked"
    return Outcome(blocked, sentinel.exists(), run.failure, run.decision)


def failure_kinds(cls: type[HookFailure] = HookFailure) -> set[str]:
    """The kinds of the failure classes loaded (each words itself: ``HookFailure.failed``)."""
    return {cls.kind, *(kind for sub in cls.__subclasses__() for kind in failure_kinds(sub))}


def judge(seen: Outcome, answer: Answer, *, failed: bool, closed: bool, blocks: bool) -> None:
    """The invariants. ``failed``: the answer cannot be read (or the hook failed otherwise);
    ``blocks``: an exit 2. An answer of unknown form (random bytes) is held to what any must."""
    assert not (seen.blocked and seen.sentinel), seen
    if seen.failure is not None:
        assert seen.failure in failure_kinds(), seen
    if blocks or (closed and (failed or seen.failure is not None)):
        assert seen.blocked and not seen.sentinel, seen
    if answer.denies:
        assert seen.decision != "allow", seen
    if answer.form == "bytes":
        return
    assert (seen.failure is not None) == failed, (seen, answer)
    if answer.denies and not failed:
        assert seen.blocked and not seen.sentinel, seen
    if not (failed or blocks or answer.denies):
        assert seen.sentinel and not seen.blocked, seen  # the control: the tool runs


# -- command hooks ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("project")


EXITS = st.sampled_from([0, 0, 1, 2, 2, 3, "killed"])


@PROPERTY
@given(data=st.data(), event=st.sampled_from(EVENTS), closed=st.booleans(), code=EXITS)
def test_a_command_hook_answer_whatever_it_prints(
    project: Path, data: st.DataObject, event: str, closed: bool, code: int | str
) -> None:
    answer = data.draw(written(event))
    (project / "answer").write_bytes(answer.value)
    end = "kill -9 $$" if code == "killed" else f"exit {code}"
    command = f"cat {shlex.quote(str(project / 'answer'))}; {end}"
    seen = outcome(project, event, CommandHook(command, project_dir=str(project)), closed=closed)
    no_json = answer.form in SILENT
    failed = code == "killed" or answer.form in UNREADABLE or (code in (1, 3) and no_json)
    judge(seen, answer, failed=failed, closed=closed, blocks=code == 2)


# -- HTTP hooks ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def server() -> Iterator[RecordingServer[Any]]:
    with serve(RecordingServer({}, record=lambda handler, body: None)) as httpd:
        yield httpd


@PROPERTY
@given(data=st.data(), event=st.sampled_from(EVENTS), closed=st.booleans(),
       status=st.sampled_from([200, 200, 200, 500, 403]))  # fmt: skip
def test_an_http_hook_answer_whatever_its_body(
    project: Path, server: RecordingServer[Any], data: st.DataObject, event: str, closed: bool,
    status: int,
) -> None:  # fmt: skip
    answer = data.draw(written(event))
    server.answers = {"/hook": (status, answer.value)}
    seen = outcome(project, event, HttpHook(server.url("/hook")), closed=closed)
    unreadable = answer.form in UNREADABLE or (answer.form == "plain")  # a 2xx body is JSON
    judge(seen, answer, failed=status != 200 or unreadable, closed=closed, blocks=False)


# -- Python hooks -------------------------------------------------------------------------------


def python_hook(answer: Answer, style: str) -> Callable[[Any], Any]:
    value = answer.value

    def gate(event: Any) -> Any:
        if isinstance(value, BaseException):
            raise value
        return value

    async def async_gate(event: Any) -> Any:
        await asyncio.sleep(0)
        return gate(event)

    return async_gate if style == "async" else gate


@PROPERTY
@given(data=st.data(), event=st.sampled_from(EVENTS), closed=st.booleans(),
       style=st.sampled_from(["sync", "async", "threaded"]))  # fmt: skip
def test_a_python_hook_answer_whatever_it_returns(
    project: Path, data: st.DataObject, event: str, closed: bool, style: str
) -> None:
    answer = data.draw(returned(event))
    hook = PythonHook(python_hook(answer, style), threaded=style == "threaded")
    seen = outcome(project, event, hook, closed=closed)
    judge(seen, answer, failed=answer.form == "invalid", closed=closed, blocks=False)
