"""The model seam: anything with ``complete(messages, tools)`` can drive the agent loop."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from hookline.agent.messages import Message


@runtime_checkable
class ModelClient(Protocol):
    """A chat model. ``complete`` returns the assistant's next message (text and/or tool calls)."""

    name: str

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[dict[str, Any]],
        *,
        system: str | None = None,
    ) -> Message: ...
