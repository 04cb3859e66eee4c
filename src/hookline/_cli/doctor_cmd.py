"""``hookline doctor``: whether a host's tool calls are judged by ``hookline serve``, proved with
a live canary through Claude Code, Codex or Gemini CLI (``hookline._serve.doctor``).

    hookline doctor [--cwd DIR] [--url URL] [--cli PATH] [--token-env VAR] [--json]
    hookline doctor --host gemini|codex|cursor [--cwd DIR] [--url URL] [--cli PATH]
        [--token-env VAR] [--json]

Exit 0 when everything checked holds, 1 when something is not covered (or the canary ran),
2 for a usage error.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from hookline._cli.render import echo
from hookline._hosts.claude_code import DEFAULT_URL
from hookline._hosts.doctor_command_hosts import HOSTS as COMMAND_HOSTS
from hookline._serve import canary
from hookline._serve.doctor import LIVE, Report, examine, examine_command_host
from hookline._support.display import shown

NOT_COVERED = 1


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--host",
    type=click.Choice(["claude-code", *COMMAND_HOSTS]),
    default="claude-code",
    show_default=True,
    help="The host to check (a live canary runs through Claude Code, Codex and Gemini CLI).",
)
@click.option(
    "--cwd",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=".",
    help="The project whose Claude Code settings (project, local) are checked too.",
)
@click.option(
    "--url",
    default=None,
    help=f"Where hookline serve answers the host's hooks, as hookline install wrote it "
    f"[default: {DEFAULT_URL}, or the host's route on that server].",
)
@click.option(
    "--cli",
    type=click.Path(dir_okay=False, exists=True),
    default=None,
    help="The host's CLI for the canary (Claude Code: default $CLAUDE_CLI, claude on PATH, or "
    "the one claude-agent-sdk bundles; Codex: $CODEX_CLI or codex on PATH; Gemini CLI: "
    "$GEMINI_CLI or gemini on PATH).",
)
@click.option(
    "--token-env",
    metavar="VAR",
    default=None,
    help="The variable holding the token the hooks send (hookline install --token-env): "
    "doctor sends it too, and a token the server would refuse is a problem.",
)
@click.option("--json", "as_json", is_flag=True, help="One JSON object, for CI.")
def doctor(host: str, cwd: Path, url: str | None, cli: str | None, token_env: str | None,
           as_json: bool) -> None:  # fmt: skip
    """Prove Claude Code's tool calls are judged by hookline serve, with a live canary.

    Checks the server's health, hookline's hooks in each Claude Code settings scope (and what
    would stop them), then runs Claude Code once, offline, in a temporary project and home
    with copies of your settings: its model asks for one forbidden Read, which hookline serve
    must refuse through Claude Code's own hooks. With --host codex or gemini, the same through
    that host's CLI: its model asks to cat a file in your hookline keys, which hookline serve
    must refuse through the host's hooks (Cursor: its settings only, no canary yet). Exit 0 when
    all of it holds, 1 when not."""
    project, home = cwd.resolve(), Path.home()
    if host == "claude-code":
        found = canary.find_cli(cli)
        report = examine(url or DEFAULT_URL, project, home, cli=found, token_env=token_env)
    else:
        where = url or COMMAND_HOSTS[host].url
        found = LIVE[host].find_cli(cli) if host in LIVE else None
        report = examine_command_host(host, where, project, home, cli=found, token_env=token_env)
    if as_json:
        echo(json.dumps(report.as_json(), indent=2))
    else:
        _show(report)
    if not report.covered:
        sys.exit(NOT_COVERED)


def _show(report: Report) -> None:
    health = report.health
    echo(f"hookline doctor: {report.host}, hooks posting to {report.url}")
    state = "answers" if health.ok else "does not answer"
    echo(f"  server     {health.url} {state}" + ("" if health.ok else f": {health.said}"))
    for scope in report.installed.scopes:
        events = ", ".join(scope.events) if scope.events else "no hookline hook"
        where = shown(str(scope.path)) + ("" if scope.exists else " (no such file)")
        echo(f"  {scope.scope:<10} {where}: {events}")
    if report.canary is None:
        why = f"no {report.host} CLI found" if report.has_canary else f"none for {report.host} yet"
        echo(f"  canary     not run: {why}")
    else:
        what = "cat" if report.host in LIVE else "Read"
        echo(f"  canary     {what} {shown(report.canary.target)} through {shown(report.cli or '')}")
        said = " ".join(report.canary.said.split())[:300]
        echo(f"             {report.canary.outcome}: {said}")
    for line in report.unchecked:
        echo(f"  unchecked  {line}")
    problems = report.problems
    if not problems and report.has_canary:
        echo(f"covered: hookline serve refused the canary through {report.host}'s own hooks")
        return
    if not problems:
        echo(f"installed: {report.host}'s hooks post to a server that answers (not proven)")
        return
    echo("NOT covered:")
    for problem in problems:
        echo(f"  - {problem}")
