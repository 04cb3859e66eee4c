"""A model server on 127.0.0.1 that answers from a script, in the OpenAI, Anthropic and Gemini
formats.

``hookline model-server --script FILE --port N`` runs one. Point a client at it and it answers
as the API would, offline: ``OPENAI_BASE_URL=http://127.0.0.1:N/v1`` for the OpenAI client
(``POST /v1/chat/completions``), ``ANTHROPIC_BASE_URL=http://127.0.0.1:N`` for the Anthropic one
(``POST /v1/messages``), a Codex model provider with ``base_url = "http://127.0.0.1:N/v1"`` and
``wire_api = "responses"`` for Codex CLI (``POST /v1/responses``, streamed: a request's turn is
the number of answers its ``input`` already holds), ``GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:N``
for Gemini CLI and Google's clients (``POST /v1beta/models/MODEL:generateContent``, or
``:streamGenerateContent?alt=sse`` streamed, ``:countTokens``; a request's turn is the number of
``model`` turns its ``contents`` already hold); ``GET /v1/models`` lists one model. Each
request gets a streamed answer (server-sent events, ``text/event-stream``) when it asks for one
with ``"stream": true`` (Gemini: by its path), as hookline's clients (and most others) always
do, and a whole JSON answer otherwise.

The script is the file ``--model scripted:FILE`` reads (``hookline.models._scripted``). Which
turn answers a request is worked out from the request alone: the number of assistant messages
its conversation already holds. So any number of sessions can share one server, a resumed
session picks up where it paused, and a request sent again gets the same answer. Once the
turns run out, the answer is the script's ``final_text``.

The server binds 127.0.0.1 only; it checks no key. A request that is not JSON, or has no
``messages`` list, is answered 400 in the API's own error shape; another path 404.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Final, Literal

import hookline.models._wire as wire
from hookline.models._scripted import Script, ScriptTurn

HOST: Final = "127.0.0.1"
Api = Literal["openai", "anthropic", "responses", "gemini"]
#: How many characters of text one streamed delta carries.
PIECE: Final = 24
#: Gemini's methods on a model (``POST .../models/MODEL:METHOD``) the server answers.
_GEMINI_METHODS: Final = frozenset({"generateContent", "streamGenerateContent", "countTokens"})
#: The largest request body read (a long conversation's JSON), in bytes.
MAX_BODY: Final = 64 << 20


@dataclass(frozen=True, slots=True)
class Served:
    """One request answered: which API, which turn of the script (None: the final text, after
    the turns), whether streamed, and the HTTP status."""

    api: Api
    turn: int | None
    streamed: bool
    status: int = 200


@dataclass(frozen=True, slots=True)
class Answer:
    """What to send back: a JSON body, or the events of a stream."""

    status: int
    body: dict[str, Any] | None = None
    events: list[bytes] | None = None
    served: Served | None = None


def answer(script: Script, api: Api, request: Any, *, path: str = "") -> Answer:
    """The answer to one request body (parsed JSON) of ``api``: the script's turn for it.
    ``path`` is the request's (Gemini's names the model, and whether to stream)."""
    if api == "responses":
        return _responses(script, request)
    if api == "gemini":
        return _gemini(script, request, path)
    error = wire.openai_error if api == "openai" else wire.anthropic_error
    if not isinstance(request, dict) or not isinstance(request.get("messages"), list):
        return Answer(400, error('the request must be a JSON object with a "messages" list'))
    done = sum(
        1 for m in request["messages"] if isinstance(m, dict) and m.get("role") == "assistant"
    )
    index, turn = _turn(script, done)
    streamed = request.get("stream") is True
    served = Served(api, index, streamed)
    calls, model = _calls(turn, done), str(request.get("model") or "scripted")
    usage = (_tokens(json.dumps(request)), max(_tokens(turn.text), 1), 0)
    if not streamed:
        whole = wire.openai_completion if api == "openai" else wire.anthropic_message
        return Answer(200, whole(turn.text or None, calls, usage, model=model), served=served)
    if api == "anthropic":
        events = wire.anthropic_events(_pieces(turn.text), calls, usage, model=model)
        return Answer(200, events=events, served=served)
    options = request.get("stream_options")
    include = isinstance(options, dict) and options.get("include_usage") is True
    events = wire.openai_chunks(_pieces(turn.text), calls, usage if include else None, model=model)
    return Answer(200, events=events, served=served)


def _responses(script: Script, request: Any) -> Answer:
    """A Responses API request's turn, streamed (as Codex asks): its ``input`` holds one run
    of assistant items (a message, function calls) for each turn already answered."""
    if not isinstance(request, dict) or not isinstance(request.get("input"), list):
        return Answer(
            400, wire.openai_error('the request must be a JSON object with an "input" list')
        )
    done = _answered(request["input"])
    index, turn = _turn(script, done)
    usage = (_tokens(json.dumps(request)), max(_tokens(turn.text), 1), 0)
    events = wire.responses_events(turn.text or None, _calls(turn, done), usage)
    return Answer(200, events=events, served=Served("responses", index, True))


def _gemini(script: Script, request: Any, path: str) -> Answer:
    """A Gemini ``generateContent`` request's turn: its ``contents`` hold one ``model`` turn
    for each turn already answered; streamed when its path says ``:streamGenerateContent``."""
    if not isinstance(request, dict) or not isinstance(request.get("contents"), list):
        return Answer(400, wire.gemini_error('the request must be a JSON object with "contents"'))
    done = _answered(request["contents"], lambda item: item.get("role") == "model")
    index, turn = _turn(script, done)
    usage = (_tokens(json.dumps(request)), max(_tokens(turn.text), 1), 0)
    calls, model = _calls(turn, done), _gemini_model(path)
    streamed = ":streamGenerateContent" in path
    served = Served("gemini", index, streamed)
    if not streamed:
        body = wire.gemini_response(turn.text or None, calls, usage, model=model)
        return Answer(200, body, served=served)
    events = wire.gemini_events(_pieces(turn.text), calls, usage, model=model)
    return Answer(200, events=events, served=served)


def _gemini_model(path: str) -> str:
    """The model a Gemini path names: ``.../models/MODEL:method``."""
    return path.split("?")[0].rsplit("/", 1)[-1].split(":")[0] or "scripted"


def _responses_answer(item: dict[str, Any]) -> bool:
    kind = item.get("type")
    return kind == "function_call" or (kind == "message" and item.get("role") == "assistant")


def _answered(items: list[Any], mine: Callable[[dict[str, Any]], bool] = _responses_answer) -> int:
    """How many answers ``items`` holds: runs of the model's items (``mine``; by default the
    Responses API's assistant messages and function calls)."""
    runs, inside = 0, False
    for item in items:
        ours = isinstance(item, dict) and mine(item)
        runs += ours and not inside
        inside = ours
    return runs


