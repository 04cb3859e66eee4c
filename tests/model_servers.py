"""Local HTTP servers that answer like the OpenAI and Anthropic APIs, for the model-client tests
and the bench.

``model_server(replies)`` starts one on 127.0.0.1 (``local_http.serve``: it stops by itself).
Each POST is recorded (``server.seen``: path, headers, JSON body) and answered with the next of
``replies``, the last one repeating, or with what ``replies(body)`` returns: ``Json`` (a status
and a JSON body), ``Events`` (a ``text/event-stream`` written event by event, HTTP/1.1 chunked,
keep-alive; ``hold`` makes it wait after that many events until ``server.proceed`` is set, and
``server.released`` says whether it was) or ``Raw`` (any bytes). ``server.busy`` sums the
seconds the server spent answering.

The answers' bodies come from the builders of ``hookline.models._wire`` (each wire format as
the providers document it), which ``hookline model-server`` answers with too.

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

import hookline.models._wire as wire
from hookline import Message
from hookline.models._remote import RemoteModel
from hookline.models._wire import (  # noqa: F401  (the tests import them from here)
    Call,
    anthropic_events,
    anthropic_message,
    fragments,
    gemini_events,
    openai_chunks,
    openai_completion,
    responses_events,
    sse,
)
from local_http import KeepAliveHandler, RecordingServer, as_path_headers_body, serve

#: The tool spec the client tests offer the model.
BASH = {"name": "Bash", "description": "Run a command.", "input_schema": {"type": "object"}}


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


def openai_error(status: int, message: str) -> Json:
    return Json(status, wire.openai_error(message, "error"))


def anthropic_error(status: int, message: str, kind: str = "invalid_request_error") -> Json:
    return Json(status, wire.anthropic_error(message, kind))
