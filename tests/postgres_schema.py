"""A PostgreSQL schema of its own for one test, in the server ``HOOKLINE_TEST_POSTGRES_URL``
names (``.ci/postgres.sh`` starts one; CI always does, so there a missing URL fails)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import pytest

START_SCRIPT = 'pg_env="$(bash .ci/postgres.sh $$)" && eval "$pg_env"'


def postgres_url() -> str:
    """The server's URL; a skip (a failure under CI) when none is given."""
    url = os.environ.get("HOOKLINE_TEST_POSTGRES_URL")
    if url:
        return url
    if os.environ.get("CI") == "true":
        pytest.fail(f"HOOKLINE_TEST_POSTGRES_URL is unset under CI: .ci/run must {START_SCRIPT}")
    pytest.skip(f"HOOKLINE_TEST_POSTGRES_URL is unset (start a server: {START_SCRIPT})")


def with_search_path(url: str, schema: str) -> str:
    parts = urlsplit(url)
    query = [*parse_qsl(parts.query), ("options", f"-csearch_path={schema}")]
    return urlunsplit(parts._replace(query=urlencode(query)))


@contextmanager
def fresh_schema(prefix: str = "hookline_test") -> Iterator[tuple[str, str]]:
    """(schema, URL whose search_path is it): made now, dropped afterwards."""
    import psycopg

    admin_url, schema = postgres_url(), f"{prefix}_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f"CREATE SCHEMA {schema}")
        try:
            yield schema, with_search_path(admin_url, schema)
        finally:
            admin.execute(f"DROP SCHEMA {schema} CASCADE")


def query(url: str, sql: str) -> list[tuple[Any, ...]]:
    """The rows of one statement (none for a statement that returns none)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn, conn.cursor() as cur:
        cur.execute(sql)
        return cur.fetchall() if cur.description else []


def rows_as_text(url: str, schema: str) -> bytes:
    """Every row of every table in ``schema``, as PostgreSQL writes a row as text."""
    tables = query(url, f"SELECT table_name FROM information_schema.tables "
                        f"WHERE table_schema = '{schema}'")  # fmt: skip
    assert {"hookline_sessions", "hookline_audit"} <= {name for (name,) in tables}
    rows = [query(url, f'SELECT t::text FROM "{name}" t') for (name,) in tables]
    return "\n".join(text for table in rows for (text,) in table).encode()
