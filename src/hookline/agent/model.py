"""The model seam: anything with ``complete(messages, tools)`` can drive the agent loop.

A client is one async method (and a ``name`` the transcript records). What the loop promises
every client, and the shapes it passes, are written down in ``docs/models.md``. Two optional
extras a client may have, each found by looking, so a client without them still works:

- ``on_text``: a callable the client calls with each piece of its text as it arrives
  (``StreamingModelClient``); the CLI sets it to print the text while the model writes it.
- ``async aclose()``: called when the agent closes, to release connections opened on the
  event loop that is ending.

A model named by a string (``Agent.switch_model("anthropic:claude-sonnet-4-5")``, a ``--model``
value) becomes a client through the agent's runtime's resolver, or else the one the hookline
package plugs in once (``hookline.models.choice.model_from_spec``, in a layer above the
agent's): ``named``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from hookline.agent.plug import Plug
from hookline.errors import ConfigError

if TYPE_CHECKING:
    from hookline.agent.messages import Message

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
#: The default resolver, plugged in once by the ``hookline`` package.
_RESOLVER: Plug[Resolver] = Plug("model resolver", "install_resolver")


def install_resolver(resolver: Resolver) -> None:
    """Plug in the default way a model name becomes a client (the hookline package does): once."""
    _RESOLVER.plug(resolver)


def named(spec: str, resolver: Resolver | None = None) -> ModelClient:
    """The client ``spec`` names, through ``resolver`` (None: the default one); a ConfigError
    without any."""
    if not spec.strip():
        raise ConfigError("the model name is empty", key="model", fix="name a model")
    resolver = resolver or _RESOLVER.value
    if resolver is None:
        raise ConfigError(
            f"nothing turns the model name {spec!r} into a client here",
            key="model",
            fix="import hookline first, or pass a ModelClient",
        )
    return resolver(spec)
