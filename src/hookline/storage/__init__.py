"""Where sessions and the audit log are kept: SQLite by default, PostgreSQL from a URL.

    open_store(None, state_dir=d)                  SQLite at <d>/hookline.db, no server
    open_store("postgresql://u:p@host/db", ...)    PostgreSQL (pip install 'hookline[postgres]')
    open_store("sqlite:///relative/or.db", ...)    SQLite at that path (``sqlite:////abs.db``)
    open_store("path/to/file.db", ...)             SQLite at that path

Relative paths are relative to the working directory, as anywhere else on the command line.
Every store here is also the ``SessionStore`` the agent takes (``hookline._agent.saved.store``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Final

from hookline._agent.saved.store import SessionRecord
from hookline._errors import ConfigError
from hookline._support.exports import Exports
from hookline.storage._asks import AskStore, LiveAsk
from hookline.storage._base import (
    SCHEMA_VERSION,
    AuditEntry,
    AuditRow,
    Chain,
    CorruptRecord,
    CorruptRecordWarning,
    Store,
    verify_chain,
)
from hookline.storage._sqlite import SqliteStore

if TYPE_CHECKING:
    from hookline.storage._postgres import PostgresStore as PostgresStore

__all__ = [
    "SCHEMA_VERSION",
    "AskStore",
    "AuditEntry",
    "AuditRow",
    "Chain",
    "CorruptRecord",
    "CorruptRecordWarning",
    "LiveAsk",
    "PostgresStore",
    "SessionRecord",
    "SqliteStore",
    "Store",
    "open_store",
    "verify_chain",
]

#: ``PostgresStore`` is imported when first used: psycopg loads only for PostgreSQL.
_LAZY: Final = Exports.of(__name__, {"hookline.storage._postgres": ("PostgresStore",)})
__getattr__ = _LAZY.get

#: The store's file in the project's state folder when no URL is given.
DEFAULT_FILE = "hookline.db"

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
_FIX = "give a postgresql:// URL, a sqlite:/// URL or a file path (or nothing, for the default)"


def open_store(url_or_path: str | None, *, state_dir: Path) -> Store:
    """The store that ``url_or_path`` names; None means SQLite in the state folder."""
    if url_or_path is None:
        return SqliteStore(Path(state_dir) / DEFAULT_FILE)
    if not url_or_path.strip():
        raise ConfigError("the store's URL or path is empty", key="store", fix=_FIX)
    scheme = _SCHEME.match(url_or_path)
    if scheme is None:
        return SqliteStore(Path(url_or_path))
    name = scheme.group(1).lower()
    if name in ("postgresql", "postgres"):
        from hookline.storage._postgres import PostgresStore  # psycopg only when asked for

        return PostgresStore(url_or_path)
    if name == "sqlite":
        return SqliteStore(_sqlite_path(url_or_path))
    raise ConfigError(f"unknown kind of store {name + '://'!r}", key="store", fix=_FIX)


def _sqlite_path(url: str) -> Path:
    """``sqlite:///x.db`` -> ``x.db`` and ``sqlite:////abs/x.db`` -> ``/abs/x.db``."""
    prefix = "sqlite:///"
    path = url[len(prefix) :] if url.startswith(prefix) else ""
    if not path:
        raise ConfigError(
            f"{url!r} names no file",
            key="store",
            fix="write sqlite:///relative/path.db or sqlite:////absolute/path.db",
        )
    return Path(path)
