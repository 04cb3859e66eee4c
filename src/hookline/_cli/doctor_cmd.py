"""``hookline doctor``: whether Claude Code's tool calls are judged by ``hookline serve``, proved
with a live canary (``hookline._serve.doctor``).

    hookline doctor [--cwd DIR] [--url URL] [--cli PATH] [--json]

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
from hookline._serve import canary
from hookline._serve.doctor import Report, examine
from hookline._support.display import shown

NOT_COVERED = 1


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--cwd",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=".",
    help="The project whose Claude Code settings (project, local) are checked too.",
)
@click.option(
    "--url",
    default=DEFAULT_URL,
    show_default=True,
    help="Where hookline serve answers Claude Code's hooks (as hookline install wrote it).",
)
@click.option(
    "--cli",
    type=click.Path(dir_okay=False, exists=True),
    default=None,
    help="The Claude Code CLI for the canary (default: $CLAUDE_CLI, claude on PATH, or the "
    "one claude-agent-sdk bundles).",
)
@click.option("--json", "as_json", is_flag=True, help="One JSON object, for CI.")
def doctor(cwd: Path, url: str, cli: str | None, as_json: bool) -> None:
    """Prove Claude Code's tool calls are judged by hookline serve, with a live canary.

    Checks the server's health, hookline's hooks in each Claude Code settings scope (and what
    would stop them), then runs Claude Code once, offline, in a temporary project and home
    with copies of your settings: its model asks for one forbidden Read, which hookline serve
    must refuse through Claude Code's own hooks. Exit 0 when all of it holds, 1 when not."""
    report = examine(url, cwd.resolve(), Path.home(), cli=canary.find_cli(cli))
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
        echo("  canary     not run: no Claude Code CLI found")
    else:
        echo(f"  canary     Read {shown(report.canary.target)} through {shown(report.cli or '')}")
        said = " ".join(report.canary.said.split())[:300]
        echo(f"             {report.canary.outcome}: {said}")
    for line in report.unchecked:
        echo(f"  unchecked  {line}")
    problems = report.problems
    if not problems:
        echo("covered: hookline serve refused the canary through Claude Code's own hooks")
        return
    echo("NOT covered:")
    for problem in problems:
        echo(f"  - {problem}")
