"""The command a host that runs command hooks only (Gemini CLI, Codex) runs to ask
``hookline serve``: a ``curl`` line, so no Python starts per call.

It posts the event on stdin to the server and prints the answer; when the server cannot be
reached, answers late or answers with an error status, it writes ``unreachable`` on stderr and
exits 2, which both hosts read as a block with that reason (any other exit code is a failed
hook, and the tool would run; Codex also needs the reason on stderr to block). curl gives up
after ``SECONDS``, well before the hosts' own wait for the hook. With a token (``token_env``),
the line sends ``Authorization: Bearer $VAR`` from the hook's environment; the token itself is
never written.
"""

from __future__ import annotations

import shlex
from typing import Final

from hookline._hosts.claude_code import checked_var

#: Seconds curl waits for the server.
SECONDS: Final = 30


def line(url: str, unreachable: str, token_env: str | None = None) -> str:
    """The installed line for ``url`` (the token in ``$token_env``): the answer printed, or
    exit 2 saying ``unreachable``."""
    bearer = "" if token_env is None else f'-H "Authorization: Bearer ${checked_var(token_env)}" '
    return (
        f"curl -sS --fail --max-time {SECONDS} -X POST "
        f"-H 'Content-Type: application/json' {bearer}--data-binary @- "
        f"{shlex.quote(url)} || {{ echo {shlex.quote(unreachable)} >&2; exit 2; }}"
    )


def posts_to(handler: object, url: str, unreachable: str, name: str | None = None) -> bool:
    """Whether ``handler`` is hookline's command hook for ``url``: the installed line, or an
    older one posting to the URL (named ``name``, where the host names hooks; else a curl
    line)."""
    if not isinstance(handler, dict) or handler.get("type") != "command":
        return False
    command = handler.get("command")
    if not isinstance(command, str):
        return False
    if command == line(url, unreachable):
        return True
    ours = handler.get("name") == name if name is not None else command.startswith("curl ")
    return ours and shlex.quote(url) in command
