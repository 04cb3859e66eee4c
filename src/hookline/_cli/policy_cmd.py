"""``hookline policy``: the policy a folder's settings make, in words, with its digest.

    hookline policy [--cwd FOLDER] [--settings FILE|JSON] [--hooks FILE.py] [--json]

The folder is loaded as ``hookline serve`` loads it (``load_project``); what is printed is what
``GET /policy`` of a server started there with the same flags answers, and the digest is the
one on each of its ``served`` records (``hookline._policy``). No server is needed.
"""

from __future__ import annotations

import time

import click

from hookline._cli.hooks_cmd import loading
from hookline._cli.launch import LENIENT_SETTINGS
from hookline._cli.render import echo, emit_json, warn
from hookline._policy.digest import policy_digest
from hookline._policy.view import described
from hookline._policy.words import in_words
from hookline._project import load_project


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@loading
@LENIENT_SETTINGS
@click.option("--json", "as_json", is_flag=True, help="The policy as one JSON object.")
def policy(
    cwd: str,
    settings: tuple[str, ...],
    hook_files: tuple[str, ...],
    lenient_settings: bool,
    as_json: bool,
) -> None:
    """Show the policy this folder's settings make, in words, and its digest.

    The settings layers, hooks files and hook code it comes from (each with its sha256), the
    hooks of each event, the permission mode and rules, and the tiers: what `hookline serve`
    here would judge with, and the digest its audit records carry.
    """
    project = load_project(cwd, settings=settings, hook_files=hook_files, lenient=lenient_settings)
    for warning in project.warnings:
        warn(warning)
    view = described(project, policy_digest(project), loaded_at=time.time())
    if as_json:
        emit_json(view, indent=2)
    else:
        echo(in_words(view).rstrip("\n"))
