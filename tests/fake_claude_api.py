"""A fake Anthropic Messages API on 127.0.0.1 that answers its prompts by rules, for running
Claude Agent SDK programs (on hookline, or on the real SDK and its bundled Claude Code CLI)
without a model.

``fake_claude_api()`` starts one (``local_http.serve``: it stops by itself). It is a
``model_servers.ModelServer``: every request is recorded in ``server.seen`` and each
``POST /v1/messages`` is answered as a stream of server-sent events when its body says
``"stream": true``, as one JSON message otherwise, from the builders there. What the Claude Code
CLI sends besides is answered harmlessly: ``count_tokens`` with a count, ``GET`` and ``HEAD``
with 200.

The reply depends on the last user turn of the conversation:

- it holds ``tool_result`` blocks: a text quoting them (``Tool result: ...``), so a test sees
  what a tool returned or that it was refused; unless the prompt asked for more calls;
- ``Run the bash command: X`` (also ``Run this command: X``, ``Run this bash command: X``,
  ``Run the bash command 10 times: X``): a ``Bash`` call of ``X``;
- ``Write the text 'T' to a file called F``: a ``Write`` call of ``T`` to ``F``, made absolute
  under the working directory the request names (``working directory: /...``), if it does;
- ``What's my favorite color?``: the color, when the request says ``favorite color is X``
  anywhere (system prompt or messages), else ``I don't know``;
- anything else, or a call of a tool the request does not offer (side requests such as title
  generation offer none): a short text.

Run as a script (``python tests/fake_claude_api.py``), it prints its URL and serves until
interrupted.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any

from local_http import serve
from model_servers import (
    Answer,
    Events,
    Json,
    ModelHandler,
    ModelServer,
    anthropic_events,
    anthropic_message,
    sse,
)

_COMMAND = re.compile(r"Run (?:the|this) (?:bash )?command(?: (\d+) times)?: (.+)")
_WRITE = re.compile(r"Write the text '(.*)' to a file called (\S+)")
_COLOR_QUESTION = "What's my favorite color?"
_COLOR = re.compile(r"favorite color is ([A-Za-z][A-Za-z ]*[A-Za-z])")
_CWD = re.compile(r"[Ww]orking directory: (/\S+)")
#: A reply: text, or one call of a tool (name, input).
Reply = str | tuple[str, dict[str, Any]]


@dataclass(frozen=True)
class ToolResult:
    """One tool_result the API was sent: its text and whether it was marked an error."""

    tool_use_id: str
    text: str
    is_error: bool


class ClaudeApiHandler(ModelHandler):
    """``ModelHandler`` plus what the CLI sends besides messages: answered harmlessly."""

    server: ClaudeApi

    def do_POST(self) -> None:
        if "/count_tokens" in self.path:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self._send(200, b'{"input_tokens": 100}', "application/json", {})
        else:
            super().do_POST()

    def do_GET(self) -> None:
        self._send(200, b"{}", "application/json", {})

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()


class ClaudeApi(ModelServer):
    """The fake API: a ModelServer whose answers come from ``reply_to`` (the rules above)."""

    def __init__(self) -> None:
        super().__init__(self._answer)
        self.RequestHandlerClass = ClaudeApiHandler
        self._ids = itertools.count(1)

    def _answer(self, body: Any) -> Answer:
        reply = reply_to(body)
        number = next(self._ids)
        calls = []
        text = reply if isinstance(reply, str) else None
        if not isinstance(reply, str):
            calls = [(f"toolu_fake{number:04d}", reply[0], [json.dumps(reply[1])])]
        # A fresh message id for each answer, as the real API gives.
        names = {"id": f"msg_fake{number:04d}", "model": body.get("model", "test-model")}
        if not body.get("stream"):
            return Json(200, {**anthropic_message(text, calls), **names})
        events = anthropic_events([text] if text else [], calls)
        start = {"type": "message_start", "message": {**anthropic_message(), **names}}
        return Events([sse(start, "message_start"), *events[1:]])

    def tool_results(self) -> list[ToolResult]:
        """Every tool_result the requests carried, once each, in the order they first came."""
        found: dict[str, ToolResult] = {}
        for body in self.bodies():
            for message in body.get("messages", []):
                for block in _blocks(message):
                    if block.get("type") == "tool_result":
                        key = str(block.get("tool_use_id"))
                        text = _text(block.get("content"))
                        found.setdefault(key, ToolResult(key, text, bool(block.get("is_error"))))
        return list(found.values())

    def prompts(self) -> list[str]:
        """The text of the last user turn of each main-loop request (one that offers tools;
        side requests such as title generation offer none)."""
        return [
            _prompt_text(_user_turns(body)[-1])
            for body in self.bodies()
            if body.get("tools") and _user_turns(body)
        ]


@contextmanager
def fake_claude_api() -> Iterator[ClaudeApi]:
    """A running fake API; its base URL (for ``ANTHROPIC_BASE_URL``) is ``server.url("")``."""
    api = ClaudeApi()
    with serve(api):
        yield api


def reply_to(body: dict[str, Any]) -> Reply:
    """What the fake model answers to one request (see the module docstring)."""
    turns = _user_turns(body)
    if not turns:
        return "Hello."
    offered = {tool.get("name") for tool in body.get("tools") or [] if isinstance(tool, dict)}
    last = turns[-1]
    results = _results(last)
    if results:
        more = _more_calls(body)
        if more is not None and "Bash" in offered:
            return "Bash", {"command": more, "description": "Run the command"}
        return "Tool result: " + "\n".join(_text(b.get("content")) for b in results)
    return _answer_prompt(_prompt_text(last), body, offered)


def _answer_prompt(prompt: str, body: dict[str, Any], offered: set[Any]) -> Reply:
    command = _COMMAND.search(prompt)
    if command and "Bash" in offered:
        return "Bash", {"command": command[2].strip(), "description": "Run the command"}
    write = _WRITE.search(prompt)
    if write and "Write" in offered:
        cwd = _CWD.search(_request_text(body))
        path = f"{cwd[1].rstrip('/')}/{write[2]}" if cwd else write[2]
        return "Write", {"file_path": path, "content": write[1]}
    if _COLOR_QUESTION in prompt:
        color = _COLOR.search(_request_text(body))
        return f"Your favorite color is {color[1]}." if color else "I don't know."
    return "OK."


def _more_calls(body: dict[str, Any]) -> str | None:
    """The command to run again, when the prompt asked for it N times and fewer were made."""
    messages = body.get("messages", [])
    asked = [i for i, m in enumerate(messages) if m.get("role") == "user" and not _results(m)]
    command = _COMMAND.search(_prompt_text(messages[asked[-1]])) if asked else None
    if command is None:
        return None
    made = sum(
        block.get("type") == "tool_use"
        for later in messages[asked[-1] + 1 :]
        if later.get("role") == "assistant"
        for block in _blocks(later)
    )
    return command[2].strip() if made < int(command[1] or 1) else None


def _user_turns(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in body.get("messages", []) if m.get("role") == "user"]


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content or [] if isinstance(b, dict)]


def _results(message: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for b in _blocks(message) if b.get("type") == "tool_result"]


def _prompt_text(message: dict[str, Any]) -> str:
    """The text blocks of a turn (with any reminders the CLI adds: the rules search it)."""
    return "\n".join(b.get("text", "") for b in _blocks(message) if b.get("type") == "text")


def _request_text(body: dict[str, Any]) -> str:
    """All the text of a request: the system prompt (a string or text blocks), then each
    message's text and tool results (the CLI puts its environment, with the working
    directory, in a reminder inside the first user turn)."""
    parts = [_text(body.get("system"))]
    for message in body.get("messages", []):
        for block in _blocks(message):
            parts.append(block.get("text") or _text(block.get("content")))
    return "\n".join(parts)


def _text(content: Any) -> str:
    """A tool result's or a system prompt's content as text: a string or text blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"
        )
    return ""


def main() -> None:
    with fake_claude_api() as httpd:
        print(f"ANTHROPIC_BASE_URL={httpd.url('')}", flush=True)
        with suppress(KeyboardInterrupt):
            httpd.release.wait()


if __name__ == "__main__":
    main()
