"""Answer the calls paused runs wait on, from a browser: approve, deny or edit, signed in.

    hookline inbox [--cwd FOLDER] [--store URL] [--port 8378] [--host 127.0.0.1]
    hookline inbox user add NAME --role approver|viewer [--password-stdin]
    hookline inbox link SESSION_ID --action approve|deny [--minutes 60] [--base URL]

The inbox lists every call the project's store holds paused (``hookline sessions list --status
paused``), each as the terminal prompt shows it, and answers one with ``hookline sessions
resume`` (``hookline._inbox``). People sign in with a name and password from the users file
(``~/.hookline/inbox-users.json``, or ``--users``); an approver answers, a viewer only looks.
"""

from __future__ import annotations

import contextlib
import ipaddress
import signal
import sys
import time
from pathlib import Path
from typing import Any, Final

import click

from hookline._agent.session import STATE_DIR
from hookline._cli.render import echo
from hookline._cli.serve_cmd import served_by, stop, tls_of
from hookline._errors import ConfigError
from hookline._inbox.users import ROLES, add_user, default_path, load_users

DEFAULT_PORT: Final = 8378
#: Seconds a stop waits for open requests (a page's live stream never ends by itself); a run
#: an answer resumed goes on in its own process.
_GRACE: Final = 2.0

_USERS = click.option(
    "--users",
    "users_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The users file (default: $HOOKLINE_INBOX_USERS, else ~/.hookline/inbox-users.json).",
)
_CWD = click.option(
    "--cwd",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=".",
    help="The project whose store holds the paused sessions (default: here).",
)
_STORE = click.option("--store", default=None, help="postgresql:// URL or SQLite path.")


