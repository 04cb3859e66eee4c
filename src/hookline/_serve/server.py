"""The HTTP server under the app: uvicorn, on a socket bound first.

Binding first (``bind``) makes a busy port one clear line before anything starts, and port 0 a
free port whose number is known before the first request (the CLI prints it; tests use it).
With ``Tls`` (``--tls-cert``, ``--tls-key``) it serves HTTPS; the files are loaded once before
(``Tls.checked``), so a missing file, or a key that is not the certificate's, is one line naming
the file instead of uvicorn's traceback.
"""

from __future__ import annotations

import gc
import socket
import ssl
from dataclasses import dataclass
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


@dataclass(frozen=True, slots=True)
class Tls:
    """The certificate (PEM, its chain after it) and private key the server answers HTTPS with."""

    cert: str
    key: str

    def checked(self) -> Tls:
        """These files, loaded once; a ConfigError naming the file that is wrong."""
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        for path, option in ((self.cert, "--tls-cert"), (self.key, "--tls-key")):
            try:
                with open(path, "rb"):
                    pass
            except OSError as exc:
                why = exc.strerror or exc
                raise ConfigError(f"{option} {path}: cannot read it ({why})") from None
        try:
            context.load_verify_locations(cafile=self.cert)
        except (ssl.SSLError, ValueError) as exc:
            raise _not_pem(self.cert, "a PEM certificate", exc) from None
        try:
            context.load_cert_chain(self.cert, self.key)
        except (ssl.SSLError, ValueError) as exc:
            raise _not_pem(self.key, f"the PEM private key of {self.cert}", exc) from None
        return self


def _not_pem(path: str, wanted: str, exc: Exception) -> ConfigError:
    return ConfigError(
        f"is not {wanted} ({getattr(exc, 'reason', None) or exc})",
        file=path,
        fix="give --tls-cert the certificate and --tls-key its unencrypted key, both PEM",
    )


def settle() -> None:
    """Move what is loaded now (modules, the policy, the app) out of the garbage collector's
    rounds: a full round over a started server takes tens of milliseconds, which a hook call
    caught in it would wait; what calls make and drop is still collected."""
    gc.collect()
    gc.freeze()


def server(app: Starlette, *, tls: Tls | None = None) -> uvicorn.Server:
    """A uvicorn server for ``app``: quiet (only warnings), no access log; HTTPS with ``tls``."""
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        lifespan="on",
        ssl_certfile=None if tls is None else tls.cert,
        ssl_keyfile=None if tls is None else tls.key,
    )
    return uvicorn.Server(config)


def url(sock: socket.socket, *, tls: bool = False) -> str:
    """Where ``sock`` listens, as a URL's start (``http://127.0.0.1:8377``; ``https`` with TLS)."""
    host, port = sock.getsockname()[:2]
    scheme = "https" if tls else "http"
    return f"{scheme}://[{host}]:{port}" if ":" in host else f"{scheme}://{host}:{port}"
