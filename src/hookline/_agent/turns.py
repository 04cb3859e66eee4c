"""The agent loop: prompt -> (model -> tools)* -> Stop, with a hook at every step.

    SessionStart                                   once, before the first prompt
    UserPromptSubmit  deny: the prompt is rejected; context: added beside it
    TurnStart
      FileChanged, ConfigChange                    before each request, for what changed
      model.complete -> tool calls -> ToolPipeline (PreToolUse ... PostToolUse) -> repeat
                        (CwdChanged after the calls, when a `cd` moved the shell)
      no tool calls  -> Stop   deny: keep working, the reason is the next instruction
    TurnEnd
    SessionEnd                                     on close() (and clear(): a new session)

The loop knows nothing about any particular hook: it fires events and follows merged decisions.
Nor does it know who watches: it tells its stream what it does (``hookline._agent.told``), to
which the audit log, session persistence, the CLI's views and other observers subscribe.

It is a function of an agent's working parts (``Seat``) and one ``Conversation``
(``hookline._agent.conversation``), and knows nothing of the agent that holds them:
``Agent.run`` and ``Agent.resume`` hand both to ``prompted`` or ``resumed``, inside
``recorded``. A subagent runs this same loop on a conversation of its own, which asks
SubagentStop where the main one asks Stop and leaves late notes of background hooks to the main
conversation (``hookline._agent.subagents``). The tool calls of one reply are
``hookline._agent.batches``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from contextlib import suppress
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal

import hookline._wording as wording
from hookline._agent import compaction
from hookline._agent.batches import act, finished, run_batch, settle, unknown_outcome
from hookline._agent.messages import Message, ToolResultBlock
from hookline._agent.model_calls import RequestStopped, Unsendable, answered, prepared
from hookline._agent.replies import contexts, late, refused
from hookline._agent.result import RunResult
from hookline._agent.saved import pause
from hookline._agent.saved.state import Turn
from hookline._agent.told import ModelCalled, RunEnded
from hookline._decisions import NO_DECISION, Decision
from hookline._errors import ModelError
from hookline._events import (
    HookEvent,
    SessionStart,
    SubagentStop,
    TurnEnd,
    TurnStart,
    UserPromptSubmit,
)
from hookline._hooks.engine import HookRun
from hookline._tools.base import ToolCall

if TYPE_CHECKING:
    from hookline._agent.conversation import Conversation, Seat
    from hookline._agent.session import Session


async def start(
    seat: Seat, talk: Conversation, source: Literal["startup", "resume", "clear"] = "startup"
) -> None:
    """Fire SessionStart once, starting the MCP servers first if there are any; what its hooks
    say for the model opens the next prompt."""
    session, shared = talk.session, seat.shared
    if session.started:
        return
    session.started = True
    talk.surroundings.begin()  # changes from here on fire FileChanged and ConfigChange
    if shared.mcp is not None:  # not built: no servers to start
        session.opening_context += await shared.mcp.start(session.id, seat.tools)
        shared.lent.mcp = shared.mcp  # for this agent's mcp_tool hooks, and no other's
    started = await seat.fire(session, SessionStart, source=source)
    talk.start_stopped = started
    session.opening_context += contexts("SessionStart", started)
    await seat.loaded(session, [(f, None) for f in talk.instructions.loaded], "session_start")


async def recorded(seat: Seat, talk: Conversation, work: Awaitable[Turn]) -> RunResult:
    """Do ``work`` (``prompted`` or ``resumed``), collecting the hook runs it sets off; the
    run's result, told to the stream. A run stopped by a Ctrl-C or an error leaves its record
    in the store marked interrupted; a cancelled one answers the calls it cut."""
    await talk.idle.stop()
    runs: list[HookRun] = []
    stop_collecting = seat.stream.subscribe(HookRun, runs.append)
    try:
        turn = await work
    except asyncio.CancelledError:  # cancelled (an interrupt, a timeout): the session goes on
        _interrupted(seat, talk.session)
        _answer_cut_calls(seat, talk.session)
        raise
    except BaseException:
        _interrupted(seat, talk.session)
        raise
    finally:
        stop_collecting()
    session = talk.session
    result = RunResult(
        session_id=session.id,
        stop_reason=turn.stop_reason,
        final_text=turn.final_text,
        transcript_path=str(session.transcript.path),
        tool_calls=turn.calls,
        hook_runs=runs,
        model_calls=turn.steps,
        stop_detail=turn.detail,
        usage=turn.usage,
    )
    seat.stream.tell(RunEnded, session, turn, result)
    talk.idle.arm(seat.engine, session.scope)  # idle_prompt, later
    return result


async def prompted(seat: Seat, talk: Conversation, prompt: str) -> Turn:
    """Work on ``prompt``: SessionStart (once), UserPromptSubmit, TurnStart, the model's
    turns, TurnEnd."""
    await start(seat, talk)
    turn, session = Turn(prompt), talk.session
    stopped_at_start, talk.start_stopped = talk.start_stopped, NO_DECISION
    if _halted(stopped_at_start, turn):
        return turn
    session.new_prompt()
    submitted = await seat.fire(session, UserPromptSubmit, prompt=prompt)
    if refused(submitted, turn):
        session.transcript.touch()  # hooks were given its path (as in Claude Code)
        return turn
    opening, session.opening_context = session.opening_context, []
    seat.add(session, Message.user(*opening, *contexts("UserPromptSubmit", submitted), prompt))
    began = await seat.fire(session, TurnStart, prompt=prompt, turn=session.prompts)
    if not _halted(began, turn):
        await work(seat, talk, turn)
    return await _ended(seat, talk, turn)


async def resumed(
    seat: Seat, talk: Conversation, claimed: pause.Claimed, by: pause.Resumer
) -> Turn:
    """Go on with a claimed paused turn: SessionStart (source resume), its waiting calls, the
    model's turns, TurnEnd."""
    await start(seat, talk, "resume")
    turn = claimed.turn
    turn.calls, turn.stop_reason, turn.detail = [], "end_turn", None
    if not by.rerun_interrupted:  # at most once: what started is not run again on its own
        for call in turn.interrupted:
            finished(seat, talk.session, turn, unknown_outcome(call))
    turn.started = []  # rerun on purpose: these run again, as the waiting ones do
    todo = [call for call, done in turn.batch if done is None]
    fresh = iter(await run_batch(seat, talk, todo, claimed.answers, turn=turn))
    results = [done or next(fresh) for _, done in turn.batch]
    if not await settle(seat, talk.session, turn, results):
        await work(seat, talk, turn)
    return await _ended(seat, talk, turn)


