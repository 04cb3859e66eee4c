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
which the audit log, session persistence, the CLI's views and other observers subscribe. A
subagent runs this same loop on a conversation of its own, asking SubagentStop where this asks
Stop (``hookline._agent.subagents``).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from contextlib import suppress
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal, Unpack

import hookline._wording as wording
from hookline._agent import compaction, ending, pause, switch
from hookline._agent.conversation import Conversation, Shared, Stores
from hookline._agent.instructions import Instruction, Instructions, import_refusal, skill_tool
from hookline._agent.messages import Message, ToolResultBlock
from hookline._agent.model import ModelClient
from hookline._agent.model_calls import RequestStopped, Unsendable, answered, prepared
from hookline._agent.observers import Handle, Observer, Watcher, audit_log
from hookline._agent.options import AgentOptions, AgentSettings, ConvertsToAgentOptions
from hookline._agent.pause import Answers, Persistence
from hookline._agent.replies import contexts, late, refused, results_message
from hookline._agent.result import RunResult
from hookline._agent.runtime import Runtime
from hookline._agent.session import Session
from hookline._agent.state import Turn
from hookline._agent.store import SessionStore
from hookline._agent.told import (
    Checkpointed,
    Closed,
    MessageAdded,
    ModelCalled,
    Observers,
    Paused,
    Resumed,
    RunEnded,
    ToolFinished,
)
from hookline._agent.watch import Idle, Watches, followed
from hookline._decisions import NO_DECISION, Decision
from hookline._errors import ConfigError, ModelError
from hookline._events import (
    HookEvent,
    InstructionsLoaded,
    PostToolBatch,
    SessionEndReason,
    SessionStart,
    Stop,
    TurnEnd,
    TurnStart,
    UserPromptSubmit,
)
from hookline._hooks.engine import HookEngine, HookRun
from hookline._hooks.registry import HookRegistry
from hookline._hooks.resources import HookResources
from hookline._hooks.sdk_matchers import HookMatcher
from hookline._support.run import run as run_to_end
from hookline._support.stream import Stream
from hookline._tools.approvals import Approval
from hookline._tools.base import Tool, Toolbox, ToolCall, ToolResult
from hookline._tools.permit import Permit, SessionGranted
from hookline._tools.pipeline import ToolPipeline

if TYPE_CHECKING:
    from hookline._agent.subagent_types import Subagents
    from hookline.mcp import McpServers


