"""``hookline serve token``: the agents' tokens of a server (``hookline._serve.tokens``).

hookline serve token add NAME [--tenant T] [--user U]   the token, printed once
hookline serve token list [--json]                      who has one; never a token
hookline serve token revoke NAME                        refused from the next request
"""

from __future__ import annotations

import time
from pathlib import Path

import click

from hookline._cli.columns import print_aligned
from hookline._cli.render import echo, say
from hookline._cli.server_folder import SERVER_CWD, SERVER_STATE, server_state
from hookline._serve import tokens
from hookline._support.display import shown, shown_json


def _path(cwd: Path, state_dir: Path | None) -> Path:
    return tokens.tokens_path(server_state(cwd, state_dir))


@click.group("token", context_settings={"help_option_names": ["-h", "--help"]})
def token() -> None:
    """The agents' tokens: add (printed once), list, revoke.

    Once the server has a token, every hook request must carry a valid one (Authorization:
    Bearer); a server listening beyond loopback needs one to start. Only a hash of each
    token is kept, in the server's state folder."""


@token.command("add")
@click.argument("name")
@click.option("--tenant", default=None, help="The team or customer the agent works for.")
@click.option("--user", default=None, help="The person the agent works for.")
@SERVER_CWD
@SERVER_STATE
def add(name: str, tenant: str | None, user: str | None, cwd: Path, state_dir: Path | None) -> None:
    """A new token for NAME, printed once: only its hash is kept."""
    path = _path(cwd, state_dir)
    secret = tokens.add(path, name, tenant=tenant, user=user)
    echo(secret)
    say("note", f"the token of {name}: shown this once, keep it in the agent's environment "
        "(hookline install HOST --token-env VAR)", err=True)  # fmt: skip


@token.command("list")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per line.")
@SERVER_CWD
@SERVER_STATE
def list_tokens(as_json: bool, cwd: Path, state_dir: Path | None) -> None:
    """The tokens: name, tenant, user, made, revoked. Never a token or its hash."""
    path = _path(cwd, state_dir)
    found = tokens.read(path)
    if as_json:
        for entry in found:
            said = {"name": entry.name, "tenant": entry.tenant, "user": entry.user}
            echo(shown_json({**said, "created": entry.created, "revoked": entry.revoked}))
        return
    if not found:
        say("note", f"no tokens in {shown(str(path))}: a loopback server answers anyone here")
        return
    rows = [
        [shown(entry.name), shown(entry.tenant or "-"), shown(entry.user or "-"),
         _when(entry.created), "-" if entry.revoked is None else _when(entry.revoked)]
        for entry in found
    ]  # fmt: skip
    print_aligned(["NAME", "TENANT", "USER", "CREATED", "REVOKED"], rows)


@token.command("revoke")
@click.argument("name")
@SERVER_CWD
@SERVER_STATE
def revoke(name: str, cwd: Path, state_dir: Path | None) -> None:
    """Revoke NAME's token: a running server refuses it from the next request."""
    gone = tokens.revoke(_path(cwd, state_dir), name)
    echo(f"revoked {shown(gone.name)} (at {_when(gone.revoked or 0)})")


def _when(seconds: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(seconds))
