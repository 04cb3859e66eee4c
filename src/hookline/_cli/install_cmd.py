"""``hookline install HOST`` and ``hookline uninstall HOST``: a host's settings pointed at
``hookline serve``, and back (``hookline._hosts``).

    hookline install claude-code                  ~/.claude/settings.json
    hookline install claude-code --scope project  ./.claude/settings.json
    hookline uninstall claude-code                hookline's entries taken out again
"""

from __future__ import annotations

from pathlib import Path

import click

from hookline._cli.render import echo, say
from hookline._hosts import claude_code
from hookline._support.display import shown

_HOST = click.argument("host", type=click.Choice(["claude-code"]))
_SCOPE = click.option(
    "--scope",
    type=click.Choice(claude_code.SCOPES),
    default="user",
    show_default=True,
    help="Which settings file: user (~/.claude), project (.claude/settings.json, committed), "
    "local (.claude/settings.local.json) or managed (the machine's policy; needs root).",
)
_CWD = click.option(
    "--cwd",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=".",
    help="The project folder, for --scope project and local.",
)
_URL = click.option(
    "--url",
    default=claude_code.DEFAULT_URL,
    show_default=True,
    help="Where hookline serve answers Claude Code's hooks.",
)
_FILE = click.option(
    "--file",
    "file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="This settings file instead of the scope's.",
)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@_HOST
@_SCOPE
@_CWD
@_URL
@_FILE
@click.option(
    "--events",
    default=",".join(claude_code.EVENTS),
    show_default=True,
    help="The events Claude Code posts to the server, comma-separated.",
)
def install(host: str, scope: claude_code.Scope, cwd: Path, url: str, file: Path | None,
            events: str) -> None:  # fmt: skip
    """Point a host's hooks (claude-code) at hookline serve, failing closed.

    While the server cannot answer, HOST blocks the call (onFailure "block"). The file's other
    settings and hooks stay; a backup of it is kept; installing again changes nothing."""
    path = file or claude_code.settings_path(scope, cwd.resolve(), Path.home())
    wanted = [event.strip() for event in events.split(",") if event.strip()]
    change = claude_code.install(path, url, wanted)
    if change.unchanged:
        say("note", f"{shown(str(path))} already sends {host}'s hooks to {url}")
        return
    echo(f"installed {change.entries} hook(s) into {shown(str(path))}, posting to {url}")
    if change.backup is not None:
        echo(f"  the file as it was: {shown(str(change.backup))}")
    echo("  start the server with: hookline serve (until it answers, tool calls are blocked)")


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@_HOST
@_SCOPE
@_CWD
@_URL
@_FILE
def uninstall(host: str, scope: claude_code.Scope, cwd: Path, url: str, file: Path | None) -> None:
    """Take hookline's hooks out of a host's settings again.

    The file is as it was before, when nothing else in it changed since."""
    path = file or claude_code.settings_path(scope, cwd.resolve(), Path.home())
    change = claude_code.uninstall(path, url)
    if change.unchanged:
        say("note", f"{shown(str(path))} has no hook posting to {url}")
        return
    echo(f"took {change.entries} hook(s) out of {shown(str(path))}")
    if change.backup is not None:
        echo(f"  other settings changed since: the file before install is kept at "
             f"{shown(str(change.backup))}")  # fmt: skip
