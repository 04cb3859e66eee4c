"""``hookline``: run an agent, or the demo. Errors a user can fix are one line and exit code 2."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from typing import Any, NoReturn

import click

from hookline import ConfigError, HooklineError, __version__
from hookline.cli.audit_cmd import audit
from hookline.cli.hooks_cmd import hooks
from hookline.cli.launch import OUTPUT_FORMAT, Launch, approver_options, build_agent, show
from hookline.cli.render import error, say
from hookline.cli.sessions_cmd import sessions
from hookline.demo import run_demo
from hookline.models.choice import default_spec

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
def run(
    prompt: str | None,
    output_format: str,
    model_spec: str | None,
    cwd: str | None,
    hook_files: tuple[str, ...],
    settings: tuple[str, ...],
    **flags: Any,
) -> None:
    """Work on PROMPT ('-' reads it from stdin) with the given model, tools and hooks."""
    text = _prompt(prompt)
    note = None
    if model_spec is None:
        model_spec, note = default_spec()
    launch = Launch.from_flags(
        cwd=cwd, model=model_spec, hooks=hook_files, settings=settings, **flags
    )
    agent = build_agent(launch)
    if note:  # once the agent is built: a mistake in the flags stays one line
        say("note", f"hookline: {note}", err=True)
    show(agent, output_format, lambda: agent.run(text))


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


def _prompt(prompt: str | None) -> str:
    if prompt == "-":
        prompt = sys.stdin.read()
    if not prompt or not prompt.strip():
        raise ConfigError(
            "missing the prompt", key="PROMPT", fix="hookline run 'read README.md' --model rules"
        )
    return prompt


def _fail(message: str) -> NoReturn:
    error(message)
    sys.exit(USAGE_ERROR)


def main(argv: list[str] | None = None) -> None:
    """Console entry point: user mistakes become one line on stderr and exit code 2."""
    entry: Callable[..., Any] = cli.main
    try:
        entry(args=argv, prog_name="hookline", standalone_mode=False)
    except click.exceptions.Abort:
        _fail("aborted")
    except click.ClickException as exc:
        _fail(exc.format_message())
    except HooklineError as exc:
        _fail(str(exc))


if __name__ == "__main__":
    main()
