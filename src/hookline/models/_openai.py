"""A client for OpenAI-compatible chat completions with tool calling, on the official SDK.

Configured by ``OPENAI_BASE_URL``, ``OPENAI_API_KEY`` and ``OPENAI_MODEL`` (or the same as
arguments), so it also drives vLLM, Ollama, LiteLLM and other servers that speak the API. The
conversation is hookline's (Anthropic-shaped blocks); here it becomes chat messages:

- an assistant message: its text as ``content``, its tool calls as ``tool_calls`` (the input
  as JSON text in ``function.arguments``);
- a user message: each tool result as a ``tool`` message (right after the calls, as the API
  requires), then its text, if any, as one ``user`` message;
- the system prompt: a first ``system`` message; the tool specs: ``function`` tools.

Streamed, the text goes to ``on_text`` as it comes and each tool call's arguments are put
together from their fragments, by the call's ``index``. Usage: ``input_tokens`` counts the
prompt tokens the server did not read from its cache; those are ``cache_read_input_tokens``.

The request goes out through the SDK's ``client.post`` (its documented way to send a body as
it is), with the SDK's connection pool, retries, errors and server-sent-event parsing, and the
answer comes back as the JSON it is (``cast_to=object``), read with ``hookline.models._partial``'s
readers. ``chat.completions.create`` would first walk every message of the conversation against
the SDK's typed dicts on each call, so a run's cost would grow with its length; and building the
SDK's typed model of each streamed chunk costs more CPU than the rest of the request.

Needs ``pip install 'hookline[openai]'``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar

from hookline._agent.messages import Block, Message, TextBlock, ToolResultBlock, Usage
from hookline._tools.base import ToolCall
from hookline.models._failures import garbled
from hookline.models._history import History
from hookline.models._partial import Reply, count, fresh_id, obj, objs, string, tool_input
from hookline.models._providers import OPENAI
from hookline.models._remote import RemoteModel

try:
    import httpx2
    import openai
except ModuleNotFoundError:  # the optional extra is missing: said when a client is made
    openai = None  # type: ignore[assignment]
    httpx2 = None  # type: ignore[assignment]

if TYPE_CHECKING:
    from openai import AsyncOpenAI

#: Where a streamed reply keeps its text, and its tool calls (by index), in message order.
_TEXT, _CALLS = 0, 1
#: The SDK's stream of server-sent events, each chunk handed over as the JSON it is.
_Chunks = openai.AsyncStream[object] if openai is not None else None


class OpenAIModel(RemoteModel["AsyncOpenAI"]):
    """A model behind an OpenAI-compatible ``/chat/completions`` endpoint."""

    provider = OPENAI
    sdk: ClassVar[ModuleType | None] = openai
    http: ClassVar[ModuleType | None] = httpx2
    client_class = "AsyncOpenAI"

    def __init__(self, model: str | None = None, **options: Any) -> None:
        super().__init__(model, **options)
        self._history = History(chat_message)
        self._tools_in: Sequence[dict[str, Any]] | None = None
        self._tools_out: list[dict[str, Any]] = []

    def _arguments(
        self, messages: Sequence[Message], tools: Sequence[dict[str, Any]], system: str | None
    ) -> dict[str, Any]:
        system_message = [{"role": "system", "content": system}] if system else []
        arguments: dict[str, Any] = {
            "model": self.endpoint.model,
            "messages": system_message + self._history(messages),
        }
        if tools:
            arguments["tools"] = self._functions(tools)
        return arguments

    def _functions(self, tools: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """The tool specs as ``function`` tools; the loop passes the same list every call."""
        if tools is not self._tools_in:
            self._tools_in, self._tools_out = tools, [function_tool(t) for t in tools]
        return self._tools_out

    async def _whole(
        self,
        client: AsyncOpenAI,
        messages: Sequence[Message],
        tools: Sequence[dict[str, Any]],
        system: str | None,
    ) -> Message:
        body = self._arguments(messages, tools, system)
        completion = await client.post("/chat/completions", body=body, cast_to=object)
        choices = objs(obj(completion).get("choices"))
        if not choices:
            raise garbled(self.endpoint, "the completion has no choices")
        message = obj(choices[0].get("message"))
        text = string(message.get("content"))
        calls = tuple(
            ToolCall(
                string(call.get("id")) or fresh_id(),
                string(obj(call.get("function")).get("name")),
                tool_input(obj(call.get("function")).get("arguments")),
            )
            for call in objs(message.get("tool_calls"))
        )
        content: tuple[Block, ...] = ((TextBlock(text),) if text else ()) + calls
        return Message("assistant", content, usage=_usage(completion))

    async def _streamed(
        self,
        client: AsyncOpenAI,
        messages: Sequence[Message],
        tools: Sequence[dict[str, Any]],
        system: str | None,
    ) -> Message:
        body = self._arguments(messages, tools, system)
        body.update(stream=True, stream_options={"include_usage": True})
        reply, answered = Reply(self.on_text), False
        stream: Any = await client.post(
            "/chat/completions", body=body, cast_to=object, stream=True, stream_cls=_Chunks
        )
        async with stream:
            async for chunk in stream:
                reply.usage = _usage(chunk) or reply.usage
                for choice in objs(obj(chunk).get("choices")):
                    if choice.get("index", 0) in (0, None):
                        answered = True
                        _add_delta(reply, obj(choice.get("delta")))
        if not answered:
            raise garbled(self.endpoint, "the stream ended without an answer")
        return reply.message()


def _add_delta(reply: Reply, delta: dict[str, Any]) -> None:
    """One chunk's piece of text and of each tool call it carries."""
    reply.text((_TEXT, 0), string(delta.get("content")))
    for part in objs(delta.get("tool_calls")):
        index = part.get("index")
        if not isinstance(index, int):  # unnumbered: a new call when it has an id
            known = sum(1 for key in reply.blocks if key[0] == _CALLS)
            index = known if part.get("id") or not known else known - 1
        call = reply.call((_CALLS, index))
        call.id = call.id or string(part.get("id"))
        function = obj(part.get("function"))
        call.name = call.name or string(function.get("name"))
        fragment = string(function.get("arguments"))
        if fragment:
            call.parts.append(fragment)


