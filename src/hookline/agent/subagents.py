"""Subagents: the Agent tool runs a child loop with a prompt, tools and conversation of its own.

    Agent call            PreToolUse, the permission layer, ... as for any call; then its body:
      SubagentStart       its hooks' context opens the subagent's conversation (and no other)
      model -> tools ...  the agent's own loop, hooks, permission layer and observers; every
                          event carries the agent's session_id and transcript_path, and the
                          subagent's agent_id and agent_type
      SubagentStop        deny: keep working, the reason its next instruction (the Stop cap holds)
    the call's result     the subagent's final message, or an error saying why it stopped

Foreground, deliberately: Claude Code starts subagents in the background by default (the call
answers at once and a later turn brings the result); hookline runs the subagent to its end
inside the Agent call, so a run is deterministic and its audit reads in order. Agent calls of
one batch run one after another.

What a subagent cannot do: start subagents (it has no Agent tool), or pause the run: the parent
is in the middle of a tool call, so a call that would wait for an answer (a hook's defer, an ask
nobody can answer now) is refused instead, saying why (fail closed). It is not checkpointed, and
its messages stay out of the parent's conversation: its transcript is
``<transcripts>/<session_id>/subagents/agent-<agent_id>.jsonl`` (SubagentStop's
``agent_transcript_path``). Its Bash shell starts where the parent's is, and moves on its own.
Files and settings are the session's: the main conversation looks at them (FileChanged,
ConfigChange) before its next request, and late context from background hooks goes to it too.

When it goes wrong (its model fails, it uses up its model calls, a hook stops it, SubagentStop
hooks block past the cap, its code raises), the Agent call fails with ``subagent stopped
(<reason>): <detail>``, which the parent's model reads; the parent's run goes on.
"""

from __future__ import annotations

import secrets
from dataclasses import replace
from time import perf_counter
from typing import TYPE_CHECKING, Any

from pydantic import Field

from hookline._support.private import private_dir
from hookline._support.stream import Stream
from hookline.agent import turns
from hookline.agent.conversation import Conversation, Seat
from hookline.agent.loop import Agent
from hookline.agent.messages import Message, Usage
from hookline.agent.replies import contexts
from hookline.agent.session import Session
from hookline.agent.state import Turn
from hookline.agent.subagent_types import (
    AGENT_TOOL,
    GENERAL_PURPOSE,
    AgentDefinition,
    Subagents,
    offer,
)
from hookline.agent.transcript import Transcript
from hookline.agent.watch import Idle, Watches
from hookline.errors import RecordError, ToolError
from hookline.events import Scope, SubagentStart, SubagentStop
from hookline.tools.base import ToolContext
from hookline.tools.builtin._common import BuiltinTool, ToolInput
from hookline.tools.permit import Outcome, Permit
from hookline.tools.pipeline import ToolPipeline

if TYPE_CHECKING:
    from hookline.permissions.session import SessionGrant

__all__ = ["AgentDefinition", "AgentTool", "Subagent", "Subagents", "offer"]

DESCRIPTION = """\
Start a subagent on a task. It sees only the prompt you give it (nothing else of this \
conversation), works with its own tools until it is done, and its final message comes back as \
this tool's result. It cannot ask you anything, so write the prompt as a full briefing: the \
goal, what you know, and what to report back. Use it for searches and multi-step work whose \
details would crowd this conversation.

Available agent types (subagent_type) and the tools they have:
"""


class AgentInput(ToolInput):
    description: str = Field(min_length=1, description="A short (3-5 word) name for the task.")
    prompt: str = Field(min_length=1, description="The task, in full, for the subagent.")
    subagent_type: str = Field(
        default=GENERAL_PURPOSE, min_length=1, description="The type of subagent, as listed."
    )
    model: str | None = Field(
        default=None, description="Accepted as in Claude Code; a subagent uses your own model."
    )


