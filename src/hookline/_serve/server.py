"""The HTTP server under the app: uvicorn, on a socket bound first.

Binding first (``bind``) makes a busy port one clear line before anything starts, and port 0 a
free port whose number is known before the first request (the CLI prints it; tests use it).
"""

from __future__ import annotations

import socket
from typing import TYPE_CHECKING

import uvicorn

from hookline._errors import ConfigError

if TYPE_CHECKING:
    from starlette.applications import Starlette


def bind(host: str, port: int) -> socket.socket:
    """A socket listening on ``host``:``port`` (0: a free port); a ConfigError when it cannot."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        family, kind, proto, _, address = infos[0]
        sock = socket.socket(family, kind, proto)
    except OSError as exc:
        raise ConfigError(f"cannot listen on {host}: {exc}", key="--host") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(socket.SOMAXCONN)
    except OSError as exc:
        sock.close()
        raise ConfigError(
            f"cannot listen on {host}:{port} ({exc.strerror or exc})",
            key="--port",
            fix="choose another port, or --port 0 for a free one",
        ) from None
    return sock


def server(app: Starlette) -> uvicorn.Server:
    """A uvicorn server for ``app``: quiet (only warnings), no access log."""
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
    return uvicorn.Server(config)


def url(sock: socket.socket) -> str:
    """Where ``sock`` listens, as a URL's start (``http://127.0.0.1:8377``)."""
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"
