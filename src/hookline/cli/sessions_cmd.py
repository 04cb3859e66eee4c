"""``hookline sessions``: list the sessions in the store, show one, resume a paused one.

Every ``hookline run`` with the audit on is kept in the store's list (``RunListing``): as
``started`` once its prompt is in, ``done`` when it ends; a run that pauses is kept as
``deferred`` by session persistence, as in the library. ``sessions list`` and ``sessions show``
print them for people (header, aligned columns, local times), or as JSON with ``--json``.
"""

from __future__ import annotations

import json
import time
import warnings
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import click

from hookline._support.display import shown
from hookline.agent.observers import Observer
from hookline.agent.owners import claim_of, owner_alive
from hookline.agent.pause import Resumer, check, find, resumable, save
from hookline.agent.session import STATE_DIR
from hookline.agent.state import Turn, load_state
from hookline.claude.fingerprint import changes, fingerprint
from hookline.cli.answers import answer_from_cli
from hookline.cli.columns import print_aligned
from hookline.cli.ids import unique_start
from hookline.cli.launch import LENIENT_SETTINGS, OUTPUT_FORMAT, Launch, build_agent
from hookline.cli.paused import resume_lines
from hookline.cli.render import compact, echo, emit_json, say
from hookline.cli.resume_plan import masking, resume_plan
from hookline.cli.show import Output, show
from hookline.errors import ConfigError
from hookline.storage import CorruptRecordWarning, SessionRecord, Store, open_store
from hookline.storage.sql import SqlStore

if TYPE_CHECKING:
    from hookline.agent.result import RunResult
    from hookline.agent.session import Session
    from hookline.agent.store import SessionStore
    from hookline.events import HookEvent

#: A stored status in the one vocabulary the list, ``--json``, ``--status`` and hints use.
STATUS_WORDS: Final = {
    "deferred": "paused",
    "done": "finished",
    "started": "running",
    "running": "running",  # checkpointed: a crashed one can be resumed
    "resuming": "resuming",
    "interrupted": "interrupted",  # a Ctrl-C or an error: resumable when it was checkpointed
}
#: The statuses ``--status`` takes: the words above, and ``crashed`` (a running session whose
#: process is gone from this host).
STATUSES: Final = ("paused", "running", "crashed", "resuming", "interrupted", "finished")

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
_TIME = "%Y-%m-%d %H:%M:%S"
#: How many sessions ``--status resuming`` looks through for claims (each names its process).
_CLAIMS_SCAN: Final = 10_000


class RunListing(Observer):
    """Keeps each ``hookline run`` in the store's list of sessions: ``started`` once its prompt
    is in, ``done`` when it ends. A paused run is left to session persistence (``deferred``).
    A ``started`` record is not a checkpoint: a run whose process died is not resumed from it."""

    def __init__(self, store: SessionStore, launch: Mapping[str, Any] | None) -> None:
        self.store, self.launch = store, launch
        self._listed: set[str] = set()

    def event(self, session: Session, event: HookEvent) -> None:
        if event.name == "UserPromptSubmit" and session.id not in self._listed:
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
    records = _listed(_store(cwd, store), status, tenant, limit)
    summaries = [_summary(record) for record in records]
    if as_json:
        for summary in summaries:
            emit_json(summary)
    elif not summaries:
        say("note", "no sessions", err=True)
    else:
        header = ("SESSION", "STATUS", "STARTED", "UPDATED", "USER", "DETAIL")
        print_aligned(header, [_row(summary) for summary in summaries])


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
    details = masking(record, cwd or ".").redact(_summary(record) | resume_plan(record))
    if as_json:
        emit_json(details, indent=2)
    else:
        _print_details(details, record)


