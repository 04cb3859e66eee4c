"""The session transcript: JSONL at ``transcript_path``, shaped like Claude Code's for hooks.

As the CLI writes it (2.1.x, measured offline): an ``assistant`` entry per content block, all
sharing the reply's ``message`` envelope; the prompt a ``user`` entry with string ``content``; a
``user`` entry per tool result, ``toolUseResult`` its structured output (``"Error: <text>"`` if it
failed or was refused), ``parentUuid`` = ``sourceToolAssistantUUID`` = its ``tool_use`` entry.
Other entries chain to the entry written before them.

Deliberate differences. Left out: what the transcript is not told (``promptId``,
``permissionMode``, ``gitBranch``, ``entrypoint``); what a ModelClient does not report (``usage``,
``stop_details``, ``requestId``, ``requestRef``, ``promptCacheRequested``, ``effort``,
``perTurnEffort``, ``toolInputStreamMs``); CLI bookkeeping (``promptSource``, ``sentAtMs``,
``rowSource``, ``turnOrigin``, ``turnPosition``, ``sandboxed``, ``permissionDecision``, entry
types other than user and assistant). Hook text beside a prompt or a tool result (a
``<system-reminder>`` block) is an ``isMeta`` user entry, not an ``attachment``. ``version`` is
hookline's. U+2028, U+2029, U+0085 and lone surrogates are ``\\u`` escapes, so ``str.splitlines``
and strict UTF-8 readers see one entry a line.

``append`` buffers; ``flush`` writes. The loop flushes as soon as the model has answered, before
any hook of that step runs, so a hook that reads the file finds everything up to that answer.

The transcript's one fast path: an entry is written as its fixed text around JSON-encoded
values (``compact``), in ``_entry`` and the two methods that hand it a message, not as one
dict encoded whole, which would cost as much again as the rest of the transcript's work on each
tool call. The tests check that every line is exactly what ``json.dumps`` writes for the entry
it holds.
"""

from __future__ import annotations

import errno
import json
import os
import time
import uuid
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path
from typing import Any, Final

from pydantic import ValidationError

from hookline._agent.messages import Message, TextBlock, ToolResultBlock
from hookline._agent.saved.state import conversation
from hookline._errors import ConfigError, RecordError
from hookline._support.jsontext import compact
from hookline._support.private import open_private, private_dir, write_all
from hookline._tools.base import ToolCall, ToolResult
from hookline._wording import REMINDER_OPEN

VERSION = "hookline-0.1"


def tool_use_result(block: ToolResultBlock, result: ToolResult | None) -> Any:
    """A result's ``toolUseResult`` (the stream's ``tool_use_result``): the structured output;
    for a failed or refused call, the CLI's ``Error: <text>``."""
    if block.is_error:
        return f"Error: {block.content}"
    return result.output if result and result.call.id == block.tool_use_id else None


def _tool_use_result(block: ToolResultBlock, result: ToolResult | None) -> str:
    return compact(tool_use_result(block, result))


#: Line breaks to ``str.splitlines`` that JSON leaves raw: escaped so a line is one entry.
_BREAKS: Final = {"\u2028": "\\u2028", "\u2029": "\\u2029", "\x85": "\\u0085"}


