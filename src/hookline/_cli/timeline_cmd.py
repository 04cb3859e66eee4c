"""``hookline timeline``: one session as its steps, with the hooks that ran at each.

    hookline timeline SESSION [--cwd FOLDER] [--store URL] [--html FILE] [--json]
    hookline timeline [--tenant T] [--agent A] [--user U] [--host H] [--since 1d] [--until T]

Each step (a prompt, a model call, a tool call, a hook run of another event, an approval, a
resume) on one line: seconds since the first, what it was, what was decided and by whom, how
long it took, then one indented line per hook that ran at it (its decision, reason and
milliseconds; a shadow hook's as what it would have decided). ``--html FILE`` writes the same
as a self-contained page, with the session's hook health (``hooks stats``) below it.
Without SESSION, it lists the sessions the audit has (the one seen last first): when, how
many records and calls, and who made them (host, agent, tenant, user); ``--tenant``,
``--agent``, ``--user``, ``--host`` (``hookline.audit._callers``), ``--since`` and ``--until``
choose which. It reads what ``hookline audit`` reads, checks it as ``hookline audit verify``
does, and exits 1, saying why, when that check fails.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import click

from hookline._agent.session import STATE_DIR
from hookline._cli.audit_source import (
    by_caller,
    opened,
    said_unverified,
    session_named,
    unverified,
    when,
    where,
)
from hookline._cli.columns import print_aligned
from hookline._cli.render import echo, emit_json, say
from hookline._cli.timeline_page import page
from hookline._errors import ConfigError
from hookline._support.display import shown
from hookline._support.private import replace_private
from hookline.audit._callers import Callers
from hookline.audit._health import health
from hookline.audit._timeline import HookMark, SessionSeen, Step, sessions_seen, timeline

#: The p95 over which the page marks a hook slow (``hooks stats --slow-ms``'s default).
SLOW_MS = 1000.0


#: The listing's columns, without SESSION.
LISTED = ("SESSION", "FIRST", "LAST", "RECORDS", "CALLS", "HOST", "AGENT", "TENANT", "USER")


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("session", required=False)
@where
@click.option("--html", "html_file", type=click.Path(dir_okay=False), default=None,
              help="Write the timeline as a self-contained HTML page to this file.")  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="The steps as one JSON object.")
@by_caller
@click.option(
    "--since",
    metavar="TIME",
    callback=when,
    help="Without SESSION: the sessions with records from this time on (ISO 8601, 1h).",
)
@click.option(
    "--until",
    metavar="TIME",
    callback=when,
    help="Without SESSION: the sessions with records before this time.",
)
def timeline_cmd(
    session: str | None,
    cwd: str,
    store_url: str | None,
    html_file: str | None,
    as_json: bool,
    callers: Callers,
    since: float | None,
    until: float | None,
) -> None:
    """One session as its steps: prompts, model and tool calls, approvals, and their hooks.

    SESSION is its id, or any unique start of it; without it, the sessions the audit has,
    chosen by --tenant, --agent, --user, --host, --since and --until. Exit 1 when the audit
    does not verify (the timeline is shown all the same, and says so).
    """
    if session is None:
        if html_file is not None:
            raise ConfigError(
                "--html writes one session's timeline",
                key="SESSION",
                fix="name the session: hookline timeline SESSION --html FILE",
            )
        _listing(cwd, store_url, callers, since, until, as_json=as_json)
        return
    if callers or since is not None or until is not None:
        raise ConfigError(
            f"{callers if callers else '--since/--until'}: these choose which sessions to list",
            key="SESSION",
            fix="leave SESSION out to list the sessions they choose, or leave them out",
        )
    with opened(cwd, store_url) as store:
        named = session_named(store, session) or session
        rows = store.audit_rows(session_id=named)
        problems = unverified(cwd, store_url, store)
    if not rows:
        raise ConfigError(f"no audit records of session {session!r}", key="SESSION",
                          fix="give a session id that `hookline sessions list` shows")  # fmt: skip
    transcript = Path(cwd) / STATE_DIR / "transcripts" / f"{named}.jsonl"
    steps = timeline(rows, transcript if transcript.is_file() else None)
    if html_file is not None:
        text = page(named, steps, health(rows), slow_ms=SLOW_MS)
        replace_private(Path(html_file), text.encode())
        echo(f"wrote {html_file}: {len(steps)} steps", err=True)
    elif as_json:
        emit_json({"session": named, "verified": not problems, "problems": problems,
                   "steps": [step.to_dict() for step in steps]})  # fmt: skip
    else:
        _print(steps)
    if problems:
        said_unverified("hookline timeline", problems)
        raise SystemExit(1)


def _listing(
    cwd: str,
    store_url: str | None,
    callers: Callers,
    since: float | None,
    until: float | None,
    *,
    as_json: bool,
) -> None:
    """The sessions the chosen records are of, the one seen last first."""
    with opened(cwd, store_url) as store:
        rows = store.audit_rows(since=since, until=until, tenant=callers.tenant)
        problems = unverified(cwd, store_url, store)
    seen = sessions_seen(callers.rows(rows))
    if as_json:
        emit_json({"verified": not problems, "problems": problems,
                   "sessions": [one.to_dict() for one in seen]})  # fmt: skip
    elif seen:
        print_aligned(LISTED, [_listed(one) for one in seen])
    else:
        echo(f"no sessions of {callers} in the audit", err=True)
    if problems:
        said_unverified("hookline timeline", problems)
        raise SystemExit(1)


def _listed(one: SessionSeen) -> tuple[str, ...]:
    said = (one.said(name) or "-" for name in ("host", "agent", "tenant", "user"))
    return (
        shown(one.id),
        _local(one.first),
        _local(one.last),
        str(one.records),
        str(len(one.calls)),
        *(shown(value) for value in said),
    )


def _local(seconds: float) -> str:
    return datetime.fromtimestamp(seconds).strftime("%Y-%m-%d %H:%M:%S")


def _print(steps: list[Step]) -> None:
    start = steps[0].time if steps else 0.0
    for step in steps:
        said = f" -> {step.decision}" if step.decision else ""
        who = f" by {step.who}" if step.who else ""
        ms = f" {step.ms:.1f} ms" if step.ms is not None else ""
        kind = (
            "deny"
            if step.decision and step.decision.split(" ")[0] in ("deny", "blocked")
            else "hook"
        )
        detail = f" {shown(step.detail)}" if step.detail else ""
        say(
            kind,
            f"+{step.time - start:8.3f}s {step.kind:<8} {shown(step.title)}{detail}{said}{who}{ms}",
        )
        if step.reason:
            echo(f"{'':20}{shown(step.reason)}")
        for mark in step.hooks:
            echo(f"{'':20}{_mark(mark)}")


def _mark(mark: HookMark) -> str:
    decision = mark.decision or "no decision"
    said = f"would {decision}" if mark.shadow else decision
    failure = f" ({mark.failure})" if mark.failure else ""
    reason = f": {shown(mark.reason)}" if mark.reason else ""
    ms = f" {mark.ms:.1f} ms" if mark.ms is not None else ""
    return f"{mark.event} hook {shown(mark.hook)} {said}{failure}{reason}{ms}"
