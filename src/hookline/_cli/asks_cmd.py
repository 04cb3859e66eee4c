"""``hookline serve asks``: the live asks a server's hosts wait on, at a terminal.

hookline serve asks list [--json]                           what waits, and until when
hookline serve asks answer ASK_ID --approve | --deny MSG    one answer, first answer wins

A live ask (``hookline serve --asks inbox``, ``hookline._serve.asks``) is answered here as in
the inbox (``hookline._inbox.live``): the answer fills its slot in the store, so of this, the
inbox, a link and every server on the store, the first answer counts; the server waiting on it
finds it at its next look and answers its host. The ``inbox_answer`` record says who (``--user``),
``via: terminal``, and what came of it. The input is shown with every escape written out.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

from hookline._cli.columns import print_aligned
from hookline._cli.render import echo
from hookline._cli.server_folder import SERVER_CWD, SERVER_STATE, server_state
from hookline._support.display import compact, shown, shown_json

if TYPE_CHECKING:
    from hookline._inbox.answer import Action
    from hookline.storage import Store

_STORE = click.option("--store", default=None, help="The server's store: a path or URL.")


@click.group("asks", context_settings={"help_option_names": ["-h", "--help"]})
def asks() -> None:
    """The live asks hosts wait on (hookline serve --asks inbox): list, answer."""


@asks.command("list")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per line.")
@SERVER_CWD
@SERVER_STATE
@_STORE
def list_asks(as_json: bool, cwd: Path, state_dir: Path | None, store: str | None) -> None:
    """The live asks still waiting, newest first: id, host, tool, input, seconds left, who."""
    from hookline._inbox.live import live_asks

    opened = _opened(cwd, state_dir, store)
    try:
        found = live_asks(opened)
    finally:
        opened.close()
    now = time.time()
    if as_json:
        for p in found:
            assert p.live is not None
            request = p.calls[0].request
            said = {"id": p.live.id, "host": p.live.host, "tool": request.tool_name,
                    "input": request.tool_input, "deadline": p.live.deadline,
                    "agent": p.live.agent, "user": p.user, "session_id": p.session_id}  # fmt: skip
            echo(shown_json(said))
        return
    rows = []
    for p in found:
        assert p.live is not None
        request = p.calls[0].request
        who = p.live.agent or p.user or p.live.peer or "-"
        left = f"{max(0.0, p.live.deadline - now):.0f}s"
        rows.append([p.live.id, shown(p.live.host), shown(request.tool_name),
                     compact(request.tool_input, 60), left, shown(who)])  # fmt: skip
    if not rows:
        echo("no live ask waits", err=True)
        return
    print_aligned(["ID", "HOST", "TOOL", "INPUT", "LEFT", "WHO"], rows)


@asks.command("answer")
@click.argument("ask_id")
@click.option("--approve", is_flag=True, help="Let the call run.")
@click.option("--deny", "message", default=None, metavar="MESSAGE",
              help="Refuse it; the model reads MESSAGE.")  # fmt: skip
@click.option("--edit", default=None, metavar="JSON",
              help="Run this input instead: the server judges it again first.")  # fmt: skip
@click.option(
    "--for-session",
    is_flag=True,
    help="Approve, and allow what the ask offers for the rest of the session.",
)
@click.option("--why", default="", help="Your own words on why, for the record.")
@click.option("--user", required=True, help="Who answers, for the record.")
@SERVER_CWD
@SERVER_STATE
@_STORE
def answer(
    ask_id: str,
    approve: bool,
    message: str | None,
    edit: str | None,
    for_session: bool,
    why: str,
    user: str,
    cwd: Path,
    state_dir: Path | None,
    store: str | None,
) -> None:
    """Approve, deny or edit one live ask; refused (exit 1) once anything answered it or it
    expired."""
    from hookline._cli.answers import answers_from_cli
    from hookline._inbox.answer import Answer, record
    from hookline._inbox.live import answer_live
    from hookline._tools.approvals import Approval
    from hookline.audit._writer import AuditWriter

    parsed = answers_from_cli(approve, message, edit, for_session=for_session)
    assert isinstance(parsed, Approval)  # one answer: no --answer ID=... here
    action: Action = "edit" if edit is not None else "approve" if approve else "deny"
    given = Answer(
        action,
        user,
        "terminal",
        via="terminal",
        message=parsed.message,
        edited=parsed.updated_input,
        why=why.strip(),
        for_session=for_session,
    )
    state = server_state(cwd, state_dir)
    with AuditWriter.open(state, store=store) as audit:
        found_store = audit.store_of()
        assert found_store is not None  # AuditWriter.open always has one
        outcome, found = answer_live(found_store, ask_id, given)
        said = found.ask if found is not None else {}
        call = (said.get("tool_use_id"), said.get("tool"))
        audit.add(
            record(
                given,
                session_id=said.get("session_id"),
                call=(str(call[0]), str(call[1])) if all(call) else None,
                outcome=outcome,
                redactor=audit.redactor,
                ask=ask_id,
            )
        )
        audit.flush()
    if not outcome.applied:
        echo(f"hookline serve asks: refused: {outcome.said}", err=True)
        sys.exit(1)
    echo(f"hookline serve asks: {outcome.said}")


def _opened(cwd: Path, state_dir: Path | None, store: str | None) -> Store:
    from hookline.storage import open_store

    return open_store(store, state_dir=server_state(cwd, state_dir))
