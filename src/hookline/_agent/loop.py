"""``Agent``: a model, tools and hooks, working in one session, and its public surface.

An agent holds its working parts (``Seat``: model, options, tools, stream, hook engine, tool
pipeline, over the parts its conversations share) and one ``Conversation``
(``hookline._agent.conversation``). ``run`` and ``resume`` hand both to the loop of one prompt
(``hookline._agent.turns``, where the lifecycle is drawn), which records what the run did;
``compact``, ``switch_model``, ``clear`` and ``close`` are the lifecycle's other steps
(``hookline._agent.compaction``, ``switch``, ``ending``).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Generic, Literal, Self, TypeVar, Unpack, cast, overload

from hookline._agent import compaction, ending, switch, turns
from hookline._agent.batches import run_one
from hookline._agent.conversation import Conversation, Seat, Shared, Stores
from hookline._agent.instructions import Instructions, import_refusal, skill_tool
from hookline._agent.model import ModelClient
from hookline._agent.observers import FunctionObserver, Handle, Observer, audit_log
from hookline._agent.options import AgentOptions, AgentSettings, ConvertsToAgentOptions
from hookline._agent.result import RunResult
from hookline._agent.runtime import Runtime
from hookline._agent.saved import pause
from hookline._agent.saved.pause import Answers, Persistence
from hookline._agent.saved.store import SessionStore
from hookline._agent.session import Session
from hookline._agent.subagent_types import offer, own_tools
from hookline._agent.surroundings import Idle, Surroundings
from hookline._agent.told import Checkpointed, ObserverHub, Resumed
from hookline._errors import ConfigError
from hookline._hooks.engine import HookEngine
from hookline._hooks.registry import HookRegistry
from hookline._hooks.resources import HookResources
from hookline._hooks.sdk_matchers import HookMatcher
from hookline._support.run import run as run_to_end
from hookline._support.stream import Stream
from hookline._tools.base import Tool, Toolbox, ToolCall, ToolResult
from hookline._tools.permit import SessionGranted
from hookline._tools.pipeline import ToolPipeline

if TYPE_CHECKING:
    from hookline._agent.subagent_types import Subagents
    from hookline.mcp import McpServers

T = TypeVar("T")


class _Seated(Generic[T]):
    """An attribute of an agent that is its seat's (``Seat``): ``agent.engine`` is
    ``agent._seat.engine``. Set when the agent is made; only a ``settable`` one (the model)
    may be set again."""

    def __init__(self, *, settable: bool = False) -> None:
        self.settable = settable

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, agent: None, owner: type) -> Self: ...
    @overload
    def __get__(self, agent: Agent, owner: type) -> T: ...
    def __get__(self, agent: Agent | None, owner: type) -> Self | T:
        return self if agent is None else cast("T", getattr(agent._seat, self.name))

    def __set__(self, agent: Agent, value: T) -> None:
        if not self.settable:
            raise AttributeError(f"an agent's {self.name} is set when it is made")
        setattr(agent._seat, self.name, value)


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
        shared = Shared(
            registry=_registry(hooks, opts),
            runtime=runtime,
            owns_runtime=not given,
            lent=HookResources(http=runtime.http),
            store=Stores(opts.store, runtime.opener),
            owner=self,
        )
        self._sit(shared, model, opts, Toolbox(tools if tools is not None else _builtin_tools()))
        self._converse(Session.create(opts))
        #: The subagents the Agent tool may start, the tool added where it fits.
        shared.subagents = offer(self, builtin=tools is None)
        if opts.mcp_servers is not None:  # built now: a bad entry fails here, not in a run
            self.mcp  # noqa: B018
        self.observers.attach(self.stream, self)
        for observer in self._plugged():
            self.observers.add(observer)

    def _sit(
        self, shared: Shared, model: ModelClient, options: AgentOptions, tools: Toolbox
    ) -> None:
        """Take ``model``, ``options`` and ``tools`` over ``shared``: a stream, an engine (its
        background hooks this agent's) and a permission step (its session grants this agent's)
        of its own."""
        self._seat = Seat.made(shared, model, options, tools)
        self.stream.subscribe(SessionGranted, self._granted)  # kept with the session

    def _converse(self, session: Session) -> None:
        """Go on in ``session``, a new conversation: the one place an agent's conversation is
        replaced (``clear``, ``resume``, choosing a session: ``hookline._agent.sessions``)."""
        self._conversation = Conversation(
            session,
            self._instructed(session),
            Surroundings(self.engine, session.cwd, self.options.settings_files),
            Idle(self.options.idle_after),
        )

    # -- what the agent is made of (``hookline._agent.conversation``) ----------------------------

    #: Its model (another after ``switch_model``).
    model = _Seated[ModelClient](settable=True)
    #: Its options, as resolved when it was made.
    options = _Seated[AgentOptions]()
    #: Its tools (MCP servers' tools and the Skill tool join them).
    tools = _Seated[Toolbox]()
    #: Where the engine, the pipeline, the permission step and the loop tell what they do.
    stream = _Seated[Stream]()
    #: Its hook engine: its background hooks are this agent's.
    engine = _Seated[HookEngine]()
    #: Its tools' pipeline, with its permission step (its session grants).
    pipeline = _Seated[ToolPipeline]()

    @property
    def session(self) -> Session:
        """The session it works in now (a new one after ``clear``, another after ``resume``)."""
        return self._conversation.session

    @property
    def instructions(self) -> Instructions:
        """The project's instruction files and skills, in the model's context (advisory)."""
        return self._conversation.instructions

    @property
    def surroundings(self) -> Surroundings:
        """What the agent looks at between steps: watched files and settings."""
        return self._conversation.surroundings

    @property
    def registry(self) -> HookRegistry:
        """Its hooks."""
        return self._seat.shared.registry

    @property
    def runtime(self) -> Runtime:
        """Its connections and plug-ins: made with it (and closed by ``close``), or given."""
        return self._seat.shared.runtime

    @property
    def lent(self) -> HookResources:
        """What its hooks reach: the runtime's HTTP pool, its MCP servers once started."""
        return self._seat.shared.lent

    @property
    def observers(self) -> ObserverHub:
        """Told of everything the agent does: the audit log, persistence, then the options'."""
        return self._seat.shared.observers

    @property
    def subagents(self) -> Subagents:
        """The subagents the Agent tool may start."""
        found = self._seat.shared.subagents
        if found is None:  # only while the agent is being made
            raise AttributeError("subagents")
        return found

    @property
    def store(self) -> SessionStore:
        """Where sessions (and the audit) are kept: the store given, or the one a URL, a path
        or the default names, opened on first use and closed by ``close``."""
        return self._seat.shared.store.get(self.session.state_dir)

    # -- the public surface ---------------------------------------------------------------------

    def conversation(self) -> Agent:
        """Another conversation on this agent's parts, in a new session: the same model,
        options, hooks, tools, permission rules, runtime, store, observers and MCP servers; a
        session, transcript, stream, hook engine (its background hooks) and permission step
        (its session grants) of its own. Any number run at once on one event loop. ``close``
        one to end its session; the parts stay open until this agent closes (close the
        conversations first)."""
        other = Agent.__new__(Agent)
        other._sit(self._seat.shared, self.model, self.options, own_tools(self.tools, other))
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
        return self.observe(FunctionObserver(fn))

    def offered(self) -> list[dict[str, Any]]:
        """The specs of the tools the model is offered: every tool but those a deny rule names
        whole (``Bash``, ``mcp__server``), which Claude Code leaves out of the model's context
        too. A call to one is still refused by the rule."""
        return self._seat.offered()

    @property
    def mcp(self) -> McpServers:
        """MCP servers: started with the session, their tools joining ``tools`` (hookline.mcp).
        Built with the agent when it has servers, else when first asked for: an agent without
        any imports nothing of MCP."""
        shared = self._seat.shared
        if shared.mcp is None:
            from hookline.mcp import McpServers

            shared.mcp = McpServers.of(self.options.mcp_servers, cwd=self.session.cwd)
        return shared.mcp

    async def run(self, prompt: str) -> RunResult:
        """Work on ``prompt`` until the model stops, a hook stops it, or max_turns runs out."""
        if not prompt or not prompt.strip():
            raise ConfigError("the prompt is empty", key="prompt", fix="give the agent a task")
        seat, talk = self._seat, self._conversation
        return await turns.recorded(seat, talk, turns.prompted(seat, talk, prompt))

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
        A session resumed after its pause's deadline (``defer_deadline``, on the runtime's
        clock) gives each waiting call the expiry answer, a deny, instead of ``answer``.
        """
        by = by or pause.Resumer()
        if rerun_interrupted:
            by = replace(by, rerun_interrupted=True)
        now = self.runtime.clock()  # a waiting call past its deadline gets the expiry answer
        claimed = pause.claim(self.store, session_id, answer, self.tools, by=by, now=now)
        try:  # nothing has run yet: if this fails, the session is paused again, as it was
            session = Session.restore(claimed.session, claimed.messages, self.options)
            self.stream.tell(Resumed, session, claimed, by)  # the audit records who resumed
            claimed.turn.checkpointed = True  # saved at each step from here on
            self.stream.tell(Checkpointed, session, claimed.turn)  # running, under this pid
        except BaseException:
            pause.release(self.store, claimed)
            raise
        if self.session.id != session.id:
            await ending.end(self.engine, self.session, "resume")  # it ends (as /resume)
        await self._conversation.idle.stop()
        self.session.transcript.close()
        self._converse(session)
        self.pipeline.permit.restore(session.grants)  # what was allowed for its rest
        seat, talk = self._seat, self._conversation
        return await turns.recorded(seat, talk, turns.resumed(seat, talk, claimed, by))

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
        return await run_one(self._seat, self.session, call)

    async def compact(self, instructions: str | None = None) -> compaction.Compaction:
        """Replace the conversation by the model's summary of it (``/compact``), between runs:
        PreCompact hooks may block it, the transcript so far is archived, SessionStart
        (source compact) and PostCompact fire. A summary that fails changes nothing; the
        result says which happened, and why (``hookline._agent.compaction``)."""
        return await compaction.compact(self._seat, self.session, "manual", instructions)

    async def switch_model(self, model: ModelClient | str) -> switch.ModelSwitch:
        """Go on with another model (a client, or a ``--model`` name), as Claude Code's
        /model: PreModelSwitch hooks may refuse (a deny, or an ask nobody can answer here);
        after the switch, what PostModelSwitch hooks say opens the next prompt. The result
        says whether it switched, and why not (``hookline._agent.switch``)."""
        new, requested = switch.resolve(model, self.runtime.resolver)
        await self.start()
        return await switch.switch(self._seat, self.session, new, requested)

    async def clear(self) -> None:
        """Start afresh, as Claude Code's /clear: SessionEnd (reason ``clear``) for this
        session, then a new one (new id, empty conversation, new transcript; same model,
        tools, hooks and options) whose SessionStart has source ``clear``. The old session's
        records are written out first (``Observer.closed``); both stay on record by id."""
        old = self.session
        await ending.close(self._seat, self._conversation, "clear", owner=False)
        self.engine.take_late()  # what its async hooks said was for the old conversation
        self._converse(Session.create(self.options))  # rules by path load again, for it
        self.session.grants = list(old.grants)  # as in Claude Code, /clear keeps them
        await self.start("clear")

    async def start(self, source: Literal["startup", "resume", "clear"] = "startup") -> None:
        """Fire SessionStart once; ``run`` (and ``resume``) do this for you. What its hooks
        say for the model opens the next prompt."""
        await turns.start(self._seat, self._conversation, source)

    async def close(self, reason: str = "other") -> None:
        """Fire SessionEnd (``reason``: one of Claude Code's, ``hookline._agent.ending``; its
        hooks share one time budget), stop async command hooks and wait for other background
        hooks, close the transcript, tell the observers (the audit writes what waits) and
        close the store this agent opened, its MCP servers and the runtime it made (its HTTP
        hooks' pool on this event loop): never another agent's."""
        owner = self._seat.shared.owner is self  # another conversation's leaves the parts open
        await ending.close(self._seat, self._conversation, ending.end_reason(reason), owner=owner)

    async def __aenter__(self) -> Agent:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

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

    def _granted(self, granted: SessionGranted) -> None:
        """Keep a grant with the session (an allow for its rest, saved with it)."""
        self.session.granted(granted.grant, granted.policy)

    def _plugged(self) -> list[Observer]:
        """The observers the options plug in: the audit log first (what led to a save is on
        record before the save), session persistence, tracing, then the options' own."""
        opts = self.options
        plugged: list[Observer] = []
        if opts.audit:
            plugged.append(audit_log(self, self.runtime.audit))
        plugged.append(Persistence(lambda: self.store, launch=opts.launch))
        if (tracing := self.runtime.tracing(self)) is not None:  # OTEL_* variables ask for it
            plugged.append(tracing)
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


def _builtin_tools() -> list[Tool]:
    from hookline._tools.builtin import builtin_tools

    return builtin_tools()