async def _ended(seat: Seat, talk: Conversation, turn: Turn) -> Turn:
    session = talk.session
    session.transcript.flush()
    await seat.fire(
        session,
        TurnEnd,
        prompt=turn.prompt,
        turn=session.prompts,
        steps=turn.steps,
        stop_reason=turn.stop_reason,
    )
    return turn


async def work(seat: Seat, talk: Conversation, turn: Turn) -> None:
    """Call the model and its tools until something ends the turn."""
    session, options = talk.session, seat.options
    while turn.steps < options.max_turns:
        if talk.takes_late_notes and (notes := late(seat.engine.take_late())):
            seat.add(session, Message.user(*notes))  # async hooks that finished meanwhile
        if await compaction.auto(seat, session, turn):  # over its budget; the summary failed
            return
        system, tools = talk.instructions.system(options.system_prompt), seat.offered()
        if (shown := await _before_request(seat, talk, turn, system, tools)) is None:
            return
        model = seat.model
        try:
            reply = await model.complete(shown, tools, system=system)
        except ModelError as exc:  # the model cannot go on: the run ends and says why
            turn.stop_reason, turn.detail = "model_error", str(exc)
            return
        turn.steps += 1
        if reply.usage is not None:
            turn.usage = reply.usage if turn.usage is None else turn.usage + reply.usage
        reply = _within_limits(seat, reply)
        seat.stream.tell(ModelCalled, session, reply, model.name)
        await answered(seat.engine, session.scope, model.name, reply)
        seat.add(session, reply, model=model.name)
        session.transcript.flush()
        turn.final_text = reply.text
        calls = reply.tool_calls
        if calls:
            if await act(seat, talk, calls, turn):
                return
        elif not await _keep_going(seat, talk, turn):
            return
    turn.stop_reason = "max_turns"
    turn.detail = f"stopped after {options.max_turns} model calls"


