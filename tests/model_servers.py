"""Local HTTP servers that answer like the OpenAI and Anthropic APIs, for the model-client tests
and the bench.

``model_server(replies)`` starts one on 127.0.0.1 (``local_http.serve``: it stops by itself).
Each POST is recorded (``server.seen``: path, headers, JSON body) and answered with the next of
``replies``, the last one repeating, or with what ``replies(body)`` returns: ``Json`` (a status
and a JSON body), ``Events`` (a ``text/event-stream`` written event by event, HTTP/1.1 chunked,
keep-alive; ``hold`` makes it wait after that many events until ``server.proceed`` is set, and
``server.released`` says whether it was) or ``Raw`` (any bytes). ``server.busy`` sums the
seconds the server spent answering.

The builders write each wire format as the providers document it: ``openai_completion`` and
``openai_chunks`` (``data: {...}`` lines ending with ``data: [DONE]``), ``anthropic_message``
and ``anthropic_events`` (``message_start``, ``content_block_start``, ``content_block_delta``,
``content_block_stop``, ``message_delta``, ``message_stop``).

``ask(model)`` makes one call of either client on a fresh event loop, offering ``BASH``.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from time import perf_counter
from typing import Any

from hookline import Message
from hookline.models.remote import RemoteModel
from local_http import KeepAliveHandler, RecordingServer, as_path_headers_body, serve

#: The tool spec the client tests offer the model.
BASH = {"name": "Bash", "description": "Run a command.", "input_schema": {"type": "object"}}
#: One tool call as the builders take it: id, name, and its input's JSON in fragments.
Call = tuple[str, str, Sequence[str]]


@dataclass(frozen=True)
class Json:
    status: int
    body: Any
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Raw:
    status: int
    body: bytes
    content_type: str = "text/html"


@dataclass(frozen=True)
class Events:
    events: Sequence[bytes]
    #: Wait for ``server.proceed`` after this many events (None: never wait).
    hold: int | None = None


Answer = Json | Raw | Events


class ModelHandler(KeepAliveHandler):
    server: ModelServer

    def setup(self) -> None:
        super().setup()
        # Each event goes out at once, as real servers send them (no Nagle delay per event).
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def parse_request(self) -> bool:
        self.started = perf_counter()  # the request line is in: the server's work begins
        return super().parse_request()

    def do_POST(self) -> None:
        start = self.started
        httpd = self.server
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        httpd.seen.append(as_path_headers_body(self, json.loads(body)))
        answer = httpd.answer(httpd.seen[-1][2])
        if isinstance(answer, Events):
            self._events(answer)
        elif isinstance(answer, Json):
            data = json.dumps(answer.body).encode()
            self._send(answer.status, data, "application/json", answer.headers)
        else:
            self._send(answer.status, answer.body, answer.content_type, {})
        httpd.busy += perf_counter() - start

    def _send(self, status: int, data: bytes, kind: str, extra: Mapping[str, str]) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        for name, value in extra.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _events(self, answer: Events) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for number, event in enumerate(answer.events):
            if number == answer.hold:
                self.wfile.flush()
                self.server.released.append(self.server.proceed.wait(10))
            self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


class ModelServer(RecordingServer[Any]):
    """A RecordingServer whose answers come in order from ``replies``."""

    def __init__(self, replies: Sequence[Answer] | Callable[[Any], Answer]) -> None:
        super().__init__({}, record=as_path_headers_body, keep_alive=True)
        self.RequestHandlerClass = ModelHandler
        self.replies = replies
        self.proceed = threading.Event()
        #: For each held stream: whether ``proceed`` was set (True) or the wait ran out.
        self.released: list[bool] = []
        #: Seconds the server spent answering, summed over requests (read body to last byte).
        self.busy = 0.0

    def answer(self, body: Any) -> Answer:
        """The reply to this request: the next in order, or what the function says."""
        if callable(self.replies):
            return self.replies(body)
        return self.replies[min(len(self.seen), len(self.replies)) - 1]

    def bodies(self) -> list[dict[str, Any]]:
        return [body for _, _, body in self.seen]


def ask(model: RemoteModel[Any], messages: Sequence[Message] = (Message.user("hi"),)) -> Message:
    """One ``complete`` on a fresh event loop, the client's connections closed after it."""

    async def once() -> Message:
        try:
            return await model.complete(messages, [BASH], system="Be brief.")
        finally:
            await model.aclose()

    return asyncio.run(once())


@contextmanager
def model_server(replies: Sequence[Answer] | Callable[[Any], Answer]) -> Iterator[ModelServer]:
    with serve(ModelServer(replies)) as httpd:
        try:
            yield httpd
        finally:
            httpd.proceed.set()


def sse(data: Any, event: str | None = None) -> bytes:
    """One server-sent event: ``event:`` (if any) and one ``data:`` line of JSON."""
    line = b"data: " + (data if isinstance(data, bytes) else json.dumps(data).encode())
    return (f"event: {event}\n".encode() if event else b"") + line + b"\n\n"


