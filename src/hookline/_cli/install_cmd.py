"""``hookline install HOST`` and ``hookline uninstall HOST``: a host's settings pointed at
``hookline serve``, and back (``hookline._hosts``).

    hookline install claude-code                  ~/.claude/settings.json
    hookline install claude-code --scope project  ./.claude/settings.json
    hookline uninstall claude-code                hookline's entries taken out again
    hookline install gemini                       ~/.gemini/settings.json (a curl command)
    hookline install gemini --scope project       ./.gemini/settings.json
    hookline install codex                        ~/.codex/hooks.json (a curl command)
    hookline install codex --scope project        ./.codex/hooks.json
    hookline install cursor                       ~/.cursor/hooks.json (a curl command)
    hookline install cursor --scope project       ./.cursor/hooks.json
    hookline install codex --scope managed        /etc/codex/hooks.json (the machine's; root)
    hookline install HOST --token-env VAR         each call carries the token in $VAR
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import click

from hookline._cli.render import echo, say, warn
from hookline._errors import ConfigError
from hookline._hosts import claude_code, codex_settings, cursor_settings, gemini_settings
from hookline._hosts.hook_groups import Change
from hookline._support.display import shown


@dataclass(frozen=True)
class Host:
    """What ``install`` and ``uninstall`` need of one host's settings module."""

    settings_path: Callable[[Any, Path, Path], Path]
    #: ``install(path, url, events, token_env=VAR)``
    install: Callable[..., Change]
    uninstall: Callable[[Path, str], Change]
    scopes: tuple[str, ...]
    url: str
    events: tuple[str, ...]
    #: What in a settings file keeps the host from running the installed hooks.
    warnings: Callable[[Path], list[str]] = lambda path: []
    #: A program the installed hooks run (None: the host posts itself).
    runs: str | None = None
    #: What may keep the token in ``--token-env`` from reaching the server.
    token_warnings: Callable[[str | None], list[str]] = lambda name: []


HOSTS: Final = {
    "claude-code": Host(
        claude_code.settings_path,
        claude_code.install,
        claude_code.uninstall,
        claude_code.SCOPES,
        claude_code.DEFAULT_URL,
        claude_code.EVENTS,
    ),
    "gemini": Host(
        gemini_settings.settings_path,
        gemini_settings.install,
        gemini_settings.uninstall,
        gemini_settings.SCOPES,
        gemini_settings.DEFAULT_URL,
        gemini_settings.EVENTS,
        gemini_settings.warnings,
        runs="curl",
        token_warnings=gemini_settings.token_warnings,
    ),
    "codex": Host(
        codex_settings.settings_path,
        codex_settings.install,
        codex_settings.uninstall,
        codex_settings.SCOPES,
        codex_settings.DEFAULT_URL,
        codex_settings.EVENTS,
        codex_settings.warnings,
        runs="curl",
    ),
    "cursor": Host(
        cursor_settings.settings_path,
        cursor_settings.install,
        cursor_settings.uninstall,
        cursor_settings.SCOPES,
        cursor_settings.DEFAULT_URL,
        cursor_settings.EVENTS,
        runs="curl",
    ),
}

_HOST = click.argument("host", type=click.Choice(list(HOSTS)))
_SCOPE = click.option(
    "--scope",
    type=click.Choice(claude_code.SCOPES),
    default="user",
    show_default=True,
    help="Which settings file: user (~/.claude, ~/.gemini, ~/.codex, ~/.cursor), project "
    "(.claude/settings.json, .gemini/settings.json, .codex/hooks.json, .cursor/hooks.json), "
    "local (.claude/settings.local.json; Claude Code only) or managed (the machine's: "
    "/etc/claude-code, /etc/gemini-cli, /etc/codex, /etc/cursor on Linux; needs root).",
)
_CWD = click.option(
    "--cwd",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=".",
    help="The project folder, for --scope project and local.",
)
_URL = click.option(
    "--url",
    default=None,
    help=f"Where hookline serve answers the host's hooks [default: {claude_code.DEFAULT_URL}, "
    f"{gemini_settings.DEFAULT_URL}, {codex_settings.DEFAULT_URL}, "
    f"{cursor_settings.DEFAULT_URL}].",
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
    default=None,
    help="The events the host sends to the server, comma-separated [default: claude-code: "
    f"{','.join(claude_code.EVENTS)}; gemini: {','.join(gemini_settings.EVENTS)}; codex: "
    f"{','.join(codex_settings.EVENTS)}; cursor: {','.join(cursor_settings.EVENTS)}].",
)
@click.option(
    "--token-env",
    metavar="VAR",
    default=None,
    help="Send the token in this environment variable with each call (the server's "
    "`hookline serve token add`); the token itself is never written.",
)
def install(host: str, scope: str, cwd: Path, url: str | None, file: Path | None,
            events: str | None, token_env: str | None) -> None:  # fmt: skip
    """Point a host's hooks (claude-code, gemini, codex, cursor) at hookline serve.

    They fail closed: while the server cannot answer, HOST blocks the call (Claude Code:
    onFailure "block"; Gemini CLI, Codex and Cursor: the curl command exits 2). The file's
    other settings and hooks stay; a backup of it is kept; installing again changes nothing."""
    chosen, path, url = _where(host, scope, cwd, url, file)
    listed = ",".join(chosen.events) if events is None else events
    wanted = [event.strip() for event in listed.split(",") if event.strip()]
    change = chosen.install(path, url, wanted, token_env=token_env)
    if change.unchanged:
        say("note", f"{shown(str(path))} already sends {host}'s hooks to {url}")
    else:
        echo(f"installed {change.entries} hook(s) into {shown(str(path))}, posting to {url}")
        if change.backup is not None:
            echo(f"  the file as it was: {shown(str(change.backup))}")
        echo("  start the server with: hookline serve (until it answers, tool calls are blocked)")
    for warning in [*chosen.warnings(path), *chosen.token_warnings(token_env)]:
        warn(warning)
    if chosen.runs is not None and shutil.which(chosen.runs) is None:
        warn(f"{chosen.runs} is not on PATH here: {host}'s hooks run it, and every "
            "call is blocked until it is installed")  # fmt: skip


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@_HOST
@_SCOPE
@_CWD
@_URL
@_FILE
def uninstall(host: str, scope: str, cwd: Path, url: str | None, file: Path | None) -> None:
    """Take hookline's hooks out of a host's settings again.

    The file is as it was before, when nothing else in it changed since."""
    chosen, path, url = _where(host, scope, cwd, url, file)
    change = chosen.uninstall(path, url)
    if change.unchanged:
        say("note", f"{shown(str(path))} has no hook posting to {url}")
        return
    echo(f"took {change.entries} hook(s) out of {shown(str(path))}")
    if change.backup is not None:
        echo(f"  other settings changed since: the file before install is kept at "
             f"{shown(str(change.backup))}")  # fmt: skip


def _where(
    host: str, scope: str, cwd: Path, url: str | None, file: Path | None
) -> tuple[Host, Path, str]:
    """The host's table row, the settings file of ``scope`` (or ``file``) and the URL."""
    chosen = HOSTS[host]
    if scope not in chosen.scopes:
        raise ConfigError(
            f"{host} has no {scope} scope", key="--scope", fix=f"use {' or '.join(chosen.scopes)}"
        )
    path = file or chosen.settings_path(scope, cwd.resolve(), Path.home())
    return chosen, path, url or chosen.url
