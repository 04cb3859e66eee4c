"""``hookline serve``: answer Claude Code's HTTP hooks with this folder's policies.

    hookline serve [--cwd FOLDER] [--port N] [--host 127.0.0.1] [--tls-cert F --tls-key F]
                   [--workers N] [--store URL] [--asks inbox [--ask-wait S]] [--inbox]
    hookline serve token add|list|revoke           the agents' tokens (``token_cmd``)
    hookline serve asks list|answer                the live asks, at a terminal (``asks_cmd``)

The folder's settings are loaded as ``hookline run`` loads them (``load_project``: every
settings layer, ``--settings``, ``--hooks`` files, the permission rules); each hook event
posted to ``/claude-code`` is judged with them (``hookline._serve``), tightened by the policy
of the event's project when the user trusts its folder (``hookline._serve.projects``), and
recorded in the folder's audit log, with the digest of the policy that decided it (``GET
/policy`` shows that policy). A change to any file of the policy, or SIGHUP, loads it again: a
policy that loads replaces the running one, one that does not leaves it serving and says why
(``hookline._serve.reload``). It serves until Ctrl-C (or SIGTERM). Needs ``hookline[serve]``.
With ``--workers N`` it forks N workers on the one socket (``hookline._serve.workers``), each
reloading on its own.

Who may ask is the gate's (``hookline._serve.gate``): once the state folder has a token, every
request needs a valid one, and an address other than loopback does not start without one.
With ``--asks inbox`` an ask waits for a person in the inbox, which ``--inbox`` serves under
``/inbox`` (``hookline._cli.serve_asks``).
"""

from __future__ import annotations

import contextlib
import importlib
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import click

from hookline._agent.session import STATE_DIR
from hookline._cli.asks_cmd import asks
from hookline._cli.launch import LENIENT_SETTINGS
from hookline._cli.render import echo, say, warn
from hookline._cli.serve_asks import INBOX_PATH, Fleet, ask_options
from hookline._cli.token_cmd import token
from hookline._cli.trust_cmd import terminal_asker
from hookline._errors import ConfigError
from hookline._hosts.claude_code import DEFAULT_PORT
from hookline._policy.digest import policy_digest
from hookline._project import load_project
from hookline._serve import rate, tokens
from hookline.audit._keyed import chain_key
from hookline.audit._redact import Redactor
from hookline.audit._writer import AuditWriter

if TYPE_CHECKING:
    from collections.abc import Callable
    from types import FrameType, ModuleType

    from hookline._policy.digest import PolicyDigest
    from hookline._project import Project
    from hookline._serve.gate import Gate
    from hookline._serve.policies import Loader

EXTRA_HINT: Final = "pip install 'hookline[serve]'"
#: Seconds a stop waits for open requests when the inbox is served (its pages' live streams).
_GRACE: Final = 2.0
#: What the serve extra installs.
_EXTRA: Final = frozenset({"starlette", "uvicorn"})


@click.group(invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="The address to listen on (another than loopback lets other machines post events).",
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=DEFAULT_PORT,
    show_default=True,
    help="The port (0: a free one, printed on the first line).",
)
@click.option(
    "--cwd",
    "--settings-dir",
    "cwd",
    type=click.Path(file_okay=False, exists=True),
    default=".",
    help="The server's policy folder, whose settings are read as `hookline run` reads a "
    "project's (default: the current one).",
)
@click.option(
    "--settings",
    "settings",
    multiple=True,
    metavar="FILE|JSON",
    help="A settings file, or inline JSON, on top of the folder's layers. Repeatable.",
)
@click.option(
    "--hooks",
    "hook_files",
    multiple=True,
    metavar="FILE.py",
    help="A Python file with a HOOKS mapping and/or register(registry). Repeatable.",
)
@LENIENT_SETTINGS
@click.option(
    "--state-dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Where the audit log is kept (default: the folder's .hookline/state).",
)
@click.option("--store", default=None, help="The audit's store: a path or URL (default: SQLite).")
@click.option(
    "--tls-cert",
    type=click.Path(dir_okay=False),
    default=None,
    help="Serve HTTPS with this certificate (PEM, its chain after it); needs --tls-key.",
)
@click.option("--tls-key", type=click.Path(dir_okay=False), default=None,
              help="The certificate's private key (PEM, unencrypted).")  # fmt: skip
@click.option(
    "--rate",
    type=click.FloatRange(min=0),
    default=rate.RATE,
    show_default=True,
    help="Calls a second each token may make (0: no limit); over it a call is refused.",
)
@click.option("--burst", type=click.IntRange(min=1), default=rate.BURST, show_default=True,
              help="How many calls a token may make at once, above its rate.")  # fmt: skip
