"""What a paused run prints: its session id and the exact commands that go on with it.

A run (or a resume) that ends with calls waiting for an answer exits with ``EXIT_PAUSED``, so a
script can tell "paused, resume it later" from done (0) and from a mistake (2). The lines name
the session and its project's ``--cwd``: each can be copied and run as it is, from any folder
(the ``--edit`` one carries the waiting call's input, to change first).
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final, NoReturn

from hookline._agent.saved.deadline import when
from hookline._agent.saved.pause import resumable
from hookline._agent.saved.store import SessionStore
from hookline._cli.render import say
from hookline._errors import ConfigError
from hookline._support.display import compact, shown
from hookline.audit._redact import MASK, Redactor

if TYPE_CHECKING:
    from hookline._agent.loop import Agent
    from hookline._agent.result import RunResult

#: The exit code of ``hookline run`` and ``hookline sessions resume`` when the session pauses.
EXIT_PAUSED: Final = 4
#: ... and when a Ctrl-C stops it (128 + SIGINT, as a shell reports it).
EXIT_INTERRUPTED: Final = 130
#: The longest input printed whole in the ``--edit`` line.
EDIT_LIMIT: Final = 300


def exit_paused(result: RunResult, launch: Any, *, err: bool, redactor: Redactor) -> NoReturn:
    """Say which calls wait and how to answer them (on stderr when stdout carries JSON), their
    inputs passed through ``redactor``, then exit with ``EXIT_PAUSED``."""
    waiting = [{**call, "input": redactor.redact(call["input"])} for call in paused_calls(result)]
    say("note", f"paused: session {shown(result.session_id)} waits for an answer to:", err=err)
    for call in waiting:
        say("note", f"  {shown(call['name'])} {compact(call['input'])}", err=err)
    deadline = next((r.deadline for r in result.tool_calls if r.deadline is not None), None)
    if deadline is not None:
        say("note", f"answer by {when(deadline)}: after that a resume denies them", err=err)
    say("note", "run one of these to go on:", err=err)
    for line in resume_lines(result.session_id, waiting, launch):
        say("note", f"  {line}", err=err)
    raise SystemExit(EXIT_PAUSED)


def exit_interrupted(agent: Agent) -> NoReturn:
    """After a Ctrl-C: one line saying where the session stands (resumable from its last
    checkpoint, or kept in its transcript only), then exit with ``EXIT_INTERRUPTED``."""
    session = agent.session
    store = agent.options.store
    record = store.get_session(session.id) if isinstance(store, SessionStore) else None
    where = f"its conversation is in {shown(str(session.transcript.path))}"
    if record is not None and record.status == "interrupted":
        try:
            resumable(record)
            line = ["hookline", "sessions", "resume", session.id, *_where(agent.options.launch)]
            where = f"go on with: {shlex.join(line)}"
        except ConfigError:
            pass
    say("note", f"interrupted: session {shown(session.id)} stopped; {where}", err=True)
    raise SystemExit(EXIT_INTERRUPTED)


def resume_lines(session_id: str, waiting: list[dict[str, Any]], launch: Any) -> list[str]:
    """The three ``hookline sessions resume`` commands (approve, deny, edit) for a session
    whose ``waiting`` calls (``{"name", "input"}``) need an answer; ``launch``: the saved flags."""
    base = ["hookline", "sessions", "resume", session_id, *_where(launch)]
    edit = _edit(waiting[0]["input"]) if len(waiting) == 1 else "JSON"
    answers = (["--approve"], ["--deny", "MESSAGE"], ["--edit", edit])
    return [shlex.join([*base, *answer]) for answer in answers]


def paused_calls(result: RunResult) -> list[dict[str, Any]]:
    """The calls of ``result`` that wait for an answer."""
    return [
        {"id": r.call.id, "name": r.call.name, "input": r.call.input}
        for r in result.tool_calls
        if r.status == "deferred"
    ]


def _edit(tool_input: Any) -> str:
    """The waiting input as ``--edit`` takes it: JSON with every character outside ASCII
    escaped, so the line holds nothing a terminal acts on and parses back to exactly that
    input; ``JSON`` (to be written) when it would not fit on a line, or when a secret in it
    was masked (the masked input is not the one to run)."""
    text = json.dumps(tool_input, ensure_ascii=True)
    too_long = len(text) > EDIT_LIMIT or " " * 9 in text
    return "JSON" if too_long or MASK in text else text


def _where(launch: Any) -> list[str]:
    """``--cwd`` and ``--store`` (without its password), so the line finds the session from
    any folder."""
    if not isinstance(launch, Mapping):
        return []
    flags = []
    cwd = launch.get("cwd")
    if cwd:
        flags += ["--cwd", str(cwd)]
    store = launch.get("store")
    if store:
        flags += ["--store", "URL" if "@" in str(store) else str(store)]
    return flags
