"""``hookline trust``: the folders whose own hooks and MCP servers may run, and the question a
first interactive run in a folder asks (``hookline._trust``).

    hookline trust list            every remembered answer
    hookline trust add [FOLDER]    trust a folder (default: the current one)
    hookline trust revoke [FOLDER] distrust it: its own hooks stop running, in every run
    hookline trust forget [FOLDER] drop the answer: the next interactive run asks again
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import IO

import click

from hookline._cli.render import echo, say
from hookline._support.display import shown
from hookline._trust import Asker, TrustStore

_FOLDER = click.argument(
    "folder", required=False, type=click.Path(file_okay=False, exists=True), default="."
)


def terminal_asker(stdin: IO[str] | None = None, stdout: IO[str] | None = None) -> Asker | None:
    """What asks the person at this terminal whether to trust a folder; None when stdin and
    stdout are not both terminals (a run nobody watches is not asked)."""
    given_in, given_out = stdin or sys.stdin, stdout or sys.stdout
    try:
        if not (given_in.isatty() and given_out.isatty()):
            return None
    except (AttributeError, ValueError):
        return None

    def ask(folder: str, what: str) -> bool:
        given_out.write(
            f"hookline: {shown(folder)} has its own {what}: code from its repository that "
            "runs on your machine.\nTrust this folder and run them? [y/N] "
        )
        given_out.flush()
        answer = given_in.readline().strip().lower()
        given_out.write("trusted\n" if answer in ("y", "yes") else "not trusted\n")
        given_out.flush()
        return answer in ("y", "yes")

    return ask


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def trust() -> None:
    """The folders whose own hooks and MCP servers may run (workspace trust)."""


@trust.command("list")
def list_folders() -> None:
    """Every folder with a remembered answer: trusted or not, and when."""
    entries = TrustStore().entries()
    if not entries:
        say("note", "no folder has an answer yet")
    for folder, entry in entries.items():
        state = "trusted" if entry.get("trusted") is True else "not trusted"
        at = entry.get("at")
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(at)) if isinstance(at, int) else "?"
        echo(f"{state:<12} {when}  {shown(folder)}")


@trust.command()
@_FOLDER
def add(folder: str) -> None:
    """Trust FOLDER (default: the current one): its own hooks and MCP servers run."""
    _set(folder, True)


@trust.command()
@_FOLDER
def revoke(folder: str) -> None:
    """Distrust FOLDER: its own hooks and MCP servers no longer run, in any run."""
    _set(folder, False)


@trust.command()
@_FOLDER
def forget(folder: str) -> None:
    """Forget the answer for FOLDER: the next interactive run there asks again."""
    where = str(Path(folder).resolve())
    found = TrustStore().forget(where)
    say("note", f"{'forgot' if found else 'no answer for'} {shown(where)}")


def _set(folder: str, trusted: bool) -> None:
    where = str(Path(folder).resolve())
    TrustStore().set(where, trusted)
    say(
        "allow" if trusted else "deny", f"{'trusted' if trusted else 'not trusted'}: {shown(where)}"
    )
