"""``hookline hooks``: see, check and try the hooks a run would have, from every layer.

    hookline hooks list [--json]        every hook, with the settings file or Python file it is from
    hookline hooks table                a hook table, as Markdown
    hookline hooks validate [--json]    a lint of them all; exit 2 when it finds an error
    hookline hooks test --tool Bash --input '{"command": "git push --force"}'
    hookline hooks test - < event.json  run the matching hooks for real; print what each did
    hookline hooks test < event.json    the same: a piped event is read when no flag gives one
    hookline hooks stats [--json]       how each hook did, from the audit (``hook_stats_cmd``)

``hooks test`` exits as the merged decision says: 0 allow (or none), 2 deny or block, 3 ask
or defer. A built-in tool's input is prepared as in a run (a relative path made absolute
against ``--cwd``) before the hooks see it.

Each subcommand loads hooks as a run does: ``--cwd`` (the project), ``--settings`` and ``--hooks``.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TypeVar

import click

from hookline._agent.subagent_types import AGENT_TOOL
from hookline._claude.lint import lint
from hookline._cli.hooks_test_event import (
    as_in_a_run,
    build_event,
    flag_fields,
    stdin_event,
    stdin_is_piped,
)
from hookline._cli.lazy import Lazy, LazyGroup
from hookline._cli.own_stdout import hook_output_to_stderr
from hookline._cli.render import echo, emit_json, say, warn
from hookline._decisions import UNCHANGED
from hookline._errors import ConfigError
from hookline._hooks.engine import HookEngine, HookRun
from hookline._hooks.resources import HookResources
from hookline._policy.inventory import HookRow, rows
from hookline._project import load_hooks
from hookline._support.display import shown
from hookline._support.http_pool import HttpClients
from hookline._tools.builtin import builtin_tools
from hookline.permissions import PermissionPolicy

if TYPE_CHECKING:
    from hookline._decisions import Decision
    from hookline._events import HookEvent
    from hookline._hooks.engine import Dispatch
    from hookline._hooks.registry import HookRegistry
    from hookline._settings_layers import SettingsWarning

F = TypeVar("F", bound=Callable[..., Any])

#: ``hooks test``'s exit code for the merged permission (none, or allow: 0).
EXIT_CODES: Final[Mapping[str | None, int]] = {"deny": 2, "ask": 3, "defer": 3}


def loading(fn: F) -> F:
    """The options every subcommand shares: the project, extra settings, hook files."""
    options = (
        click.option(
            "--cwd",
            type=click.Path(file_okay=False, exists=True),
            default=".",
            help="The project folder whose settings are read (default: the current one).",
        ),
        click.option(
            "--settings",
            "settings",
            multiple=True,
            metavar="FILE|JSON",
            help="A settings file, or inline JSON, read as the cli layer. Repeatable.",
        ),
        click.option(
            "--hooks",
            "hook_files",
            multiple=True,
            metavar="FILE.py",
            help="A Python file with a HOOKS mapping and/or register(registry). Repeatable.",
        ),
    )
    for option in reversed(options):
        fn = option(fn)
    return fn


#: The subcommands imported when used: ``stats`` reads the audit, which the others never load.
LAZY: Final = {
    "stats": Lazy(
        "hookline._cli.hook_stats_cmd:stats",
        "How each hook did, from the audit: runs, decisions, p50/p95/max latency and failures.",
    ),
}


@click.group(cls=LazyGroup, lazy=LAZY, context_settings={"help_option_names": ["-h", "--help"]})
def hooks() -> None:
    """See, check and try the hooks a run would have, from every settings layer."""


@hooks.command("list")
@loading
@click.option("--json", "as_json", is_flag=True, help="One JSON object with the rows.")
def list_hooks(
    cwd: str, settings: tuple[str, ...], hook_files: tuple[str, ...], as_json: bool
) -> None:
    """Every hook from every layer, with its source."""
    registry, found = load_hooks(cwd, settings=settings, hook_files=hook_files)
    _warn(found.warnings)
    described = rows(registry)
    if as_json:
        data = [row.to_dict() for row in described]
        emit_json({"hooks": data, "warnings": [str(w) for w in found.warnings]}, indent=2)
    elif not described:
        say("note", "no hooks")
    else:
        _print_columns(described, Path(cwd))


@hooks.command()
@loading
def table(cwd: str, settings: tuple[str, ...], hook_files: tuple[str, ...]) -> None:
    """The hooks as a hook table (Markdown): one row per hook."""
    registry, found = load_hooks(cwd, settings=settings, hook_files=hook_files)
    _warn(found.warnings)
    echo(_markdown(rows(registry), Path(cwd)))


@hooks.command()
@loading
@click.option("--json", "as_json", is_flag=True, help="One JSON object with the findings.")
def validate(
    cwd: str, settings: tuple[str, ...], hook_files: tuple[str, ...], as_json: bool
) -> None:
    """Lint the hooks: settings problems (permission rules that cannot be read too), bad
    matchers, missing commands, millisecond timeouts, gates that fail open, duplicates. Exits 2
    when there is an error (what stops a run)."""
    registry, found = load_hooks(cwd, settings=settings, hook_files=hook_files)
    _, rule_notes = PermissionPolicy.from_settings(found, cwd=str(Path(cwd).resolve()))
    found.warnings.extend(note for note in rule_notes if note not in found.warnings)
    known = [*(tool.name for tool in builtin_tools()), AGENT_TOOL]  # Agent: subagents
    findings = lint(registry, found, known_tools=known)
    errors = sum(finding.severity == "error" for finding in findings)
    warnings = len(findings) - errors
    if as_json:
        data = [finding.to_dict() for finding in findings]
        counts = {"hooks": len(registry), "errors": errors, "warnings": warnings}
        emit_json({**counts, "findings": data}, indent=2)
    else:
        for finding in findings:
            say("failure" if finding.severity == "error" else "note", shown(finding))
        summary = f"{_count(len(registry), 'hook')}: {_count(errors, 'error')}, "
        say("deny" if errors else "allow", summary + _count(warnings, "warning"))
    if errors:
        raise SystemExit(2)


@hooks.command("test")
@loading
@click.argument("dash", required=False, metavar="[-]")
@click.option("--stdin", "from_stdin", is_flag=True, help="Read the event as JSON from stdin.")
@click.option(
    "--event",
    "event_name",
    metavar="NAME",
    help="The event name; --tool implies PreToolUse, --prompt UserPromptSubmit.",
)
@click.option("--tool", "tool_name", metavar="NAME", help="The tool name, for tool events.")
@click.option("--input", "tool_input", metavar="JSON", help="The tool input, a JSON object.")
@click.option(
    "--response",
    "tool_response",
    metavar="JSON",
    help="The tool's output, for PostToolUse (which it implies): any JSON value.",
)
@click.option("--prompt", metavar="TEXT", help="The prompt, for UserPromptSubmit.")
def try_event(
    cwd: str,
    settings: tuple[str, ...],
    hook_files: tuple[str, ...],
    dash: str | None,
    from_stdin: bool,
    event_name: str | None,
    tool_name: str | None,
    tool_input: str | None,
    tool_response: str | None,
    prompt: str | None,
) -> None:
    """Run the hooks matching one event, for real, and print each hook's result and the merged
    decision as JSON. The event comes from the flags, or from stdin ('-', --stdin, or piped
    with no event flag). Exit code: 0 allow (or no decision), 2 deny or block, 3 ask or defer."""
    if dash not in (None, "-"):
        raise ConfigError(
            f"unexpected argument {dash!r}", fix="give - to read the event from stdin"
        )
    flags = flag_fields(
        tool_name=tool_name, tool_input=tool_input, tool_response=tool_response, prompt=prompt
    )
    piped = not flags and event_name is None and stdin_is_piped()
    payload = stdin_event(empty_ok=piped) if dash == "-" or from_stdin or piped else {}
    payload |= flags
    project = str(Path(cwd).resolve())
    with tempfile.TemporaryDirectory(prefix="hookline-hooks-test-") as state:
        transcript = str(Path(state, "transcripts", "hooks-test.jsonl"))
        event = build_event(
            as_in_a_run(payload, project), name=event_name, cwd=project, transcript=transcript
        )
        registry, found = load_hooks(cwd, settings=settings, hook_files=hook_files)
        _warn(found.warnings)
        with hook_output_to_stderr():  # stdout is the JSON below, whatever hook code prints
            done, runs = asyncio.run(_run_hooks(registry, event))
    emit_json(
        {
            "event": event.to_payload(),
            "runs": [run.to_dict() for run in runs],
            "decision": decision_dict(done.decision),
        },
        indent=2,
    )
    code = EXIT_CODES.get(done.decision.permission, 0)
    if code:
        raise SystemExit(code)


def decision_dict(decision: Decision) -> dict[str, Any]:
    """The merged decision as JSON (``updated_output`` null when unchanged)."""
    output = decision.updated_output
    return {
        "permission": decision.permission,
        "reason": decision.reason,
        "updated_input": decision.updated_input,
        "updated_output": None if output is UNCHANGED else output,
        "additional_context": list(decision.additional_context),
        "system_message": list(decision.system_message),
        "continue": decision.continue_,
        "stop_reason": decision.stop_reason,
    }


async def _run_hooks(registry: HookRegistry, event: HookEvent) -> tuple[Dispatch, list[HookRun]]:
    """Dispatch ``event``, wait for background observers; every run, in declared order."""
    clients = HttpClients()
    engine = HookEngine(registry, resources=HookResources(http=clients))
    finished: list[HookRun] = []
    engine.stream.subscribe(HookRun, finished.append)
    try:
        done = await engine.dispatch(event)
        await engine.drain()
    finally:
        await clients.aclose()
    order = {(spec.name, spec.source): i for i, spec in enumerate(registry.specs(event.name))}
    late = [run for run in finished if all(run is not seen for seen in done.runs)]
    late.sort(key=lambda run: order.get((run.hook, run.source), len(order)))
    return done, [*done.runs, *late]


# -- printing -----------------------------------------------------------------------------------

_LIST_COLUMNS: Final = ("EVENT", "MATCHER", "KIND", "HANDLER", "FAILS", "TIMEOUT", "SOURCE", "RUNS")
_TABLE_COLUMNS: Final = (
    "Event", "Matcher", "Handler", "What it checks", "Decisions it can return",
    "When it fails", "Timeout", "Source",
)  # fmt: skip


def _print_columns(described: list[HookRow], project: Path) -> None:
    """One row per hook, every cell ``shown``: one line each, whatever the settings hold."""
    lines = [
        tuple(map(shown, (r.event, r.matcher, r.kind, r.handler, r.failure,
                          _seconds(r.timeout), _short(r.source, project), r.runs)))
        for r in described
    ]  # fmt: skip
    padded = range(len(_LIST_COLUMNS) - 1)  # every column but the last, which runs on
    widths = [max(len(line[i]) for line in [_LIST_COLUMNS, *lines]) for i in padded]
    for index, line in enumerate([_LIST_COLUMNS, *lines]):
        cells = [cell.ljust(width) for cell, width in zip(line, widths, strict=False)]
        say("title" if index == 0 else "hook", "  ".join([*cells, line[-1]]))


def _markdown(described: list[HookRow], project: Path) -> str:
    lines = [_md_row(_TABLE_COLUMNS), _md_row(["---"] * len(_TABLE_COLUMNS))]
    for r in described:
        handler = f"{r.handler} ({r.kind})" if r.kind != "gate" else r.handler
        cells = (r.event, r.matcher, handler, r.checks, ", ".join(r.decisions),
                 r.when_it_fails, _seconds(r.timeout), _short(r.source, project))  # fmt: skip
        lines.append(_md_row(cells))
    return "\n".join(lines)


def _md_row(cells: Iterable[str]) -> str:
    """A Markdown table row; each cell ``shown`` (so one line), its ``|`` escaped."""
    escaped = (shown(cell).replace("|", "\\|") for cell in cells)
    return f"| {' | '.join(escaped)} |"


def _short(source: str, project: Path) -> str:
    """A source with its path shortened: relative to the project, or ``~/``."""
    layer, colon, path = source.partition(":")
    if not colon or not path.startswith("/"):
        return source
    for base, prefix in ((project.resolve(), ""), (Path.home(), "~/")):
        if Path(path).is_relative_to(base):
            return f"{layer}:{prefix}{Path(path).relative_to(base)}"
    return source


def _seconds(timeout: float) -> str:
    return f"{timeout:g}s"


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _warn(warnings: Iterable[SettingsWarning | str]) -> None:
    for warning in warnings:
        warn(warning)