class Transcript:
    """Appends messages to a JSONL file, chained by ``parentUuid`` like Claude Code's."""

    def __init__(
        self,
        path: Path,
        *,
        session_id: str,
        cwd: str,
        resumed: bool = False,
        agent_id: str | None = None,
    ) -> None:
        """``agent_id``: a subagent's transcript, whose entries are a side chain, as Claude
        Code marks them (``isSidechain``, ``agentId``)."""
        self.path = path
        self._fd = -1  # the file, opened on the first write (a descriptor: no buffer to hold)
        self._pending: list[str] = []
        self._parent = "null"  # the last entry's uuid, JSON-encoded
        self._sources: dict[str, str] = {}  # tool_use id -> its assistant entry's encoded uuid
        p = uuid.uuid4().hex  # ids: a random prefix and a counter, UUID-shaped (no syscall)
        self._ids = (f'"{p[:8]}-{p[8:12]}-4{p[13:16]}-8{p[17:20]}-', f"msg_{p[:12]}")
        self._count = 0
        self._second = (0, "")
        shared = {"userType": "external", "cwd": cwd, "sessionId": session_id, "version": VERSION}
        if agent_id is not None:
            shared["agentId"] = agent_id
        self._shared = compact(shared)[1:-1]  # the fields every entry shares, encoded once
        self._sidechain = "true" if agent_id is not None else "false"
        if resumed:
            self._continue()

    def _continue(self) -> None:
        """Go on from an existing file: chain to its last entry, know its tool calls' entries."""
        if not self.path.is_file():
            return
        for line in self.path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue  # a line cut short by a crash: chain past it
            if not _is_entry(entry):
                continue  # a resume checks every line first (``first_bad_line``)
            self._parent = compact(entry.get("uuid"))
            for block in (entry.get("message") or {}).get("content") or ():
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    self._sources[str(block.get("id"))] = self._parent

    def append(
        self, message: Message, *, model: str | None = None, results: list[ToolResult] | None = None
    ) -> None:
        """Buffer one message; ``results`` adds the structured tool outputs (``toolUseResult``)."""
        if message.role == "assistant":
            self._assistant(message, model)
        else:
            self._user(message, iter(results or ()))

    def touch(self) -> None:
        """Make the file exist, with what was appended so far (maybe nothing)."""
        self._open()
        self.flush()

    def flush(self) -> None:
        """Write what was appended since the last flush, in one write."""
        if not self._pending:
            return
        fd = self._open()
        text = "\n".join(self._pending) + "\n"
        if not text.isascii():
            for char, escape in _BREAKS.items():
                text = text.replace(char, escape)
        data = text.encode("utf-8", "backslashreplace")
        try:
            write_all(fd, data)
        except OSError as exc:  # a full disk, a quota: the run stops, saying so in one line
            why = exc.strerror or type(exc).__name__
            raise RecordError(f"the transcript {self.path} could not be written: {why}") from None
        self._pending.clear()

    def size(self) -> int:
        """How many bytes the file holds (what a save notes: after a ``flush``, the whole
        conversation so far); 0 while there is no file."""
        try:
            return os.stat(self.path).st_size
        except FileNotFoundError:
            return 0

    def _open(self) -> int:
        if self._fd < 0:
            made_dir(self.path.parent)  # made on the first write, not with the session
            self._fd = open_private(self.path, os.O_WRONLY | os.O_APPEND)
        return self._fd

    def close(self) -> None:
        """Write what waits, then close the file (closed even when the write fails)."""
        try:
            self.flush()
        finally:
            if self._fd >= 0:
                with suppress(OSError):  # what could not be written is not written again
                    os.close(self._fd)
                self._fd = -1

    def _assistant(self, message: Message, model: str | None) -> None:
        """One entry per content block, all carrying the same message envelope."""
        calls = ToolCall in map(type, message.content)
        name = compact(model)
        envelope = f'"id":"{self._ids[1]}{self._count:012x}","type":"message","role":"assistant"'
        head = f'{{{envelope},"model":{name},"content":['
        tail = f'],"stop_reason":"{"tool_use" if calls else "end_turn"}","stop_sequence":null}}'
        extra = f',"requestedModel":{name},"madeBy":"model","apiBlockIndex":'
        for index, block in enumerate(message.content or (None,)):
            body = head + (compact(block.to_dict()) if block is not None else "") + tail
            entry = self._entry("assistant", body, f"{extra}{index}")
            if type(block) is ToolCall:
                self._sources[block.id] = entry

    def _user(self, message: Message, results: Iterator[ToolResult]) -> None:
        """One entry per tool result and per text: the prompt, or ``isMeta`` for hook text."""
        for block in message.content:
            if type(block) is ToolResultBlock:
                output = _tool_use_result(block, next(results, None))
                source = self._sources.pop(block.tool_use_id, self._parent)
                body = f'{{"role":"user","content":[{compact(block.to_dict())}]}}'
                extra = f',"toolUseResult":{output},"sourceToolAssistantUUID":{source}'
                self._entry("user", body, extra, parent=source)
            elif type(block) is TextBlock:
                meta = ',"isMeta":true' if block.text.startswith(REMINDER_OPEN) else ""
                self._entry("user", f'{{"role":"user","content":{compact(block.text)}}}', meta)

    def _entry(self, kind: str, body: str, extra: str = "", *, parent: str | None = None) -> str:
        """Buffer one entry; return its uuid, JSON-encoded, and make it the next entry's parent."""
        self._count += 1
        entry = f'{self._ids[0]}{self._count:012x}"'
        self._pending.append(
            f'{{"parentUuid":{parent or self._parent},"isSidechain":{self._sidechain},'
            f'"type":"{kind}","message":{body},"uuid":{entry},"timestamp":"{self._now()}"'
            f"{extra},{self._shared}}}"
        )
        self._parent = entry
        return entry

    def _now(self) -> str:
        """UTC time in Claude Code's format, 2026-11-30T06:22:07.001Z (formatted once a second)."""
        now = time.time()
        second = int(now)
        if second != self._second[0]:
            self._second = (second, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second)))
        return f"{self._second[1]}.{int((now - second) * 1000):03d}Z"


