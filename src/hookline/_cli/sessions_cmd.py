"""``hookline sessions``: list the sessions in the store, show one, resume a paused one.

Every ``hookline run`` with the audit on is kept in the store's list (``RunListing``): as
``started`` once its prompt is in, ``done`` when it ends; a run that pauses is kept as
``deferred`` by session persistence, as in the library. ``sessions list`` and ``sessions show``
print them for people (header, aligned columns, local times), or as JSON with ``--json``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from hookline._agent.observers import Observer
from hookline._agent.saved.deadline import expired, when
from hookline._agent.saved.pause import Answers, Resumer, check, find, save
from hookline._agent.saved.state import Turn
from hookline._agent.session import STATE_DIR
from hookline._claude.fingerprint import changes, fingerprint
from hookline._cli.answers import answers_from_cli
from hookline._cli.columns import print_aligned
from hookline._cli.ids import unique_start
from hookline._cli.launch import LENIENT_SETTINGS, OUTPUT_FORMAT, Launch, build_agent
from hookline._cli.render import emit_json, say
from hookline._cli.resume_plan import masking, resume_plan
from hookline._cli.session_listing import STATUSES, listed, print_details, row, summary_of
from hookline._cli.show import Output, show
from hookline._errors import ConfigError
from hookline._events import UserPromptSubmit
from hookline._tools.approvals import Approval
from hookline.storage import SessionRecord, Store, open_store
from hookline.storage._sql import SqlStore

if TYPE_CHECKING:
    from hookline._agent.result import RunResult
    from hookline._agent.saved.store import SessionStore
    from hookline._agent.session import Session
    from hookline._events import HookEvent

_CWD = click.option(
    "--cwd",
    type=click.Path(file_okay=False),
    default=None,
    help="The project whose state folder holds the store (default: here).",
)
_STORE = click.option("--store", default=None, help="postgresql:// URL or SQLite path.")
_TENANT = click.option(
    "--tenant", default=None, help="Only this tenant's sessions (another's: no such session)."
)


class RunListing(Observer):
    """Keeps each ``hookline run`` in the store's list of sessions: ``started`` once its prompt
    is in, ``done`` when it ends. A paused run is left to session persistence (``deferred``).
    A ``started`` record is not a checkpoint: a run whose process died is not resumed from it."""

    #: The prompt's event, whether or not a hook listens to it.
    events = frozenset({UserPromptSubmit.name})

    def __init__(self, store: SessionStore, launch: Mapping[str, Any] | None) -> None:
        self.store, self.launch = store, launch
        self._listed: set[str] = set()

    def event(self, session: Session, event: HookEvent) -> None:
        if event.name == UserPromptSubmit.name and session.id not in self._listed:
            self._listed.add(session.id)
            turn = Turn(prompt=str(getattr(event, "prompt", "")))
            save(self.store, session, turn, status="started", launch=self.launch)

    def run_ended(self, session: Session, turn: Turn, result: RunResult) -> None:
        if result.stop_reason != "tool_deferred":
            save(self.store, session, turn, status="done", launch=self.launch)


@click.group()
def sessions() -> None:
    """Sessions kept in the store: every run, and the paused ones waiting for an answer."""


@sessions.command("list")
@_CWD
@_STORE
@click.option(
    "--status",
    type=click.Choice(STATUSES, case_sensitive=False),
    default=None,
    help="Only sessions with this status.",
)
@click.option(
    "--limit",
    default=100,
    show_default=True,
    type=click.IntRange(min=1),
    help="At most this many sessions, newest first.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="JSON Lines: one object per session (fields: docs/lifecycle.md).",
)
@_TENANT
def list_sessions(
    cwd: str | None,
    store: str | None,
    status: str | None,
    limit: int,
    as_json: bool,
    tenant: str | None,
) -> None:
    """The sessions in the store, newest first: finished, paused and running ones. One whose
    state cannot be read is left out, with a warning naming it."""
    records = listed(_store(cwd, store), status, tenant, limit)
    summaries = [summary_of(record) for record in records]
    if as_json:
        for summary in summaries:
            emit_json(summary)
    elif not summaries:
        say("note", "no sessions", err=True)
    else:
        header = ("SESSION", "STATUS", "STARTED", "UPDATED", "USER", "DETAIL")
        print_aligned(header, [row(summary) for summary in summaries])


@sessions.command("show")
@click.argument("session_id")
@click.option("--json", "as_json", is_flag=True, help="One JSON object, for programs.")
@_CWD
@_STORE
@_TENANT
def show_session(
    session_id: str, as_json: bool, cwd: str | None, store: str | None, tenant: str | None
) -> None:
    """One session: its status, who it runs for, the calls waiting for an answer and how to
    answer them, and what a resume would use (permission mode, roots, hook sources, approver)."""
    record = _find(_store(cwd, store), session_id, tenant)
    details = masking(record, cwd or ".").redact(summary_of(record) | resume_plan(record))
    if as_json:
        emit_json(details, indent=2)
    else:
        print_details(details, record)


@sessions.command("resume")
@click.argument("session_id")
@click.option("--approve", is_flag=True, help="Approve the waiting call(s) as they are.")
@click.option("--deny", default=None, metavar="MESSAGE", help="Deny them; the model reads why.")
@click.option("--edit", default=None, metavar="JSON", help="Run this input instead, if it passes.")
@click.option(
    "--answer",
    "per_call",
    multiple=True,
    metavar="ID=ANSWER",
    help="Answer one waiting call: ID=approve, ID=deny:MESSAGE or ID=edit:JSON (repeatable; "
    "a call left unanswered asks again).",
)
@click.option(
    "--for-session",
    is_flag=True,
    help="An approval also allows, for the rest of the session, what the call's ask offered "
    "(as 'always' at the terminal).",
)
@click.option("--user", default=None, help="Who resumes it (recorded in the audit log).")
@click.option(
    "--via",
    type=click.Choice(["cli", "inbox", "link"]),
    default="cli",
    hidden=True,  # hookline inbox's: where --user answered, recorded as the approver
)
@click.option(
    "--reload-settings",
    is_flag=True,
    help="Resume even though settings or hook files changed since the pause (recorded).",
)
@click.option(
    "--trust-edited-state",
    is_flag=True,
    help="Resume a state changed outside hookline, or saved without a keyed hash (recorded).",
)
@click.option(
    "--rerun-interrupted",
    is_flag=True,
    help="Run again the calls a crash cut off, whose outcome is unknown (recorded). Without it "
    "they are not run again: the model reads that they were interrupted.",
)
@LENIENT_SETTINGS
@_CWD
@_STORE
@_TENANT
@OUTPUT_FORMAT
def resume(
    session_id: str,
    approve: bool,
    deny: str | None,
    edit: str | None,
    per_call: tuple[str, ...],
    for_session: bool,
    user: str | None,
    via: str,
    reload_settings: bool,
    trust_edited_state: bool,
    rerun_interrupted: bool,
    lenient_settings: bool,
    cwd: str | None,
    store: str | None,
    tenant: str | None,
    output_format: str,
) -> None:
    """Resume a paused session, answering its waiting calls, or a crashed or interrupted
    one that was checkpointed (no answer needed when no call waits); it resumes exactly once.
    An edited input is judged again, hooks and all. A call a crash cut off is not run again
    unless --rerun-interrupted. The settings and hook files must be those it paused with,
    unless --reload-settings. Past the pause's deadline (--defer-deadline) no answer is
    needed, and none is applied: the waiting calls are denied. Exit code 4 when it pauses
    again."""
    record = _find(_store(cwd, store), session_id, tenant)
    session_id = record.id  # the whole id, when a start of it was given
    checked = check(record, trust_edited_state=trust_edited_state)  # before its launch is used
    answer: Answers = None
    given = approve or deny is not None or edit is not None or bool(per_call)
    late = _past_deadline(session_id, checked.turn, given=given)
    if (checked.turn.waiting and not late) or given:
        answer = answers_from_cli(approve, deny, edit, per_call, for_session=for_session)
        if user:
            answer = _by(answer, f"{via}:{user}")
    launch = Launch.saved(checked.launch, session=session_id)
    if lenient_settings:  # else as the run was started
        launch = replace(launch, lenient_settings=True)
    changed = _settings_changed(session_id, launch, reload=reload_settings)
    agent = build_agent(launch)
    by = Resumer(
        user, reload_settings, tuple(changed), trust_edited_state, tenant, rerun_interrupted
    )
    show(agent, Output(format=output_format), lambda: agent.resume(session_id, answer, by=by))


def _past_deadline(session_id: str, turn: Turn, *, given: bool) -> bool:
    """Whether the paused calls waited past their deadline: then say that they are denied
    (and any answer given is not applied)."""
    if not (turn.waiting and expired(turn.deadline, time.time())):
        return False
    what = "the answer given is not applied" if given else "no answer is needed"
    said = f"session {session_id} waited past its deadline ({when(turn.deadline or 0)})"
    say("note", f"{said}: its waiting calls are denied; {what}", err=True)
    return True


def _by(answer: Approval | dict[str, Approval], approver: str) -> Approval | dict[str, Approval]:
    """The answer (or each call's) given by ``approver``."""
    if isinstance(answer, Approval):
        return replace(answer, approver=approver)
    return {call: replace(each, approver=approver) for call, each in answer.items()}


def _settings_changed(session_id: str, launch: Launch, *, reload: bool) -> list[str]:
    """The settings layers and hook files that changed since the session paused; a
    ConfigError (exit 2, nothing loaded or run) if any did, unless ``reload``."""
    fix = "review them, then resume with --reload-settings"
    if launch.fingerprints is None:
        if reload:
            return ["unknown (no fingerprint was saved)"]
        raise ConfigError(
            f"session {session_id} kept no fingerprint of its settings and hook files (it "
            "paused under an older hookline), so a change cannot be ruled out",
            fix=fix,
        )
    now = fingerprint(launch.cwd, settings=launch.settings, hook_files=launch.hooks)
    changed = changes(launch.fingerprints, now, base=launch.cwd)
    if changed and not reload:
        listed = ", ".join(changed)
        raise ConfigError(f"settings changed since session {session_id} paused: {listed}", fix=fix)
    return changed


def _store(cwd: str | None, url: str | None) -> Store:
    project = Path(cwd or ".").resolve()
    state = project / STATE_DIR
    if url is None and not (state / "hookline.db").exists():
        raise ConfigError(
            f"no store in {state}",
            key="--cwd",
            fix="run in the project that has paused sessions, or pass --store",
        )
    return open_store(url, state_dir=state)


def _find(store: Store, given: str, tenant: str | None) -> SessionRecord:
    """The session ``given`` names: its whole id, or a start of it only one session (of
    ``tenant``, if given) has."""

    def starting(prefix: str) -> list[str]:
        ids = store.session_ids(prefix) if isinstance(store, SqlStore) else []
        return [id for id in ids if tenant is None or _tenant_of(store, id) == tenant]

    return find(store, unique_start(given, starting, key="session") or given, tenant=tenant)


def _tenant_of(store: Store, session_id: str) -> str | None:
    record = store.get_session(session_id)
    return None if record is None else record.tenant
