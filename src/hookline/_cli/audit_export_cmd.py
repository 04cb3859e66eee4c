"""``hookline audit export``: the audit as lines for other tools: JSON Lines, CEF or syslog.

    hookline audit export [--format jsonl|cef|syslog] [--output FILE] [--session ID]
                          [--since 1d] [--until T] [--tenant T] [--agent A] [--user U]
                          [--host H]

``jsonl`` writes each record as the store keeps it (redacted as it was written, its seq and
hash included), one JSON object a line. ``cef`` (ArcSight Common Event Format) and ``syslog``
(RFC 5424, facility log audit) write one line per event a SIEM reads: each record, and each hook
run a tool call's record carries as an event of its own (it shares the call record's seq and
hash). The formats and their escaping: ``hookline.audit._export``. ``--tenant``, ``--agent``,
``--user`` and ``--host`` keep one caller's records (``hookline.audit._callers``).

To stdout, or to ``--output FILE`` (created private, mode 0600, or replaced). The records are
checked first as ``hookline audit verify`` checks them: when a check fails, they are written all
the same, a line on stderr says the audit is NOT VERIFIED and why, and the exit code is 1.
"""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, TextIO

import click

from hookline._cli.audit_source import (
    by_caller,
    narrowing,
    opened,
    said_unverified,
    session_named,
    unverified,
    where,
)
from hookline._cli.own_stdout import cli_stdout
from hookline._errors import ConfigError
from hookline._support.version import __version__
from hookline.audit import unfolded
from hookline.audit._export import cef_line, jsonl_line, syslog_line

if TYPE_CHECKING:
    from hookline.audit._callers import Callers
    from hookline.storage import AuditRow

FORMATS = ("jsonl", "cef", "syslog")


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@where
@narrowing
@by_caller
@click.option(
    "--format",
    "form",
    type=click.Choice(FORMATS),
    default="jsonl",
    show_default=True,
    help="jsonl: the records as stored; cef or syslog (RFC 5424): one line per event, for a SIEM.",
)
@click.option(
    "--output",
    metavar="FILE",
    type=click.Path(dir_okay=False, writable=True),
    help="Write to FILE (mode 0600) instead of stdout.",
)
def export(
    cwd: str,
    store_url: str | None,
    session: str | None,
    since: float | None,
    until: float | None,
    callers: Callers,
    form: str,
    output: str | None,
) -> None:
    """Write the audit records as JSON Lines, CEF or RFC 5424 syslog lines, oldest first.

    Exit 1 when the audit does not verify (the lines are written all the same).
    """
    with opened(cwd, store_url) as store:
        session = session_named(store, session)
        rows = store.audit_rows(session_id=session, since=since, until=until, tenant=callers.tenant)
        problems = unverified(cwd, store_url, store)
    with _target(output) as out:
        for line in lines(callers.rows(rows), form):
            out.write(line + "\n")
    if problems:
        said_unverified("hookline audit export", problems)
        raise SystemExit(1)


def lines(rows: list[AuditRow], form: str) -> Iterator[str]:
    """Each record (``jsonl``), or each event (``cef``, ``syslog``), as a line."""
    if form == "jsonl":
        return map(jsonl_line, rows)
    write: Callable[[AuditRow], str]
    if form == "cef":
        write = lambda row: cef_line(row, version=__version__)  # noqa: E731
    else:
        host = socket.gethostname()
        write = lambda row: syslog_line(row, host=host)  # noqa: E731
    events: Iterable[AuditRow] = unfolded(rows)
    return map(write, events)


@contextmanager
def _target(output: str | None) -> Iterator[TextIO]:
    """Stdout, or ``output`` made private (0600) before anything is written to it."""
    if output is None:
        yield cli_stdout() or sys.stdout
        return
    try:
        fd = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.fchmod(fd, 0o600)
    except OSError as exc:
        why = f"cannot write {output}: {exc.strerror}"
        raise ConfigError(why, key="--output", fix="name a file you can write") from None
    with open(fd, "w", encoding="utf-8", newline="\n") as file:
        yield file
