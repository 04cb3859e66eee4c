"""``hookline``: run an agent, or the demo. Errors a user can fix are one line and exit code 2
(with ``-p``, 1, as ``claude -p`` exits).

``hookline -p PROMPT [flags]`` (``-p`` anywhere, or any flag first) is ``hookline run -p PROMPT
[flags]``, so a script written for ``claude -p`` runs with ``claude`` changed to ``hookline``.
A flag no command has is refused by name in one line; one of Claude Code's that hookline does
not support says so, and why (``hookline._cli.claude_flags``).

Each subcommand is imported when it is used (``hookline._cli.lazy``): ``hookline --version``
and ``hookline --help`` load none of them.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any, Final, NoReturn

import click

from hookline._cli.lazy import Lazy, LazyGroup
from hookline._errors import HooklineError

USAGE_ERROR = 2

#: Every subcommand: where it lives, and the line ``hookline --help`` lists for it.
COMMANDS: Final = {
    "run": Lazy(
        "hookline._cli.run_cmd:run",
        "Work on PROMPT ('-' reads it from stdin) with the given model, tools and hooks.",
    ),
    "hooks": Lazy(
        "hookline._cli.hooks_cmd:hooks",
        "See, check and try the hooks a run would have, from every settings layer.",
    ),
    "audit": Lazy(
        "hookline._cli.audit_cmd:audit",
        "Show the audit records that match every filter given, oldest first.",
    ),
    "sessions": Lazy(
        "hookline._cli.sessions_cmd:sessions",
        "Sessions kept in the store: every run, and the paused ones waiting for an answer.",
    ),
    "inbox": Lazy(
        "hookline._cli.inbox_cmd:inbox",
        "Answer the calls paused runs wait on, from a browser: approve, deny or edit, signed in.",
    ),
    "trust": Lazy(
        "hookline._cli.trust_cmd:trust",
        "The folders whose own hooks and MCP servers may run (workspace trust).",
    ),
    "serve": Lazy(
        "hookline._cli.serve_cmd:serve",
        "Answer Claude Code's, Gemini CLI's, Codex's and Cursor's hooks with this folder's rules.",
    ),
    "timeline": Lazy(
        "hookline._cli.timeline_cmd:timeline_cmd",
        "One session as its steps: prompts, model and tool calls, approvals, and their hooks.",
    ),
    "replay": Lazy(
        "hookline._cli.replay_cmd:replay_cmd",
        "Replay recorded sessions through a policy: what it would decide, and what changes.",
    ),
    "policy": Lazy(
        "hookline._cli.policy_cmd:policy",
        "Show the policy this folder's settings make, in words, and its digest.",
    ),
    "break-glass": Lazy(
        "hookline._cli.break_glass_cmd:break_glass_cmd",
        "Ask-only for a while: the way out when a fail-closed server blocks every call.",
    ),
    "install": Lazy(
        "hookline._cli.install_cmd:install",
        "Point a host's hooks (claude-code, gemini, codex, cursor) at hookline serve.",
    ),
    "uninstall": Lazy(
        "hookline._cli.install_cmd:uninstall",
        "Take hookline's hooks out of a host's settings again.",
    ),
    "doctor": Lazy(
        "hookline._cli.doctor_cmd:doctor",
        "Prove Claude Code's tool calls are judged by hookline serve, with a live canary.",
    ),
    "model-server": Lazy(
        "hookline._cli.model_server_cmd:model_server",
        "Answer as the OpenAI and Anthropic APIs do, from a script, on 127.0.0.1.",
    ),
    "demo": Lazy(
        "hookline._cli.demo_cmd:demo",
        "Four scenarios, offline, in a temporary workspace; or NAME: orders, the refund agent on "
        "an MCP server (needs hookline[mcp]).",
    ),
}


def _print_version(ctx: click.Context, _: click.Parameter, given: bool) -> None:
    """``--version``: the installed package's version (its metadata is read only then)."""
    if given and not ctx.resilient_parsing:
        from hookline._support.version import __version__

        click.echo(f"hookline, version {__version__}")
        ctx.exit()


@click.group(cls=LazyGroup, lazy=COMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "-v",
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_print_version,
    help="Show the version and exit.",
)
def cli() -> None:
    """hookline: agents whose rules are kept by hooks, not by the model's memory."""


#: What the group itself takes; anything else first is a ``claude -p`` command line.
_OWN = frozenset({"-h", "--help", "-v", "--version"})


def _fail(message: str, code: int = USAGE_ERROR) -> NoReturn:
    from hookline._cli.render import error  # the terminal's styles, when there is an error

    error(message)
    sys.exit(code)


def routed(args: list[str]) -> list[str]:
    """``args``, with ``run`` put first when they are a ``claude -p`` command line: ``-p``
    anywhere (before ``--``), or a flag first that is not the group's own."""
    if not args or args[0] in _OWN or args[0] in COMMANDS:
        return args
    if print_mode(args) or args[0].startswith("-"):
        return ["run", *args]
    return args


def main(argv: list[str] | None = None) -> None:
    """Console entry point: user mistakes become one line on stderr and exit code 2 (1 with
    ``-p``, as ``claude -p``)."""
    entry: Callable[..., Any] = cli.main
    args = sys.argv[1:] if argv is None else argv
    if not args and "_HOOKLINE_COMPLETE" not in os.environ:  # shell completion runs bare too
        # bare ``hookline``: the help, exit 0
        with click.Context(cli, info_name="hookline", **cli.context_settings) as ctx:
            click.echo(cli.get_help(ctx))
        return
    args = routed(list(args))
    code = _usage_code(args)
    try:
        entry(args=args, prog_name="hookline", standalone_mode=False)
    except click.exceptions.Abort:
        _fail("aborted", code)
    except click.NoSuchOption as exc:
        _fail(_no_such_option(exc), code)
    except click.ClickException as exc:
        _fail(exc.format_message(), code)
    except HooklineError as exc:
        _fail(str(exc), code)
    except BrokenPipeError:
        _reader_left()


def print_mode(args: list[str]) -> bool:
    """Whether ``args`` (a command line) ask for ``claude -p``'s printing: ``-p`` or
    ``--print`` before any ``--``."""
    for arg in args:
        if arg == "--":
            return False
        if arg in ("-p", "--print"):
            return True
    return False


def _usage_code(args: list[str]) -> int:
    return 1 if args[:1] == ["run"] and print_mode(args) else USAGE_ERROR


def _no_such_option(exc: click.NoSuchOption) -> str:
    """An unknown flag, by name: a Claude Code flag hookline does not support says why."""
    from hookline._cli.claude_flags import refusal

    command = "hookline"
    if exc.ctx is not None:
        command = exc.ctx.command_path
    return refusal(exc.option_name, command=command, near=sorted(exc.possibilities or ()))


def _reader_left() -> NoReturn:
    """The reader of stdout went away (``hookline audit | head``): stop quietly with exit 1, as
    click does when it sees it first, and no traceback for the output still buffered."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    sys.exit(1)


if __name__ == "__main__":
    main()