def _turn(script: Script, done: int) -> tuple[int | None, ScriptTurn]:
    """The turn answering a conversation ``done`` turns in: its index (None: the final text,
    after the turns) and the turn."""
    if done < len(script.turns):
        return done, script.turns[done]
    return None, ScriptTurn(text=script.final_text)


def _calls(turn: ScriptTurn, index: int) -> list[wire.Call]:
    """The turn's tool calls, each with its id (the script's, else one made as
    ``ScriptedModel`` makes it) and its input's JSON in a few fragments."""
    return [
        (
            call.id or f"toolu_{index + 1:02d}_{n}",
            call.name,
            wire.fragments(json.dumps(call.input), 16),
        )
        for n, call in enumerate(turn.tool_calls, start=1)
    ]


def _pieces(text: str) -> list[str]:
    return [text[i : i + PIECE] for i in range(0, len(text), PIECE)]


def _tokens(text: str) -> int:
    """About how many tokens ``text`` is (four characters each): for the usage fields."""
    return (len(text) + 3) // 4


class ScriptServer(ThreadingHTTPServer):
    """Serves ``script`` on 127.0.0.1:``port`` (0: a free one; ``url`` says which).
    ``on_request`` is told of each answered request; ``keep`` keeps their bodies. ``with
    server:`` serves on a thread and stops it at the end; ``serve_forever()`` serves on this
    one until ``shutdown()``."""

    daemon_threads = True

    def __init__(
        self,
        script: Script,
        *,
        port: int = 0,
        on_request: Callable[[Served], None] | None = None,
        keep: bool = False,
    ) -> None:
        super().__init__((HOST, port), _Handler)
        self.script = script
        self.on_request = on_request
        #: The request bodies (parsed JSON) answered, in order, when ``keep`` is set.
        self.requests: list[Any] | None = [] if keep else None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def __enter__(self) -> ScriptServer:
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()
        if self._thread is not None:
            self._thread.join()


