"""Which session an agent works in, chosen before its first prompt: the Agent SDK's
``session_id``, ``resume``, ``continue_conversation`` and ``fork_session``.

    name(agent, "3f2c…")              # a new session under this id
    reopen(agent, "3f2c…")            # go on with a session's conversation, under its id
    reopen(agent, "3f2c…", fork=True) # go on with it under a new id; the old one is untouched
    latest(agent)                     # the id of the session last written to in this project

A finished session is read back from its transcript (``read_conversation``), so any session
hookline wrote can be gone on with, in this process or another. Its SessionStart then has
source ``resume`` (``Agent.start("resume")``). A session id names a file: it must be a UUID
(letters, digits and hyphens), so no id can reach outside the transcripts folder.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Final

from hookline._agent.session import Session, transcript_path
from hookline._agent.transcript import read_conversation
from hookline._errors import ConfigError

if TYPE_CHECKING:
    from hookline._agent.loop import Agent

_UUID: Final = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
)


def name(agent: Agent, session_id: str) -> None:
    """Work in a new session called ``session_id``; a ConfigError if one has that name."""
    _unused(agent, session_id)
    _switch(agent, Session.create(agent.options, session_id=session_id))


def reopen(agent: Agent, session_id: str, *, fork: str | None = None) -> None:
    """Go on with session ``session_id``'s conversation: under its own id, or with ``fork``
    under that new id (its transcript starts with the conversation; the old one is left as
    it is). A ConfigError when there is no such session here."""
    path = _transcript(agent, session_id, "resume")
    if not path.is_file():
        raise ConfigError(
            f"there is no session {session_id} to resume",
            file=str(path),
            key="resume",
            fix="give the session_id of an earlier result in this project folder",
        )
    messages = read_conversation(path)
    if fork is None:
        session = Session.create(agent.options, session_id=session_id, resumed=True)
        session.messages = messages
    else:
        _unused(agent, fork)
        session = Session.create(agent.options, session_id=fork)
        for message in messages:
            session.add(message)
    _switch(agent, session)


def latest(agent: Agent) -> str:
    """The id of the session last written to in this project (``continue_conversation``)."""
    folder = agent.session.transcript.path.parent
    found = [p for p in folder.glob("*.jsonl") if _UUID.fullmatch(p.stem)]
    if not found:
        raise ConfigError(
            "there is no earlier session to continue in this project",
            file=str(folder),
            key="continue_conversation",
            fix="leave continue_conversation off to start one",
        )
    return max(found, key=lambda p: p.stat().st_mtime_ns).stem


def _unused(agent: Agent, session_id: str) -> None:
    """A ConfigError unless ``session_id`` is a session id no session here has."""
    path = _transcript(agent, session_id, "session_id")
    if path.exists():
        raise ConfigError(
            f"session {session_id} already exists",
            file=str(path),
            key="session_id",
            fix="resume it, fork it, or name a new session",
        )


def _transcript(agent: Agent, session_id: str, key: str) -> Path:
    """Where session ``session_id``'s transcript is; a ConfigError for an id that is no UUID."""
    if not isinstance(session_id, str) or not _UUID.fullmatch(session_id):
        raise ConfigError(
            f"{session_id!r} is not a session id",
            key=key,
            fix="give a UUID, as a ResultMessage's session_id is",
        )
    return transcript_path(agent.session.state_dir, session_id)


def _switch(agent: Agent, session: Session) -> None:
    if agent.session.started:
        raise ConfigError(
            "the session can only be chosen before the first prompt",
            key="session_id",
            fix="choose it when the agent is made",
        )
    agent.session.transcript.close()
    agent._converse(session)
