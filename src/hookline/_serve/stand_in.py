"""The stand-in of a server that is down, while a glass holds (``hookline._serve.break_glass``).

It listens where the server would, with the standard library's HTTP server (no extra needed:
the way out must not depend on what may be broken), answers each hook event with the glass's
answer (``ask`` for a tool call, nothing for the rest), records each one, and stops once the
glass is over or mended, or on Ctrl-C. ``GET /health`` says it is a stand-in.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Final

from hookline._hosts import codex, cursor, gemini
from hookline._hosts.claude_code import CLAUDE_CODE_PATH
from hookline._serve.break_glass import Glass, holding
from hookline._serve.record import record
from hookline.audit._writer import AuditWriter

#: How often it looks whether the glass still holds.
_TICK: Final = 0.5
_MAX_BODY: Final = 16 << 20
#: Each route the server has: the host named on its records, and its answer under a glass
#: (None: the glass's own, ``ask`` for a tool call).
_ROUTES: Final[dict[str, tuple[str, dict[str, Any] | None]]] = {
    CLAUDE_CODE_PATH: ("claude-code", None),
    gemini.GEMINI_PATH: (gemini.HOST, dict(gemini.NO_ANSWER)),
    codex.CODEX_PATH: (codex.HOST, dict(codex.NO_ANSWER)),
    cursor.CURSOR_PATH: (cursor.HOST, dict(cursor.NO_ANSWER)),
}


class StandIn(ThreadingHTTPServer):
    """Answers as the server would under ``glass``, recording in ``audit``, until it is over."""

    daemon_threads = True

    def __init__(
        self, address: tuple[str, int], glass: Glass, audit: AuditWriter, state_dir: Path
    ) -> None:
        super().__init__(address, _Handler)
        self.glass, self.audit, self.state_dir = glass, audit, state_dir
        self._lock = threading.Lock()  # one audit write at a time

    def serve_while_held(self) -> None:
        """Answer until the glass is over or mended (re-read every tick)."""
        self.timeout = _TICK
        while holding(self.state_dir) is not None:
            self.handle_request()

    def answer(self, payload: dict[str, Any], route: str = CLAUDE_CODE_PATH) -> dict[str, Any]:
        host, answer = _ROUTES[route]
        ruling = self.glass.ruling(payload, answer=answer)
        with self._lock:
            record(self.audit, ruling, payload, host=host, glass=self.glass, answer=answer)
        return ruling.answer


class _Handler(BaseHTTPRequestHandler):
    server: StandIn

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if self.path not in _ROUTES or not 0 < length <= _MAX_BODY:
            self._send(404 if self.path not in _ROUTES else 400, {"error": "no event"})
            return
        try:
            payload = json.loads(self.rfile.read(length))
        except ValueError:
            payload = None
        if not isinstance(payload, dict):
            self._send(400, {"error": "the body must be the hook's event JSON"})
            return
        self._send(200, self.server.answer(payload, self.path))

    def do_GET(self) -> None:
        if self.path != "/health":
            self._send(404, {"error": "no such page"})
            return
        self._send(200, {"ok": True, "stand_in": True, "until": self.server.glass.until})

    def _send(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: every answer is in the audit."""
