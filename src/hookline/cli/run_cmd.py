"""``hookline run``: work on a prompt with the given model, tools and hooks."""

from __future__ import annotations

import sys
from typing import Any

import click

from hookline.cli.launch import (
    LENIENT_SETTINGS,
    OUTPUT_FORMAT,
    Launch,
    approver_options,
    build_agent,
    show,
)
from hookline.cli.render import say
from hookline.cli.sessions_cmd import RunListing
from hookline.cli.tool_rules import tool_rule_options
from hookline.errors import ConfigError
from hookline.models.choice import default_spec
from hookline.storage import Store


@click.command()
@click.argument("prompt", required=False)
@click.option(
    "--model",
    "model_spec",
    default=None,
    help="openai:NAME, anthropic:NAME, scripted:FILE (a script of model turns) or rules (the "
    "offline rule model). Default: the first provider configured by OPENAI_* or ANTHROPIC_* "
    "variables, else rules.",
)
@click.option(
    "--hooks",
    "hook_files",
    multiple=True,
    metavar="FILE.py",
    help="A Python file with a HOOKS mapping and/or register(registry). Repeatable.",
)
@click.option(
    "--settings",
    "settings",
    multiple=True,
    metavar="FILE|JSON",
    help="A settings file, or inline JSON, on top of the usual layers. Repeatable.",
)
@LENIENT_SETTINGS
@tool_rule_options
@click.option(
    "--user", default=None, help="Who the session works for (hooks and the audit see it)."
)
@click.option("--tenant", default=None, help="The tenant the session works for.")
@click.option(
    "--cwd",
    type=click.Path(file_okay=False),
    default=None,
    help="The folder the agent works in (default: the current one).",
)
@click.option(
    "--max-turns",
    type=click.IntRange(min=1),
    default=50,
    show_default=True,
    help="At most this many model calls.",
)
@click.option(
    "--compact-at",
    "compact_at",
    type=click.IntRange(min=1),
    default=None,
    metavar="TOKENS",
    help="Compact the conversation (summarise it, PreCompact and PostCompact hooks fire) once "
    "it is estimated at this many tokens. Default: never.",
)
@click.option(
    "--permission-mode",
    type=click.Choice(["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"]),
    default=None,
    help="The permission mode (default: the settings' defaultMode, else default).",
)
@click.option(
    "--defer-asks",
    is_flag=True,
    help="A call that needs approval nobody can give now pauses the run (resume it later).",
)
@approver_options
@click.option(
    "--store", default=None, help="postgresql:// URL or SQLite path for sessions and the audit."
)
@click.option("--audit/--no-audit", default=True, show_default=True, help="Write the audit log.")
@click.option(
    "--audit-delay", type=click.FloatRange(min=0), default=0.0, metavar="SECONDS",
    help="Group commit: a call's result may wait this long to be written with the next call's "
    "start (a crash can lose it; what lets a call run is still written before it runs).",
)  # fmt: skip
@OUTPUT_FORMAT
@click.option("-v", "--verbose", is_flag=True, help="Show the traceback of a hook that raised.")
def run(
    prompt: str | None,
    output_format: str,
    verbose: bool,
    model_spec: str | None,
    cwd: str | None,
    hook_files: tuple[str, ...],
    settings: tuple[str, ...],
    **flags: Any,
) -> None:
    """Work on PROMPT ('-' reads it from stdin) with the given model, tools and hooks.

    Exit codes: 0 the run ended; 2 a mistake in a flag, file or key, or a model call that
    failed; 4 the run paused with calls waiting for an answer (it prints the session id and
    the `hookline sessions resume` lines that go on with it)."""
    text = _prompt(prompt, rules=bool(flags["allowed_tools"] or flags["disallowed_tools"]))
    note = None
    if model_spec is None:
        model_spec, note = default_spec()
    launch = Launch.from_flags(
        cwd=cwd, model=model_spec, hooks=hook_files, settings=settings, **flags
    )
    agent = build_agent(launch)
    if isinstance(agent.options.store, Store):  # opened with the audit on: list the run in it
        agent.observe(RunListing(agent.options.store, agent.options.launch))
    if note:  # once the agent is built: a mistake in the flags stays one line
        say("note", f"hookline: {note}", err=True)
    show(agent, output_format, lambda: agent.run(text), verbose=verbose)


def _prompt(prompt: str | None, *, rules: bool = False) -> str:
    """The prompt; ``rules``: tool-rule flags were given, which take every value after them."""
    if prompt == "-":
        prompt = sys.stdin.read()
    if not prompt or not prompt.strip():
        fix = "hookline run 'read README.md' --model rules"
        if rules and prompt is None:
            fix = "put the prompt before --allowedTools/--disallowedTools (they take every value "
            fix += "up to the next option), or last, after --"
        raise ConfigError("missing the prompt", key="PROMPT", fix=fix)
    return prompt
