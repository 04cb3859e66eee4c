"""What the agent needs of a store: keep a session's record, find it, and claim it exactly once.

    Agent(model, store=SqliteStore(path))        # any object with these methods

``hookline.storage`` implements it (SQLite, PostgreSQL), together with the audit half the audit
log writes to. An agent given a store object uses it and leaves closing it to its owner. An
agent given a URL or path (``store="postgresql://..."``), or nothing (SQLite in the state
folder), opens the store itself on first use, through its runtime's opener (by default
``hookline.storage.open_store``): the stores live in the plug-in layer beside the agent, which
never imports them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from time import time as _now
from typing import Any, Protocol, runtime_checkable


@dataclass(frozen=True, slots=True)
class SessionRecord:
    """One stored session. ``version`` is the schema version of ``state``, not of the table."""

    id: str
    status: str
    version: int
    state: dict[str, Any]
    user: str | None = None
    tenant: str | None = None
    created_at: float = field(default_factory=_now)
    updated_at: float = field(default_factory=_now)


@runtime_checkable
class SessionStore(Protocol):
    """Session records. Each call is one short transaction; all are thread-safe."""

    def put_session(self, record: SessionRecord) -> None:
        """Insert the record, or replace the one with its id."""

    def get_session(self, id: str) -> SessionRecord | None:
        """The record with this id, or None."""

    def claim_session(self, id: str, *, expected: str, new: str) -> bool:
        """Set the status to ``new`` if it is ``expected``; of concurrent callers one wins."""

    def close(self) -> None:
        """Release the connection. The store is unusable afterwards."""


class Opener(Protocol):
    """``opener(url_or_path, state_dir=...)``: the store a URL or path names (None: the default
    one, in the state folder)."""

    def __call__(self, url_or_path: str | None, *, state_dir: Path) -> SessionStore: ...


def open_named(url_or_path: str | None, state_dir: Path, opener: Opener) -> SessionStore:
    """The store ``url_or_path`` names, opened by ``opener`` (the agent's runtime's)."""
    return opener(url_or_path, state_dir=state_dir)