async def _before_request(
    seat: Seat, talk: Conversation, turn: Turn, system: str | None, tools: Sequence[dict[str, Any]]
) -> Sequence[Message] | None:
    """What this request, offering ``tools``, shows the model: the conversation, as
    PreModelRequest hooks redact it and add to it (``hookline._agent.model_calls``); None: a
    hook ended the run.
    Built only when a hook listens: it would copy the conversation on every model call."""
    session = talk.session
    if (refused_change := await talk.surroundings.check(session.scope)) is not None:
        turn.stop_reason, turn.detail = "hook_stopped", refused_change
        return None
    try:
        return await prepared(
            seat.engine,
            session.scope,
            seat.model.name,
            session.messages,
            system=system,
            tools=tools,
        )
    except RequestStopped as exc:
        turn.stop_reason, turn.detail = "hook_stopped", str(exc) or None
    except Unsendable as exc:
        turn.stop_reason, turn.detail = "hook_stopped", str(exc)
    return None


async def _keep_going(seat: Seat, talk: Conversation, turn: Turn) -> bool:
    """Fire Stop (a subagent: SubagentStop); True when a hook keeps the model working."""
    stop = await seat.engine.dispatch(_stop_event(talk, turn))
    decision, name = stop.decision, stop.event.name
    if not decision.continue_:
        turn.stop_reason, turn.detail = "hook_stopped", decision.stop_reason
        return False
    notes = wording.stop_block(name, stop.live) if decision.permission == "deny" else []
    notes += contexts(name, decision)
    if not notes:
        return False
    if turn.stop_blocks >= seat.options.stop_hook_block_cap:
        turn.stop_reason = "stop_hook_cap"
        if decision.permission == "deny":  # a block: no text; context alone keeps it
            turn.final_text = ""  # (both as Claude Code ends a capped turn)
        turn.detail = f"{name} hooks blocked {turn.stop_blocks} times in a row"
        return False
    turn.stop_blocks += 1
    seat.add(talk.session, Message.user(*notes))
    return True


def _stop_event(talk: Conversation, turn: Turn) -> HookEvent:
    """The event that asks whether the model may stop: the conversation's Stop, or a
    subagent's SubagentStop (with the subagent's transcript)."""
    session = talk.session
    extra = {}
    if talk.asks_stop is SubagentStop:
        extra["agent_transcript_path"] = str(session.transcript.path)
    return session.scope.event(
        talk.asks_stop,
        stop_hook_active=turn.stop_blocks > 0,
        last_assistant_message=turn.final_text,
        **extra,
    )


def _answer_cut_calls(seat: Seat, session: Session) -> None:
    """After a cancelled run: each call the model asked for and got no result for is
    answered as interrupted, so the conversation stays one a model API accepts and the
    next prompt goes on from it."""
    last = session.messages[-1] if session.messages else None
    if last is not None and last.role == "assistant" and last.tool_calls:
        cut = [ToolResultBlock(call.id, wording.INTERRUPTED, True) for call in last.tool_calls]
        seat.add(session, Message("user", tuple(cut)))


def _interrupted(seat: Seat, session: Session) -> None:
    """After a run stopped by a Ctrl-C or an error: its record in the store, if it has one,
    is marked interrupted rather than left looking alive (``pause.interrupted``). Best
    effort: the error that stopped the run is what the caller must see."""
    store = seat.shared.store.current()
    if store is not None:
        with suppress(Exception):
            pause.interrupted(store, session.id)


def _within_limits(seat: Seat, reply: Message) -> Message:
    """``reply`` with each tool input over the pipeline's limits replaced by a stand-in
    saying why (``hookline._tools.limits``), and each tool call id that an earlier call of
    the reply already has made unique (``<id>~2``: hooks, results and the audit tell calls
    apart by their ids), before anything records or copies it."""
    fit, seen = seat.pipeline.limits.fit, set[str]()
    blocks: list[Any] = []
    for block in reply.content:
        if type(block) is ToolCall:
            block = fit(_unique(block, seen))
            seen.add(block.id)
        blocks.append(block)
    same = all(new is old for new, old in zip(blocks, reply.content, strict=True))
    return reply if same else replace(reply, content=tuple(blocks))


def _halted(decision: Decision, turn: Turn) -> bool:
    """Settle a ``continue: false`` given before the model is first called (SessionStart,
    TurnStart): the turn ends as a UserPromptSubmit stop ends it. Any deny there means nothing."""
    return not decision.continue_ and refused(replace(decision, permission=None), turn)


def _unique(call: ToolCall, seen: set[str]) -> ToolCall:
    """``call``, with an id none of ``seen`` has (a model repeated an id in one reply)."""
    if call.id not in seen:
        return call
    n = 2
    while f"{call.id}~{n}" in seen:
        n += 1
    return replace(call, id=f"{call.id}~{n}")
