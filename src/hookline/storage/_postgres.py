"""The shared store: PostgreSQL, so many worker processes see the same sessions and audit log.

Needs psycopg 3 (``pip install 'hookline[postgres]'``). Each store holds one connection with
autocommit off; every call is one transaction at READ COMMITTED. An audit append first takes
``LOCK TABLE hookline_audit IN EXCLUSIVE MODE`` (appenders wait for each other, readers do
not), so the last row it reads is the last row there is and the chain never forks. Creating
or migrating the tables holds an advisory lock, so two processes opening a new database at
the same moment do not both create it. ``claim_session`` is one conditional UPDATE: of
concurrent claims, the first takes the row lock and the others, re-checking the condition on
the row it committed, match nothing.
"""

from __future__ import annotations

from functools import cache
from typing import Final
from urllib.parse import urlsplit, urlunsplit

from hookline._errors import ConfigError

try:
    import psycopg
except ImportError as exc:  # depends on the install
    raise ConfigError(
        "the PostgreSQL store needs psycopg, which is not installed",
        fix="pip install 'hookline[postgres]'",
    ) from exc

from hookline.storage._sql import Cursor, LockKind, SqlStore, migrations

#: How long opening the store waits for the server before it gives up.
CONNECT_TIMEOUT_SECONDS = 10
#: The advisory lock held while the tables are created or migrated ("hook" in ASCII).
_SCHEMA_LOCK = 0x686F6F6B

# The state is JSONB (compact, queryable). The audit data is JSON, which keeps the exact text
# it was given: JSONB would rewrite numbers such as 1e16 (back as the int 10000000000000000),
# and a chain function that hashed the original would no longer verify the row read back.
MIGRATIONS: Final = migrations(real="DOUBLE PRECISION", seq="BIGINT", state="JSONB", data="JSON")


class PostgresStore(SqlStore):
    """A store in a PostgreSQL database (its tables go to the first schema on the search path)."""

    tenant_filter = "data->>'tenant' = ?"

    def __init__(self, url: str) -> None:
        self.url = url
        where = redact(url)
        try:
            conn = psycopg.connect(url, autocommit=False, connect_timeout=CONNECT_TIMEOUT_SECONDS)
        except psycopg.Error as exc:
            raise _cannot_open(where, exc) from exc
        try:
            super().__init__(conn, where=where, tables=MIGRATIONS)
        except psycopg.Error as exc:
            conn.close()
            raise _cannot_open(where, exc) from exc
        except BaseException:
            conn.close()
            raise

    def _begin(self, cur: Cursor, lock: LockKind) -> None:
        # psycopg opens the transaction at the first statement; only the locks are explicit.
        if lock == "audit":
            cur.execute("LOCK TABLE hookline_audit IN EXCLUSIVE MODE")
        elif lock == "schema":
            cur.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))

    def _sql(self, text: str) -> str:
        return _format_style(text)

    def __repr__(self) -> str:
        return f"PostgresStore({self.where!r})"


def redact(url: str) -> str:
    """The URL without its password, fit for messages and logs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{host}"))


@cache
def _format_style(text: str) -> str:
    return text.replace("?", "%s")


def _cannot_open(where: str, exc: Exception) -> ConfigError:
    reason = str(exc).strip() or type(exc).__name__
    return ConfigError(
        f"cannot open the PostgreSQL store: {reason}",
        file=where,
        fix="check the URL (postgresql://user:password@host:port/database) and that the server "
        "is running and reachable",
    )
