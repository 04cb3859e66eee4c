"""The session transcript: JSONL at ``transcript_path``, one entry a line, as Claude Code has it.

Entries carry ``type`` (user / assistant), ``message`` with ``role`` and ``content`` blocks and,
for the assistant, ``model``. ``append`` buffers; ``flush`` writes. The loop flushes as soon as
the model has answered, before any hook of that step runs, so a hook that reads the file (a Stop
hook grepping the last answer) finds everything up to the answer it is judging.
"""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from typing import IO

from hookline.agent.messages import Message
from hookline.tools.base import ToolResult

VERSION = "hookline-0.1"

_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=str)


class Transcript:
    """Appends messages to a JSONL file, chained by ``parentUuid`` like Claude Code's."""

    def __init__(self, path: Path, *, session_id: str, cwd: str) -> None:
        self.path = path
        self._file: IO[str] | None = None
        self._pending: list[str] = []
        self._parent = "null"
        self._prefix = uuid.uuid4().hex
        self._count = 0
        self._second = (0, "")
        # The fields every entry shares, encoded once.
        self._shared = _ENCODER.encode(
            {"isSidechain": False, "userType": "external", "cwd": cwd, "sessionId": session_id,
             "version": VERSION}
        )[1:-1]  # fmt: skip

    def append(
        self, message: Message, *, model: str | None = None, results: list[ToolResult] | None = None
    ) -> None:
        """Buffer one message; ``results`` adds the structured tool outputs (``toolUseResult``)."""
        body = message.to_dict()
        if message.role == "assistant":
            body = {"type": "message", "model": model, **body}
        entry_id = self._next_id()
        line = (
            f'{{"parentUuid":{self._parent},{self._shared},"type":"{message.role}",'
            f'"message":{_ENCODER.encode(body)},"uuid":"{entry_id}","timestamp":"{self._now()}"'
        )
        if results:
            line += f',"toolUseResult":{_ENCODER.encode([r.output for r in results])}'
        self._pending.append(line + "}")
        self._parent = f'"{entry_id}"'

    def flush(self) -> None:
        """Write what was appended since the last flush, in one write."""
        if not self._pending:
            return
        if self._file is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = self.path.open("a", encoding="utf-8")
        self._file.write("\n".join(self._pending) + "\n")
        self._file.flush()
        self._pending.clear()

    def close(self) -> None:
        self.flush()
        if self._file is not None:
            self._file.close()
            self._file = None

    def _next_id(self) -> str:
        """A UUID-shaped entry id: a random per-transcript prefix and a counter (no syscall)."""
        self._count += 1
        p = self._prefix
        return f"{p[:8]}-{p[8:12]}-4{p[13:16]}-8{p[17:20]}-{self._count:012x}"

    def _now(self) -> str:
        """UTC time in Claude Code's format, 2026-11-30T06:22:07.001Z (formatted once a second)."""
        now = time.time()
        second = int(now)
        if second != self._second[0]:
            self._second = (second, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second)))
        return f"{self._second[1]}.{int((now - second) * 1000):03d}Z"
