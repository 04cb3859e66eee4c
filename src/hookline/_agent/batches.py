"""The tool calls of one model reply, as a batch: checked concurrently, finished in order.

    checkpoint      with checkpoints on, the batch is saved before any call runs, each call
                    about to run its body is marked started, and each finished call is saved
    ToolPipeline    PreToolUse, the permission step, the body, PostToolUse (``hookline._tools``)
    CwdChanged      after the calls, when a `cd` moved the shell
    pause           a deferred call pauses the run, the batch saved for ``resume`` (with its
                    deadline, when ``defer_deadline`` sets one: ``hookline._agent.saved.deadline``)
    PostToolBatch   then the results answer the model, with what its hooks add

Part of the loop of one prompt (``hookline._agent.turns``); a function of an agent's working
parts (``Seat``) and its conversation, as that loop is.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from hookline._agent.replies import results_message
from hookline._agent.saved import pause
from hookline._agent.surroundings import followed
from hookline._agent.told import Checkpointed, Paused, ToolFinished
from hookline._decisions import NO_DECISION, Decision
from hookline._events import PostToolBatch
from hookline._tools.base import ToolCall, ToolResult

if TYPE_CHECKING:
    from hookline._agent.conversation import Conversation, Seat
    from hookline._agent.saved.state import Turn
    from hookline._agent.session import Session
    from hookline._tools.approvals import Approval
    from hookline._tools.pipeline import Checked


async def act(seat: Seat, talk: Conversation, calls: list[ToolCall], turn: Turn) -> bool:
    """Run one reply's calls (checked concurrently, run in order); True when the turn ends."""
    if seat.options.checkpoint or turn.checkpointed:
        turn.checkpointed = True
        turn.new_batch([(call, None) for call in calls])
        seat.stream.tell(Checkpointed, talk.session, turn)  # saved: a crash reruns none of it
    return await settle(seat, talk.session, turn, await run_batch(seat, talk, calls, turn=turn))


async def settle(seat: Seat, session: Session, turn: Turn, results: list[ToolResult]) -> bool:
    """Record a batch's results: pause if a call waits, else answer the model; True: ended."""
    turn.calls.extend(results)
    deferred = next((r for r in results if r.status == "deferred"), None)
    if deferred:
        turn.new_batch([(r.call, None if r.status == "deferred" else r) for r in results])
        turn.stop_reason, turn.detail = "tool_deferred", deferred.reason
        turn.deadline = deferred.deadline  # saved with the pause
        seat.stream.tell(Paused, session, turn)  # saved, to be resumed with an answer
        return True
    turn.new_batch([])
    after = await _after_batch(seat, session, results)
    seat.add(session, results_message(results, after), results=results)
    stopped = next((r for r in results if r.stopped), None)
    if stopped:
        turn.stop_reason, turn.detail = "hook_stopped", stopped.stop_reason
    elif after.permission == "deny" or not after.continue_:
        turn.stop_reason = "hook_stopped"
        turn.detail = after.stop_reason or after.reason
    return turn.stop_reason != "end_turn"


async def run_batch(
    seat: Seat,
    talk: Conversation,
    calls: list[ToolCall],
    answers: Mapping[str, Approval] | None = None,
    *,
    turn: Turn | None = None,
) -> list[ToolResult]:
    """Check the calls concurrently, then finish them in order. With checkpoints on, a
    call about to run its body is a checkpoint (marked started: after a crash it is not
    run again), and so is each finished call."""
    session, pipeline = talk.session, seat.pipeline
    scope, ctx = session.scope, session.tool_context
    answered = answers or {}
    if len(calls) == 1:
        checked = [await pipeline.check(calls[0], scope, ctx, answer=answered.get(calls[0].id))]
    else:
        checked = await asyncio.gather(
            *(pipeline.check(c, scope, ctx, answer=answered.get(c.id)) for c in calls)
        )
    saving = turn if turn is not None and turn.checkpointed else None
    until = _deadline(seat, checked)
    results = []
    for item in checked:
        if saving is not None and item.settled is None:  # its body runs next
            saving.started.append(item.call.id)  # before the audit's write-ahead record
            seat.stream.tell(Checkpointed, session, saving)
        result = await pipeline.finish(item, scope, ctx)
        if until is not None and result.status == "deferred":  # the record names its deadline
            result = replace(result, deadline=until)
        results.append(result)
        if saving is None:
            seat.stream.tell(ToolFinished, session, result)
        else:
            finished(seat, session, saving, result)
    await followed(session, seat.engine)  # later events carry where a `cd` left it
    for result in results:  # a rule whose `paths` a call touched joins the next request
        if result.status in ("executed", "failed"):
            touched = talk.instructions.touched(result.input)
            await seat.loaded(session, touched, "path_glob_match")
    return results


def _deadline(seat: Seat, checked: Sequence[Checked]) -> float | None:
    """When the batch's deferred calls stop waiting (one time for the batch: now, on the
    runtime's clock, plus ``defer_deadline``); None when none defers or no deadline is set."""
    wait = seat.options.defer_deadline
    deferred = any(c.settled is not None and c.settled.status == "deferred" for c in checked)
    return seat.shared.runtime.clock() + wait if wait is not None and deferred else None


async def run_one(seat: Seat, session: Session, call: ToolCall) -> ToolResult:
    """Run one call through the pipeline, hooks and all, outside the model loop."""
    result = await seat.pipeline.run(call, session.scope, session.tool_context)
    await followed(session, seat.engine)
    seat.stream.tell(ToolFinished, session, result)
    return result


async def _after_batch(seat: Seat, session: Session, results: list[ToolResult]) -> Decision:
    """Fire PostToolBatch (only built when someone listens: it is on every model turn)."""
    if not seat.engine.listens("PostToolBatch"):
        return NO_DECISION
    calls = [
        {
            "tool_name": r.call.name,
            "tool_input": r.input,
            "tool_use_id": r.call.id,
            "tool_response": r.content,
        }
        for r in results
    ]
    return await seat.fire(session, PostToolBatch, tool_calls=calls)


def finished(seat: Seat, session: Session, turn: Turn, result: ToolResult) -> None:
    """Tell the observers of ``result`` and save it in ``turn``'s batch (a checkpoint)."""
    seat.stream.tell(ToolFinished, session, result)
    turn.settled(result)
    seat.stream.tell(Checkpointed, session, turn)


def unknown_outcome(call: ToolCall) -> ToolResult:
    """The result of a call that started before its session stopped, and has none."""
    return ToolResult(
        call=call,
        status="interrupted",
        content=pause.UNKNOWN_OUTCOME,
        input=call.input,
        reason=pause.UNKNOWN_OUTCOME,
    )
