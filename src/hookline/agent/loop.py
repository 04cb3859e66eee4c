"""The agent loop: prompt -> (model -> tools)* -> Stop, with a hook at every step.

    SessionStart                                   once, before the first prompt
    UserPromptSubmit  deny: the prompt is rejected; context: added beside it
    TurnStart
      model.complete -> tool calls -> ToolPipeline (PreToolUse ... PostToolUse) -> repeat
      no tool calls  -> Stop   deny: keep working, the reason is the next instruction
    TurnEnd
    SessionEnd                                     on close()

The loop knows nothing about any particular hook: it fires events and follows merged decisions.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Literal

from hookline.agent import pause
from hookline.agent.messages import Message
from hookline.agent.model import ModelClient
from hookline.agent.options import AgentOptions
from hookline.agent.pause import Answers
from hookline.agent.replies import contexts, refused, results_message
from hookline.agent.result import RunResult
from hookline.agent.session import Session
from hookline.agent.state import Turn
from hookline.audit import AuditLog, Redactor, attach_audit
from hookline.claude import wording
from hookline.claude.http import HTTP_CLIENTS
from hookline.decisions import NO_DECISION, Decision
from hookline.errors import ConfigError
from hookline.events import (
    HookEvent,
    PostToolBatch,
    SessionEnd,
    SessionStart,
    Stop,
    TurnEnd,
    TurnStart,
    UserPromptSubmit,
)
from hookline.hooks.engine import HookEngine, HookRun
from hookline.hooks.registry import HookRegistry
from hookline.hooks.sdk import HookMatcher
from hookline.storage import Store, open_store
from hookline.tools.approvals import Approval
from hookline.tools.base import Tool, Toolbox, ToolCall, ToolResult
from hookline.tools.permit import Permit
from hookline.tools.pipeline import ToolPipeline, ToolStarted

Progress = HookEvent | HookRun | ToolStarted | ToolResult | Message
Watcher = Callable[[Progress], None]


class Agent:
    """An agent: a model, tools and hooks, working in one session."""

    def __init__(
        self,
        model: ModelClient,
        *,
        tools: Iterable[Tool] | None = None,
        hooks: Mapping[str, Sequence[HookMatcher]] | HookRegistry | None = None,
        options: AgentOptions | None = None,
        **settings: Any,
    ) -> None:
        self.model = model
        self.options = AgentOptions.resolve(options, settings)
        self.registry = _registry(hooks, self.options)
        self.engine = HookEngine(self.registry)
        self.tools = Toolbox(tools if tools is not None else _builtin_tools())
        opts = self.options
        permit = Permit(
            self.engine, policy=opts.permissions, approver=opts.approver, defer_asks=opts.defer_asks
        )
        self.pipeline = ToolPipeline(self.tools, self.engine, permit)
        self.session = Session.create(opts)
        self._watchers: list[Watcher] = []
        self._store: Store | None = None
        #: Whether the store holds a record of this session (paused, resumed or checkpointed).
        self._saved = False
        self._audit: AuditLog | None = None
        if opts.audit:
            redactor = Redactor(opts.redact)
            self._audit = attach_audit(self, redactor=redactor, max_delay=opts.audit_delay)
            permit.listeners.append(self._audit.record_approval)

    @property
    def store(self) -> Store:
        """Where paused sessions (and the audit) are kept; opened on first use."""
        if self._store is None:
            self._store = open_store(self.options.store, state_dir=self.session.state_dir)
        return self._store

    # -- the public surface ---------------------------------------------------------------------

    def watch(self, fn: Watcher) -> Callable[[], None]:
        """Call ``fn`` with each event, hook run, tool start and result, and message as it
        happens."""
        self._watchers.append(fn)
        stop_runs = self.engine.monitor(fn)
        stop_events = self.engine.monitor(fn, events=True)
        stop_starts = self.pipeline.on_start(fn)  # a call just before its body runs

        def stop() -> None:
            stop_runs()
            stop_events()
            stop_starts()
            if fn in self._watchers:
                self._watchers.remove(fn)

        return stop

    async def run(self, prompt: str) -> RunResult:
        """Work on ``prompt`` until the model stops, a hook stops it, or max_turns runs out."""
        if not prompt or not prompt.strip():
            raise ConfigError("the prompt is empty", key="prompt", fix="give the agent a task")
        return await self._recorded(self._prompted(prompt))

    async def resume(
        self, session_id: str, answer: Answers = None, *, by: pause.Resumer | None = None
    ) -> RunResult:
        """Go on with a paused (or crashed) session, in this or any other process.

        ``answer`` answers the calls that were waiting (one Approval for all, or one per
        tool_use_id); they are checked again by their PreToolUse hooks (an edited input is
        judged as a new call would be), calls that finished before the pause are not run
        again, and the session resumes exactly once. ``by``: who resumes, for the audit log.
        """
        by = by or pause.Resumer()
        claimed = pause.claim(self.store, session_id, answer, self.tools, by=by)
        try:  # nothing has run yet: if this fails, the session is paused again, as it was
            session = Session.restore(claimed.session, claimed.messages, self.options)
            if self._audit is not None:
                pause.record_resume(self._audit, claimed, by)
        except BaseException:
            pause.release(self.store, claimed)
            raise
        self.session.transcript.close()
        self.session = session
        self._saved = True
        return await self._recorded(self._resumed(claimed))

    async def _recorded(self, work: Awaitable[Turn]) -> RunResult:
        runs: list[HookRun] = []
        stop_collecting = self.engine.monitor(runs.append)
        try:
            turn = await work
        finally:
            stop_collecting()
        return RunResult(
            session_id=self.session.id,
            stop_reason=turn.stop_reason,
            final_text=turn.final_text,
            transcript_path=str(self.session.transcript.path),
            tool_calls=turn.calls,
            hook_runs=runs,
            model_calls=turn.steps,
            stop_detail=turn.detail,
        )

    def run_sync(self, prompt: str) -> RunResult:
        """``run`` for code without an event loop; closes the session afterwards."""

        async def once() -> RunResult:
            async with self:
                return await self.run(prompt)

        return asyncio.run(once())

    async def call_tool(
        self, name: str, tool_input: dict[str, Any], *, tool_use_id: str | None = None
    ) -> ToolResult:
        """Run one tool call through the pipeline, hooks and all, outside the model loop."""
        await self.start()
        call = ToolCall(tool_use_id or f"toolu_direct_{uuid.uuid4().hex[:20]}", name, tool_input)
        result = await self.pipeline.run(call, self.session.scope, self.session.tool_context)
        self._emit(result)
        return result

    async def start(self, source: Literal["startup", "resume"] = "startup") -> None:
        """Fire SessionStart once; ``run`` (and ``resume``) do this for you. What its hooks
        say for the model opens the next prompt."""
        if not self.session.started:
            self.session.started = True
            started = await self._fire(self.session.scope.event(SessionStart, source=source))
            self.session.opening_context += contexts("SessionStart", started)

    async def close(self, reason: str = "other") -> None:
        """Fire SessionEnd, wait for background observers and close the transcript."""
        if self.session.started:
            await self._fire(self.session.scope.event(SessionEnd, reason=reason))
            self.session.started = False
        await self.engine.drain()
        await HTTP_CLIENTS.aclose()  # HTTP hooks' pooled connections belong to this event loop
        self.session.transcript.close()
        if self.session.sandbox is not None:
            self.session.sandbox.close()  # its proxy and temp folder; made again on next use
        if self._audit is not None:
            self._audit.close()  # the last records; it reopens on the next run
        if self._store is not None:
            self._store.close()
            self._store = None

    async def __aenter__(self) -> Agent:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # -- one prompt -----------------------------------------------------------------------------

    async def _prompted(self, prompt: str) -> Turn:
        await self.start()
        turn = Turn(prompt)
        self.session.new_prompt()
        submitted = await self._fire(self.session.scope.event(UserPromptSubmit, prompt=prompt))
        if refused(submitted, turn):
            return turn
        opening, self.session.opening_context = self.session.opening_context, []
        self._add(Message.user(*opening, *contexts("UserPromptSubmit", submitted), prompt))
        number = self.session.prompts
        await self._fire(self.session.scope.event(TurnStart, prompt=prompt, turn=number))
        await self._work(turn)
        return await self._ended(turn)

    async def _resumed(self, claimed: pause.Claimed) -> Turn:
        await self.start("resume")
        turn = claimed.turn
        paused, turn.batch, turn.calls = turn.batch, [], []
        turn.stop_reason, turn.detail = "end_turn", None
        waiting = [call for call, done in paused if done is None]
        fresh = iter(await self._run_batch(waiting, claimed.answers))
        results = [done or next(fresh) for _, done in paused]
        if not await self._settle(turn, results):
            await self._work(turn)
        return await self._ended(turn)

    async def _ended(self, turn: Turn) -> Turn:
        self.session.transcript.flush()
        scope = self.session.scope
        await self._fire(
            scope.event(
                TurnEnd,
                prompt=turn.prompt,
                turn=self.session.prompts,
                steps=turn.steps,
                stop_reason=turn.stop_reason,
            )
        )
        if turn.stop_reason != "tool_deferred" and self._saved:
            self._record_status(turn, "done")  # the store holds this session: close its record
        return turn

    async def _work(self, turn: Turn) -> None:
        """Call the model and its tools until something ends the turn."""
        while turn.steps < self.options.max_turns:
            reply = await self.model.complete(
                self.session.messages, self.tools.specs(), system=self.options.system_prompt
            )
            turn.steps += 1
            reply = self._within_limits(reply)
            self._add(reply, model=self.model.name)
            self.session.transcript.flush()
            turn.final_text = reply.text
            calls = reply.tool_calls
            if calls:
                if await self._act(calls, turn):
                    return
            elif not await self._keep_going(turn):
                return
        turn.stop_reason = "max_turns"
        turn.detail = f"stopped after {self.options.max_turns} model calls"

    async def _act(self, calls: list[ToolCall], turn: Turn) -> bool:
        """Run one turn's calls (checked concurrently, run in order); True when the turn ends."""
        if self.options.checkpoint:
            turn.batch = [(call, None) for call in calls]
            self._record_status(turn, "running")
        return await self._settle(turn, await self._run_batch(calls, turn=turn))

    async def _settle(self, turn: Turn, results: list[ToolResult]) -> bool:
        """Record a batch's results: pause if a call waits, else answer the model; True: ended."""
        turn.calls.extend(results)
        deferred = next((r for r in results if r.status == "deferred"), None)
        if deferred:
            turn.batch = [(r.call, None if r.status == "deferred" else r) for r in results]
            turn.stop_reason, turn.detail = "tool_deferred", deferred.reason
            self._record_status(turn, "deferred")
            return True
        turn.batch = []
        after = await self._after_batch(results)
        self._add(results_message(results, after), results=results)
        stopped = next((r for r in results if r.stopped), None)
        if stopped:
            turn.stop_reason, turn.detail = "hook_stopped", stopped.stop_reason
        elif after.permission == "deny" or not after.continue_:
            turn.stop_reason = "hook_stopped"
            turn.detail = after.stop_reason or after.reason
        return turn.stop_reason != "end_turn"

    def _record_status(self, turn: Turn, status: str) -> None:
        """Save the session as ``status``: paused, a checkpoint, or done."""
        self._saved = True
        self.session.transcript.flush()
        if self._audit is not None:
            self._audit.flush()  # what led here is on record before the state is
        pause.save(self.store, self.session, turn, status=status, launch=self.options.launch)

    async def _run_batch(
        self,
        calls: list[ToolCall],
        answers: Mapping[str, Approval] | None = None,
        *,
        turn: Turn | None = None,
    ) -> list[ToolResult]:
        """Check the calls concurrently, then finish them in order. With checkpoints on, each
        finished call is saved at once: after a crash it is not run again."""
        scope, ctx, pipeline = self.session.scope, self.session.tool_context, self.pipeline
        answered = answers or {}
        if len(calls) == 1:
            checked = [await pipeline.check(calls[0], scope, ctx, answer=answered.get(calls[0].id))]
        else:
            checked = await asyncio.gather(
                *(pipeline.check(c, scope, ctx, answer=answered.get(c.id)) for c in calls)
            )
        results = []
        for index, item in enumerate(checked):
            result = await pipeline.finish(item, scope, ctx)
            self._emit(result)
            results.append(result)
            if turn is not None and self.options.checkpoint:
                turn.batch[index] = (result.call, result)
                self._record_status(turn, "running")
        return results

    async def _after_batch(self, results: list[ToolResult]) -> Decision:
        """Fire PostToolBatch (only built when someone listens: it is on every model turn)."""
        if not self.engine.listens("PostToolBatch"):
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
        return await self._fire(self.session.scope.event(PostToolBatch, tool_calls=calls))

    async def _keep_going(self, turn: Turn) -> bool:
        """Fire Stop; True when a hook keeps the model working."""
        stop = await self.engine.dispatch(
            self.session.scope.event(
                Stop, stop_hook_active=turn.stop_blocks > 0, last_assistant_message=turn.final_text
            )
        )
        decision = stop.decision
        if not decision.continue_:
            turn.stop_reason, turn.detail = "hook_stopped", decision.stop_reason
            return False
        notes = wording.stop_block("Stop", stop.runs) if decision.permission == "deny" else []
        notes += contexts("Stop", decision)
        if not notes:
            return False
        if turn.stop_blocks >= self.options.stop_hook_block_cap:
            turn.stop_reason = "stop_hook_cap"
            turn.detail = f"Stop hooks blocked {turn.stop_blocks} times in a row"
            return False
        turn.stop_blocks += 1
        self._add(Message.user(*notes))
        return True

    # -- plumbing -------------------------------------------------------------------------------

    async def _fire(self, event: HookEvent) -> Decision:
        return (await self.engine.dispatch(event)).decision

    def _within_limits(self, reply: Message) -> Message:
        """``reply`` with each tool input over the pipeline's limits replaced by a stand-in
        saying why, before anything records or copies it (``hookline.tools.limits``)."""
        fit = self.pipeline.limits.fit
        blocks = tuple(fit(b) if type(b) is ToolCall else b for b in reply.content)
        same = all(new is old for new, old in zip(blocks, reply.content, strict=True))
        return reply if same else replace(reply, content=blocks)

    def _add(self, message: Message, **extra: Any) -> None:
        self.session.add(message, **extra)
        self._emit(message)

    def _emit(self, item: Progress) -> None:
        for fn in self._watchers:
            fn(item)


def _registry(
    hooks: Mapping[str, Sequence[HookMatcher]] | HookRegistry | None, options: AgentOptions
) -> HookRegistry:
    """The given registry (or a new one) with the SDK-style hooks of ``hooks`` and ``options``."""
    registry = hooks if isinstance(hooks, HookRegistry) else HookRegistry()
    for mapping in (options.hooks, hooks if not isinstance(hooks, HookRegistry) else None):
        if mapping:
            registry.add_matchers(mapping, source="sdk")
    return registry


def _builtin_tools() -> list[Tool]:
    from hookline.tools.builtin import builtin_tools

    return builtin_tools()
