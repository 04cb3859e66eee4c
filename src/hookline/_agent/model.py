"""The model seam: anything with ``complete(messages, tools)`` can drive the agent loop.

A client is one async method (and a ``name`` the transcript records). What the loop promises
every client, and the shapes it passes, are written down in ``docs/models.md``. Two optional
extras a client may have, each found by looking, so a client without them still works:

- ``on_text``: a callable the client calls with each piece of its text as it arrives
  (``StreamingModelClient``); the CLI sets it to print the text while the model writes it.
- ``async aclose()``: called when the agent closes, to release connections opened on the
  event loop that is ending.

A model named by a string (``Agent.switch_model("anthropic:claude-sonnet-4-5")``, a ``--model``
value) becomes a client through the agent's runtime's resolver (by default
``hookline.models._choice.model_from_spec``, in the plug-in layer beside the agent's): ``named``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from hookline._errors import ConfigError

if TYPE_CHECKING:
    from hookline._agent.messages import Message

#: Receives one piece of the model's text, as soon as it arrives.
TextSink = Callable[[str], None]


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


@runtime_checkable
class StreamingModelClient(ModelClient, Protocol):
    """A model that shows its text as it arrives: before ``complete`` returns, it calls
    ``on_text`` (when set) with each piece, in order; the pieces joined are the text of the
    message it returns."""

    on_text: TextSink | None


#: Turns a model name into a client.
Resolver = Callable[[str], ModelClient]


def named(spec: str, resolver: Resolver) -> ModelClient:
    """The client ``spec`` names, through ``resolver`` (the agent's runtime's); a ConfigError
    for an empty name."""
    if not spec.strip():
        raise ConfigError("the model name is empty", key="model", fix="name a model")
    return resolver(spec)