def chat_message(message: Message) -> list[dict[str, Any]]:
    """One message as the chat-completion messages it becomes (the module docstring says
    how)."""
    return [_assistant(message)] if message.role == "assistant" else _user(message)


def _assistant(message: Message) -> dict[str, Any]:
    calls = message.tool_calls
    said: dict[str, Any] = {"role": "assistant", "content": message.text or None}
    if calls:
        said["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": json.dumps(call.input)},
            }
            for call in calls
        ]
    elif said["content"] is None:
        said["content"] = ""
    return said


def _user(message: Message) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [
        {"role": "tool", "tool_call_id": block.tool_use_id, "content": block.content}
        for block in message.content
        if isinstance(block, ToolResultBlock)
    ]
    texts = [block.text for block in message.content if isinstance(block, TextBlock)]
    if texts or not out:
        out.append({"role": "user", "content": "\n\n".join(texts)})
    return out


def function_tool(spec: dict[str, Any]) -> dict[str, Any]:
    """A hookline tool spec (name, description, input_schema) as a ``function`` tool."""
    return {
        "type": "function",
        "function": {
            "name": spec["name"],
            "description": spec.get("description", ""),
            "parameters": spec.get("input_schema", {"type": "object", "properties": {}}),
        },
    }


def _usage(answer: object) -> Usage | None:
    """The usage a completion or a chunk reports, if any."""
    usage = obj(answer).get("usage")
    if not isinstance(usage, dict):
        return None
    prompt = count(usage.get("prompt_tokens"))
    cached = count(obj(usage.get("prompt_tokens_details")).get("cached_tokens"))
    return Usage(
        input_tokens=max(prompt - cached, 0),
        output_tokens=count(usage.get("completion_tokens")),
        cache_read_input_tokens=cached,
    )
