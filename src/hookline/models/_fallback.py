"""A model with a second one to fall back on: the Agent SDK's ``fallback_model``.

When the primary model's call fails for good (a ``ModelError``: it kept failing after its
client's retries, was refused, or could not be reached), the same request goes to the fallback,
once; the log says so. If that fails too, its error is the call's. Streamed text goes to whoever
is listening whichever model answers.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from hookline._errors import ModelError

if TYPE_CHECKING:
    from hookline._agent.messages import Message
    from hookline._agent.model import ModelClient, TextSink

logger = logging.getLogger(__name__)


class FallbackModel:
    """``primary``, and ``fallback`` for a request ``primary`` fails; named as ``primary``."""

    def __init__(self, primary: ModelClient, fallback: ModelClient) -> None:
        self.primary, self.fallback = primary, fallback
        self.name = primary.name

    @property
    def on_text(self) -> TextSink | None:
        return getattr(self.primary, "on_text", None)

    @on_text.setter
    def on_text(self, sink: TextSink | None) -> None:
        for model in (self.primary, self.fallback):
            if hasattr(model, "on_text"):
                model.on_text = sink

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[dict[str, Any]],
        *,
        system: str | None = None,
    ) -> Message:
        try:
            return await self.primary.complete(messages, tools, system=system)
        except ModelError as exc:
            logger.warning("%s failed (%s); asking %s instead", self.name, exc, self.fallback.name)
            return await self.fallback.complete(messages, tools, system=system)

    async def aclose(self) -> None:
        for model in (self.primary, self.fallback):
            close = getattr(model, "aclose", None)
            if close is not None:
                await close()
