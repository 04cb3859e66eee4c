"""``hookline replay``: what a policy would have done to recorded sessions, call by call.

    hookline replay ~/.claude/projects/-home-me-shop/ [--cwd FOLDER] [--settings F] [--hooks F]
    hookline replay .hookline/state/transcripts/S.jsonl --diff OLD NEW --fail-on newly-allowed

The policy is the folder's (``--cwd``, with ``--settings`` and ``--hooks`` on top, loaded as
``hookline serve`` and ``hookline policy`` load it); ``--diff A B`` compares two policies
instead of the record and one policy, each a folder or a settings file (read on top of
``--cwd``'s layers). ``--tenant``, ``--agent``, ``--user`` and ``--host`` replay one
caller's calls only (``hookline._replay.whose``): those the audit says they made. A long history
is judged in several processes (``--jobs``), whole sessions each, each loading the policy from
the same files. Exit code 1 when a change of a kind ``--fail-on`` names happened, so a CI job
can gate a rule change on it.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path
from typing import Any, Final

import click

from hookline._cli import program_gc
from hookline._cli.audit_source import by_caller
from hookline._cli.columns import print_aligned
from hookline._cli.hooks_cmd import loading
from hookline._cli.launch import LENIENT_SETTINGS
from hookline._cli.render import echo, emit_json, warn
from hookline._errors import ConfigError
from hookline._project import Project
from hookline._replay import CHANGES, Replayed, Totals, recorded
from hookline._replay.parallel import PER_PROCESS, Policy, processes, replay_shared, replayed
from hookline._replay.whose import whose
from hookline._support.display import shown
from hookline.audit._callers import Callers

_PREVIEW: Final = 60


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("paths", nargs=-1, required=True, metavar="SESSIONS...")
@loading
@LENIENT_SETTINGS
@click.option(
    "--diff",
    nargs=2,
    metavar="A B",
    default=None,
    help="Compare policy A with policy B (each a folder or a settings file) instead of what "
    "happened with this folder's policy.",
)
@click.option(
    "--skip-commands", is_flag=True, help="Leave command hooks out (they run for real otherwise)."
)
@click.option(
    "--fail-on",
    default="",
    metavar="KINDS",
    help=f"Exit 1 if any change of these kinds happened (comma-separated: {', '.join(CHANGES)}).",
)
@click.option(
    "--jobs",
    type=click.IntRange(min=1),
    default=None,
    help="Processes judging at once, whole sessions each (default: one a core, at most one "
    f"for every {PER_PROCESS:,} events). 1 keeps every session in this process.",
)
@click.option("--all", "show_all", is_flag=True, help="List every event, not only the changed.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object: events and totals.")
@by_caller
def replay_cmd(
    paths: tuple[str, ...],
    cwd: str,
    settings: tuple[str, ...],
    hook_files: tuple[str, ...],
    lenient_settings: bool,
    diff: tuple[str, str] | None,
    skip_commands: bool,
    fail_on: str,
    jobs: int | None,
    show_all: bool,
    as_json: bool,
    callers: Callers,
) -> None:
    """Replay recorded sessions through a policy: what it would decide, and what changes.

    SESSIONS are session files or folders of them (searched below): a project (its hookline
    transcripts), Claude Code's (~/.claude/projects/...), Codex's (~/.codex/sessions) and
    Gemini CLI's (~/.gemini/tmp). Each prompt and tool call is judged as `hookline serve`
    would judge it live; no tool runs and no model is called. --tenant, --agent, --user and
    --host keep the calls the audit says they made (a host's own transcripts do not say who).
    """
    with program_gc.tuned():  # a program: many short-lived records, few cycles
        failing = _kinds(fail_on)
        events = whose(recorded(paths), callers)
        if callers and not events:
            warn(f"no recorded call of {callers}: only hookline's audit says who made a call")
        base = Policy(cwd, settings, hook_files, lenient_settings, skip_commands)
        before, before_project = _policy(base, diff[0]) if diff else (None, None)
        after, after_project = _policy(base, diff[1] if diff else None)
        count = processes(len(events), jobs)
        if count > 1:
            done = replay_shared(events, after, before, count)
        else:
            old = before.replayer(before_project) if before is not None else None
            done = asyncio.run(replayed(events, after.replayer(after_project), old))
        totals = Totals.of(done)
        if as_json:
            listed = [r.to_dict() for r in done if show_all or r.change is not None]
            emit_json({"events": listed, "totals": totals.to_dict()}, indent=2)
        else:
            _print(done, totals, show_all=show_all, diff=diff is not None)
        if failing & set(totals.by_change):
            raise SystemExit(1)


def _policy(base: Policy, spec: str | None) -> tuple[Policy, Project]:
    """A policy, loaded here (its warnings said once): ``--cwd``'s; or ``spec``, a folder (its
    own layers) or a settings file on top of ``--cwd``'s layers."""
    policy = base
    if spec is not None:
        if Path(spec).is_dir():
            policy = replace(base, folder=spec)
        elif Path(spec).is_file():
            policy = replace(base, settings=(*base.settings, spec))
        else:
            raise ConfigError(
                f"--diff {spec}: no such folder or settings file",
                key="--diff",
                fix="give two policies, each a folder or a settings file",
            )
    project = policy.load()
    for warning in project.warnings:
        warn(warning)
    return policy, project


def _kinds(text: str) -> set[str]:
    kinds = {kind.strip() for kind in text.split(",") if kind.strip()}
    unknown = sorted(kinds - set(CHANGES))
    if unknown:
        raise ConfigError(
            f"--fail-on {','.join(unknown)}: not a kind of change",
            key="--fail-on",
            fix=f"use some of: {', '.join(CHANGES)}",
        )
    return kinds


def _print(done: list[Replayed], totals: Totals, *, show_all: bool, diff: bool) -> None:
    rows = [_row(r) for r in done if show_all or r.change is not None]
    if rows:
        was = "A" if diff else "was"
        now = "B" if diff else "now"
        print_aligned(("where", "call", was, now, "change", "by", "reason"), rows)
        echo("")
    changed = sum(totals.by_change.values())
    echo(f"{totals.events} events replayed, {changed} changed")
    for title, counts in (("by change", totals.by_change), ("by who decides now", totals.by_who),
                          ("by tool", totals.by_tool), ("shadow", totals.shadow)):  # fmt: skip
        if counts:
            echo(f"{title}: " + ", ".join(f"{k} {n}" for k, n in counts.most_common()))


def _row(replayed: Replayed) -> tuple[str, ...]:
    recorded, now = replayed.recorded, replayed.after
    call = (
        recorded.prompt
        if recorded.tool_name is None
        else f"{recorded.tool_name} {_input(recorded.tool_input)}"
    )
    where = Path(recorded.source).name
    redacted = " [redacted input]" if recorded.redacted else ""  # as the audit keeps it
    return (
        shown(where),
        shown(_clip(call or "")) + redacted,
        replayed.was,
        now.permission,
        replayed.change or "",
        shown(_clip(now.by or "")),
        shown(_clip(now.reason or "")),
    )


def _input(tool_input: Any) -> str:
    if isinstance(tool_input, dict) and len(tool_input) == 1:
        return str(next(iter(tool_input.values())))
    return str(tool_input)


def _clip(text: str) -> str:
    return text if len(text) <= _PREVIEW else text[: _PREVIEW - 1] + "…"
