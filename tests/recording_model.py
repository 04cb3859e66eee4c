"""A scripted model that keeps every request it is sent, for tests that check what the model
was shown, offered and told (the conversation, the tool names, the system prompt); and a model
held until the test lets it answer, for tests of a judge that overruns its timeout."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any, NamedTuple

from hookline import Message, ScriptedModel
from hookline._agent.messages import TextBlock


class Request(NamedTuple):
    """One model request, whole: the conversation, the tools offered, the system prompt."""

    messages: list[Message]
    tools: list[str]
    system: str | None

    def shows(self, text: str) -> bool:
        return text in json.dumps([m.to_dict() for m in self.messages])

    def texts(self) -> list[str]:
        """Every text block of the conversation, in order."""
        return [b.text for m in self.messages for b in m.content if isinstance(b, TextBlock)]


class RecordingModel(ScriptedModel):
    """The scripted model, keeping each request in ``seen`` before it answers."""

    def __init__(self, turns: Sequence[dict[str, Any]]) -> None:
        super().__init__(list(turns))
        self.seen: list[Request] = []

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[dict[str, Any]],
        *,
        system: str | None = None,
    ) -> Message:
        self.record(messages, tools, system)
        return await super().complete(messages, tools, system=system)

    def record(
        self, messages: Sequence[Message], tools: Sequence[dict[str, Any]], system: str | None
    ) -> None:
        """Keep a request: a subclass that fails a call instead of answering still keeps it."""
        self.seen.append(Request(list(messages), [t["name"] for t in tools], system))

    @property
    def systems(self) -> list[str | None]:
        """The system prompt of each request."""
        return [r.system for r in self.seen]

    @property
    def tools(self) -> list[list[str]]:
        """The tool names each request offered, in the order offered."""
        return [r.tools for r in self.seen]


class HeldModel:
    """A model that answers ``answer`` only once ``release`` is set, counting the calls."""

    name = "held"

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.release = asyncio.Event()
        self.asked = 0

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[dict[str, Any]],
        *,
        system: str | None = None,
    ) -> Message:
        self.asked += 1
        await self.release.wait()
        return Message.assistant(self.answer)