@sessions.command("resume")
@click.argument("session_id")
@click.option("--approve", is_flag=True, help="Approve the waiting call(s) as they are.")
@click.option("--deny", default=None, metavar="MESSAGE", help="Deny them; the model reads why.")
@click.option("--edit", default=None, metavar="JSON", help="Run this input instead, if it passes.")
@click.option("--user", default=None, help="Who resumes it (recorded in the audit log).")
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
    user: str | None,
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
    unless --reload-settings. Exit code 4 when it pauses again."""
    record = _find(_store(cwd, store), session_id, tenant)
    session_id = record.id  # the whole id, when a start of it was given
    checked = check(record, trust_edited_state=trust_edited_state)  # before its launch is used
    answer = None
    if checked.turn.waiting or approve or deny is not None or edit is not None:
        answer = answer_from_cli(approve, deny, edit)
        if user:
            answer = replace(answer, approver=f"cli:{user}")
    launch = Launch.saved(checked.launch, session=session_id)
    if lenient_settings:  # else as the run was started
        launch = replace(launch, lenient_settings=True)
    changed = _settings_changed(session_id, launch, reload=reload_settings)
    agent = build_agent(launch)
    by = Resumer(
        user, reload_settings, tuple(changed), trust_edited_state, tenant, rerun_interrupted
    )
    show(agent, Output(format=output_format), lambda: agent.resume(session_id, answer, by=by))


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


def _listed(
    store: Store, status: str | None, tenant: str | None, limit: int
) -> list[SessionRecord]:
    """The records whose status word is ``status`` (any, if None), newest first; a warning on
    stderr for each that cannot be read."""
    word = status.lower() if status else None
    looked_for = "running" if word == "crashed" else word
    stored: list[str | None] = [key for key, w in STATUS_WORDS.items() if w == looked_for]
    with warnings.catch_warnings(record=True) as corrupt:
        warnings.simplefilter("always", CorruptRecordWarning)
        found = [
            r
            for s in stored or [None]
            for r in store.list_sessions(status=s, tenant=tenant, limit=limit)
        ]
        if word in ("resuming", "crashed"):  # a claim's status names its process: read them
            every = store.list_sessions(tenant=tenant, limit=_CLAIMS_SCAN)
            found += [r for r in every if claim_of(r.status) is not None]
    if word is not None:
        found = [record for record in found if status_word(record) == word]
    for w in corrupt:
        if issubclass(w.category, CorruptRecordWarning):
            echo(f"warning: {shown(w.message)}", err=True)
        else:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    found.sort(key=lambda r: (-r.created_at, r.id))
    return found[:limit]


def _summary(record: SessionRecord) -> dict[str, Any]:
    claimed = claim_of(record.status)
    summary: dict[str, Any] = {
        "session_id": record.id,
        "status": status_word(record),
        "resumable": _resumable(record),
        "user": record.user,
        "tenant": record.tenant,
        "created_at": record.created_at,
        "updated_at": record.updated_at,
        "waiting": [],
    }
    if record.status in ("started", "running"):  # its process may be gone
        summary["alive"] = owner_alive(record.state.get("owner"))
    elif claimed is not None:  # so may the process that claimed it
        summary["alive"] = not claimed.stale
    try:
        _, messages, turn = load_state(record.state, where=f"session {record.id}")
    except ConfigError as exc:
        summary["problem"] = str(exc)
        return summary
    summary["prompt"] = turn.prompt
    summary["messages"] = len(messages)
    summary["waiting"] = [
        {"id": call.id, "name": call.name, "input": call.input} for call in turn.waiting
    ]
    summary["done"] = [r.to_dict() for _, r in turn.batch if r is not None]
    summary["interrupted"] = [
        {"id": call.id, "name": call.name, "input": call.input} for call in turn.interrupted
    ]
    summary["reason"] = turn.detail
    plain: dict[str, Any] = json.loads(json.dumps(summary, default=str))
    return plain


def status_word(record: SessionRecord) -> str:
    """The record's status in the one vocabulary (``STATUSES``): a running one whose process is
    gone from this host is ``crashed``, and so is one a resume claimed before its process was
    killed (``hookline.agent.owners``)."""
    claimed = claim_of(record.status)
    if claimed is not None:
        return "crashed" if claimed.stale else "resuming"
    word = STATUS_WORDS.get(record.status, record.status)
    if word == "running" and not owner_alive(record.state.get("owner")):
        return "crashed"
    return word


def _resumable(record: SessionRecord) -> bool:
    try:
        resumable(record)
    except ConfigError:
        return False
    return True


def _local(seconds: float) -> str:
    return time.strftime(_TIME, time.localtime(seconds))


def _row(summary: Mapping[str, Any]) -> tuple[str, ...]:
    """One session in ``sessions list``: every cell ``shown``, so one line."""
    waiting = ", ".join(f"{shown(w['name'])} ({shown(w['id'])})" for w in summary["waiting"])
    prompt = shown(summary.get("prompt") or summary.get("problem") or "")
    last = f"waits: {waiting}" if waiting else prompt[:60] + ("..." if len(prompt) > 60 else "")
    word = summary["status"]
    if word in ("crashed", "interrupted") and summary["resumable"]:
        word += " (resumable)"
    return (
        shown(summary["session_id"]),
        shown(word),
        _local(summary["created_at"]),
        _local(summary["updated_at"]),
        shown(summary["user"] or "-"),
        last,
    )


def _print_details(details: Mapping[str, Any], record: SessionRecord) -> None:
    """``sessions show`` for people: one ``name  value`` line each, then how to go on."""
    resumable_now = " (resumable)" if details["resumable"] and details["waiting"] == [] else ""
    lines = [
        ("session", shown(record.id)),
        ("status", shown(details["status"]) + resumable_now),
        ("user", shown(record.user or "-")),
        ("tenant", shown(record.tenant or "-")),
        ("started", _local(record.created_at)),
        ("updated", _local(record.updated_at)),
    ]
    for key in ("problem", "prompt", "messages", "reason"):
        if details.get(key) not in (None, ""):
            lines.append((key, shown(details[key])))
    lines += [("done", _done(d)) for d in details.get("done", [])]
    lines += [
        ("waiting", f"{shown(w['name'])} ({shown(w['id'])}) {compact(w['input'])}")
        for w in details["waiting"]
    ]
    lines += [
        (
            "interrupted",
            f"{shown(w['name'])} ({shown(w['id'])}) {compact(w['input'])}"
            " (outcome unknown; --rerun-interrupted runs it again)",
        )
        for w in details.get("interrupted", [])
    ]
    if record.status in ("deferred", "running", "interrupted") or claim_of(record.status):
        # what a resume would use
        lines += _plan_lines(details.get("resume", {}))
    width = max(len(name) for name, _ in lines) + 2
    for name, value in lines:
        echo(f"{name:<{width}}{value}")
    if details["waiting"] and record.status == "deferred":
        say("note", "run one of these to go on:")
        for line in resume_lines(record.id, details["waiting"], record.state.get("launch")):
            say("note", f"  {line}")


def _done(result: Mapping[str, Any]) -> str:
    name, status = shown(result.get("name", "?")), shown(result.get("status", "?"))
    return f"{name} ({shown(result.get('tool_use_id') or result.get('id') or '?')}): {status}"


def _plan_lines(plan: Mapping[str, Any]) -> list[tuple[str, str]]:
    """What a resume would use, one line each (its hook sources, one line per file)."""
    lines = []
    for key, value in plan.items():
        if key in ("user", "tenant"):
            continue  # shown above
        label = "resume: " + key.replace("_", " ")
        if key == "hook_sources" and isinstance(value, list):
            lines += [(label, f"{shown(s['path'])} {shown(s['status'])}") for s in value]
        elif isinstance(value, list):
            lines.append((label, ", ".join(shown(v) for v in value)))
        else:
            lines.append((label, shown("-" if value is None else value)))
    return lines
