"""``hookline audit``: read the audit log, and check that nobody has changed it.

    hookline audit [--session ID] [--tenant T] [--agent A] [--user U] [--host H] [--tool NAME]
                   [--decision D] [--since 1h] [--until T] [--unfinished] [--json]
    hookline audit verify [--head HASH]   both hash chains, and the file against the store,
                                          record by record; exit 1 on any difference
    hookline audit head [--json]          the chain's head (seq and hash), to keep elsewhere
    hookline audit export [--format jsonl|cef|syslog] [--output FILE]
                                          the records for other tools (``audit_export_cmd``)

``--decision D`` finds the records that say D: a hook's answer, an approval, a resume, a call's
outcome (``blocked``, ``executed``, ...), and a call's permission when nothing else on record
says it (a deny by a permission rule, the mode or a tier, which no hook or approval record
shows); so each refusal is listed once, where it was made. Records written before the
permission was kept apart (they have a ``decision`` only) are found by it as before.

A tool call's hook runs are kept in the call's records (``data["hooks"]``); they are printed,
and filtered, as lines of their own, each before its call's line; ``--json`` prints the records
as they are kept. ``--decision`` reads every record the other filters keep.

The records are printed under a header, in aligned columns; a session shows as the first 8
characters of its id, and ``--session`` takes any start of an id that only one session has (a
start several share is a one-line error listing them, exit 2).

A call whose ``tool_started`` record has no result after it shows as ``started, not finished``
(the process ended while its tool ran); that is not tampering. ``verify --head`` proves that
nothing newer than a head kept elsewhere was cut from both copies: the head must still be in
the chain, at its place. With no store, or a store without audit records, the file is verified
alone (file-only mode), and ``verify`` says so. ``--tenant`` keeps the records whose data names
that tenant, ``--agent``, ``--user`` and ``--host`` likewise (``hookline.audit._callers``: a
query filter, not access control); ``verify`` and ``head`` take no tenant: the
chain is one for the whole store, and checking it means reading every record.

A run writes each record to the file first and copies the file's records to the store in
groups, so a run still going, or one killed, may have its newest records in the file only.
``hookline audit`` and ``head`` copy them to the store before reading it. ``verify`` compares
the two as they are: the file's newest records missing from the store are no difference unless
a copy already took them (it notes how far in ``audit.stored``), so a record cut from the
store alone after its copy is still found.

They read the project's state folder (``--cwd``, default the current one): the SQLite store
``.hookline/state/hookline.db`` (or ``--store URL``) and ``.hookline/state/audit.jsonl``. Times
are ISO 8601 (local time unless it says otherwise) or relative to now: ``90s``, ``30m``, ``1h``,
``2d``, ``1w``. A missing store or file is a one-line error (exit 2).
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path

import click

from hookline._cli.audit_export_cmd import export
from hookline._cli.audit_rows import COLUMNS, as_dict, cells, cut_off_call, saying, unfinished_calls
from hookline._cli.audit_source import (
    FIX,
    by_caller,
    narrowing,
    opened,
    session_named,
    state,
    store_file,
    where,
)
from hookline._cli.audit_verify import Verify, where_of
from hookline._cli.columns import print_aligned
from hookline._cli.render import echo, emit_json, say
from hookline._errors import ConfigError
from hookline._support.display import shown
from hookline.audit import unfolded
from hookline.audit._callers import Callers
from hookline.audit._log import JSONL_NAME
from hookline.audit._marks import Mark, marks_jsonl
from hookline.audit._records import DECISIONS

_HEAD = re.compile(r"^\s*(?:(\d+)[\s:])?\s*((?:v3:|hmac:)?[0-9a-f]{64})\s*$")


def _known_decision(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """``value`` if a record can say it; else a usage error naming the closest ones."""
    if value is None or value in DECISIONS:
        return value
    close = difflib.get_close_matches(value, sorted(DECISIONS), n=3)
    hint = f"did you mean {' or '.join(close)}? " if close else ""
    raise click.BadParameter(
        f"no record says {value!r}: {hint}one of {', '.join(sorted(DECISIONS))}"
    )


@click.group(invoke_without_command=True)
@where
@narrowing
@by_caller
@click.option("--tool", default=None, help="Only records about this tool.")
@click.option(
    "--decision",
    default=None,
    callback=_known_decision,
    help="Only this decision: deny (a hook's, an approver's or a permission rule's), allow, ask, "
    "defer, blocked, executed, ...",
)
@click.option("--unfinished", is_flag=True, help="Only calls started and never finished.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per record.")
@click.pass_context
def audit(
    ctx: click.Context,
    cwd: str,
    store_url: str | None,
    session: str | None,
    callers: Callers,
    tool: str | None,
    decision: str | None,
    since: float | None,
    until: float | None,
    unfinished: bool,
    as_json: bool,
) -> None:
    """Show the audit records that match every filter given, oldest first."""
    if ctx.invoked_subcommand is not None:
        return
    with opened(cwd, store_url) as store:
        session = session_named(store, session)
        rows = store.audit_rows(
            session_id=session, tool=tool, since=since, until=until, tenant=callers.tenant
        )
        rows = callers.rows(rows)
        cut_off = unfinished_calls(store, rows)
    lines = list(unfolded(rows))
    if decision is not None:
        lines = saying(lines, decision)
    if unfinished:
        lines = [line for line in lines if cut_off_call(line, cut_off)]
    if as_json:
        kept = {line.seq for line in lines}
        for row in rows:
            if row.seq in kept:
                emit_json(as_dict(row, cut_off))
    elif lines:
        print_aligned(COLUMNS, [cells(line, cut_off) for line in lines])
    else:
        echo("no audit records match", err=True)


audit.add_command(export)


@audit.command()
@where
@click.option(
    "--head",
    "kept",
    metavar="HASH",
    help="A head from `audit head` (HASH or SEQ:HASH): exit 1 unless it is still in the chain, "
    "at its place.",
)
@click.option(
    "--file-only",
    is_flag=True,
    help="The audit was written without a store: verify the file alone (else an empty or missing "
    "store is a difference).",
)
def verify(cwd: str, store_url: str | None, kept: str | None, file_only: bool) -> None:
    """Check both hash chains, the notes under the key, and compare the file with the store;
    exit 1 on any difference."""
    path = state(cwd) / JSONL_NAME
    head = _kept_head(kept)
    with opened(cwd, store_url, missing_ok=True, catching_up=False) as store:
        check = Verify(path, store, where_store=where_of(store, store_file(cwd, store_url)))
        if not path.is_file():
            if check.missing_file():
                raise SystemExit(1)
            raise ConfigError(f"no audit file at {path}", fix=FIX)
        check.everything(head, file_only)
    if check.failed:
        say("failure", "audit verify: FAILED (see above)")
        raise SystemExit(1)
    echo("audit verify: OK")


@audit.command()
@where
@click.option("--json", "as_json", is_flag=True, help='As {"seq": N, "hash": "..."}.')
def head(cwd: str, store_url: str | None, as_json: bool) -> None:
    """Print the chain's head (seq and hash) to keep elsewhere, for `audit verify --head`."""
    with opened(cwd, store_url, missing_ok=True) as store:
        last = store.last_audit() if store is not None else None
    mark = Mark(last.seq, last.hash) if last is not None else _file_head(state(cwd) / JSONL_NAME)
    if mark is None:
        raise ConfigError(f"no audit records in {state(cwd)}", fix=FIX)
    if as_json:
        emit_json({"seq": mark.seq, "hash": mark.hash})
    else:
        echo(shown(mark))


def _kept_head(value: str | None) -> tuple[str, int | None] | None:
    """``--head``: the hash, and the seq if given (``SEQ:HASH`` or ``SEQ HASH``)."""
    if value is None:
        return None
    match = _HEAD.match(value.lower())
    if match is None:
        raise click.BadParameter(
            f"{value!r} is not a head: give its hash (v3:HEX, hmac:HEX or HEX), or SEQ:HASH",
            param_hint="--head",
        )
    seq = match.group(1)
    return match.group(2), int(seq) if seq else None


def _file_head(path: Path) -> Mark | None:
    last = None
    if path.is_file():
        for last in marks_jsonl(path):  # noqa: B007 - the last one is the head
            pass
    return last
