"""``hookline model-server``: a scripted model behind the OpenAI, Anthropic and Gemini APIs,
offline.

    hookline model-server --script FILE [--port N]

It serves on 127.0.0.1 until Ctrl-C (or SIGTERM), saying where on its first line and one line
per answered request on stderr (``hookline.models._serve``).
"""

from __future__ import annotations

import signal
import sys
from types import FrameType

import click

from hookline._cli.render import echo
from hookline._errors import ConfigError
from hookline.models._scripted import load_script
from hookline.models._serve import ScriptServer, Served


@click.command("model-server", context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--script",
    "script_file",
    required=True,
    type=click.Path(dir_okay=False),
    help="The turns to answer with: the file --model scripted:FILE reads.",
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=0,
    show_default=True,
    help="The port on 127.0.0.1 (0: a free one, printed on the first line).",
)
def model_server(script_file: str, port: int) -> None:
    """Answer as the OpenAI and Anthropic APIs do, from a script, on 127.0.0.1.

    Point hookline (or any client) at it: OPENAI_BASE_URL=http://127.0.0.1:PORT/v1 with
    --model openai:NAME, or ANTHROPIC_BASE_URL=http://127.0.0.1:PORT with --model
    anthropic:NAME; Gemini CLI with GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:PORT. Streamed
    (server-sent events) and whole answers; each request gets the turn
    after the assistant messages it already holds, so sessions can share it and resume.
    """
    script = load_script(script_file)
    try:
        server = ScriptServer(script, port=port, on_request=_said)
    except OSError as exc:
        raise ConfigError(
            f"cannot listen on 127.0.0.1:{port} ({exc.strerror or exc})",
            key="--port",
            fix="choose another port, or --port 0 for a free one",
        ) from None
    turns = len(script.turns)
    echo(f"hookline model-server: {script_file} ({turns} turns) on {server.url}")
    echo(
        f"  OpenAI:    OPENAI_BASE_URL={server.url}/v1 hookline run PROMPT --model openai:scripted"
    )
    echo(
        f"  Anthropic: ANTHROPIC_BASE_URL={server.url} hookline run PROMPT "
        "--model anthropic:scripted"
    )
    sys.stdout.flush()
    signal.signal(signal.SIGTERM, _stop)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    echo("hookline model-server: stopped", err=True)


def _said(served: Served) -> None:
    if served.status != 200:
        echo(f"{served.api}: refused a request that is not one (HTTP {served.status})", err=True)
        return
    turn = "the final text" if served.turn is None else f"turn {served.turn + 1}"
    how = "streamed" if served.streamed else "whole"
    echo(f"{served.api}: {turn}, {how} (HTTP {served.status})", err=True)


def _stop(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt  # SIGTERM stops it as Ctrl-C does: quietly
