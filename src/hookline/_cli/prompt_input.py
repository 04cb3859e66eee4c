"""Where ``hookline run``'s prompt comes from, as ``claude -p`` takes it.

* ``PROMPT`` as an argument; ``-`` reads the whole prompt from stdin.
* No ``PROMPT`` and stdin is not a terminal: stdin is the prompt (``echo "fix it" | hookline -p``).
* ``PROMPT`` and a piped stdin: stdin is added after the prompt, on a line of its own
  (``git diff | hookline -p "review this"``). As Claude Code does, stdin that says nothing for
  3 seconds is left unread, with a warning.
* ``--input-format stream-json``: stdin holds user messages, one JSON line each
  (``{"type": "user", "message": {"role": "user", "content": "..."}}``), each answered in
  turn in the same session, as it arrives.
"""

from __future__ import annotations

import asyncio
import json
import select
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TextIO

from hookline._claude.stream_json import user_text
from hookline._cli.render import warn
from hookline._errors import ConfigError

#: How long a piped stdin may stay silent before a run with a PROMPT goes on without it.
STDIN_WAIT = 3.0


@dataclass(frozen=True)
class Prompts:
    """The first prompt, and how to wait for each next one (None: there is only one)."""

    first: str
    next: Callable[[], Awaitable[str | None]] | None = None


def read_prompts(
    prompt: str | None,
    *,
    input_format: str,
    output_format: str,
    rules: bool = False,
    stdin: TextIO | None = None,
) -> Prompts:
    """The prompts the arguments and stdin give; ``rules``: tool-rule flags were given, which
    take every value after them (so a missing prompt may have been taken by one)."""
    stdin = stdin or sys.stdin
    if input_format == "stream-json":
        return _streamed(prompt, output_format, stdin)
    return Prompts(_text(prompt, rules, stdin))


def _text(prompt: str | None, rules: bool, stdin: TextIO) -> str:
    if prompt == "-":
        prompt = stdin.read()
    elif prompt is None:
        prompt = "" if _terminal(stdin) else stdin.read()
    elif not _terminal(stdin):
        piped = _piped(stdin)
        prompt = f"{prompt}\n{piped}" if piped else prompt
    if not prompt.strip():
        fix = "give it as an argument (hookline -p 'read README.md') or on stdin"
        if rules:
            fix = "put the prompt before --allowedTools/--disallowedTools (they take every value "
            fix += "up to the next option), or last, after --, or on stdin"
        raise ConfigError("missing the prompt", key="PROMPT", fix=fix)
    return prompt


def _piped(stdin: TextIO) -> str:
    """What a pipe beside a PROMPT holds, if it says something within ``STDIN_WAIT``."""
    try:
        ready, _, _ = select.select([stdin], [], [], STDIN_WAIT)
    except (OSError, ValueError, TypeError):  # no descriptor (a test's stream): read it
        ready = [stdin]
    if not ready:
        warn(
            f"no stdin data received in {STDIN_WAIT:g}s, proceeding without it (redirect stdin "
            "from /dev/null to skip the wait)"
        )
        return ""
    return stdin.read().rstrip("\n")


def _streamed(prompt: str | None, output_format: str, stdin: TextIO) -> Prompts:
    if output_format != "stream-json":
        raise ConfigError(
            "--input-format stream-json needs --output-format stream-json",
            key="--input-format",
            fix="add --output-format stream-json",
        )
    if prompt is not None:
        raise ConfigError(
            "with --input-format stream-json the prompts come from stdin, not PROMPT",
            key="PROMPT",
            fix="leave PROMPT out, or send it as the first message on stdin",
        )
    number = 0

    def following() -> str | None:
        nonlocal number
        for line in stdin:
            number += 1
            if line.strip():
                return _message(line, number)
        return None

    first = following()
    if first is None:
        raise ConfigError("stdin holds no user message", key="--input-format", fix=_EXAMPLE)

    async def later() -> str | None:
        return await asyncio.to_thread(following)

    return Prompts(first, later)


_EXAMPLE = 'send one {"type": "user", "message": {"role": "user", "content": "..."}} per line'


def _message(line: str, number: int) -> str:
    """The text of one streamed user message; a ConfigError naming its line."""
    try:
        return user_text(json.loads(line))
    except (json.JSONDecodeError, ConfigError) as exc:
        why = exc.msg if isinstance(exc, json.JSONDecodeError) else exc.message
        raise ConfigError(
            f"line {number} of stdin is not a user message: {why}",
            key="--input-format",
            fix=_EXAMPLE,
        ) from None


def _terminal(stdin: TextIO) -> bool:
    try:
        return stdin.isatty()
    except (AttributeError, ValueError):
        return False