class Agent:
    """An agent: a model, tools and hooks, working in one session.

    ``runtime``: its connections and plug-ins (``hookline._agent.runtime``); by default one of
    its own, which it closes when it closes. It shares none with any other agent."""

    def __init__(
        self,
        model: ModelClient,
        *,
        tools: Iterable[Tool] | None = None,
        hooks: Mapping[str, Sequence[HookMatcher]] | HookRegistry | None = None,
        options: AgentOptions | ConvertsToAgentOptions | None = None,
        runtime: Runtime | None = None,
        **settings: Unpack[AgentSettings],
    ) -> None:
        opts = AgentOptions.resolve(options, settings)
        given = runtime is not None
        runtime = runtime if runtime is not None else Runtime()
        self._shared = Shared(
            registry=_registry(hooks, opts),
            runtime=runtime,
            owns_runtime=not given,
            lent=HookResources(http=runtime.http),
            store=Stores(opts.store, runtime.opener),
            owner=self,
        )
        self._seat(model, opts, Toolbox(tools if tools is not None else _builtin_tools()))
        self._converse(Session.create(opts))
        #: The subagents the Agent tool may start, the tool added where it fits.
        self._shared.subagents = _subagents(self, builtin=tools is None)
        if opts.mcp_servers is not None:  # built now: a bad entry fails here, not in a run
            self.mcp  # noqa: B018
        self.observers.attach(self.stream, self)
        for observer in self._plugged():
            self.observers.add(observer)

    def _seat(self, model: ModelClient, options: AgentOptions, tools: Toolbox) -> None:
        """Take ``model``, ``options`` and ``tools`` over the shared parts: a stream, an engine
        (its background hooks this agent's) and a permission step (its session grants this
        agent's) of its own."""
        self.model, self.options, self.tools = model, options, tools
        #: Where the engine, the pipeline, the permission step and the loop tell what they do.
        self.stream = Stream()
        self.engine = HookEngine(self.registry, resources=self.lent, stream=self.stream)
        permit = Permit(
            self.engine,
            policy=options.permissions,
            approver=options.approver,
            defer_asks=options.defer_asks,
        )
        self.pipeline = ToolPipeline(tools, self.engine, permit)
        self.stream.subscribe(SessionGranted, self._granted)  # kept with the session

    def _converse(self, session: Session) -> None:
        """Go on in ``session``, a new conversation: the one place an agent's conversation is
        replaced (``clear``, ``resume``, choosing a session: ``hookline._agent.sessions``)."""
        self._conversation = Conversation(
            session,
            self._instructed(session),
            Watches(self.engine, session.cwd, self.options.settings_files),
            Idle(self.options.idle_after),
        )

    # -- what the agent is made of (``hookline._agent.conversation``) ----------------------------

    @property
    def session(self) -> Session:
        """The session it works in now (a new one after ``clear``, another after ``resume``)."""
        return self._conversation.session

    @property
    def instructions(self) -> Instructions:
        """The project's instruction files and skills, in the model's context (advisory)."""
        return self._conversation.instructions

    @property
    def watches(self) -> Watches:
        """What the agent looks at between steps: watched files and settings (agent.watch)."""
        return self._conversation.watches

    @property
    def registry(self) -> HookRegistry:
        """Its hooks."""
        return self._shared.registry

    @property
    def runtime(self) -> Runtime:
        """Its connections and plug-ins: made with it (and closed by ``close``), or given."""
        return self._shared.runtime

    @property
    def lent(self) -> HookResources:
        """What its hooks reach: the runtime's HTTP pool, its MCP servers once started."""
        return self._shared.lent

    @property
    def observers(self) -> Observers:
        """Told of everything the agent does: the audit log, persistence, then the options'."""
        return self._shared.observers

    @property
    def subagents(self) -> Subagents:
        """The subagents the Agent tool may start."""
        found = self._shared.subagents
        if found is None:  # only while the agent is being made
            raise AttributeError("subagents")
        return found

    @property
    def store(self) -> SessionStore:
        """Where sessions (and the audit) are kept: the store given, or the one a URL, a path
        or the default names, opened on first use and closed by ``close``."""
        return self._shared.store.get(self.session.state_dir)

    # -- the public surface ---------------------------------------------------------------------

    def conversation(self) -> Agent:
        """Another conversation on this agent's parts, in a new session: the same model,
        options, hooks, tools, permission rules, runtime, store, observers and MCP servers; a
        session, transcript, stream, hook engine (its background hooks) and permission step
        (its session grants) of its own. Any number run at once on one event loop. ``close``
        one to end its session; the parts stay open until this agent closes (close the
        conversations first)."""
        other = Agent.__new__(Agent)
        other._shared = self._shared
        other._seat(self.model, self.options, _own_tools(self.tools, other))
        other._converse(Session.create(self.options))
        other.observers.attach(other.stream, other)
        return other

    def observe(self, observer: Observer) -> Handle:
        """Tell ``observer`` of everything this agent does from now on, after the observers
        before it (``hookline._agent.observers``); ``remove()`` the handle to stop."""
        return self.observers.add(observer)

    def watch(self, fn: Callable[[Any], None]) -> Handle:
        """Call ``fn`` with each event, hook run, tool start and result, and message as it
        happens; call the handle to stop."""
        return self.observe(Watcher(fn))

    def offered(self) -> list[dict[str, Any]]:
        """The specs of the tools the model is offered: every tool but those a deny rule names
        whole (``Bash``, ``mcp__server``), which Claude Code leaves out of the model's context
        too. A call to one is still refused by the rule."""
        specs = self.tools.specs()
        policy = self.pipeline.permit.policy
        if policy is None or not policy.deny:
            return specs
        return [spec for spec in specs if not policy.hides(spec["name"])]

    @property
    def mcp(self) -> McpServers:
        """MCP servers: started with the session, their tools joining ``tools`` (hookline.mcp).
        Built with the agent when it has servers, else when first asked for: an agent without
        any imports nothing of MCP."""
        if self._shared.mcp is None:
            from hookline.mcp import McpServers

            self._shared.mcp = McpServers.of(self.options.mcp_servers, cwd=self.session.cwd)
        return self._shared.mcp

    async def run(self, prompt: str) -> RunResult:
        """Work on ``prompt`` until the model stops, a hook stops it, or max_turns runs out."""
        if not prompt or not prompt.strip():
            raise ConfigError("the prompt is empty", key="prompt", fix="give the agent a task")
        return await self._recorded(self._prompted(prompt))

    async def resume(
        self,
        session_id: str,
        answer: Answers = None,
        *,
        by: pause.Resumer | None = None,
        rerun_interrupted: bool = False,
    ) -> RunResult:
        """Go on with a paused (or crashed, or interrupted) session, in this or any other
        process.

        ``answer`` answers the calls that were waiting (one Approval for all, or one per
        tool_use_id); they are checked again by their PreToolUse hooks (an edited input is
        judged as a new call would be), calls that finished before the pause are not run
        again, and the session resumes exactly once. A call that started before a crash and
        has no result is not run again: the model reads that its outcome is unknown, unless
        ``rerun_interrupted`` (recorded, with who). ``by``: who resumes, for the audit log.
        """
        by = by or pause.Resumer()
        if rerun_interrupted:
            by = replace(by, rerun_interrupted=True)
        claimed = pause.claim(self.store, session_id, answer, self.tools, by=by)
        try:  # nothing has run yet: if this fails, the session is paused again, as it was
            session = Session.restore(claimed.session, claimed.messages, self.options)
            self.stream.tell(Resumed, session, claimed, by)  # the audit records who resumed
            claimed.turn.checkpointed = True  # saved at each step from here on
            self.stream.tell(Checkpointed, session, claimed.turn)  # running, under this pid
        except BaseException:
            pause.release(self.store, claimed)
            raise
        if self.session.id != session.id:
            await ending.end(self, "resume")  # the session it was in ends (as /resume)
        await self._conversation.idle.stop()
        self.session.transcript.close()
        self._converse(session)
        self.pipeline.permit.restore(session.grants)  # what was allowed for its rest
        return await self._recorded(self._resumed(claimed, by))

    async def _recorded(self, work: Awaitable[Turn]) -> RunResult:
        await self._conversation.idle.stop()
        runs: list[HookRun] = []
        stop_collecting = self.stream.subscribe(HookRun, runs.append)
        try:
            turn = await work
        except asyncio.CancelledError:  # cancelled (an interrupt, a timeout): the session goes on
            self._interrupted()
            self._answer_cut_calls()
            raise
        except BaseException:
            self._interrupted()
            raise
        finally:
            stop_collecting()
        result = RunResult(
            session_id=self.session.id,
            stop_reason=turn.stop_reason,
            final_text=turn.final_text,
            transcript_path=str(self.session.transcript.path),
            tool_calls=turn.calls,
            hook_runs=runs,
            model_calls=turn.steps,
            stop_detail=turn.detail,
            usage=turn.usage,
        )
        self.stream.tell(RunEnded, self.session, turn, result)
        self._conversation.idle.arm(self.engine, self.session.scope)  # idle_prompt, later
        return result

    def run_sync(self, prompt: str) -> RunResult:
        """``run`` for code without an event loop; closes the session afterwards."""

        async def once() -> RunResult:
            async with self:
                return await self.run(prompt)

        return run_to_end(once())

    async def call_tool(
        self, name: str, tool_input: dict[str, Any], *, tool_use_id: str | None = None
    ) -> ToolResult:
        """Run one tool call through the pipeline, hooks and all, outside the model loop."""
        await self.start()
        call = ToolCall(tool_use_id or f"toolu_direct_{uuid.uuid4().hex[:20]}", name, tool_input)
        result = await self.pipeline.run(call, self.session.scope, self.session.tool_context)
        await followed(self.session, self.engine)
        self.stream.tell(ToolFinished, self.session, result)
        return result

    async def compact(self, instructions: str | None = None) -> compaction.Compaction:
        """Replace the conversation by the model's summary of it (``/compact``), between runs:
        PreCompact hooks may block it, the transcript so far is archived, SessionStart
        (source compact) and PostCompact fire. A summary that fails changes nothing; the
        result says which happened, and why (``hookline._agent.compaction``)."""
        return await compaction.compact(self, "manual", instructions)

    async def switch_model(self, model: ModelClient | str) -> switch.ModelSwitch:
        """Go on with another model (a client, or a ``--model`` name), as Claude Code's
        /model: PreModelSwitch hooks may refuse (a deny, or an ask nobody can answer here);
        after the switch, what PostModelSwitch hooks say opens the next prompt. The result
        says whether it switched, and why not (``hookline._agent.switch``)."""
        return await switch.switch(self, model)

    async def clear(self) -> None:
        """Start afresh, as Claude Code's /clear: SessionEnd (reason ``clear``) for this
        session, then a new one (new id, empty conversation, new transcript; same model,
        tools, hooks and options) whose SessionStart has source ``clear``. The old session's
        records are written out first (``Observer.closed``); both stay on record by id."""
        await self._end_session("clear")
        self.engine.take_late()  # what its async hooks said was for the old conversation
        old = self.session
        _let_go(old)
        self.stream.tell(Closed, old)
        self._converse(Session.create(self.options))  # rules by path load again, for it
        self.session.grants = list(old.grants)  # as in Claude Code, /clear keeps them
        await self.start("clear")

    async def start(self, source: Literal["startup", "resume", "clear"] = "startup") -> None:
        """Fire SessionStart once; ``run`` (and ``resume``) do this for you. What its hooks
        say for the model opens the next prompt."""
        if not self.session.started:
            self.session.started = True
            self.watches.begin()  # changes from here on fire FileChanged and ConfigChange
            if self._shared.mcp is not None:  # not built: no servers to start
                self.session.opening_context += await self.mcp.start(self.session.id, self.tools)
                self.lent.mcp = self.mcp  # for this agent's mcp_tool hooks, and no other's
            started = await self._fire(SessionStart, source=source)
            self._conversation.start_stopped = started
            self.session.opening_context += contexts("SessionStart", started)
            await self._loaded([(f, None) for f in self.instructions.loaded], "session_start")

    async def close(self, reason: str = "other") -> None:
        """Fire SessionEnd (``reason``: one of Claude Code's, ``hookline._agent.ending``; its
        hooks share one time budget), stop async command hooks and wait for other background
        hooks, close the transcript, tell the observers (the audit writes what waits) and
        close the store this agent opened, its MCP servers and the runtime it made (its HTTP
        hooks' pool on this event loop): never another agent's."""
        await self._end_session(ending.end_reason(reason))
        owner = self._shared.owner is self  # another conversation's leaves the parts open
        if owner:
            await self._close_parts()
        _let_go(self.session)
        try:
            self.stream.tell(Closed, self.session)  # before the store closes: the audit writes
        finally:
            if owner:
                self._shared.store.close()  # opened again on next use

    async def _close_parts(self) -> None:
        """Close its MCP servers, the runtime it made and its model's connections."""
        if self._shared.mcp is not None:
            self.lent.mcp = None
            await self.mcp.close()  # after SessionEnd: its mcp_tool hooks still had the servers
        if self._shared.owns_runtime:
            await self.runtime.aclose()  # a runtime given is closed by its owner
        aclose = getattr(self.model, "aclose", None)
        if aclose is not None:
            await aclose()  # so are a remote model's (``hookline._agent.model``)

    async def _end_session(self, reason: SessionEndReason) -> None:
        """Fire SessionEnd, then stop async command hooks (cancelled) and wait for the other
        background hooks: what ``close`` and ``clear`` both do first."""
        await self._conversation.idle.stop()
        await ending.end(self, reason)
        await self.engine.stop_background()
        await self.engine.drain()

    async def __aenter__(self) -> Agent:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # -- one prompt -----------------------------------------------------------------------------

    async def _prompted(self, prompt: str) -> Turn:
        await self.start()
        turn = Turn(prompt)
        talk = self._conversation
        stopped_at_start, talk.start_stopped = talk.start_stopped, NO_DECISION
        if _halted(stopped_at_start, turn):
            return turn
        self.session.new_prompt()
        submitted = await self._fire(UserPromptSubmit, prompt=prompt)
        if refused(submitted, turn):
            self.session.transcript.touch()  # hooks were given its path (as in Claude Code)
            return turn
        opening, self.session.opening_context = self.session.opening_context, []
        self._add(Message.user(*opening, *contexts("UserPromptSubmit", submitted), prompt))
        number = self.session.prompts
        began = await self._fire(TurnStart, prompt=prompt, turn=number)
        if not _halted(began, turn):
            await self._work(turn)
        return await self._ended(turn)

    async def _resumed(self, claimed: pause.Claimed, by: pause.Resumer) -> Turn:
        await self.start("resume")
        turn = claimed.turn
        turn.calls, turn.stop_reason, turn.detail = [], "end_turn", None
        if not by.rerun_interrupted:  # at most once: what started is not run again on its own
            for call in turn.interrupted:
                self._finished(turn, _unknown_outcome(call))
        turn.started = []  # rerun on purpose: these run again, as the waiting ones do
        todo = [call for call, done in turn.batch if done is None]
        fresh = iter(await self._run_batch(todo, claimed.answers, turn=turn))
        results = [done or next(fresh) for _, done in turn.batch]
        if not await self._settle(turn, results):
            await self._work(turn)
        return await self._ended(turn)

    async def _ended(self, turn: Turn) -> Turn:
        self.session.transcript.flush()
        await self._fire(
            TurnEnd,
            prompt=turn.prompt,
            turn=self.session.prompts,
            steps=turn.steps,
            stop_reason=turn.stop_reason,
        )
        return turn

    async def _work(self, turn: Turn) -> None:
        """Call the model and its tools until something ends the turn."""
        while turn.steps < self.options.max_turns:
            if notes := self._late_notes():  # async hooks that finished meanwhile
                self._add(Message.user(*notes))
            if await compaction.auto(self, turn):  # over its token budget, and the summary failed
                return
            system, tools = self.instructions.system(self.options.system_prompt), self.offered()
            if (shown := await self._before_request(turn, system, tools)) is None:
                return
            try:
                reply = await self.model.complete(shown, tools, system=system)
            except ModelError as exc:  # the model cannot go on: the run ends and says why
                turn.stop_reason, turn.detail = "model_error", str(exc)
                return
            turn.steps += 1
            if reply.usage is not None:
                turn.usage = reply.usage if turn.usage is None else turn.usage + reply.usage
            reply = self._within_limits(reply)
            self.stream.tell(ModelCalled, self.session, reply, self.model.name)
            await answered(self.engine, self.session.scope, self.model.name, reply)
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
        if self.options.checkpoint or turn.checkpointed:
            turn.checkpointed = True
            turn.new_batch([(call, None) for call in calls])
            self.stream.tell(Checkpointed, self.session, turn)  # saved: a crash reruns none of it
        return await self._settle(turn, await self._run_batch(calls, turn=turn))

    async def _settle(self, turn: Turn, results: list[ToolResult]) -> bool:
        """Record a batch's results: pause if a call waits, else answer the model; True: ended."""
        turn.calls.extend(results)
        deferred = next((r for r in results if r.status == "deferred"), None)
        if deferred:
            turn.new_batch([(r.call, None if r.status == "deferred" else r) for r in results])
            turn.stop_reason, turn.detail = "tool_deferred", deferred.reason
            self.stream.tell(Paused, self.session, turn)  # saved, to be resumed with an answer
            return True
        turn.new_batch([])
        after = await self._after_batch(results)
        self._add(results_message(results, after), results=results)
        stopped = next((r for r in results if r.stopped), None)
        if stopped:
            turn.stop_reason, turn.detail = "hook_stopped", stopped.stop_reason
        elif after.permission == "deny" or not after.continue_:
            turn.stop_reason = "hook_stopped"
            turn.detail = after.stop_reason or after.reason
        return turn.stop_reason != "end_turn"

    async def _run_batch(
        self,
        calls: list[ToolCall],
        answers: Mapping[str, Approval] | None = None,
        *,
        turn: Turn | None = None,
    ) -> list[ToolResult]:
        """Check the calls concurrently, then finish them in order. With checkpoints on, a
        call about to run its body is a checkpoint (marked started: after a crash it is not
        run again), and so is each finished call."""
        scope, ctx, pipeline = self.session.scope, self.session.tool_context, self.pipeline
        answered = answers or {}
        if len(calls) == 1:
            checked = [await pipeline.check(calls[0], scope, ctx, answer=answered.get(calls[0].id))]
        else:
            checked = await asyncio.gather(
                *(pipeline.check(c, scope, ctx, answer=answered.get(c.id)) for c in calls)
            )
        saving = turn if turn is not None and turn.checkpointed else None
        results = []
        for item in checked:
            if saving is not None and item.settled is None:  # its body runs next
                saving.started.append(item.call.id)  # before the audit's write-ahead record
                self.stream.tell(Checkpointed, self.session, saving)
            result = await pipeline.finish(item, scope, ctx)
            results.append(result)
            if saving is None:
                self.stream.tell(ToolFinished, self.session, result)
            else:
                self._finished(saving, result)
        await followed(self.session, self.engine)  # later events carry where a `cd` left it
        for result in results:  # a rule whose `paths` a call touched joins the next request
            if result.status in ("executed", "failed"):
                await self._loaded(self.instructions.touched(result.input), "path_glob_match")
        return results

    async def _before_request(
        self, turn: Turn, system: str | None, tools: Sequence[dict[str, Any]]
    ) -> Sequence[Message] | None:
        """What this request, offering ``tools``, shows the model: the conversation, as
        PreModelRequest hooks redact it and add to it (``hookline._agent.model_calls``); None: a
        hook ended the run.
        Built only when a hook listens: it would copy the conversation on every model call."""
        if (refused_change := await self.watches.check(self.session.scope)) is not None:
            turn.stop_reason, turn.detail = "hook_stopped", refused_change
            return None
        try:
            return await prepared(
                self.engine,
                self.session.scope,
                self.model.name,
                self.session.messages,
                system=system,
                tools=tools,
            )
        except RequestStopped as exc:
            turn.stop_reason, turn.detail = "hook_stopped", str(exc) or None
        except Unsendable as exc:
            turn.stop_reason, turn.detail = "hook_stopped", str(exc)
        return None

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
        return await self._fire(PostToolBatch, tool_calls=calls)

    async def _keep_going(self, turn: Turn) -> bool:
        """Fire Stop (a subagent: SubagentStop); True when a hook keeps the model working."""
        stop = await self.engine.dispatch(self._stop_event(turn))
        decision, name = stop.decision, stop.event.name
        if not decision.continue_:
            turn.stop_reason, turn.detail = "hook_stopped", decision.stop_reason
            return False
        notes = wording.stop_block(name, stop.runs) if decision.permission == "deny" else []
        notes += contexts(name, decision)
        if not notes:
            return False
        if turn.stop_blocks >= self.options.stop_hook_block_cap:
            turn.stop_reason = "stop_hook_cap"
            if decision.permission == "deny":  # a block: no text; context alone keeps it
                turn.final_text = ""  # (both as Claude Code ends a capped turn)
            turn.detail = f"{name} hooks blocked {turn.stop_blocks} times in a row"
            return False
        turn.stop_blocks += 1
        self._add(Message.user(*notes))
        return True

    def _finished(self, turn: Turn, result: ToolResult) -> None:
        """Tell the observers of ``result`` and save it in ``turn``'s batch (a checkpoint)."""
        self.stream.tell(ToolFinished, self.session, result)
        turn.settled(result)
        self.stream.tell(Checkpointed, self.session, turn)

    def _interrupted(self) -> None:
        """After a run stopped by a Ctrl-C or an error: its record in the store, if it has one,
        is marked interrupted rather than left looking alive (``pause.interrupted``). Best
        effort: the error that stopped the run is what the caller must see."""
        store = self._shared.store.current()
        if store is not None:
            with suppress(Exception):
                pause.interrupted(store, self.session.id)

    def _answer_cut_calls(self) -> None:
        """After a cancelled run: each call the model asked for and got no result for is
        answered as interrupted, so the conversation stays one a model API accepts and the
        next prompt goes on from it."""
        last = self.session.messages[-1] if self.session.messages else None
        if last is not None and last.role == "assistant" and last.tool_calls:
            cut = [ToolResultBlock(call.id, wording.INTERRUPTED, True) for call in last.tool_calls]
            self._add(Message("user", tuple(cut)))

    def _stop_event(self, turn: Turn) -> HookEvent:
        """The event that asks whether the model may stop (a subagent asks SubagentStop)."""
        return self.session.scope.event(
            Stop, stop_hook_active=turn.stop_blocks > 0, last_assistant_message=turn.final_text
        )

    def _late_notes(self) -> list[str]:
        """What background hooks that finished since the last request tell the model (a
        subagent leaves them to the main conversation: ``hookline._agent.subagents``)."""
        return late(self.engine.take_late())

    # -- plumbing -------------------------------------------------------------------------------

    def _instructed(self, session: Session) -> Instructions:
        """The instruction files and skills of ``session``'s project (none when the options
        turn them off), with the Skill tool added when there are skills."""
        if not self.options.instructions:
            return Instructions(session.cwd)
        refuses = import_refusal(self.options.permissions, session.cwd)
        found = Instructions.discover(session.cwd, refuses=refuses)
        if found.skills and "Skill" not in self.tools:
            self.tools.add(skill_tool(found))
        return found

    async def _loaded(
        self,
        files: Sequence[tuple[Instruction, str | None]],
        reason: Literal["session_start", "path_glob_match"],
    ) -> None:
        """Fire InstructionsLoaded for each file (with the path that matched, for a rule; an
        ``@path`` import with ``include`` and the file that imports it)."""
        for file, trigger in files:
            parent = None if file.parent is None else str(file.parent)
            await self._fire(
                InstructionsLoaded,
                file_path=str(file.path),
                memory_type=file.memory_type,
                load_reason=reason if parent is None else "include",
                globs=list(file.globs) or None,
                trigger_file_path=trigger,
                parent_file_path=parent,
            )

    async def _fire(self, kind: type[HookEvent], **fields: Any) -> Decision:
        """Dispatch a ``kind`` event of this session (built only when someone listens:
        ``HookEngine.fire``); its decision."""
        fired = await self.engine.fire(self.session.scope, kind, **fields)
        return NO_DECISION if fired is None else fired.decision

    def _within_limits(self, reply: Message) -> Message:
        """``reply`` with each tool input over the pipeline's limits replaced by a stand-in
        saying why (``hookline._tools.limits``), and each tool call id that an earlier call of
        the reply already has made unique (``<id>~2``: hooks, results and the audit tell calls
        apart by their ids), before anything records or copies it."""
        fit, seen = self.pipeline.limits.fit, set[str]()
        blocks: list[Any] = []
        for block in reply.content:
            if type(block) is ToolCall:
                block = fit(_unique(block, seen))
                seen.add(block.id)
            blocks.append(block)
        same = all(new is old for new, old in zip(blocks, reply.content, strict=True))
        return reply if same else replace(reply, content=tuple(blocks))

    def _add(self, message: Message, **extra: Any) -> None:
        self.session.add(message, **extra)
        self.stream.tell(MessageAdded, self.session, message)

    def _granted(self, granted: SessionGranted) -> None:
        """Keep a grant with the session (an allow for its rest, saved with it)."""
        self.session.granted(granted.grant, granted.policy)

    def _plugged(self) -> list[Observer]:
        """The observers the options plug in: the audit log first (what led to a save is on
        record before the save), session persistence, then the options' own."""
        opts = self.options
        plugged: list[Observer] = []
        if opts.audit:
            plugged.append(audit_log(self, self.runtime.audit))
        plugged.append(Persistence(lambda: self.store, launch=opts.launch))
        return [*plugged, *opts.observers]