@click.option(
    "--workers",
    type=click.IntRange(1, 64),
    default=1,
    show_default=True,
    help="Worker processes answering on the one port; they share the audit (one chain), the "
    "tokens and break-glass; each keeps its own rate limit.",
)
@ask_options
@click.pass_context
def serve(
    ctx: click.Context,
    /,
    host: str,
    port: int,
    cwd: str,
    settings: tuple[str, ...],
    hook_files: tuple[str, ...],
    lenient_settings: bool,
    state_dir: str | None,
    store: str | None,
    tls_cert: str | None,
    tls_key: str | None,
    rate: float,
    burst: int,
    workers: int,
    **fleet_options: Any,
) -> None:
    """Answer Claude Code's, Gemini CLI's, Codex's and Cursor's hooks with this folder's rules.

    Each event Claude Code posts to /claude-code (a hook of type "http") gets the decision a
    `hookline run` here would give: its Python and command hooks, its permission rules, the
    Bash analysis and the dangerous tier. Every decision is in the folder's audit log.
    Once the server has tokens (hookline serve token add), every request needs one.
    """
    if ctx.invoked_subcommand is not None:
        return
    uvicorn_server, app_module = served_by("serve", "hookline._serve.app")
    tls = tls_of(uvicorn_server, tls_cert, tls_key)
    project = load_project(
        cwd,
        settings=settings,
        hook_files=hook_files,
        lenient=lenient_settings,
        trust=terminal_asker(),
    )
    for warning in project.warnings:
        warn(warning)
    digest = policy_digest(project)  # before anything is left out: as `hookline policy` says
    state = Path(state_dir) if state_dir else Path(project.cwd) / STATE_DIR
    gate = _gate(host, state, rate, burst, workers)
    fleet = Fleet.checked(fleet_options, host=host, tls=tls is not None)
    sock = uvicorn_server.bind(host, port)
    from hookline._serve.itself import leave_out_itself
    from hookline._serve.judge import Judge
    from hookline._serve.policies import Policies
    from hookline._serve.projects import Projects
    from hookline._serve.reload import Watcher
    from hookline._serve.traced import from_environment as served_tracing
    from hookline.telemetry._environment import checked

    checked()  # an exporter hookline cannot make stops the start, before any worker does
    for hook in leave_out_itself(project.hooks, host, sock.getsockname()[1]):
        say("note", f"left out {hook}: a hook of the settings that posts to this server", err=True)
    load = _loader(project, settings, hook_files, lenient_settings, (host, sock.getsockname()[1]))

    where = uvicorn_server.url(sock, tls=tls is not None)
    first = f"hookline serve: {project.cwd} on {where}{app_module.CLAUDE_CODE_PATH}"
    policy_line = f"hookline serve: policy {digest.short} (GET {where}/policy)"
    if fleet.inbox:
        policy_line += f"\nhookline serve: inbox on {where}{INBOX_PATH}/"
    if fleet.settings.mode == "inbox":
        wait = fleet.settings.wait
        policy_line += (
            f"\nhookline serve: asks wait {wait:g}s for the inbox, then {fleet.settings.on_expiry}"
        )

    def opened() -> AuditWriter:
        return AuditWriter.open(state, store=store, redactor=Redactor(project.redact))

    def serve_alone() -> None:  # a worker's: its own audit writer, store connection, judge
        with opened() as audit:
            serve_with(audit)

    def serve_with(audit: AuditWriter) -> None:
        policies = Policies(Judge(project), digest, load=load)
        hangup = hasattr(signal, "SIGHUP")  # not on Windows
        watcher = Watcher(policies, audit, say=_said, hangup=hangup)
        listening = (host, sock.getsockname()[1])
        projects = Projects(audit, own=project.cwd, listening=listening, say=_said)
        tracing = served_tracing(audit.redactor)  # None unless OTEL_* variables ask for traces
        asks, mounts = fleet.wired(audit, project.cwd, store, where)
        app = app_module.create_app(
            policies,
            audit,
            glass_dir=state,
            gate=gate,
            watcher=watcher,
            projects=projects,
            tracing=tracing,
            asks=asks,
            mounts=mounts,
        )
        signal.signal(signal.SIGTERM, stop)  # uvicorn hands it back once it has shut down
        uvicorn_server.settle()
        served = uvicorn_server.server(app, tls=tls)
        if mounts:  # an open page's live stream never ends by itself
            served.config.timeout_graceful_shutdown = _GRACE
        try:
            with contextlib.suppress(KeyboardInterrupt), _checkpoints_apart(audit):
                served.run(sockets=[sock])
        finally:
            if tracing is not None:
                tracing.close()  # the last spans sent before the process ends

    status = 0
    try:
        with opened() as audit:  # a store that cannot be opened stops the start, in one line
            if workers == 1:
                _announce(first, policy_line)
                serve_with(audit)
        if workers > 1:
            status = _in_workers(workers, serve_alone, first, policy_line)
    finally:
        sock.close()
    echo("hookline serve: stopped", err=True)
    if status:
        raise SystemExit(status)


