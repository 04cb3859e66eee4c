"""The OpenAI, Anthropic and Gemini wire formats of an answer, as the providers document them.

What a server that stands in for one of these APIs sends back: ``openai_completion`` (a whole
``chat.completion``) and ``openai_chunks`` (a streamed one: ``data: {...}`` events ending with
``data: [DONE]``); ``anthropic_message`` (a whole ``message``) and ``anthropic_events`` (a streamed
one: ``message_start``, ``content_block_start``, ``content_block_delta``, ``content_block_stop``,
``message_delta``, ``message_stop``); ``responses_events`` (a streamed OpenAI Responses API
answer, what Codex CLI reads: ``response.created``, one ``response.output_item.done`` per message
or function call, ``response.completed``); ``gemini_response`` (a whole Gemini
``GenerateContentResponse``) and ``gemini_events`` (a streamed one: ``data:`` chunks of it, what
Gemini CLI reads). ``hookline model-server`` answers with them
(``hookline.models._serve``); the model-client tests build their servers' answers with them too.

A tool call is ``(id, name, fragments)``: its input's JSON text, in the pieces a stream sends it
in (a whole answer joins them). Usage is ``(input, output, cached)`` tokens.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Final

#: One tool call: its id, its name, and its input's JSON text in fragments.
Call = tuple[str, str, Sequence[str]]
Usage = tuple[int, int, int]
DEFAULT_USAGE: Final = (11, 7, 3)
DEFAULT_MODEL: Final = "test-model"


def sse(data: Any, event: str | None = None) -> bytes:
    """One server-sent event: ``event:`` (if any) and one ``data:`` line of JSON (or bytes)."""
    line = b"data: " + (data if isinstance(data, bytes) else json.dumps(data).encode())
    return (f"event: {event}\n".encode() if event else b"") + line + b"\n\n"


def fragments(text: str, size: int = 3) -> list[str]:
    """``text`` cut into pieces of ``size`` characters: a tool input split across deltas."""
    return [text[i : i + size] for i in range(0, len(text), size)]


# -- OpenAI chat completions -------------------------------------------------------------------


def openai_completion(
    text: str | None = None,
    calls: Sequence[Call] = (),
    usage: Usage = DEFAULT_USAGE,
    *,
    model: str = DEFAULT_MODEL,
) -> dict[str, Any]:
    """A whole ``chat.completion``."""
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = [
            {"id": i, "type": "function", "function": {"name": n, "arguments": "".join(a)}}
            for i, n, a in calls
        ]
    finish = "tool_calls" if calls else "stop"
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": _openai_usage(usage),
    }


def openai_chunks(
    pieces: Sequence[str] = (),
    calls: Sequence[Call] = (),
    usage: Usage | None = DEFAULT_USAGE,
    *,
    model: str = DEFAULT_MODEL,
) -> list[bytes]:
    """A streamed completion: the text in ``pieces``, then each call's arguments fragment by
    fragment (id and name in its first delta only, as OpenAI sends them), then the finish,
    the usage chunk (when asked for: ``stream_options.include_usage``) and ``[DONE]``."""
    deltas: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]
    deltas += [{"content": piece} for piece in pieces]
    for index, (call_id, name, parts) in enumerate(calls):
        first = {"index": index, "id": call_id, "type": "function"}
        deltas.append({"tool_calls": [{**first, "function": {"name": name, "arguments": ""}}]})
        deltas += [
            {"tool_calls": [{"index": index, "function": {"arguments": part}}]} for part in parts
        ]
    finish = "tool_calls" if calls else "stop"
    chunks = [_chunk(model, [{"index": 0, "delta": d, "finish_reason": None}]) for d in deltas]
    chunks.append(_chunk(model, [{"index": 0, "delta": {}, "finish_reason": finish}]))
    if usage is not None:
        chunks.append(_chunk(model, [], usage=_openai_usage(usage)))
    return [*(sse(c) for c in chunks), sse(b"[DONE]")]


def openai_error(message: str, kind: str = "invalid_request_error") -> dict[str, Any]:
    """The body of an OpenAI error answer."""
    return {"error": {"message": message, "type": kind, "code": None}}


def _chunk(model: str, choices: list[dict[str, Any]], **more: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": model,
        "choices": choices,
        **more,
    }


def _openai_usage(usage: Usage) -> dict[str, Any]:
    prompt, completion, cached = usage
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": cached},
    }


# -- Anthropic messages ------------------------------------------------------------------------


def anthropic_message(
    text: str | None = None,
    calls: Sequence[Call] = (),
    usage: Usage = DEFAULT_USAGE,
    *,
    model: str = DEFAULT_MODEL,
) -> dict[str, Any]:
    """A whole ``message``."""
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    content += [
        {"type": "tool_use", "id": i, "name": n, "input": json.loads("".join(a))}
        for i, n, a in calls
    ]
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": "tool_use" if calls else "end_turn",
        "stop_sequence": None,
        "usage": _anthropic_usage(usage),
    }


def anthropic_events(
    pieces: Sequence[str] = (),
    calls: Sequence[Call] = (),
    usage: Usage = DEFAULT_USAGE,
    *,
    stop: bool = True,
    model: str = DEFAULT_MODEL,
) -> list[bytes]:
    """A streamed message: a text block in ``pieces``, then one tool_use block per call with
    its input in ``input_json_delta`` fragments; ``stop=False`` leaves out ``message_stop``."""
    start = anthropic_message(usage=(usage[0], 1, usage[2]), model=model)
    events = [sse({"type": "message_start", "message": start}, "message_start")]
    blocks: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
    if pieces:
        deltas = [{"type": "text_delta", "text": piece} for piece in pieces]
        blocks.append(({"type": "text", "text": ""}, deltas))
    for call_id, name, parts in calls:
        block = {"type": "tool_use", "id": call_id, "name": name, "input": {}}
        blocks.append((block, [{"type": "input_json_delta", "partial_json": p} for p in parts]))
    for index, (block, deltas) in enumerate(blocks):
        started = {"type": "content_block_start", "index": index, "content_block": block}
        events.append(sse(started, "content_block_start"))
        events += [
            sse({"type": "content_block_delta", "index": index, "delta": d}, "content_block_delta")
            for d in deltas
        ]
        events.append(sse({"type": "content_block_stop", "index": index}, "content_block_stop"))
    end = {"stop_reason": "tool_use" if calls else "end_turn", "stop_sequence": None}
    delta = {"type": "message_delta", "delta": end, "usage": {"output_tokens": usage[1]}}
    events.append(sse(delta, "message_delta"))
    if stop:
        events.append(sse({"type": "message_stop"}, "message_stop"))
    return events


def anthropic_error(message: str, kind: str = "invalid_request_error") -> dict[str, Any]:
    """The body of an Anthropic error answer."""
    return {"type": "error", "error": {"type": kind, "message": message}}


def _anthropic_usage(usage: Usage) -> dict[str, Any]:
    uncached, output, cached = usage
    return {
        "input_tokens": uncached,
        "output_tokens": output,
        "cache_read_input_tokens": cached,
        "cache_creation_input_tokens": 0,
    }


# -- OpenAI Responses ---------------------------------------------------------------------------


def responses_events(
    text: str | None = None, calls: Sequence[Call] = (), usage: Usage = DEFAULT_USAGE
) -> list[bytes]:
    """A streamed Responses API answer: a message with ``text`` and/or one ``function_call``
    item per call (its arguments joined), each whole in a ``response.output_item.done``."""
    items: list[dict[str, Any]] = []
    if text is not None:
        content = [{"type": "output_text", "text": text, "annotations": []}]
        items.append({"type": "message", "id": "msg_1", "role": "assistant", "content": content})
    items += [
        {"type": "function_call", "id": f"fc_{i}", "call_id": call_id, "name": name,
         "arguments": "".join(parts)}
        for i, (call_id, name, parts) in enumerate(calls, start=1)
    ]  # fmt: skip
    events = [sse({"type": "response.created", "response": {"id": "resp_1"}}, "response.created")]
    events += [
        sse({"type": "response.output_item.done", "output_index": i, "item": item},
            "response.output_item.done")
        for i, item in enumerate(items)
    ]  # fmt: skip
    uncached, output, cached = usage
    done = {"id": "resp_1", "usage": {
        "input_tokens": uncached + cached, "input_tokens_details": {"cached_tokens": cached},
        "output_tokens": output, "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": uncached + cached + output,
    }}  # fmt: skip
    events.append(sse({"type": "response.completed", "response": done}, "response.completed"))
    return events


# -- Gemini generateContent ---------------------------------------------------------------------


def gemini_response(
    text: str | None = None,
    calls: Sequence[Call] = (),
    usage: Usage = DEFAULT_USAGE,
    *,
    model: str = DEFAULT_MODEL,
) -> dict[str, Any]:
    """A whole ``GenerateContentResponse``: one candidate whose parts are ``text`` and one
    ``functionCall`` per call (its ``args`` the joined input)."""
    parts = [{"text": text}] if text else []
    return _gemini_chunk(parts + _function_calls(calls), model, usage, done=True)


def gemini_events(
    pieces: Sequence[str] = (),
    calls: Sequence[Call] = (),
    usage: Usage = DEFAULT_USAGE,
    *,
    model: str = DEFAULT_MODEL,
) -> list[bytes]:
    """A streamed answer (``:streamGenerateContent?alt=sse``): one chunk per text piece, then
    one with the function calls (Gemini sends each call whole), the last carrying the
    ``finishReason`` and the usage."""
    chunks = [[{"text": piece}] for piece in pieces]
    if calls or not chunks:
        chunks.append(_function_calls(calls))
    last = len(chunks) - 1
    return [
        sse(_gemini_chunk(parts, model, usage, done=n == last)) for n, parts in enumerate(chunks)
    ]


def gemini_error(message: str, status: str = "INVALID_ARGUMENT", code: int = 400) -> dict[str, Any]:
    """The body of a Google API error answer."""
    return {"error": {"code": code, "message": message, "status": status}}


def _function_calls(calls: Sequence[Call]) -> list[dict[str, Any]]:
    return [
        {"functionCall": {"id": i, "name": n, "args": json.loads("".join(a))}} for i, n, a in calls
    ]


def _gemini_chunk(
    parts: list[dict[str, Any]], model: str, usage: Usage, *, done: bool
) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    chunk: dict[str, Any] = {"candidates": [candidate], "modelVersion": model,
                             "responseId": "resp_1"}  # fmt: skip
    if done:
        uncached, output, cached = usage
        candidate["finishReason"] = "STOP"
        chunk["usageMetadata"] = {
            "promptTokenCount": uncached + cached, "candidatesTokenCount": output,
            "cachedContentTokenCount": cached, "totalTokenCount": uncached + cached + output,
        }  # fmt: skip
    return chunk
