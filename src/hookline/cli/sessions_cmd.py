"""``hookline sessions``: list the sessions in the store, show one, resume a paused one."""

from __future__ import annotations

import json
import time
import warnings
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from hookline._support.display import shown
from hookline.agent.pause import Resumer, check, find
from hookline.agent.session import STATE_DIR
from hookline.agent.state import load_state
from hookline.claude.fingerprint import changes, fingerprint
from hookline.cli.answers import answer_from_cli
from hookline.cli.launch import OUTPUT_FORMAT, Launch, build_agent, show
from hookline.cli.render import echo, emit_json, say
from hookline.cli.resume_plan import resume_plan
from hookline.errors import ConfigError
from hookline.storage import CorruptRecordWarning, SessionRecord, Store, open_store

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


@click.group()
def sessions() -> None:
    """Sessions kept in the store: paused ones wait for an answer to be resumed."""


@sessions.command("list")
@_CWD
@_STORE
@click.option("--status", default=None, help="Only sessions with this status (e.g. deferred).")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per session.")
@_TENANT
def list_sessions(
    cwd: str | None, store: str | None, status: str | None, as_json: bool, tenant: str | None
) -> None:
    """The sessions in the store, newest first; one whose state cannot be read is left out,
    with a warning naming it."""
    with warnings.catch_warnings(record=True) as corrupt:
        warnings.simplefilter("always", CorruptRecordWarning)
        records = _store(cwd, store).list_sessions(status=status, tenant=tenant)
    for w in corrupt:
        if issubclass(w.category, CorruptRecordWarning):
            echo(f"warning: {shown(w.message)}", err=True)
        else:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    for record in records:
        summary = _summary(record)
        if as_json:
            emit_json(summary)
        else:
            waiting = ", ".join(
                f"{shown(w['name'])} ({shown(w['id'])})" for w in summary["waiting"]
            )
            when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(record.updated_at))
            say("note", f"{shown(record.id)}  {shown(record.status):9}  {when}  {waiting}")


@sessions.command("show")
@click.argument("session_id")
@_CWD
@_STORE
@_TENANT
def show_session(session_id: str, cwd: str | None, store: str | None, tenant: str | None) -> None:
    """One session: its status, who it runs for, the calls waiting for an answer, and what a
    resume would use (permission mode, roots, hook sources, approver, user, tenant)."""
    record = find(_store(cwd, store), session_id, tenant=tenant)
    emit_json(_summary(record) | resume_plan(record), indent=2)


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
    cwd: str | None,
    store: str | None,
    tenant: str | None,
    output_format: str,
) -> None:
    """Resume a paused session, answering its waiting calls; it resumes exactly once. An
    edited input is judged again, hooks and all. The settings and hook files must be those
    it paused with, unless --reload-settings."""
    answer = answer_from_cli(approve, deny, edit)
    if user:
        answer = replace(answer, approver=f"cli:{user}")
    record = find(_store(cwd, store), session_id, tenant=tenant)
    checked = check(record, trust_edited_state=trust_edited_state)  # before its launch is used
    launch = Launch.saved(checked.launch, session=session_id)
    changed = _settings_changed(session_id, launch, reload=reload_settings)
    agent = build_agent(launch)
    by = Resumer(user, reload_settings, tuple(changed), trust_edited_state, tenant)
    show(agent, output_format, lambda: agent.resume(session_id, answer, by=by))


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


def _summary(record: SessionRecord) -> dict[str, Any]:
    summary: dict[str, Any] = {
        "session_id": record.id,
        "status": record.status,
        "user": record.user,
        "tenant": record.tenant,
        "updated_at": record.updated_at,
        "waiting": [],
    }
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
    summary["reason"] = turn.detail
    plain: dict[str, Any] = json.loads(json.dumps(summary, default=str))
    return plain