def _registry(
    hooks: Mapping[str, Sequence[HookMatcher]] | HookRegistry | None, options: AgentOptions
) -> HookRegistry:
    """The given registry (or a new one) with the SDK-style hooks of ``hooks`` and ``options``."""
    registry = hooks if isinstance(hooks, HookRegistry) else HookRegistry()
    for mapping in (options.hooks, hooks if not isinstance(hooks, HookRegistry) else None):
        if mapping:
            registry.add_matchers(mapping, source="sdk")
    return registry


def _halted(decision: Decision, turn: Turn) -> bool:
    """Settle a ``continue: false`` given before the model is first called (SessionStart,
    TurnStart): the turn ends as a UserPromptSubmit stop ends it. Any deny there means nothing."""
    return not decision.continue_ and refused(replace(decision, permission=None), turn)


def _builtin_tools() -> list[Tool]:
    from hookline._tools.builtin import builtin_tools

    return builtin_tools()


def _let_go(session: Session) -> None:
    """Close what a session holds open: its transcript, what its Bash commands left running,
    and its sandbox (whose proxy and temp folder are made again on next use)."""
    session.transcript.close()
    session.leftovers.close()
    if session.sandbox is not None:
        session.sandbox.close()


def _unknown_outcome(call: ToolCall) -> ToolResult:
    """The result of a call that started before its session stopped, and has none."""
    return ToolResult(
        call=call,
        status="interrupted",
        content=pause.UNKNOWN_OUTCOME,
        input=call.input,
        reason=pause.UNKNOWN_OUTCOME,
    )


def _unique(call: ToolCall, seen: set[str]) -> ToolCall:
    """``call``, with an id none of ``seen`` has (a model repeated an id in one reply)."""
    if call.id not in seen:
        return call
    n = 2
    while f"{call.id}~{n}" in seen:
        n += 1
    return replace(call, id=f"{call.id}~{n}")


def _own_tools(tools: Toolbox, agent: Agent) -> Toolbox:
    """``tools`` for another conversation: the same tools, but an Agent tool that starts its
    subagents from ``agent`` (imported here, as in ``_subagents``)."""
    from hookline._agent.subagent_types import AGENT_TOOL
    from hookline._agent.subagents import AgentTool

    copied = Toolbox()
    for name in tools.names():
        tool = tools.get(name)
        if name == AGENT_TOOL and isinstance(tool, AgentTool):
            tool = AgentTool(agent, tool.types)
        if tool is not None:
            copied.add(tool)
    return copied


def _subagents(agent: Agent, *, builtin: bool) -> Subagents:
    """The agent's subagents, with the Agent tool added where it fits (imported here:
    ``hookline._agent.subagents``, which holds the tool, builds on this module)."""
    from hookline._agent.subagent_types import offer

    return offer(agent, builtin=builtin)