class AgentTool(BuiltinTool[AgentInput]):
    """The Agent tool: runs a subagent of the type asked for, to its end."""

    name = AGENT_TOOL
    input_model = AgentInput
    #: It only delegates: every call the subagent makes meets the hooks and rules itself.
    read_only = True
    #: The subagent's own limits bound it (its model calls, each of its tools' timeouts).
    timeout = None

    def __init__(self, agent: Agent, types: Subagents) -> None:
        self.agent, self.types = agent, types
        self.description = DESCRIPTION + types.listing()

    def prepare(self, raw: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        """The input with the type that will run spelled out: hooks and rules such as
        ``Agent(general-purpose)`` judge it even when the model left the type out."""
        prepared = super().prepare(raw, ctx)
        prepared.setdefault("subagent_type", GENERAL_PURPOSE)
        return prepared

    async def execute(self, tool_input: dict[str, Any], ctx: ToolContext) -> Any:
        args = self.parse(tool_input)
        definition = self.types.get(args.subagent_type)
        if definition is None:
            known = ", ".join(self.types.types)
            raise ToolError(
                f"Agent type '{args.subagent_type}' not found. Available agents: {known}"
            )
        began = perf_counter()
        try:
            child = Subagent(self.agent, args.subagent_type, definition)
            turn = await child.answer(args.prompt)
        except RecordError:
            raise  # the session's record failed: the whole run stops, as it would outside
        except Exception as exc:  # its code failed: the parent's model is told, its run goes on
            raise ToolError(f"subagent stopped (crashed): {type(exc).__name__}: {exc}") from exc
        if turn.stop_reason != "end_turn":
            raise ToolError(_stopped(turn))
        return _report(child, args.prompt, turn, perf_counter() - began)

    def render(self, output: Any) -> str:
        """The subagent's final message: what the parent's model reads."""
        texts = [block["text"] for block in output["content"] if block.get("type") == "text"]
        return "\n".join(texts) or "(the subagent gave no final message)"


class Subagent(Agent):
    """A subagent: its agent's loop, model, hooks, runtime, permission layer, observers and
    instruction files, on a conversation, toolbox, system prompt and transcript of its own."""

    def __init__(self, parent: Agent, agent_type: str, definition: AgentDefinition) -> None:
        # Not a new agent: the same shared parts (``hookline.agent.conversation.Shared``),
        # model and hook engine as its parent, with options, tools, a stream, a permission step
        # that cannot wait and a conversation of its own. Each is named here: nothing of the
        # parent is copied.
        self.agent_id = "a" + secrets.token_hex(8)  # as Claude Code's: "a" and 16 hex digits
        options = replace(
            parent.options,
            system_prompt=definition.prompt,
            max_turns=definition.maxTurns or parent.options.max_turns,
            checkpoint=False,
        )
        tools = definition.toolbox(parent.tools)
        engine = parent.engine  # its hooks run, and are told, as its session's
        stream = Stream()  # its tool starts, results and messages are told as its session's
        permit = _Undeferred(parent.pipeline.permit)
        pipeline = ToolPipeline(tools, engine, permit, limits=parent.pipeline.limits, stream=stream)
        shared = parent._seat.shared
        self._seat = Seat(shared, parent.model, options, tools, stream, engine, pipeline)
        session = _conversation(parent.session, self.agent_id, agent_type)
        self._conversation = Conversation(
            session,
            parent.instructions,
            _Unwatched(),
            Idle(None),
            asks_stop=SubagentStop,
            takes_late_notes=False,  # what background hooks say is for the main conversation
        )

    async def answer(self, prompt: str) -> Turn:
        """Work on ``prompt`` until done or stopped; the turn says which."""
        detach = self.observers.attach(self.stream, self)
        seat, talk = self._seat, self._conversation
        try:
            started = await seat.fire(talk.session, SubagentStart)
            seat.add(talk.session, Message.user(*contexts("SubagentStart", started), prompt))
            turn = Turn(prompt)
            await turns.work(seat, talk, turn)
        finally:
            detach()
            self.session.transcript.close()
        return turn

    async def close(self, reason: str = "other") -> None:
        """Nothing: its runtime, MCP servers and store are its parent's, which closes them
        (its transcript is closed when ``answer`` ends)."""


class _Undeferred(Permit):
    """The agent's permission step for a subagent's calls, but no call can wait for an answer
    (the parent is inside a tool call): a defer becomes a deny that says so."""

    def __init__(self, parent: Permit) -> None:
        super().__init__(parent.engine, policy=parent.policy, approver=parent.approver)
        self.parent = parent  # its requests and answers are told on the agent's stream

    def grant(self, grant: SessionGrant) -> None:
        """An allow for the rest of the session is the session's: the parent's permit takes
        it (and the agent keeps it), and this one follows."""
        self.parent.grant(grant)
        self.policy = self.parent.policy

    async def decide(self, *args: Any, **kwargs: Any) -> Outcome:
        if self.policy is not self.parent.policy:  # the session was granted something
            self.policy = self.parent.policy
        outcome = await super().decide(*args, **kwargs)
        if outcome.permission != "defer":
            return outcome
        why = (
            f"{outcome.reason or 'the call was deferred'}; a call inside a subagent cannot wait "
            "for an answer, so it was refused"
        )
        return replace(outcome, permission="deny", reason=why, content=why)


class _Unwatched(Watches):
    """What a subagent looks at between its steps: nothing. Files and settings belong to the
    session: the main conversation looks at them before its next request, right after the Agent
    call, so a change made in a subagent fires its hooks once, there, and a refused ConfigChange
    ends the whole run, not the subagent alone."""

    def __init__(self) -> None:  # nothing to look at, so nothing of Watches' own state
        pass

    async def check(self, scope: Scope) -> str | None:
        return None


def _conversation(parent: Session, agent_id: str, agent_type: str) -> Session:
    """The subagent's session: the parent's id, folders and sandbox, its own transcript, a scope
    carrying its id and type, and a shell that starts where the parent's is."""
    path = parent.transcript.path.with_suffix("") / "subagents" / f"agent-{agent_id}.jsonl"
    private_dir(path.parent)
    transcript = Transcript(path, session_id=parent.id, cwd=str(parent.cwd), agent_id=agent_id)
    session = Session(
        id=parent.id,
        cwd=parent.cwd,
        state_dir=parent.state_dir,
        workspace=parent.workspace,
        transcript=transcript,
        scope=replace(parent.scope, agent_id=agent_id, agent_type=agent_type),
        started=True,
        sandbox=parent.sandbox,
    )
    session.shell.follow(str(parent.shell.cwd))
    return session


def _stopped(turn: Turn) -> str:
    """Why a subagent did not finish, for the parent's model, with its last words if any."""
    said = f"subagent stopped ({turn.stop_reason}): {turn.detail or 'no reason given'}"
    return f"{said}\nIts last message: {turn.final_text}" if turn.final_text else said


def _report(child: Subagent, prompt: str, turn: Turn, took: float) -> dict[str, Any]:
    """The Agent call's ``tool_response``, shaped as Claude Code's for a finished subagent."""
    usage = (turn.usage or Usage()).to_dict()
    return {
        "status": "completed",
        "prompt": prompt,
        "agentId": child.agent_id,
        "content": [{"type": "text", "text": turn.final_text}],
        "resolvedModel": child.model.name,
        "totalDurationMs": int(took * 1000),
        "totalTokens": sum(usage.values()),
        "totalToolUseCount": len(turn.calls),
        "usage": usage,
    }
