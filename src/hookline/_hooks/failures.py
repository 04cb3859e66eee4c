"""A hook that fails: what its run records, and what it answers in place of an answer.

A hook that raises (anything, ``SystemExit`` included), times out or answers nonsense is
isolated by the engine: its failure becomes a ``HookFailure`` (``failure``), recorded on its
``HookRun`` by kind and, for a fail-closed hook, a refusal worded by the failure itself
(``refusal``; ``HookFailure.failed``). Only the cancellation of the run itself goes through
(``run_cancelled``).
"""

from __future__ import annotations

import asyncio
import os
import traceback
from pathlib import Path
from typing import TYPE_CHECKING

from hookline._decisions import NO_DECISION, UNCHANGED, Decision
from hookline._errors import HookFailure, HookTimeout

if TYPE_CHECKING:
    from hookline._events import HookEvent
    from hookline._hooks.spec import HookSpec


class Cancelled(HookFailure):
    """A background hook still running when the session ended, cancelled then."""

    kind = "cancelled"
    failed = "failed"

    def __init__(self) -> None:
        super().__init__("still running at session end")


def failure(exc: BaseException, *, timeout: str) -> HookFailure:
    """``exc`` as a hook's failure: itself if it is one; a ``TimeoutError`` a ``HookTimeout``
    saying ``timeout``; anything else one of kind "exception" naming it."""
    if isinstance(exc, HookFailure):
        return exc
    if isinstance(exc, TimeoutError):
        return HookTimeout(timeout)
    return HookFailure(named(exc))


def refusal(spec: HookSpec, event: HookEvent, failure: HookFailure) -> Decision:
    """What a failed hook answers: if it fails open, its fallback (what Claude Code still reads
    from such an answer) or nothing; if it fails closed, a refusal of what the event is about
    (the call, the prompt), or a withheld output after a tool ran. Where the event refuses
    nothing (``facts.refuses``; Stop: "keep working"), a failure gives no decision. A fallback
    that denies already (a command hook's exit 2 beside unreadable JSON) stays as it is."""
    refuses, fallback = event.facts.refuses, failure.fallback
    if spec.failure != "closed" or spec.kind == "observer" or refuses is None:
        return fallback or NO_DECISION
    if fallback is not None and fallback.permission == "deny":
        return fallback
    reason = (
        f"The {event.name} hook {spec.name!r} {failure.failed} ({failure}), and it "
        "fails closed. It is a fault in the hook, not in your request: try again later or take "
        "another approach."
    )
    withheld = f"[output withheld] {reason}" if refuses == "output" else UNCHANGED
    return Decision(
        permission="deny", reason=reason, updated_output=withheld, origin="hook_failure"
    )


def run_cancelled(exc: BaseException) -> bool:
    """Whether ``exc`` is the cancellation of the run, which goes on up; a CancelledError a
    hook raised on its own, while nothing cancels the run, is the hook's failure."""
    task = asyncio.current_task()
    return isinstance(exc, asyncio.CancelledError) and task is not None and task.cancelling() > 0


def trace(exc: BaseException) -> str:
    """The traceback of a hook's exception from the hook's own code: hookline's frames (the
    engine, the runner) left out, unless that leaves none."""
    frames = traceback.extract_tb(exc.__traceback__)
    own = [f for f in frames if not f.filename.startswith(_PACKAGE)] or frames
    lines = traceback.format_list(own) + traceback.format_exception_only(exc)
    return "Traceback (most recent call last):\n" + "".join(lines)


#: Where hookline's own code lives, for ``trace``.
_PACKAGE = str(Path(__file__).resolve().parents[1]) + os.sep


def named(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