serve.add_command(token)
serve.add_command(asks)


def _checkpoints_apart(audit: AuditWriter) -> contextlib.AbstractContextManager[object]:
    """A SQLite store's checkpoints in a thread of their own while the server serves: a hook
    call never waits on one (``SqliteStore.checkpoints_apart``)."""
    from hookline.storage._sqlite import SqliteStore

    store = audit.store_of()
    return store.checkpoints_apart() if isinstance(store, SqliteStore) else contextlib.nullcontext()


def _announce(first: str, policy: str) -> None:
    """Where it listens (stdout's first line) and the policy's digest (stderr)."""
    echo(first)
    sys.stdout.flush()  # nothing left in the buffer for workers to write again
    _said(policy)


def _in_workers(count: int, serve_one: Callable[[], None], *lines: str) -> int:
    """Serve in ``count`` worker processes (``hookline._serve.workers``); the exit status."""
    from hookline._serve.workers import Workers

    chain_key(create=True)  # made once, here, not by workers racing for it
    _announce(*lines)
    return Workers(count, serve_one, note=lambda text: say("note", text, err=True)).run()


def tls_of(server_module: ModuleType, cert: str | None, key: str | None) -> Any:
    """The certificate and key, checked; None without them. Both or neither."""
    if cert is None and key is None:
        return None
    if cert is None or key is None:
        given, missing = ("--tls-cert", "--tls-key") if key is None else ("--tls-key", "--tls-cert")
        raise ConfigError(f"{given} needs {missing}", key=missing, fix="give both, or neither")
    return server_module.Tls(cert, key).checked()


def _loader(
    project: Project,
    settings: tuple[str, ...],
    hook_files: tuple[str, ...],
    lenient: bool,
    listening: tuple[str, int],
) -> Loader:
    """What loads the folder's policy again as it was loaded at the start (the folder's trust
    as it was then: a reload never asks), leaving out the hooks that post to this server."""
    from hookline._serve.itself import leave_out_itself

    def load() -> tuple[Project, PolicyDigest]:
        again = load_project(
            project.cwd,
            settings=settings,
            hook_files=hook_files,
            lenient=lenient,
            trust=project.settings.trusted,
        )
        digest = policy_digest(again)
        leave_out_itself(again.hooks, *listening)
        return again, digest

    return load


def _said(line: str) -> None:
    echo(line, err=True)


def _gate(host: str, state: Path, per_second: float, burst: int, workers: int) -> Gate:
    """Who may ask: a token once the state folder has one, always beyond loopback; each
    token's rate counted across the ``workers`` (made before they fork)."""
    from hookline._serve.gate import Gate, only_loopback
    from hookline._serve.rate import Buckets, Limits, SharedBuckets

    path = tokens.tokens_path(state)
    known = tokens.read(path)  # a file that cannot be read stops the start, in one line
    required = not only_loopback(host)
    if required and not any(entry.active for entry in known):
        raise tokens.no_active_token(path)
    if known:
        active = sum(entry.active for entry in known)
        say("note", f"{active} token(s) active: every request must carry one", err=True)
    buckets = SharedBuckets() if workers > 1 else Buckets()
    limits = Limits(per_second, burst, buckets=buckets)
    return Gate(tokens.TokenFile(path), required=required, limits=limits)


def served_by(command: str, app: str) -> tuple[ModuleType, ModuleType]:
    """The server module and ``app``'s, for ``hookline COMMAND``; a ConfigError with the
    install hint without the serve extra."""
    try:
        return importlib.import_module("hookline._serve.server"), importlib.import_module(app)
    except ImportError as exc:
        missing = (exc.name or "").partition(".")[0]
        if missing not in _EXTRA:
            raise
        raise ConfigError(
            f"hookline {command} needs the serve extra ({missing} is not installed)",
            fix=EXTRA_HINT,
        ) from None


def stop(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt  # SIGTERM stops it as Ctrl-C does: quietly, the audit closed
