"""A recording HTTP server on 127.0.0.1 that answers POSTs from a table, for the HTTP tests.

``serve(...)`` starts one on a free port in a thread and stops it on exit; the tests'
``server`` fixtures wrap it. Each POST's JSON body is recorded in ``server.seen`` (as
``record(handler, body)`` makes it), then answered with ``answers[path]`` (status, body
bytes) or ``default``. A POST to ``slow_path`` sets ``server.entered`` (proof that it is
in flight), then waits for ``server.release`` (set at teardown) for up to ``slow_wait``
seconds before it is answered.
"""

from __future__ import annotations

import asyncio
import json
import struct
import threading
import zlib
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Generic, TypeVar

from hookline._claude.http import HttpClients
from hookline._tools.approvals import Approval, ApprovalRequest, HttpApprover, Unavailable

T = TypeVar("T")


def as_path_headers_body(handler: RecordingHandler, body: Any) -> tuple[str, Message, Any]:
    """The default record of one request: ``(path, headers, parsed JSON body)``."""
    return (handler.path, handler.headers, body)


class RecordingHandler(BaseHTTPRequestHandler):
    server: RecordingServer[Any]

    def do_POST(self) -> None:
        httpd = self.server
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        httpd.seen.append(httpd.record(self, json.loads(body)))
        if self.path == httpd.slow_path:
            httpd.entered.set()
            httpd.release.wait(httpd.slow_wait)
        status, answer, *more = httpd.answers.get(self.path, httpd.default)
        self.send_response(status)
        if httpd.content_type is not None:
            self.send_header("Content-Type", httpd.content_type)
        for name, value in (more[0] if more else {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class KeepAliveHandler(RecordingHandler):
    protocol_version = "HTTP/1.1"  # keep-alive


class RecordingServer(ThreadingHTTPServer, Generic[T]):
    daemon_threads = True

    def __init__(
        self,
        answers: Mapping[str, tuple[int, bytes] | tuple[int, bytes, Mapping[str, str]]],
        *,
        record: Callable[[RecordingHandler, Any], T],
        default: tuple[int, bytes] = (404, b""),
        keep_alive: bool = False,
        content_type: str | None = None,
        slow_path: str | None = "/slow",
        slow_wait: float = 5.0,
    ) -> None:
        handler = KeepAliveHandler if keep_alive else RecordingHandler
        super().__init__(("127.0.0.1", 0), handler)
        self.answers = answers
        self.record = record
        self.default = default
        self.content_type = content_type
        self.slow_path = slow_path
        self.slow_wait = slow_wait
        self.seen: list[T] = []
        self.entered = threading.Event()  # a slow request has arrived and waits
        self.release = threading.Event()  # lets a slow request finish at teardown

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}{path}"

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that gave up (the timeout tests) leaves a broken pipe


@contextmanager
def serve(httpd: RecordingServer[T]) -> Iterator[RecordingServer[T]]:
    """Run ``httpd`` in a daemon thread; on exit release any slow request and shut it down."""
    thread = threading.Thread(
        target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield httpd
    finally:
        httpd.release.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


_BOMBS: dict[int, bytes] = {}


def gzip_bomb(mib: int = 1024) -> bytes:
    """About 1 KB per MiB of gzip that inflates to ``mib`` MiB of zeros: one deflate segment of
    1 MiB of zeros, flushed so it stands alone, repeated (built in milliseconds)."""
    if mib not in _BOMBS:
        block = bytes(1 << 20)
        deflate = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
        segment = deflate.compress(block) + deflate.flush(zlib.Z_FULL_FLUSH)
        crc = 0
        for _ in range(mib):
            crc = zlib.crc32(block, crc)
        end = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS).flush()  # the last, empty block
        header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03"
        size = (mib << 20) % (1 << 32)
        _BOMBS[mib] = header + segment * mib + end + struct.pack("<II", crc, size)
    return _BOMBS[mib]


def ask_approver(
    url: str, request: ApprovalRequest, **options: Any
) -> tuple[Approval | Unavailable, HttpApprover]:
    """One request to the HTTP approver at ``url``, on pooled clients closed on the same loop."""

    async def go() -> tuple[Approval | Unavailable, HttpApprover]:
        clients = HttpClients()
        approver = HttpApprover(url, clients=clients, **options)
        try:
            return await approver.approve(request), approver
        finally:
            await clients.aclose()

    return asyncio.run(go())
