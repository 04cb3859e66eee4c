"""Where the audit commands read from, and which records they take: shared by ``hookline
audit``, ``audit export`` and ``hooks stats``.

``where`` adds ``--cwd`` and ``--store``; ``opened`` opens the store, brought up to the file
first; ``narrowing`` adds ``--session``, ``--since`` and ``--until``; ``by_caller`` adds
``--tenant``, ``--agent``, ``--user`` and ``--host`` (``hookline.audit._callers``), given to the
command as one ``callers``; ``unverified`` runs
``audit verify``'s checks without printing them and gives back what failed, so a command that
reads the records says when they cannot be trusted. Times are ISO 8601 (local time unless it
says otherwise) or relative to now: ``90s``, ``30m``, ``1h``, ``2d``, ``1w``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from time import time
from typing import TYPE_CHECKING, Any, Final, TypeVar, cast

import click

from hookline._agent.session import STATE_DIR
from hookline._cli.audit_verify import Verify, where_of
from hookline._cli.ids import unique_start
from hookline._cli.render import echo, say
from hookline._errors import ConfigError
from hookline._support.display import shown
from hookline.audit._callers import CALLER_FIELDS, Callers
from hookline.audit._chain import AuditError
from hookline.audit._log import JSONL_NAME
from hookline.audit._writer import catch_up
from hookline.storage import DEFAULT_FILE, open_store
from hookline.storage._sql import SqlStore

if TYPE_CHECKING:
    from hookline.storage import Store

F = TypeVar("F", bound=Callable[..., Any])
_UNITS: Final = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_RELATIVE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$")
FIX: Final = "run an agent with the audit log on first, or point --cwd/--store at where it wrote"


def when(ctx: click.Context, param: click.Parameter, value: str | None) -> float | None:
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


def where(fn: F) -> F:
    """The options every audit command shares: the project and the store."""
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


def narrowing(fn: F) -> F:
    """``--session``, ``--since`` and ``--until``: which records a command reads."""
    fn = click.option(
        "--until", metavar="TIME", callback=when, help="Before this time (ISO 8601, 30m)."
    )(fn)
    fn = click.option(
        "--since", metavar="TIME", callback=when, help="From this time on (ISO 8601, 1h)."
    )(fn)
    return click.option(
        "--session",
        default=None,
        help="Only this session's records: its id, or any unique start of it.",
    )(fn)


_CALLER_HELP: Final = {
    "tenant": "Only the records of this tenant (a run's, or a served call's token's).",
    "agent": "Only the calls hookline serve judged for this agent (its token's name).",
    "user": "Only the records of this user (a run's, or a served call's token's).",
    "host": "Only the calls hookline serve judged for this host: claude-code, codex, gemini, "
    "cursor.",
}


def by_caller(fn: F) -> F:
    """``--tenant``, ``--agent``, ``--user`` and ``--host``: whose records a command reads,
    given to it as one ``callers`` (a ``Callers``)."""

    @functools.wraps(fn)
    def with_callers(*args: Any, **kwargs: Any) -> Any:
        given = {name: kwargs.pop(name) for name in CALLER_FIELDS}
        return fn(*args, callers=Callers(**given), **kwargs)

    wrapped: Any = with_callers
    for name in reversed(CALLER_FIELDS):
        wrapped = click.option(f"--{name}", metavar="NAME", help=_CALLER_HELP[name])(wrapped)
    return cast(F, wrapped)


def state(cwd: str) -> Path:
    return Path(cwd) / STATE_DIR


@contextmanager
def opened(
    cwd: str, url: str | None, *, missing_ok: bool = False, catching_up: bool = True
) -> Iterator[Any]:
    """The store to read, brought up to the file first (unless not ``catching_up``: verify
    compares the two as they are); an error (or None, if ``missing_ok``) instead of a new
    empty database where none is."""
    path = store_file(cwd, url)
    if path is not None and not path.is_file():
        if missing_ok:
            yield None
            return
        raise ConfigError(f"no audit store at {path}", fix=FIX)
    store = open_store(url, state_dir=state(cwd))
    try:
        if catching_up:
            _catch_up(store, state(cwd) / JSONL_NAME)
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


def store_file(cwd: str, url: str | None) -> Path | None:
    """The SQLite file the store is in (None for a server)."""
    if url is None:
        return state(cwd) / DEFAULT_FILE
    return Path(url) if "://" not in url else None


def session_named(store: Store, given: str | None) -> str | None:
    """The session ``--session`` names: its id, or the one id in the log that starts with it;
    a ConfigError listing them when several do."""
    if not given or store.audit_rows(session_id=given, limit=1) or not isinstance(store, SqlStore):
        return given
    return unique_start(given, store.audit_session_ids, key="--session") or given


def unverified(cwd: str, url: str | None, store: Store) -> list[str]:
    """What ``hookline audit verify`` would find wrong with the log (nothing printed): each
    failure as a line; empty when every check holds."""
    path = state(cwd) / JSONL_NAME
    failures: list[str] = []
    check = Verify(
        path,
        store,
        where_store=where_of(store, store_file(cwd, url)),
        tell=lambda kind, text: failures.append(text) if kind == "failure" else None,
    )
    if path.is_file():
        check.everything(None, file_only=False)
    elif not check.missing_file() and store.last_audit() is not None:
        check.verify_store(store, None)  # a store some server wrote, with no file here
    return failures


def said_unverified(command: str, failures: list[str]) -> None:
    """One line on stderr saying the records just read are not verified, and why."""
    first = failures[0] if failures else ""
    more = f" (and {len(failures) - 1} more)" if len(failures) > 1 else ""
    say(
        "failure",
        f"{command}: the audit is NOT VERIFIED, these records may have been changed: "
        f"{first}{more}; `hookline audit verify` says more",
        err=True,
    )
