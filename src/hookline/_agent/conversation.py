"""What an agent is made of: the parts its conversations share, and one conversation.

    Shared          made once with the agent: its hook registry, runtime (HTTP clients, how
                    stores and models are opened, the audit plug-in), what hooks may reach, its
                    observers, its store (opened on first use), MCP servers and subagent types
    the agent       its model, options, tools and permission step, over those parts: a
                    subagent has a toolbox and permission scope of its own; ``conversation()``
                    makes another agent on the same parts
    Conversation    one session: the session itself (id, messages, transcript, shell, grants),
                    the instruction files found for it, the files it watches, its idle timer
                    and what SessionStart said of it

An agent replaces its conversation in one place (``Agent._converse``): ``clear``, ``resume``
and choosing a session before the first prompt (``hookline._agent.sessions``) each start a new
one; a subagent starts with one of its own. Nothing is copied field by field from one agent to
another: what is shared is one ``Shared`` object, what is not is made anew.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hookline._agent.store import SessionStore, open_named
from hookline._agent.told import Observers
from hookline._decisions import NO_DECISION, Decision

if TYPE_CHECKING:
    from pathlib import Path

    from hookline._agent.instructions import Instructions
    from hookline._agent.loop import Agent
    from hookline._agent.runtime import Runtime
    from hookline._agent.session import Session
    from hookline._agent.store import Opener
    from hookline._agent.subagent_types import Subagents
    from hookline._agent.watch import Idle, Watches
    from hookline._hooks.registry import HookRegistry
    from hookline._hooks.resources import HookResources
    from hookline.mcp import McpServers


@dataclass(eq=False)
class Conversation:
    """One session of an agent, and what belongs to it alone."""

    session: Session
    #: The project's instruction files and skills, in the model's context (advisory).
    instructions: Instructions
    #: What the agent looks at between steps: watched files and settings (agent.watch).
    watches: Watches
    #: Notification ``idle_prompt`` while it waits for the next prompt.
    idle: Idle
    #: A SessionStart hook's ``continue: false``: the first prompt ends before the model.
    start_stopped: Decision = NO_DECISION


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
    observers: Observers = field(default_factory=Observers)
    #: The subagents the Agent tool may start.
    subagents: Subagents | None = None
    #: MCP servers, once made (``Agent.mcp``): an agent without any imports nothing of MCP.
    mcp: McpServers | None = None
    #: The agent that made them, which closes them (``Agent.conversation`` makes others).
    owner: Agent | None = None


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
