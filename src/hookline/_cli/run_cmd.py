"""``hookline run``: work on a prompt with the given model, tools and hooks."""

from __future__ import annotations

from typing import Any

import click

from hookline._agent.saved.deadline import seconds
from hookline._agent.saved.seal import load_key
from hookline._cli import claude_launch
from hookline._cli.claude_flags import claude_options
from hookline._cli.launch import (
    AUDIT_DELAY,
    LENIENT_SETTINGS,
    OUTPUT_FORMAT,
    Launch,
    approver_options,
    build_agent,
)
from hookline._cli.prompt_input import read_prompts
from hookline._cli.render import say
from hookline._cli.sessions_cmd import RunListing
from hookline._cli.show import Output, show
from hookline._cli.tool_rules import tool_rule_options
from hookline.models._choice import default_spec
from hookline.storage import Store


@click.command()
@click.argument("prompt", required=False)
@click.option(
    "--model",
    "model_spec",
    default=None,
    help="openai:NAME, anthropic:NAME, a Claude model name or alias (claude-..., sonnet, opus, "
    "haiku), scripted:FILE (a script of model turns) or rules (the offline rule model). Default: "
    "the first provider configured by OPENAI_* or ANTHROPIC_* variables, else rules.",
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
@LENIENT_SETTINGS
@tool_rule_options
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
    "--compact-at",
    "compact_at",
    type=click.IntRange(min=1),
    default=None,
    metavar="TOKENS",
    help="Compact the conversation (summarise it, PreCompact and PostCompact hooks fire) once it "
    "is estimated at this many tokens. Default: never.",
)
@click.option(
    "--permission-mode",
    type=click.Choice(
        ["default", "manual", "acceptEdits", "plan", "auto", "bypassPermissions", "dontAsk"]
    ),
    default=None,
    help="The permission mode (default: the settings' defaultMode, else default; manual is "
    "default, as in Claude Code).",
)
@click.option(
    "--defer-asks",
    is_flag=True,
    help="A call that needs approval nobody can give now pauses the run (resume it later).",
)
@click.option(
    "--defer-deadline",
    default=None,
    metavar="DURATION",
    help="How long a paused call waits for its answer (2d, 12h, 30m, 90s, or seconds): a "
    "resume after that denies it, whoever answers, and the model reads that it waited past its "
    'deadline. Default: no deadline (settings: "hookline": {"deferDeadline": "2d"}; the '
    "shortest set applies).",
)
@approver_options
@click.option(
    "--store", default=None, help="postgresql:// URL or SQLite path for sessions and the audit."
)
@click.option("--audit/--no-audit", default=True, show_default=True, help="Write the audit log.")
@click.option(
    "--audit-delay",
    type=click.FloatRange(min=0),
    default=AUDIT_DELAY,
    show_default=True,
    metavar="SECONDS",
    help="Group commit: calls' results gather for up to this long to ride with the next audit "
    "write (most often the next call's start), and are written when it is up. A crash then "
    "leaves at most the calls that ended in that window 'started, not finished', which "
    "`hookline audit` shows; what lets a call run is always written before it runs. 0: each "
    "result is written when its call ends.",
)
@click.option(
    "--audit-sync",
    is_flag=True,
    help="fsync the audit file before each tool body runs, so what let a call run survives a "
    "power cut or an OS crash, not only a killed process (costs a disk flush per call; settings: "
    '"hookline": {"auditSync": true}).',
)
@OUTPUT_FORMAT
@click.option("-v", "--verbose", is_flag=True, help="Show the traceback of a hook that raised.")
@claude_options
def run(prompt: str | None, **flags: Any) -> None:
    """Work on PROMPT ('-' reads it from stdin) with the given model, tools and hooks.

    Takes claude -p's flags, with their meanings; `hookline -p PROMPT` is `hookline run -p
    PROMPT`. A prompt piped on stdin is read (after PROMPT, when both are given).

    Exit codes: 0 the run ended; 2 a mistake in a flag, file or key, or a model call that
    failed; 4 the run paused with calls waiting for an answer (it prints the session id and
    the `hookline sessions resume` lines that go on with it). With -p, as claude -p: 1 for a
    mistake or a run that ended in error."""
    output = _output(flags)
    prompts = read_prompts(
        prompt,
        input_format=flags.pop("input_format"),
        output_format=output.format,
        rules=bool(flags["allowed_tools"] or flags["disallowed_tools"]),
    )
    session = {key: flags.pop(key) for key in ("resume", "continue_latest", "session_id")}
    session["fork"] = flags.pop("fork_session")
    if flags.pop("no_session_persistence"):
        flags["state_dir"] = claude_launch.passing_state_dir()
    agent, note = _agent(flags)
    claude_launch.choose_session(agent, **session)
    if note:  # once the agent is built: a mistake in the flags stays one line
        say("note", f"hookline: {note}", err=True)
    show(agent, output, lambda: agent.run(prompts.first), next_prompt=prompts.next)


def _output(flags: dict[str, Any]) -> Output:
    """How the run is printed (the output flags taken out of ``flags``)."""
    return Output(
        format=flags.pop("output_format"),
        print_mode=flags.pop("print_mode"),
        verbose=flags.pop("verbose"),
        partial=flags.pop("include_partial_messages"),
        hook_events=flags.pop("include_hook_events"),
    )


def _agent(flags: dict[str, Any]) -> tuple[Any, str | None]:
    """The agent the rest of the flags describe, and the note to show about its model."""
    note = None
    if flags["model_spec"] is None:
        flags["model_spec"], note = default_spec()
    if flags.pop("dangerously_skip_permissions"):
        flags["permission_mode"] = claude_launch.dangerous_skip()
    if flags["permission_mode"] == "manual":
        flags["permission_mode"] = "default"
    flags["system_prompt"] = claude_launch.system_prompt(
        system=flags.pop("system_prompt"),
        system_file=flags.pop("system_prompt_file"),
        append=flags.pop("append_system_prompt"),
        append_file=flags.pop("append_system_prompt_file"),
    )
    flags["setting_sources"] = claude_launch.setting_sources(flags["setting_sources"])
    claude_launch.agent_types(flags["agents"])  # checked now: one line, before anything runs
    claude_launch.json_schema(flags["json_schema"])
    if flags["defer_deadline"] is not None:
        flags["defer_deadline"] = seconds(flags["defer_deadline"], key="--defer-deadline")
    launch = Launch.from_flags(
        model=flags.pop("model_spec"),
        hooks=flags.pop("hook_files"),
        **flags,
    )
    agent = build_agent(launch)
    if isinstance(agent.options.store, Store):  # opened with the audit on: list the run in it
        load_key(create=True)  # what the listing seals with: one unusable stops the run here
        agent.observe(RunListing(agent.options.store, agent.options.launch))
    return agent, note
