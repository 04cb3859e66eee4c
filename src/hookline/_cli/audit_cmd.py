"""``hookline audit``: read the audit log, and check that nobody has changed it.

    hookline audit [--session ID] [--tenant T] [--tool NAME] [--decision D] [--since 1h]
                   [--until T] [--unfinished] [--json]
    hookline audit verify [--head HASH]   both hash chains, and the file against the store,
                                          record by record; exit 1 on any difference
    hookline audit head [--json]          the chain's head (seq and hash), to keep elsewhere

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
that tenant (a query filter, not access control); ``verify`` and ``head`` take no tenant: the
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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from time import time
from typing import TYPE_CHECKING, Any, Final, TypeVar

import click

from hookline._agent.session import STATE_DIR
from hookline._cli.audit_rows import COLUMNS, as_dict, cells, cut_off_call, saying, unfinished_calls
from hookline._cli.audit_verify import NOT_YET, Verify, where_of
from hookline._cli.columns import print_aligned
from hookline._cli.ids import unique_start
from hookline._cli.render import echo, emit_json, say
from hookline._errors import ConfigError
from hookline._support.display import shown
from hookline.audit import unfolded
from hookline.audit._chain import AuditError
from hookline.audit._log import JSONL_NAME
from hookline.audit._marks import Mark, marks_jsonl
from hookline.audit._records import DECISIONS
from hookline.audit._writer import catch_up
from hookline.storage import DEFAULT_FILE, open_store
from hookline.storage._sql import SqlStore

if TYPE_CHECKING:
    from hookline.storage import Store

F = TypeVar("F", bound=Callable[..., Any])
_UNITS: Final = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_RELATIVE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$")
_HEAD = re.compile(r"^\s*(?:(\d+)[\s:])?\s*((?:v3:|hmac:)?[0-9a-f]{64})\s*$")


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
        "--store",
        "store_url",
        default=None,
        metavar="URL",
        help="A postgresql:// URL, sqlite:/// URL or SQLite file (default: the state folder's).",
    )(fn)
    return click.option(
        "--cwd",
        type=click.Path(file_okay=False),
        default=".",
        help="The project folder whose .hookline/state is read (default: the current one).",
    )(fn)


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
@_where
@click.option(
    "--session",
    default=None,
    help="Only this session's records: its id, or any unique start of it.",
)
@click.option("--tenant", default=None, help="Only the records of this tenant's runs.")
@click.option("--tool", default=None, help="Only records about this tool.")
@click.option(
    "--decision",
    default=None,
    callback=_known_decision,
    help="Only this decision: deny (a hook's, an approver's or a permission rule's), allow, ask, "
    "defer, blocked, executed, ...",
)
@click.option("--since", metavar="TIME", callback=_when, help="From this time on (ISO 8601, 1h).")
@click.option("--until", metavar="TIME", callback=_when, help="Before this time (ISO 8601, 30m).")
@click.option("--unfinished", is_flag=True, help="Only calls started and never finished.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per record.")
@click.pass_context
def audit(
    ctx: click.Context,
    cwd: str,
    store_url: str | None,
    session: str | None,
    tenant: str | None,
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
    with _store(cwd, store_url) as store:
        session = _session(store, session)
        rows = store.audit_rows(
            session_id=session, tool=tool, since=since, until=until, tenant=tenant
        )
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


@audit.command()
@_where
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
    path = _state(cwd) / JSONL_NAME
    head = _kept_head(kept)
    with _store(cwd, store_url, missing_ok=True, catching_up=False) as store:
        check = Verify(path, store, where_store=where_of(store, _store_file(cwd, store_url)))
        if not path.is_file():
            if check.missing_file():
                raise SystemExit(1)
            raise ConfigError(f"no audit file at {path}", fix=_FIX)
        copied = check.copied()
        both = store is not None and store.last_audit() is not None
        if store is not None and not both and copied is None:
            echo(f"store {check.where_store}: no records copied to it yet ({NOT_YET})")
        elif both:
            check.verify_store(store, head)
        else:
            check.file_only(file_only)
        check.stores_copy(copied)
        check.verify_file(head)
        check.file_holds_its_head()
        if both:
            check.compare(store, copied)
    if check.failed:
        say("failure", "audit verify: FAILED (see above)")
        raise SystemExit(1)
    echo("audit verify: OK")


@audit.command()
@_where
@click.option("--json", "as_json", is_flag=True, help='As {"seq": N, "hash": "..."}.')
def head(cwd: str, store_url: str | None, as_json: bool) -> None:
    """Print the chain's head (seq and hash) to keep elsewhere, for `audit verify --head`."""
    with _store(cwd, store_url, missing_ok=True) as store:
        last = store.last_audit() if store is not None else None
    mark = Mark(last.seq, last.hash) if last is not None else _file_head(_state(cwd) / JSONL_NAME)
    if mark is None:
        raise ConfigError(f"no audit records in {_state(cwd)}", fix=_FIX)
    if as_json:
        emit_json({"seq": mark.seq, "hash": mark.hash})
    else:
        echo(shown(mark))


_FIX = "run an agent with the audit log on first, or point --cwd/--store at where it wrote"


def _state(cwd: str) -> Path:
    return Path(cwd) / STATE_DIR


@contextmanager
def _store(
    cwd: str, url: str | None, *, missing_ok: bool = False, catching_up: bool = True
) -> Iterator[Any]:
    """The store to read, brought up to the file first (unless not ``catching_up``: verify
    compares the two as they are); an error (or None, if ``missing_ok``) instead of a new
    empty database where none is."""
    path = _store_file(cwd, url)
    if path is not None and not path.is_file():
        if missing_ok:
            yield None
            return
        raise ConfigError(f"no audit store at {path}", fix=_FIX)
    store = open_store(url, state_dir=_state(cwd))
    try:
        if catching_up:
            _catch_up(store, _state(cwd) / JSONL_NAME)
        yield store
    finally:
        store.close()


def _catch_up(store: Store, path: Path) -> None:
    """Bring the store up to the file first: a run copies its records in groups, so one still
    going, or killed, may have some in the file only."""
    if not path.is_file():
        return
    try:
        copied = catch_up(path, store)
    except AuditError as exc:
        say("failure", f"the file's newest records were not copied to the store: {shown(exc)}")
        return
    if copied:
        echo(f"{copied} records copied from the file to the store (written ahead of it)", err=True)


def _store_file(cwd: str, url: str | None) -> Path | None:
    """The SQLite file the store is in (None for a server)."""
    if url is None:
        return _state(cwd) / DEFAULT_FILE
    return Path(url) if "://" not in url else None


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


def _session(store: Store, given: str | None) -> str | None:
    """The session ``--session`` names: its id, or the one id in the log that starts with it;
    a ConfigError listing them when several do."""
    if not given or store.audit_rows(session_id=given, limit=1) or not isinstance(store, SqlStore):
        return given
    return unique_start(given, store.audit_session_ids, key="--session") or given