class _Handler(BaseHTTPRequestHandler):
    server: ScriptServer
    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        super().setup()
        # Each write goes out at once: headers, body and events are written apart, and
        # Nagle's wait for the client's delayed ack would add 40 ms to each answer.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: ``on_request`` says what was answered."""

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            model = {
                "id": "scripted",
                "object": "model",
                "type": "model",
                "created": 0,
                "owned_by": "hookline",
                "display_name": "scripted",
                "created_at": "2025-01-01T00:00:00Z",
            }
            self._json(
                200,
                {
                    "object": "list",
                    "data": [model],
                    "has_more": False,
                    "first_id": "scripted",
                    "last_id": "scripted",
                },
            )
        else:
            self._json(404, wire.openai_error(f"no such path {self.path}", "not_found_error"))

    def do_POST(self) -> None:
        api, length = _api(self.path), _length(self.headers.get("Content-Length"))
        raw = self.rfile.read(min(length, MAX_BODY)) if length > 0 else b""
        if api is None:
            self._json(404, wire.openai_error(f"no such path {self.path}", "not_found_error"))
            return
        counted = _counted(self.path, _tokens(raw.decode(errors="replace")))
        if counted is not None:
            self._json(200, counted)
            return
        try:
            request = json.loads(raw) if length <= MAX_BODY else None
        except ValueError:
            request = None
        if self.server.requests is not None:
            self.server.requests.append(request)
        reply = answer(self.server.script, api, request, path=self.path)
        if reply.events is not None:
            self._stream(reply.events)
        else:
            self._json(reply.status, reply.body or {})
        if self.server.on_request is not None:
            self.server.on_request(reply.served or Served(api, None, False, reply.status))

    def _json(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, events: list[bytes]) -> None:
        """The events, then the connection closes (the end of the stream)."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        for event in events:
            self.wfile.write(event)
            self.wfile.flush()
        self.close_connection = True


def _length(header: str | None) -> int:
    try:
        return max(int(header or 0), 0)
    except ValueError:
        return 0


def _counted(path: str, tokens: int) -> dict[str, Any] | None:
    """The answer to a request counting tokens (Anthropic's, Gemini's); None: not one."""
    path = path.split("?")[0]
    if path.endswith("/count_tokens"):
        return {"input_tokens": tokens}
    if path.endswith(":countTokens"):
        return {"totalTokens": tokens}
    return None


def _api(path: str) -> Api | None:
    """Which API a POST to ``path`` is for: ``.../chat/completions``, ``.../messages``,
    ``.../responses`` or Gemini's ``.../models/MODEL:generateContent`` (and its kin)."""
    path = path.split("?")[0].rstrip("/")
    if path.rsplit(":", 1)[-1] in _GEMINI_METHODS and "/models/" in path:
        return "gemini"
    if path.endswith("/chat/completions"):
        return "openai"
    if path.endswith("/responses"):
        return "responses"
    if path.endswith("/messages") or path.endswith("/messages/count_tokens"):
        return "anthropic"
    return None