# -- OpenAI chat completions -------------------------------------------------------------------


def openai_completion(
    text: str | None = None, calls: Sequence[Call] = (), usage: tuple[int, int, int] = (11, 7, 3)
) -> dict[str, Any]:
    """A whole ``chat.completion``."""
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = [
            {"id": i, "type": "function", "function": {"name": n, "arguments": "".join(a)}}
            for i, n, a in calls
        ]
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "test-model",
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if calls else "stop",
            }
        ],
        "usage": _openai_usage(usage),
    }


def openai_chunks(
    pieces: Sequence[str] = (),
    calls: Sequence[Call] = (),
    usage: tuple[int, int, int] | None = (11, 7, 3),
) -> list[bytes]:
    """A streamed completion: the text in ``pieces``, then each call's arguments fragment by
    fragment (id and name in its first delta only, as OpenAI sends them), then the finish,
    the usage chunk and ``[DONE]``."""
    deltas: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]
    deltas += [{"content": piece} for piece in pieces]
    for index, (call_id, name, fragments) in enumerate(calls):
        first = {"index": index, "id": call_id, "type": "function"}
        deltas.append({"tool_calls": [{**first, "function": {"name": name, "arguments": ""}}]})
        deltas += [
            {"tool_calls": [{"index": index, "function": {"arguments": fragment}}]}
            for fragment in fragments
        ]
    finish = "tool_calls" if calls else "stop"
    chunks = [_chunk([{"index": 0, "delta": d, "finish_reason": None}]) for d in deltas]
    chunks.append(_chunk([{"index": 0, "delta": {}, "finish_reason": finish}]))
    if usage is not None:
        chunks.append(_chunk([], usage=_openai_usage(usage)))
    return [*(sse(c) for c in chunks), sse(b"[DONE]")]


def _chunk(choices: list[dict[str, Any]], **more: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "test-model",
        "choices": choices,
        **more,
    }


def _openai_usage(usage: tuple[int, int, int]) -> dict[str, Any]:
    prompt, completion, cached = usage
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": cached},
    }


def openai_error(status: int, message: str) -> Json:
    return Json(status, {"error": {"message": message, "type": "error", "code": None}})


# -- Anthropic messages ------------------------------------------------------------------------


def anthropic_message(
    text: str | None = None, calls: Sequence[Call] = (), usage: tuple[int, int, int] = (11, 7, 3)
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
        "model": "test-model",
        "content": content,
        "stop_reason": "tool_use" if calls else "end_turn",
        "stop_sequence": None,
        "usage": _anthropic_usage(usage),
    }


def anthropic_events(
    pieces: Sequence[str] = (),
    calls: Sequence[Call] = (),
    usage: tuple[int, int, int] = (11, 7, 3),
    *,
    stop: bool = True,
) -> list[bytes]:
    """A streamed message: a text block in ``pieces``, then one tool_use block per call with
    its input in ``input_json_delta`` fragments; ``stop=False`` leaves out ``message_stop``."""
    start = anthropic_message(usage=(usage[0], 1, usage[2]))
    events = [sse({"type": "message_start", "message": start}, "message_start")]
    blocks: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
    if pieces:
        blocks.append(
            (
                {"type": "text", "text": ""},
                [{"type": "text_delta", "text": piece} for piece in pieces],
            )
        )
    for call_id, name, fragments in calls:
        blocks.append(
            (
                {"type": "tool_use", "id": call_id, "name": name, "input": {}},
                [{"type": "input_json_delta", "partial_json": f} for f in fragments],
            )
        )
    for index, (block, deltas) in enumerate(blocks):
        events.append(
            sse(
                {"type": "content_block_start", "index": index, "content_block": block},
                "content_block_start",
            )
        )
        events += [
            sse({"type": "content_block_delta", "index": index, "delta": d}, "content_block_delta")
            for d in deltas
        ]
        events.append(sse({"type": "content_block_stop", "index": index}, "content_block_stop"))
    end = {"stop_reason": "tool_use" if calls else "end_turn", "stop_sequence": None}
    events.append(
        sse(
            {"type": "message_delta", "delta": end, "usage": {"output_tokens": usage[1]}},
            "message_delta",
        )
    )
    if stop:
        events.append(sse({"type": "message_stop"}, "message_stop"))
    return events


def _anthropic_usage(usage: tuple[int, int, int]) -> dict[str, Any]:
    uncached, output, cached = usage
    return {
        "input_tokens": uncached,
        "output_tokens": output,
        "cache_read_input_tokens": cached,
        "cache_creation_input_tokens": 0,
    }


def anthropic_error(status: int, message: str, kind: str = "invalid_request_error") -> Json:
    return Json(status, {"type": "error", "error": {"type": kind, "message": message}})


def fragments(text: str, size: int = 3) -> list[str]:
    """``text`` cut into pieces of ``size`` characters: a tool input split across deltas."""
    return [text[i : i + size] for i in range(0, len(text), size)]
