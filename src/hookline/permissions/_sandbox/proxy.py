"""The sandbox's way out: an HTTP proxy on the host that lets through only allowed domains.

It serves ``CONNECT host:port`` (HTTPS and any other TCP) and plain HTTP in absolute form
(``GET http://host/path``), one request per connection (``Connection: close`` is forced, so a
second request cannot reach another host over the same link). Names are resolved here, on the
host. A host that is not allowed gets ``403`` and a body that says which setting to change; a
host that cannot be reached gets ``502``. It runs in daemon threads, one per connection. It
listens nowhere: connections come to it over channels (socket pairs), each made for one sandbox.
"""

from __future__ import annotations

import contextlib
import os
import socket
import sys
import threading
from collections.abc import Sequence
from typing import Final
from urllib.parse import urlsplit

from hookline.permissions._sandbox.config import domain_allowed

#: The most a request head may take before the proxy gives up on it.
HEAD_LIMIT: Final = 64 * 1024
CONNECT_TIMEOUT: Final = 10.0
#: The most descriptors one message from the forwarder may pass.
_FDS_AT_ONCE: Final = 16
_DROPPED: Final = (b"proxy-connection", b"proxy-authorization", b"connection", b"keep-alive")


class ProxyRefusal(Exception):
    """A request the proxy answers itself: its status and the text it sends back."""

    def __init__(self, status: str, text: str) -> None:
        super().__init__(text)
        self.status, self.text = status, text

    def response(self) -> bytes:
        body = f"hookline sandbox: {self.text}\n".encode()
        head = f"HTTP/1.1 {self.status}\r\nContent-Type: text/plain; charset=utf-8\r\n"
        head += f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        return head.encode() + body


class DomainProxy:
    """The proxy for ``allowed`` domains. Each sandbox reaches it through a channel (``open``):
    one end of a socket pair over which the sandbox's forwarder passes every connection it
    accepts (``SCM_RIGHTS``); the proxy serves each one on a thread of its own."""

    def __init__(self, allowed: Sequence[str]) -> None:
        self.allowed = tuple(allowed)
        self._lock = threading.Lock()
        self._channels: set[socket.socket] = set()
        self._closed = False

    def open(self) -> int:
        """A new channel: the descriptor to pass into the sandbox (the caller closes its copy
        once the sandbox has started). It is served until the sandbox's end of it closes."""
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        with self._lock:
            if self._closed:
                mine.close()
                theirs.close()
                raise OSError("the sandbox's proxy is closed")
            self._channels.add(mine)
        threading.Thread(
            target=self._receive, args=(mine,), name="hookline-sandbox-proxy", daemon=True
        ).start()
        return theirs.detach()

    def close(self) -> None:
        """Stop serving every channel; connections already open end on their own."""
        with self._lock:
            self._closed, channels = True, list(self._channels)
            self._channels.clear()
        for channel in channels:
            with contextlib.suppress(OSError):
                channel.shutdown(socket.SHUT_RDWR)

    def _receive(self, channel: socket.socket) -> None:
        with channel:
            while (clients := _received(channel)) is not None:
                for client in clients:
                    threading.Thread(target=serve, args=(client, self.allowed), daemon=True).start()
        with self._lock:
            self._channels.discard(channel)


def _received(channel: socket.socket) -> list[socket.socket] | None:
    """The connections one message passed (none when it passed no socket); None at the end."""
    try:
        data, ancillary, _, _ = channel.recvmsg(1, socket.CMSG_SPACE(4 * _FDS_AT_ONCE))
    except OSError:
        return None
    fds: list[int] = []
    for level, kind, payload in ancillary:
        if (level, kind) == (socket.SOL_SOCKET, socket.SCM_RIGHTS):
            usable = len(payload) - len(payload) % 4
            fds += [int.from_bytes(payload[i : i + 4], sys.byteorder) for i in range(0, usable, 4)]
    if not data and not fds:
        return None
    return [client for fd in fds if (client := _stream(fd)) is not None]


def _stream(fd: int) -> socket.socket | None:
    """The passed descriptor as a stream socket; anything else is closed and dropped."""
    try:
        client = socket.socket(fileno=fd)
    except OSError:
        os.close(fd)
        return None
    if client.type != socket.SOCK_STREAM:
        client.close()
        return None
    return client


