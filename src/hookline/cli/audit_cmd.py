"""``hookline audit``: read the audit log, and check that nobody has changed it.

    hookline audit [--session ID] [--tool NAME] [--decision D] [--since 1h] [--until T] [--json]
    hookline audit verify      both hash chains (store and audit.jsonl); exit 1 when tampered

Both read the project's state folder (``--cwd``, default the current one): the SQLite store
``.hookline/state/hookline.db`` (or ``--store URL``) and ``.hookline/state/audit.jsonl``. Times
are ISO 8601 (local time unless it says otherwise) or relative to now: ``90s``, ``30m``, ``1h``,
``2d``, ``1w``. A missing store or file is a one-line error (exit 2).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import fields
from datetime import datetime
from pathlib import Path
from time import time
from typing import TYPE_CHECKING, Any, TypeVar

import click

from hookline.agent.session import STATE_DIR
from hookline.audit import verify_jsonl, verify_rows
from hookline.audit.log import JSONL_NAME
from hookline.cli.render import emit_json
from hookline.errors import ConfigError
from hookline.storage import DEFAULT_FILE, open_store

if TYPE_CHECKING:
    from hookline.audit import Problem
    from hookline.storage import AuditRow, Store

F = TypeVar("F", bound=Callable[..., Any])
PAGE = 10_000  # rows read at a time by verify
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_RELATIVE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$")


def _when(ctx: click.Context, param: click.Parameter, value: str | None) -> float | None:
    """A moment, ISO 8601 or a duration back from now (``30m``, ``1h``), as epoch seconds."""
    if value is None:
        return None
    relative = _RELATIVE.match(value)
    if relative:
        return time() - float(relative.group(1)) * _UNITS[relative.group(2)]
    try:
        return datetime.fromisoformat(value).timestamp()
    except ValueError:
        raise click.BadParameter(
            f"{value!r} is neither ISO 8601 (2025-01-31T09:30) nor like 30m, 1h, 2d"
        ) from None


def _where(fn: F) -> F:
    """The options both commands share: the project and the store."""
    fn = click.option(
        "--store", "store_url", default=None, metavar="URL",
        help="A postgresql:// URL, sqlite:/// URL or SQLite file (default: the state folder's).",
    )(fn)  # fmt: skip
    return click.option(
        "--cwd", type=click.Path(file_okay=False), default=".",
        help="The project folder whose .hookline/state is read (default: the current one).",
    )(fn)  # fmt: skip


@click.group(invoke_without_command=True)
@_where
@click.option("--session", default=None, help="Only this session's records.")
@click.option("--tool", default=None, help="Only records about this tool.")
@click.option("--decision", default=None, help="Only this decision: deny, allow, blocked, ...")
@click.option("--since", metavar="TIME", callback=_when, help="From this time on (ISO 8601, 1h).")
@click.option("--until", metavar="TIME", callback=_when, help="Before this time (ISO 8601, 30m).")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per record.")
@click.pass_context
def audit(
    ctx: click.Context,
    cwd: str,
    store_url: str | None,
    session: str | None,
    tool: str | None,
    decision: str | None,
    since: float | None,
    until: float | None,
    as_json: bool,
) -> None:
    """Show the audit records that match every filter given, oldest first."""
    if ctx.invoked_subcommand is not None:
        return
    with _store(cwd, store_url) as store:
        rows = store.audit_rows(
            session_id=session, tool=tool, decision=decision, since=since, until=until
        )
    for row in rows:
        if as_json:
            emit_json(_as_dict(row))
        else:
            click.echo(_line(row))
    if not rows and not as_json:
        click.echo("no audit records match", err=True)


@audit.command()
@_where
def verify(cwd: str, store_url: str | None) -> None:
    """Check the store's hash chain and audit.jsonl's; exit 1 if either was changed."""
    path = _state(cwd) / JSONL_NAME
    if not path.is_file():
        raise ConfigError(f"no audit file at {path}", fix=_FIX)
    with _store(cwd, store_url) as store:
        counted = _Counted(_all_rows(store))
        store_problem = verify_rows(counted)
        where = getattr(store, "where", repr(store))
    tampered = _report(f"store {where}", counted.count, store_problem)
    file_problem = verify_jsonl(path)
    tampered |= _report(f"file {path}", _complete_lines(path), file_problem)
    if tampered:
        raise SystemExit(1)


_FIX = "run an agent with the audit log on first, or point --cwd/--store at where it wrote"


def _state(cwd: str) -> Path:
    return Path(cwd) / STATE_DIR


@contextmanager
def _store(cwd: str, url: str | None) -> Iterator[Store]:
    """The store to read; an error instead of a new empty database where none is."""
    state = _state(cwd)
    looks_like_file = url is None or "://" not in url
    path = state / DEFAULT_FILE if url is None else Path(url)
    if looks_like_file and not path.is_file():
        raise ConfigError(f"no audit store at {path}", fix=_FIX)
    store = open_store(url, state_dir=state)
    try:
        yield store
    finally:
        store.close()


def _all_rows(store: Store) -> Iterator[AuditRow]:
    after = None
    while page := store.audit_rows(after_seq=after, limit=PAGE):
        yield from page
        after = page[-1].seq


class _Counted:
    """Passes rows through, counting them."""

    def __init__(self, rows: Iterator[AuditRow]) -> None:
        self.rows, self.count = rows, 0

    def __iter__(self) -> Iterator[AuditRow]:
        for row in self.rows:
            self.count += 1
            yield row


def _complete_lines(path: Path) -> int:
    with open(path, "rb") as file:
        return sum(chunk.count(b"\n") for chunk in iter(lambda: file.read(1 << 20), b""))


def _report(what: str, count: int, problem: Problem | None) -> bool:
    """Say what was checked and the first problem; True when it is tampering."""
    if problem is None:
        click.echo(f"{what}: {_records(count)}, chain intact")
        return False
    if not problem.tampered:
        click.echo(f"{what}: {_records(count)}, chain intact; {problem} (a crash artefact)")
        return False
    click.secho(f"{what}: TAMPERED: {problem}", fg="red")
    return True


def _records(count: int) -> str:
    return f"{count} record" + ("" if count == 1 else "s")


def _as_dict(row: AuditRow) -> dict[str, Any]:
    return {field.name: getattr(row, field.name) for field in fields(row)}


def _line(row: AuditRow) -> str:
    """time, session, tool, event (or kind), hook (or who answered), decision, reason."""
    data = row.data
    when = datetime.fromtimestamp(row.time).isoformat(timespec="seconds")
    hook = data.get("hook") or data.get("answered_by") or "-"
    reason = str(data.get("reason") or data.get("message") or data.get("error") or "")
    reason = reason.splitlines()[0][:100] if reason else ""
    session = (row.session_id or "-")[:8]
    what = f"{row.tool or '-':<12} {row.event or row.kind:<18} {hook:<16} {row.decision or '-':<9}"
    return f"{when}  {session:<8}  {what} {reason}".rstrip()
