"""A client for the Anthropic Messages API with tool use, on the official SDK.

Configured by ``ANTHROPIC_BASE_URL``, ``ANTHROPIC_API_KEY`` and ``ANTHROPIC_MODEL`` (or the
same as arguments). hookline's messages are already in this API's shape (text, tool_use and
tool_result blocks), so they go as they are; the system prompt is ``system`` and the tool specs
are ``tools``. ``max_tokens`` (which the API requires) defaults to ``DEFAULT_MAX_TOKENS``.

Streamed, the events are read as they come: ``message_start`` (input usage),
``content_block_start`` (a text or tool_use block at an index), ``content_block_delta``
(``text_delta`` to ``on_text``; ``input_json_delta``, whose ``partial_json`` fragments make the
tool input), ``content_block_stop``, ``message_delta`` (output usage) and ``message_stop``; a
stream that ends before ``message_stop`` is a ModelError, not a half message. Blocks of other
kinds (thinking, server tools) are left out.

As for OpenAI (``hookline.models._openai``), the request goes through the SDK's ``client.post``
and each answer or event comes back as the JSON it is, without the SDK's typed model of each
streamed event, which would add much of a call's CPU time.

Needs ``pip install 'hookline[anthropic]'``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar

from hookline._agent.messages import Message, TextBlock, Usage
from hookline.models._failures import broke_off, garbled
from hookline.models._history import History
from hookline.models._partial import Key, Reply, count, obj, objs, string
from hookline.models._providers import ANTHROPIC
from hookline.models._remote import RemoteModel

try:
    import anthropic
    import httpx2
except ModuleNotFoundError:  # the optional extra is missing: said when a client is made
    anthropic = None  # type: ignore[assignment]
    httpx2 = None  # type: ignore[assignment]

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic

#: The most tokens one answer may have, unless the client is given another ``max_tokens``.
DEFAULT_MAX_TOKENS = 8192
#: The SDK's stream of server-sent events, each event handed over as the JSON it is.
_Events = anthropic.AsyncStream[object] if anthropic is not None else None


class AnthropicModel(RemoteModel["AsyncAnthropic"]):
    """A model behind the Anthropic Messages API (``/v1/messages``)."""

    provider = ANTHROPIC
    sdk: ClassVar[ModuleType | None] = anthropic
    http: ClassVar[ModuleType | None] = httpx2
    client_class = "AsyncAnthropic"

    def __init__(
        self, model: str | None = None, *, max_tokens: int = DEFAULT_MAX_TOKENS, **options: Any
    ) -> None:
        super().__init__(model, **options)
        self.max_tokens = max_tokens
        self._history = History(lambda message: [_message(message)])

    def _arguments(
        self, messages: Sequence[Message], tools: Sequence[dict[str, Any]], system: str | None
    ) -> dict[str, Any]:
        arguments: dict[str, Any] = {
            "model": self.endpoint.model,
            "max_tokens": self.max_tokens,
            "messages": self._history(messages),
        }
        if system:
            arguments["system"] = system
        if tools:
            arguments["tools"] = list(tools)
        return arguments

    async def _whole(
        self,
        client: AsyncAnthropic,
        messages: Sequence[Message],
        tools: Sequence[dict[str, Any]],
        system: str | None,
    ) -> Message:
        body = self._arguments(messages, tools, system)
        answer = obj(await client.post("/v1/messages", body=body, cast_to=object))
        if not isinstance(answer.get("content"), list):
            raise garbled(self.endpoint, "the answer has no content")
        reply = Reply(None)
        for index, block in enumerate(objs(answer["content"])):
            _block(reply, (0, index), block)
        reply.usage = _usage(answer.get("usage"))
        return reply.message()

    async def _streamed(
        self,
        client: AsyncAnthropic,
        messages: Sequence[Message],
        tools: Sequence[dict[str, Any]],
        system: str | None,
    ) -> Message:
        body = self._arguments(messages, tools, system)
        body["stream"] = True
        reply, seen = Reply(self.on_text), set()
        stream: Any = await client.post(
            "/v1/messages", body=body, cast_to=object, stream=True, stream_cls=_Events
        )
        async with stream:
            async for event in stream:
                kind = obj(event).get("type")
                seen.add(kind)
                _read(reply, kind, obj(event))
        if "message_start" not in seen:
            raise garbled(self.endpoint, "the stream holds no message_start event")
        if "message_stop" not in seen:
            raise broke_off(self.endpoint, "the stream ended before message_stop")
        return reply.message()


def _read(reply: Reply, kind: object, event: dict[str, Any]) -> None:
    """One stream event into ``reply``."""
    if kind == "message_start":
        reply.usage = _usage(obj(event.get("message")).get("usage"))
    elif kind == "message_delta" and isinstance(event.get("usage"), dict):
        reply.usage = _usage(event["usage"], reply.usage)
    elif kind == "content_block_start":
        _block(reply, (0, count(event.get("index"))), obj(event.get("content_block")))
    elif kind == "content_block_delta":
        key, delta = (0, count(event.get("index"))), obj(event.get("delta"))
        if delta.get("type") == "text_delta":
            reply.text(key, string(delta.get("text")))
        elif delta.get("type") == "input_json_delta":
            reply.call(key).parts.append(string(delta.get("partial_json")))


def _block(reply: Reply, key: Key, block: dict[str, Any]) -> None:
    """A text or tool_use block, whole or as it starts; other kinds are left out."""
    if block.get("type") == "text":
        reply.text(key, string(block.get("text")))
    elif block.get("type") == "tool_use":
        call = reply.call(key)
        call.id, call.name = string(block.get("id")), string(block.get("name"))
        given = block.get("input")
        if given:  # streamed, it comes in deltas and this is {}; whole, it is here
            call.parts.append(json.dumps(given))


def _message(message: Message) -> dict[str, Any]:
    """A message as the API takes it: empty text blocks (which it refuses) left out."""
    blocks = [b for b in message.content if not (isinstance(b, TextBlock) and not b.text)]
    return {"role": message.role, "content": [b.to_dict() for b in blocks]}


def _usage(usage: object, before: Usage | None = None) -> Usage | None:
    """``usage`` read over ``before``: a ``message_delta`` gives the output so far and may
    leave the input counts out."""
    if not isinstance(usage, dict):
        return before
    base = before or Usage()

    def tokens(name: str, known: int) -> int:
        value = usage.get(name)
        return count(value) if value is not None else known

    return Usage(
        input_tokens=tokens("input_tokens", base.input_tokens),
        output_tokens=tokens("output_tokens", base.output_tokens),
        cache_read_input_tokens=tokens("cache_read_input_tokens", base.cache_read_input_tokens),
        cache_creation_input_tokens=tokens(
            "cache_creation_input_tokens", base.cache_creation_input_tokens
        ),
    )