def serve(client: socket.socket, allowed: Sequence[str]) -> None:
    """Answer one proxy request on ``client``, then relay it, and close it."""
    with client:
        try:
            head, rest = _read_head(client)
            upstream, first = _open(head, allowed)
        except ProxyRefusal as refusal:
            with contextlib.suppress(OSError):
                client.sendall(refusal.response())
            return
        except OSError:
            return
        with upstream:
            try:
                if first:
                    upstream.sendall(first + rest)
                else:
                    client.sendall(b"HTTP/1.1 200 Connection Established\r\n\r\n")
                    upstream.sendall(rest)
            except OSError:
                return
            relay(client, upstream)


def _open(head: bytes, allowed: Sequence[str]) -> tuple[socket.socket, bytes]:
    """The upstream connection, and the request to send it (empty for CONNECT)."""
    line, _, headers = head.partition(b"\r\n")
    method, target, version = _request_line(line)
    if method == "CONNECT":
        host, port = _host_port(target, default=443)
        return _connect(host, port, allowed), b""
    url = urlsplit(target)
    if url.scheme != "http" or not url.hostname:
        raise ProxyRefusal("400 Bad Request", f"not a proxy request: {line[:200]!r}")
    upstream = _connect(url.hostname, url.port or 80, allowed)
    path = (url.path or "/") + (f"?{url.query}" if url.query else "")
    request = f"{method} {path} {version}\r\n".encode() + _kept(headers)
    return upstream, request + b"Connection: close\r\n\r\n"


def _connect(host: str, port: int, allowed: Sequence[str]) -> socket.socket:
    if not domain_allowed(host, allowed):
        why = f"{host} is not in sandbox.network.allowedDomains; add it there to reach it"
        raise ProxyRefusal("403 Forbidden", why)
    try:
        return socket.create_connection((host, port), timeout=CONNECT_TIMEOUT)
    except OSError as exc:
        raise ProxyRefusal("502 Bad Gateway", f"cannot reach {host}:{port}: {exc}") from None


def relay(one: socket.socket, other: socket.socket) -> None:
    """Copy bytes both ways until both sides are done (each direction's end is passed on)."""
    for sock in (one, other):
        sock.settimeout(None)
    back = threading.Thread(target=_copy, args=(other, one), daemon=True)
    back.start()
    _copy(one, other)
    back.join()


def _copy(source: socket.socket, target: socket.socket) -> None:
    with contextlib.suppress(OSError):
        while data := source.recv(65536):
            target.sendall(data)
    with contextlib.suppress(OSError):
        target.shutdown(socket.SHUT_WR)


def _read_head(client: socket.socket) -> tuple[bytes, bytes]:
    """The request head (without its blank line) and whatever came after it."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = client.recv(65536)
        if not chunk:
            raise ProxyRefusal("400 Bad Request", "the request ended before its headers did")
        data += chunk
        if len(data) > HEAD_LIMIT:
            raise ProxyRefusal("431 Request Header Fields Too Large", "request head too long")
    head, _, rest = data.partition(b"\r\n\r\n")
    return head, rest


def _request_line(line: bytes) -> tuple[str, str, str]:
    parts = line.decode("latin-1").split()
    if len(parts) != 3 or not parts[2].startswith("HTTP/"):
        raise ProxyRefusal("400 Bad Request", f"not an HTTP request line: {line[:200]!r}")
    return parts[0].upper(), parts[1], parts[2]


def _host_port(target: str, *, default: int) -> tuple[str, int]:
    host, colon, port = target.rpartition(":")
    if not colon or not port.isdigit():
        host, port = target, str(default)
    return host.strip("[]"), int(port)


def _kept(headers: bytes) -> bytes:
    """The headers to pass on: all but the hop-by-hop ones (``Connection: close`` is added)."""
    lines = [line for line in headers.split(b"\r\n") if line]
    kept = [ln for ln in lines if ln.partition(b":")[0].strip().lower() not in _DROPPED]
    return b"".join(line + b"\r\n" for line in kept)
