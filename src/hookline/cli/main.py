"""``hookline``: run an agent, or the demo. Errors a user can fix are one line and exit code 2."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import click

from hookline import (
    Agent,
    ConfigError,
    HooklineError,
    RuleModel,
    ScriptedModel,
    __version__,
)
from hookline.agent.model import ModelClient
from hookline.cli.hooks_cmd import hooks
from hookline.cli.render import StreamView, TextView, emit_json, print_summary, say
from hookline.demo import run_demo
from hookline.hooks.inventory import load_hooks

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
    default="rules",
    show_default=True,
    help="scripted:FILE (a script of model turns) or rules (the offline rule model).",
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
    "--output-format",
    type=click.Choice(["text", "json", "stream-json"]),
    default="text",
    show_default=True,
)
def run(
    prompt: str | None,
    model_spec: str,
    hook_files: tuple[str, ...],
    settings: tuple[str, ...],
    user: str | None,
    tenant: str | None,
    cwd: str | None,
    max_turns: int,
    output_format: str,
) -> None:
    """Work on PROMPT ('-' reads it from stdin) with the given model, tools and hooks."""
    text = _prompt(prompt)
    model = _model(model_spec)
    project = Path(cwd or ".")
    if not project.is_dir():
        raise ConfigError(f"no such folder {project}", key="--cwd", fix="pass an existing folder")
    registry, found = load_hooks(project, settings=settings, hook_files=hook_files)
    for warning in found.warnings:
        click.secho(f"hookline: warning: {warning}", fg="yellow", err=True)
    agent = Agent(model, hooks=registry, cwd=project, max_turns=max_turns, user=user, tenant=tenant)
    if output_format == "text":
        agent.watch(TextView())
    elif output_format == "stream-json":
        agent.watch(StreamView())
    result = _run(agent, text)
    if output_format == "json":
        emit_json(result.to_dict(), indent=2)
    elif output_format == "stream-json":
        emit_json({"type": "result", **result.to_dict()})
    else:
        print_summary(result)


cli.add_command(hooks)


@cli.command()
def demo() -> None:
    """The seed lesson's four scenarios, offline, in a temporary workspace."""
    ledgers = asyncio.run(run_demo(say))
    say("note", f"{len(ledgers.executed)} calls ran, {len(ledgers.blocked)} were refused.")


def _prompt(prompt: str | None) -> str:
    if prompt == "-":
        prompt = sys.stdin.read()
    if not prompt or not prompt.strip():
        raise ConfigError(
            "missing the prompt", key="PROMPT", fix="hookline run 'read README.md' --model rules"
        )
    return prompt


def _model(spec: str) -> ModelClient:
    kind, _, value = spec.partition(":")
    if kind == "rules" and not value:
        return RuleModel()
    if kind == "scripted" and value:
        return ScriptedModel.from_file(value)
    raise ConfigError(
        f"unknown model {spec!r}", key="--model", fix="use --model scripted:FILE or --model rules"
    )


def _run(agent: Agent, prompt: str) -> Any:
    async def once() -> Any:
        async with agent:
            return await agent.run(prompt)

    _watch_children_with_pidfd()
    return asyncio.run(once())


def _watch_children_with_pidfd() -> None:
    """On Python 3.11 asyncio waits for each child process (each command hook) on a thread of
    its own; a pidfd watcher, the default from 3.12 on, makes a command hook ~20% cheaper and
    five at once ~30%. The CLI owns its process, so it may choose."""
    if sys.version_info < (3, 12) and hasattr(os, "pidfd_open"):
        with contextlib.suppress(OSError):
            os.close(os.pidfd_open(os.getpid()))  # the kernel supports it
            asyncio.set_child_watcher(asyncio.PidfdChildWatcher())


def _fail(message: str) -> NoReturn:
    click.secho(f"hookline: error: {message}", fg="red", err=True)
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