def made_dir(folder: Path) -> None:
    """Make the transcripts folder (private) if it is not there; a ConfigError saying which
    option to change when it cannot be made."""
    try:
        private_dir(folder)
    except OSError as exc:
        raise ConfigError(
            f"cannot create the transcript folder {folder}: {exc.strerror}",
            key="state_dir",
            fix="point state_dir at a writable folder",
        ) from None


def cut_after(path: Path, size: int) -> None:
    """Take the transcript at ``path`` back to its first ``size`` bytes, what it held when the
    session was last saved: the entries a process wrote after that save (it was killed before
    the next) move to ``<session_id>.crashed.jsonl`` beside it, and a resume, which goes on from
    the save, writes the conversation from there once, not after them."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise
        why = "the transcript is a symbolic link, not a session's own file"
        raise ConfigError(why, file=str(path), fix="put the session's own file back") from None
    try:
        tail = os.pread(fd, max(os.fstat(fd).st_size - size, 0), size)
        if not tail:
            return
        aside = path.with_name(f"{path.stem}.crashed.jsonl")
        with os.fdopen(open_private(aside, os.O_WRONLY | os.O_APPEND), "ab") as file:
            file.write(tail if tail.endswith(b"\n") else tail + b"\n")
        os.ftruncate(fd, size)
    finally:
        os.close(fd)


def first_bad_line(path: Path) -> int | None:
    """The number (from 1) of the first line of the transcript at ``path`` that is not an
    entry (a JSON object: ``type`` user or assistant, a string ``uuid``, a ``message`` object
    with a role and content), or None. A last line cut short by a crash (no newline, not JSON)
    is no entry and no error; a missing file has no bad line."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return None
    return _scan(text)[1]


def read_conversation(path: Path) -> list[Message]:
    """The conversation the transcript at ``path`` holds, to go on with (the Agent SDK's
    ``resume``). A reply is written an entry per block and a user message an entry per tool
    result and text, so consecutive entries of one role are one message again. A ConfigError
    naming the file for one this module did not write, or for a symbolic link (a transcript
    is a file of its session's own; a link could show it any file)."""
    where = str(path)
    try:  # the link test and the read are one step: no moment for a link to be put in between
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise
        why = "the transcript is a symbolic link, not a session's own file"
        fix = "resume a session hookline wrote"
        raise ConfigError(why, file=where, key="resume", fix=fix) from None
    with open(fd, encoding="utf-8", errors="replace") as file:
        entries, bad = _scan(file.read())
    if bad is not None:
        why = f"line {bad} is not a transcript entry"
        raise ConfigError(why, file=where, key="resume", fix="resume a session hookline wrote")
    merged: list[dict[str, Any]] = []
    for entry in entries:
        role, content = entry["message"]["role"], entry["message"]["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if merged and merged[-1]["role"] == role:
            merged[-1]["content"].extend(map(_saved_block, blocks))
        else:
            merged.append({"role": role, "content": [_saved_block(b) for b in blocks]})
    try:
        return conversation(merged)
    except ValidationError as exc:
        why = f"its conversation cannot be read back: {exc.errors(include_url=False)[0]['msg']}"
        raise ConfigError(why, file=where, key="resume", fix="start a new session") from None


def _scan(text: str) -> tuple[list[dict[str, Any]], int | None]:
    """The entries of a transcript's text, up to the first line that is none, and that line's
    number (None: every line is one, or only the last is cut short by a crash)."""
    entries: list[dict[str, Any]] = []
    lines = text.splitlines()
    for number, line in enumerate(lines, 1):
        try:
            entry = json.loads(line)
        except ValueError:
            cut_short = number == len(lines) and not text.endswith("\n")
            return entries, None if cut_short else number
        if not _is_entry(entry):
            return entries, number
        entries.append(entry)
    return entries, None


def _saved_block(block: dict[str, Any]) -> dict[str, Any]:
    """A block as a saved conversation holds it: a tool result's error flag is always there."""
    if block.get("type") == "tool_result":
        return {"is_error": False, **block}
    return block


def _is_entry(entry: object) -> bool:
    """Whether ``entry`` has the shape this module writes (the parts a resume relies on)."""
    if not isinstance(entry, dict) or entry.get("type") not in ("user", "assistant"):
        return False
    message = entry.get("message")
    if not isinstance(entry.get("uuid"), str) or not isinstance(message, dict):
        return False
    content = message.get("content")
    if isinstance(content, list):
        return all(isinstance(block, dict) for block in content)
    return isinstance(content, str)
