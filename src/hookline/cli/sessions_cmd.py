"""``hookline sessions``: list the sessions in the store, show one, resume a paused one."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import click

from hookline.agent.session import STATE_DIR
from hookline.agent.state import load_state
from hookline.approvals import answer_from_cli
from hookline.cli.launch import OUTPUT_FORMAT, Launch, build_agent, show
from hookline.cli.render import emit_json, say
from hookline.errors import ConfigError
from hookline.storage import SessionRecord, Store, open_store

_CWD = click.option(
    "--cwd",
    type=click.Path(file_okay=False),
    default=None,
    help="The project whose state folder holds the store (default: here).",
)
_STORE = click.option("--store", default=None, help="postgresql:// URL or SQLite path.")


@click.group()
def sessions() -> None:
    """Sessions kept in the store: paused ones wait for an answer to be resumed."""


@sessions.command("list")
@_CWD
@_STORE
@click.option("--status", default=None, help="Only sessions with this status (e.g. deferred).")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per session.")
def list_sessions(cwd: str | None, store: str | None, status: str | None, as_json: bool) -> None:
    """The sessions in the store, newest first."""
    for record in _store(cwd, store).list_sessions(status=status):
        summary = _summary(record)
        if as_json:
            emit_json(summary)
        else:
            waiting = ", ".join(f"{w['name']} ({w['id']})" for w in summary["waiting"])
            when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(record.updated_at))
            say("note", f"{record.id}  {record.status:9}  {when}  {waiting}")


@sessions.command("show")
@click.argument("session_id")
@_CWD
@_STORE
def show_session(session_id: str, cwd: str | None, store: str | None) -> None:
    """One session: its status, who it runs for, and the calls waiting for an answer."""
    record = _store(cwd, store).get_session(session_id)
    if record is None:
        raise ConfigError(
            f"no session {session_id!r} in the store",
            key="SESSION_ID",
            fix="hookline sessions list",
        )
    emit_json(_summary(record), indent=2)


@sessions.command("resume")
@click.argument("session_id")
@click.option("--approve", is_flag=True, help="Approve the waiting call(s) as they are.")
@click.option("--deny", default=None, metavar="MESSAGE", help="Deny them; the model reads why.")
@click.option("--edit", default=None, metavar="JSON", help="Approve with this input instead.")
@_CWD
@_STORE
@OUTPUT_FORMAT
def resume(
    session_id: str,
    approve: bool,
    deny: str | None,
    edit: str | None,
    cwd: str | None,
    store: str | None,
    output_format: str,
) -> None:
    """Resume a paused session, answering its waiting calls; it resumes exactly once."""
    answer = answer_from_cli(approve, deny, edit)
    record = _store(cwd, store).get_session(session_id)
    saved = record.state.get("launch") if record else None
    launch = Launch.saved(saved, session=session_id) if record else None
    if launch is None:
        raise ConfigError(
            f"no session {session_id!r} in the store",
            key="SESSION_ID",
            fix="hookline sessions list",
        )
    agent = build_agent(launch)
    show(agent, output_format, lambda: agent.resume(session_id, answer))


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
