"""The server's folder, as the commands that work on a ``hookline serve`` name it: its policy
folder (``--cwd``) and its state folder (``--state-dir``, by default the folder's own)."""

from __future__ import annotations

from pathlib import Path

import click

from hookline._agent.session import STATE_DIR

SERVER_CWD = click.option(
    "--cwd",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=".",
    help="The server's policy folder (as given to hookline serve).",
)
SERVER_STATE = click.option(
    "--state-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="The server's state folder (default: the folder's .hookline/state).",
)


def server_state(cwd: Path, state_dir: Path | None) -> Path:
    """The state folder ``--state-dir`` names, else ``cwd``'s."""
    return state_dir or cwd.resolve() / STATE_DIR