@click.group(invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@_CWD
@_STORE
@_USERS
@click.option("--host", default="127.0.0.1", show_default=True, help="The address to listen on.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=DEFAULT_PORT,
    show_default=True,
    help="The port (0: a free one, printed on the first line).",
)
@click.option("--tls-cert", default=None, help="A PEM certificate: serve HTTPS (needs --tls-key).")
@click.option("--tls-key", default=None, help="The certificate's PEM private key.")
@click.option(
    "--trust-header",
    default=None,
    metavar="NAME",
    help="Take the signed-in user's name from this header, set by a reverse proxy you trust "
    "(off by default; the users file still gives the role).",
)
@click.option(
    "--refresh",
    type=click.FloatRange(min=0.05),
    default=1.0,
    show_default=True,
    help="Seconds between the live list's looks at the store.",
)
@click.option(
    "--notify",
    "notify",
    multiple=True,
    metavar="FORMAT=URL",
    help="Tell this webhook when a call starts to wait: slack=, teams=, discord= or json=URL. "
    "Repeatable.",
)
@click.option(
    "--public-url",
    default=None,
    metavar="URL",
    help="Where people reach the inbox, for the links in notifications (default: where it "
    "listens).",
)
@click.pass_context
def inbox(
    ctx: click.Context,
    cwd: Path,
    store: str | None,
    users_file: Path | None,
    host: str,
    port: int,
    tls_cert: str | None,
    tls_key: str | None,
    trust_header: str | None,
    refresh: float,
    notify: tuple[str, ...],
    public_url: str | None,
) -> None:
    """Answer the calls paused runs wait on, from a browser: approve, deny or edit, signed in.

    Lists every call this project's store holds paused, as the terminal prompt shows it, and
    answers one with hookline sessions resume (first answer wins). Listens on 127.0.0.1 unless
    --host, which needs TLS (--tls-cert, --tls-key) or a trusted proxy (--trust-header)."""
    if ctx.invoked_subcommand is not None:
        return
    users = users_file or default_path()
    if not load_users(users):
        raise ConfigError(
            "no users: nobody could sign in",
            file=str(users),
            fix="hookline inbox user add NAME --role approver",
        )
    check_host(host, tls=tls_cert is not None, proxied=trust_header is not None)
    server_module, inbox_app = served_by("inbox", "hookline._inbox.app")
    tls = tls_of(server_module, tls_cert, tls_key)
    project, state = _project(cwd, store)
    from hookline._inbox.answer import Resumer
    from hookline._inbox.links import link_key
    from hookline._inbox.notify import Notifier, Target

    targets = tuple(Target.parse(given) for given in notify)
    from hookline._inbox.signin import Signer
    from hookline.audit._writer import AuditWriter

    sock = server_module.bind(host, port)
    try:
        with AuditWriter.open(state, store=store) as audit:
            resumer = Resumer(str(project), store)
            box = inbox_app.Inbox(
                audit,
                users,
                resumer,
                Signer(),
                link_key(),
                refresh=refresh,
                trust_header=trust_header,
            )
            listening = server_module.url(sock, tls=tls is not None)
            if targets:
                inbox_url = public_url or listening
                box.notifier = Notifier(targets, box.redactor, inbox_url, box.link_key, audit=audit)
            echo(f"hookline inbox: {project} on {listening}/")
            _run(server_module.server(inbox_app.create_app(box), tls=tls), sock)
    finally:
        sock.close()
    echo("hookline inbox: stopped", err=True)


def _project(cwd: Path, store: str | None) -> tuple[Path, Path]:
    """The project and its state folder; a ConfigError when there is no store to read."""
    project = cwd.resolve()
    state = project / STATE_DIR
    if store is None and not (state / "hookline.db").exists():
        raise ConfigError(
            f"no store in {state}",
            key="--cwd",
            fix="run in the project that has paused sessions, or pass --store",
        )
    return project, state


def _run(server: Any, sock: Any) -> None:
    """Serve until Ctrl-C or SIGTERM; a stop waits ``_GRACE`` for open requests."""
    sys.stdout.flush()
    signal.signal(signal.SIGTERM, stop)
    server.config.timeout_graceful_shutdown = _GRACE  # an open page's live stream never ends
    with contextlib.suppress(KeyboardInterrupt):
        server.run(sockets=[sock])


@inbox.group()
def user() -> None:
    """The people who may sign in to the inbox."""


@user.command("add")
@click.argument("name")
@click.option(
    "--role", type=click.Choice(ROLES), required=True, help="approver answers; viewer looks."
)
@click.option("--password-stdin", is_flag=True, help="Read the password from stdin's first line.")
@_USERS
def user_add(name: str, role: str, password_stdin: bool, users_file: Path | None) -> None:
    """Add a user (or set a user's role and password), asking for the password."""
    if password_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    else:
        password = click.prompt("Password", hide_input=True, confirmation_prompt=True)
    path = users_file or default_path()
    add_user(path, name, role, password)
    echo(f"hookline inbox: {name} may sign in as {role} ({path})")


@inbox.command("link")
@click.argument("session_id")
@click.option("--action", type=click.Choice(["approve", "deny"]), required=True)
@click.option("--call", "call_id", default=None, help="The waiting call (default: the only one).")
@click.option(
    "--minutes", type=click.FloatRange(min=1, max=7 * 24 * 60), default=60, show_default=True
)
@click.option(
    "--base",
    default=f"http://127.0.0.1:{DEFAULT_PORT}",
    show_default=True,
    help="Where people reach the inbox.",
)
@_CWD
@_STORE
def link(
    session_id: str,
    action: str,
    call_id: str | None,
    minutes: float,
    base: str,
    cwd: Path,
    store: str | None,
) -> None:
    """Print a signed one-time link that answers one waiting call, for a message to a person."""
    from hookline._inbox.links import Link, link_key, make
    from hookline._inbox.pending import pending
    from hookline.storage import open_store

    found = open_store(store, state_dir=cwd.resolve() / STATE_DIR)
    try:
        record = found.get_session(session_id)
    finally:
        found.close()
    waiting = pending(record) if record is not None and record.status == "deferred" else None
    if record is None or waiting is None or not waiting.calls:
        raise ConfigError(
            f"session {session_id!r} waits on no call",
            key="SESSION_ID",
            fix="hookline sessions list --status paused",
        )
    ids = [w.request.tool_use_id for w in waiting.calls]
    if (call_id is None and len(ids) != 1) or (call_id is not None and call_id not in ids):
        raise ConfigError("name the call", key="--call", fix=f"one of: {', '.join(ids)}")
    chosen = call_id or ids[0]
    token = make(
        link_key(), Link(record.id, chosen, action, time.time() + minutes * 60, record.updated_at)
    )
    echo(f"{base.rstrip('/')}/link?t={token}")


def check_host(host: str, *, tls: bool, proxied: bool) -> None:
    """Passwords never cross a network in clear: another address needs TLS or a proxy."""
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not (loopback or tls or proxied):
        raise ConfigError(
            f"{host} is reachable from other machines, and passwords would cross it in clear",
            key="--host",
            fix="give --tls-cert and --tls-key, or keep 127.0.0.1 behind a TLS proxy",
        )
