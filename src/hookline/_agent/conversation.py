"""What an agent is made of: the parts its conversations share, and one conversation.

    Shared          made once with the agent: its hook registry, runtime (HTTP clients, how
                    stores and models are opened, the audit plug-in), what hooks may reach, its
                    observers, its store (opened on first use), MCP servers and subagent types
    Seat            one agent's working parts over those: its model, options, tools, stream,
                    hook engine and tool pipeline (with its permission step); a subagent has a
                    toolbox and permission step of its own; ``conversation()`` makes another
                    agent on the same shared parts
    Conversation    one session: the session itself (id, messages, transcript, shell, grants),
                    the instruction files found for it, the files it watches, its idle timer,
                    what SessionStart said of it, and whether it is a subagent's (which Stop
                    event it asks, whether late notes of background hooks reach it)

The loop of one prompt is a function of a seat and a conversation (``hookline._agent.turns``);
the agent holds one of each.

An agent replaces its conversation in one place (``Agent._converse``): ``clear``, ``resume``
and choosing a session before the first prompt (``hookline._agent.sessions``) each start a new
one; a subagent starts with one of its own. Nothing is copied field by field from one agent to
another: what is shared is one ``Shared`` object, what is not is made anew.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from hookline._agent.saved.store import SessionStore, open_named
from hookline._agent.told import MessageAdded, ObserverHub
from hookline._decisions import NO_DECISION, Decision
from hookline._events import InstructionsLoaded, Stop, SubagentStop
from hookline._hooks.engine import HookEngine
from hookline._support.stream import Stream
from hookline._tools.permit import Permit
from hookline._tools.pipeline import ToolPipeline

if TYPE_CHECKING:
    from pathlib import Path

    from hookline._agent.instructions import Instruction, Instructions
    from hookline._agent.loop import Agent
    from hookline._agent.messages import Message
    from hookline._agent.model import ModelClient
    from hookline._agent.options import AgentOptions
    from hookline._agent.runtime import Runtime
    from hookline._agent.saved.store import Opener
    from hookline._agent.session import Session
    from hookline._agent.subagent_types import Subagents
    from hookline._agent.surroundings import Idle, Surroundings
    from hookline._events import HookEvent
    from hookline._hooks.registry import HookRegistry
    from hookline._hooks.resources import HookResources
    from hookline._tools.base import Toolbox
    from hookline.mcp import McpServers


@dataclass(eq=False)
class Conversation:
    """One session of an agent, and what belongs to it alone."""

    session: Session
    #: The project's instruction files and skills, in the model's context (advisory).
    instructions: Instructions
    #: What the agent looks at between steps: watched files and settings.
    surroundings: Surroundings
    #: Notification ``idle_prompt`` while it waits for the next prompt.
    idle: Idle
    #: A SessionStart hook's ``continue: false``: the first prompt ends before the model.
    start_stopped: Decision = NO_DECISION
    #: The event that asks whether the model may stop: Stop, or a subagent's SubagentStop.
    asks_stop: type[Stop] | type[SubagentStop] = Stop
    #: Whether what background hooks finish meanwhile is told to its model (a subagent's leaves
    #: it to the main conversation: ``hookline._agent.subagents``).
    takes_late_notes: bool = True


@dataclass(eq=False)
class Shared:
    """What every conversation of an agent (and its subagents) uses: made once, closed by the
    agent that made it (``owner``)."""

    registry: HookRegistry
    runtime: Runtime
    #: The agent made the runtime, so closes it; a runtime given is closed by its owner.
    owns_runtime: bool
    #: What its hooks reach: the runtime's HTTP pool, its MCP servers once started.
    lent: HookResources
    store: Stores
    #: Told of everything the agent does: the audit log, persistence, then the options'.
    observers: ObserverHub = field(default_factory=ObserverHub)
    #: The subagents the Agent tool may start.
    subagents: Subagents | None = None
    #: MCP servers, once made (``Agent.mcp``): an agent without any imports nothing of MCP.
    mcp: McpServers | None = None
    #: The agent that made them, which closes them (``Agent.conversation`` makes others).
    owner: Agent | None = None


@dataclass(eq=False, slots=True)
class Seat:
    """One agent's working parts, over the shared ones: made with the agent (a conversation, a
    subagent) and never replaced; only ``model`` changes, when something switches it
    (``hookline._agent.switch``)."""

    shared: Shared
    model: ModelClient
    options: AgentOptions
    tools: Toolbox
    #: Where the engine, the pipeline, the permission step and the loop tell what they do.
    stream: Stream
    #: Its hooks' engine: its background hooks are this agent's.
    engine: HookEngine
    #: Its tools' pipeline, with a permission step (its session grants) of its own.
    pipeline: ToolPipeline

    @classmethod
    def made(
        cls, shared: Shared, model: ModelClient, options: AgentOptions, tools: Toolbox
    ) -> Seat:
        """``model``, ``options`` and ``tools`` over ``shared``: with a stream, an engine and
        a permission step of their own."""
        stream = Stream()
        engine = HookEngine(shared.registry, resources=shared.lent, stream=stream)
        permit = Permit(
            engine,
            policy=options.permissions,
            approver=options.approver,
            defer_asks=options.defer_asks,
        )
        return cls(
            shared, model, options, tools, stream, engine, ToolPipeline(tools, engine, permit)
        )

    def offered(self) -> list[dict[str, Any]]:
        """The specs of the tools the model is offered: every tool but those a deny rule names
        whole (``Bash``, ``mcp__server``), which Claude Code leaves out of the model's context
        too. A call to one is still refused by the rule."""
        specs = self.tools.specs()
        policy = self.pipeline.permit.policy
        if policy is None or not policy.deny:
            return specs
        return [spec for spec in specs if not policy.hides(spec["name"])]

    def add(self, session: Session, message: Message, **extra: Any) -> None:
        """Add ``message`` to ``session``'s conversation, and tell the stream."""
        session.add(message, **extra)
        self.stream.tell(MessageAdded, session, message)

    async def fire(self, session: Session, kind: type[HookEvent], **fields: Any) -> Decision:
        """Dispatch a ``kind`` event of ``session`` (built only when someone listens:
        ``HookEngine.fire``); its decision."""
        fired = await self.engine.fire(session.scope, kind, **fields)
        return NO_DECISION if fired is None else fired.decision

    async def loaded(
        self,
        session: Session,
        files: Sequence[tuple[Instruction, str | None]],
        reason: Literal["session_start", "path_glob_match"],
    ) -> None:
        """Fire InstructionsLoaded for each file (with the path that matched, for a rule; an
        ``@path`` import with ``include`` and the file that imports it)."""
        for file, trigger in files:
            parent = None if file.parent is None else str(file.parent)
            await self.fire(
                session,
                InstructionsLoaded,
                file_path=str(file.path),
                memory_type=file.memory_type,
                load_reason=reason if parent is None else "include",
                globs=list(file.globs) or None,
                trigger_file_path=trigger,
                parent_file_path=parent,
            )


class Stores:
    """The store sessions (and the audit) are kept in: the one given, or the one a URL, a path
    or the default names, opened on first use and closed by ``close`` (opened again on the next
    use)."""

    def __init__(self, given: SessionStore | str | None, opener: Opener) -> None:
        self.given, self.opener = given, opener
        self._opened: SessionStore | None = None

    def get(self, state_dir: Path) -> SessionStore:
        """The store, opened now if it is named and not open."""
        if self.given is not None and not isinstance(self.given, str):
            return self.given
        if self._opened is None:
            self._opened = open_named(self.given, state_dir, self.opener)
        return self._opened

    def current(self) -> SessionStore | None:
        """The store if it is given or open, without opening one."""
        if self.given is not None and not isinstance(self.given, str):
            return self.given
        return self._opened

    def close(self) -> None:
        """Close the store opened here (one given is its owner's)."""
        opened, self._opened = self._opened, None
        if opened is not None:
            opened.close()
