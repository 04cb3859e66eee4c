"""``hookline``: run an agent, or the demo. Errors a user can fix are one line and exit code 2."""

from __future__ import annotations

import asyncio
import inspect
import os
import re
import sys
from collections.abc import Callable
from typing import Any, NoReturn

import click

from hookline import ConfigError, HooklineError, __version__
from hookline.cli.audit_cmd import audit
from hookline.cli.hooks_cmd import hooks
from hookline.cli.launch import (
    LENIENT_SETTINGS,
    OUTPUT_FORMAT,
    Launch,
    approver_options,
    build_agent,
    show,
)
from hookline.cli.render import error, say
from hookline.cli.sessions_cmd import RunListing, sessions
from hookline.cli.tool_rules import tool_rule_options
from hookline.demo import run_demo
from hookline.models.choice import default_spec
from hookline.storage import Store

USAGE_ERROR = 2


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="hookline")
def cli() -> None:
    """hookline: agents whose rules are kept by hooks, not by the model's memory."""


@cli.command()
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


cli.add_command(hooks)
cli.add_command(audit)
cli.add_command(sessions)


@cli.command()
@click.argument("name", required=False, type=click.Choice(["orders"]))
@click.option(
    "--model",
    "model_spec",
    default=None,
    help="For orders: openai:NAME, anthropic:NAME, ... (default: the example's script, offline).",
)
def demo(name: str | None, model_spec: str | None) -> None:
    """Four scenarios, offline, in a temporary workspace; or NAME: orders, the refund agent
    on an MCP server (needs hookline[mcp])."""
    if name == "orders":
        _orders_demo(model_spec)
        return
    if model_spec:
        fix = "hookline demo orders --model ..."
        raise ConfigError("--model is for a named demo", key="--model", fix=fix)
    ledgers = asyncio.run(run_demo(say))
    say("note", f"{len(ledgers.executed)} calls ran, {len(ledgers.blocked)} were refused.")


def _orders_demo(model_spec: str | None) -> None:
    from hookline.demo.orders import run_orders_demo
    from hookline.models.choice import model_from_spec

    model = model_from_spec(model_spec) if model_spec else None
    run = asyncio.run(run_orders_demo(say, model=model))
    say("note", f"order {run.order.get('id')} is {run.order.get('status')}.")


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


def whole_short_help(command: click.Command) -> None:
    """Give ``command`` and its subcommands their whole first sentence in a command list:
    click cuts it, by default, at about 45 characters."""
    if command.help and not command.short_help:
        paragraph = " ".join(inspect.cleandoc(command.help).split("\n\n")[0].split())
        command.short_help = re.split(r"(?<=\.)\s", paragraph, maxsplit=1)[0]
    for sub in getattr(command, "commands", {}).values():
        whole_short_help(sub)


def _fail(message: str) -> NoReturn:
    error(message)
    sys.exit(USAGE_ERROR)


def main(argv: list[str] | None = None) -> None:
    """Console entry point: user mistakes become one line on stderr and exit code 2."""
    entry: Callable[..., Any] = cli.main
    whole_short_help(cli)
    bare = not (sys.argv[1:] if argv is None else argv)
    if bare and "_HOOKLINE_COMPLETE" not in os.environ:  # shell completion runs bare too
        # bare ``hookline``: the help, exit 0
        with click.Context(cli, info_name="hookline", **cli.context_settings) as ctx:
            click.echo(cli.get_help(ctx))
        return
    try:
        entry(args=argv, prog_name="hookline", standalone_mode=False)
    except click.exceptions.Abort:
        _fail("aborted")
    except click.ClickException as exc:
        _fail(exc.format_message())
    except HooklineError as exc:
        _fail(str(exc))
    except BrokenPipeError:
        _reader_left()


def _reader_left() -> NoReturn:
    """The reader of stdout went away (``hookline audit | head``): stop quietly with exit 1, as
    click does when it sees it first, and no traceback for the output still buffered."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    sys.exit(1)


if __name__ == "__main__":
    main()
