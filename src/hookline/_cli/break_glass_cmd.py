"""``hookline break-glass``: the way out of a fail-closed install, for a bounded time, on record
(``hookline._serve.break_glass``).

    hookline break-glass [--minutes 15] [--reason TEXT]   ask-only until then
    hookline break-glass --end                             enforcement again now
"""

from __future__ import annotations

from pathlib import Path

import click
import httpx

from hookline._cli.render import echo, say
from hookline._cli.server_folder import SERVER_CWD, SERVER_STATE, server_state
from hookline._errors import ConfigError
from hookline._hosts.claude_code import DEFAULT_PORT
from hookline._serve.break_glass import Glass, break_glass, mend
from hookline.audit._writer import AuditWriter

#: How long the server has to say it is there before it counts as hung.
_PROBE_SECONDS = 2.0


@click.command("break-glass", context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--minutes",
    type=float,
    default=15,
    show_default=True,
    help="How long every call is asked for instead of judged (at most 240).",
)
@click.option("--reason", default="locked out", show_default=True, help="Why, for the record.")
@click.option("--end", is_flag=True, help="End it now: enforcement again at the next call.")
@SERVER_CWD
@SERVER_STATE
@click.option("--port", type=click.IntRange(1, 65535), default=DEFAULT_PORT, show_default=True)
def break_glass_cmd(
    minutes: float, reason: str, end: bool, cwd: Path, state_dir: Path | None, port: int
) -> None:
    """Ask-only for a while: the way out when a fail-closed server blocks every call.

    hookline serve asks for every tool call in the host's own prompt: nothing is denied,
    nothing runs unasked. When no server answers on the port, this stands in for it until the
    time is up (Ctrl-C ends it sooner). Both ends are in the audit log."""
    state = server_state(cwd, state_dir)
    with AuditWriter.open(state) as audit:
        if end:
            _mended(state, audit)
            return
        glass = break_glass(state, minutes, reason)
        audit.add(glass.record("broken"))
        audit.flush()
        echo(f"hookline break-glass: every call is asked for until {glass.ends} ({reason})")
        if _server_answers(port):
            echo(f"  the server on port {port} answers ask-only; `hookline break-glass --end` "
                 "ends it sooner")  # fmt: skip
            return
        _stand_in(glass, audit, state, port)
        _mended(state, audit)


def _server_answers(port: int) -> bool:
    """Whether a server answers on ``port``; False when nothing listens. A ConfigError when
    something listens and does not answer (a hung server keeps the port)."""
    url = f"http://127.0.0.1:{port}/health"
    try:
        return httpx.get(url, timeout=_PROBE_SECONDS).status_code == 200
    except httpx.ConnectError:
        return False
    except httpx.HTTPError as exc:
        raise ConfigError(
            f"something holds port {port} and does not answer ({type(exc).__name__}); the glass "
            "is broken, so a server that comes back answers ask-only",
            key="--port",
            fix="stop the process on that port (it blocks every call), then run this again",
        ) from None


def _stand_in(glass: Glass, audit: AuditWriter, state: Path, port: int) -> None:
    from hookline._serve.stand_in import StandIn

    try:
        server = StandIn(("127.0.0.1", port), glass, audit, state)
    except OSError as exc:
        raise ConfigError(f"cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}") from None
    echo(f"  no server on port {port}: standing in for it until {glass.ends} (Ctrl-C ends it)")
    try:
        server.serve_while_held()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


def _mended(state: Path, audit: AuditWriter) -> None:
    glass = mend(state)
    if glass is None:
        say("note", "no glass is broken: enforcement holds")
        return
    audit.add(glass.record("mended"))
    audit.flush()
    echo("hookline break-glass: over; calls are judged again (blocked while no server answers)")
