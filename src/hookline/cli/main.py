"""``hookline``: run an agent, or the demo. Errors a user can fix are one line and exit code 2.

Each subcommand is imported when it is used (``hookline.cli.lazy``): ``hookline --version``
and ``hookline --help`` load none of them.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any, Final, NoReturn

import click

from hookline import __version__
from hookline.cli.lazy import Lazy, LazyGroup
from hookline.errors import HooklineError

USAGE_ERROR = 2

#: Every subcommand: where it lives, and the line ``hookline --help`` lists for it.
COMMANDS: Final = {
    "run": Lazy(
        "hookline.cli.run_cmd:run",
        "Work on PROMPT ('-' reads it from stdin) with the given model, tools and hooks.",
    ),
    "hooks": Lazy(
        "hookline.cli.hooks_cmd:hooks",
        "See, check and try the hooks a run would have, from every settings layer.",
    ),
    "audit": Lazy(
        "hookline.cli.audit_cmd:audit",
        "Show the audit records that match every filter given, oldest first.",
    ),
    "sessions": Lazy(
        "hookline.cli.sessions_cmd:sessions",
        "Sessions kept in the store: every run, and the paused ones waiting for an answer.",
    ),
    "trust": Lazy(
        "hookline.cli.trust_cmd:trust",
        "The folders whose own hooks and MCP servers may run (workspace trust).",
    ),
    "demo": Lazy(
        "hookline.cli.demo_cmd:demo",
        "Four scenarios, offline, in a temporary workspace; or NAME: orders, the refund agent on "
        "an MCP server (needs hookline[mcp]).",
    ),
}


@click.group(cls=LazyGroup, lazy=COMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="hookline")
def cli() -> None:
    """hookline: agents whose rules are kept by hooks, not by the model's memory."""


def _fail(message: str) -> NoReturn:
    from hookline.cli.render import error  # the terminal's styles, when there is an error

    error(message)
    sys.exit(USAGE_ERROR)


def main(argv: list[str] | None = None) -> None:
    """Console entry point: user mistakes become one line on stderr and exit code 2."""
    entry: Callable[..., Any] = cli.main
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
