"""How the CLI builds an agent from its flags, and builds it again to resume a paused session.

The flags are kept as a ``Launch`` (paths made absolute) and saved with a paused session, so
``hookline sessions resume ID`` rebuilds the same model, hooks, settings and permissions in any
process, from any folder.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, cast

import click

from hookline import Agent, ConfigError
from hookline._agent.saved.deadline import shorter
from hookline._agent.session import STATE_DIR
from hookline._claude import structured
from hookline._claude.fingerprint import fingerprint
from hookline._cli import claude_launch
from hookline._cli.approve_prompt import TerminalApprover
from hookline._cli.render import warn
from hookline._cli.tool_rules import split_rules
from hookline._cli.trust_cmd import terminal_asker
from hookline._events import PermissionMode
from hookline._policy.digest import policy_digest
from hookline._project import load_project
from hookline._tools.approvals import (
    APPROVER_TIMEOUT,
    TOKEN_ENV,
    Approver,
    ChainApprover,
    HttpApprover,
    NoApprover,
)
from hookline.models._choice import model_from_spec
from hookline.permissions._sandbox import SandboxConfig
from hookline.storage import Store, open_store
from hookline.telemetry import tracing_of

#: ``hookline run``'s group commit by default (``--audit-delay``): a call's result may wait this
#: many seconds to share the next write; the library's default (``Agent(audit_delay=...)``) is 0.
AUDIT_DELAY = 0.05

#: ``run`` and ``sessions resume``: Claude Code's way with a broken settings file.
LENIENT_SETTINGS = click.option(
    "--lenient-settings",
    is_flag=True,
    help="Load what loads from a broken settings file and warn about the rest, as Claude Code "
    "does (default: a settings error stops the run, exit 2).",
)

#: How ``run`` and ``sessions resume`` print what happens.
OUTPUT_FORMAT = click.option(
    "--output-format",
    type=click.Choice(["text", "json", "stream-json"]),
    default="text",
    show_default=True,
    help="text for people; json: one object at the end; stream-json: one line per step.",
)


def approver_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``hookline run``'s flags for the HTTP approver."""
    options = [
        click.option(
            "--approver-url",
            default=None,
            help="An HTTP endpoint that answers approvals (https, or http to loopback).",
        ),
        click.option(
            "--approver-token",
            default=None,
            metavar="TOKEN",
            help=f"Sent to the approver as a bearer token (default: ${TOKEN_ENV}).",
        ),
        click.option(
            "--approver-timeout",
            type=click.FloatRange(min=0, min_open=True),
            default=APPROVER_TIMEOUT,
            show_default=True,
            metavar="SECONDS",
            help="How long to wait for the approver's answer.",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


@dataclass(frozen=True)
class Launch:
    """The flags of ``hookline run`` that shape the agent."""

    cwd: str
    model: str = "rules"
    hooks: tuple[str, ...] = ()
    settings: tuple[str, ...] = ()
    max_turns: int = 50
    #: ``--compact-at``: compact the conversation once it is estimated at this many tokens.
    compact_at: int | None = None
    user: str | None = None
    tenant: str | None = None
    permission_mode: str | None = None
    defer_asks: bool = False
    #: ``--defer-deadline``, in seconds: how long a paused call waits for its answer (the
    #: ``deferDeadline`` setting, under ``hookline``, sets one too; the shorter applies).
    defer_deadline: float | None = None
    #: ``--lenient-settings``: load what loads and warn, as Claude Code does, instead of
    #: stopping on a settings error.
    lenient_settings: bool = False
    #: ``--allowedTools`` / ``--disallowedTools``: permission rules of a ``cli`` layer.
    allowed_tools: tuple[str, ...] = ()
    disallowed_tools: tuple[str, ...] = ()
    approver_url: str | None = None
    approver_timeout: float = APPROVER_TIMEOUT
    #: Never saved with a paused session, nor shown: on resume it comes from
    #: ``HOOKLINE_APPROVER_TOKEN``.
    approver_token: str | None = field(default=None, repr=False)
    store: str | None = None
    audit: bool = True
    #: ``--audit-delay``: group commit (``AgentOptions.audit_delay``).
    audit_delay: float = AUDIT_DELAY
    #: ``--audit-sync``: fsync the write ahead of each tool body (``AgentOptions.audit_sync``;
    #: the ``auditSync`` setting, under ``hookline``, turns it on too).
    audit_sync: bool = False
    #: ``claude -p``'s flags (``hookline._cli.claude_launch``): the system prompt's text, more
    #: workspace folders, ``--mcp-config`` values (files made absolute, or JSON), the settings
    #: files read (None: all), ``--agents`` and ``--json-schema`` JSON, fallback models.
    system_prompt: str | None = None
    add_dirs: tuple[str, ...] = ()
    mcp_config: tuple[str, ...] = ()
    strict_mcp_config: bool = False
    setting_sources: tuple[str, ...] | None = None
    agents: str | None = None
    json_schema: str | None = None
    fallback_model: str | None = None
    #: ``--no-session-persistence``: a state folder removed when the process exits.
    state_dir: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    #: The settings layers and hook files the agent was built with (``hooks.fingerprint``);
    #: None until ``build_agent``, and in sessions paused before hookline kept them.
    fingerprints: Mapping[str, str] | None = None

    @classmethod
    def from_flags(
        cls,
        *,
        cwd: str | None,
        model: str,
        hooks: tuple[str, ...],
        settings: tuple[str, ...],
        allowed_tools: tuple[str, ...] = (),
        disallowed_tools: tuple[str, ...] = (),
        add_dirs: tuple[str, ...] = (),
        mcp_config: tuple[str, ...] = (),
        **flags: Any,
    ) -> Launch:
        """The launch for these flags, with every path made absolute and the tool rules
        split and checked (``hookline._cli.tool_rules``)."""
        project = Path(cwd or ".").resolve()
        if not project.is_dir():
            raise ConfigError(f"no such folder {project}", key="--cwd", fix="pass a folder")
        return cls(
            cwd=str(project),
            model=_absolute_model(model),
            hooks=tuple(str(Path(h).resolve()) for h in hooks),
            settings=tuple(_absolute_setting(s) for s in settings),
            allowed_tools=split_rules(allowed_tools, flag="--allowedTools"),
            disallowed_tools=split_rules(disallowed_tools, flag="--disallowedTools"),
            add_dirs=tuple(_folder(d, "--add-dir") for d in add_dirs),
            mcp_config=claude_launch.mcp_configs(mcp_config),
            **flags,
        )

    @classmethod
    def saved(cls, data: Mapping[str, Any] | None, *, session: str) -> Launch:
        """The launch a paused session was started with; a ConfigError if it has none."""
        if not data:
            raise ConfigError(
                f"session {session} was not started by `hookline run`, so the CLI cannot "
                "rebuild its agent",
                key="session",
                fix="resume it from the program that started it, with Agent.resume()",
            )
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        for key in (
            "hooks",
            "settings",
            "allowed_tools",
            "disallowed_tools",
            "add_dirs",
            "mcp_config",
        ):
            known[key] = tuple(known.get(key) or ())
        if known.get("setting_sources") is not None:
            known["setting_sources"] = tuple(known["setting_sources"])
        return cls(**known)

    def to_dict(self) -> dict[str, Any]:
        """The launch as saved with a paused session: without the approver token."""
        data = asdict(self)
        del data["approver_token"]
        return data


def build_agent(launch: Launch) -> Agent:
    """The agent ``launch`` describes; a settings error is a ConfigError (exit 2, nothing runs)
    unless ``lenient_settings``; settings warnings go to stderr. At a terminal, a folder with
    its own hooks and no remembered trust answer asks once (``hookline._trust``). The launch
    saved with a paused session carries the fingerprints of the files its hooks came from.
    With the audit on, the store (``--store``, else the project's SQLite file) is opened here
    and ``show`` closes it; without, the agent opens it only if the run pauses, so nothing is
    written."""
    prints = fingerprint(launch.cwd, settings=launch.settings, hook_files=launch.hooks)
    mode = cast("PermissionMode | None", launch.permission_mode)  # click checked the choice
    project = load_project(
        launch.cwd,
        settings=launch.settings,
        hook_files=launch.hooks,
        mode=mode,
        lenient=launch.lenient_settings,
        cli_rules={"allow": launch.allowed_tools, "deny": launch.disallowed_tools},
        trust=terminal_asker(),
        sources=launch.setting_sources,
    )
    for warning in project.warnings:
        warn(warning)
    _check_sandbox(project.sandbox)
    model = claude_launch.with_fallbacks(model_from_spec(launch.model), launch.fallback_model)
    approver = _approver(launch)
    configured = project.agent_options()
    configured["mcp_servers"] = claude_launch.mcp_servers(
        launch.mcp_config, project.mcp_servers, strict=launch.strict_mcp_config, cwd=launch.cwd
    )
    if launch.add_dirs:
        configured["roots"] = (launch.cwd, *launch.add_dirs)
    if launch.audit_sync:
        configured["audit_sync"] = True
    configured["defer_deadline"] = shorter(launch.defer_deadline, project.defer_deadline)
    store = _store(launch) if launch.audit else launch.store  # last: opening it writes
    agent = Agent(
        model,
        **configured,
        system_prompt=launch.system_prompt,
        state_dir=launch.state_dir,
        agents=claude_launch.agent_types(launch.agents),
        instructions=launch.setting_sources is None or "project" in launch.setting_sources,
        max_turns=launch.max_turns,
        compact_at_tokens=launch.compact_at,
        user=launch.user,
        tenant=launch.tenant,
        approver=approver,
        defer_asks=launch.defer_asks,
        store=store,
        audit=launch.audit,
        audit_delay=launch.audit_delay,
        launch=replace(launch, fingerprints=prints).to_dict(),
    )
    if (schema := claude_launch.json_schema(launch.json_schema)) is not None:
        structured.offer(agent, schema)
    if (tracing := tracing_of(agent)) is not None:  # OTEL_* variables asked for traces
        tracing.policy_digest = policy_digest(project).sha256
    return agent


def _store(launch: Launch) -> Store:
    return open_store(launch.store, state_dir=Path(launch.cwd) / STATE_DIR)


def _check_sandbox(sandbox: SandboxConfig) -> None:
    """Warn when the sandbox is enabled but cannot start (Bash then runs unsandboxed and asks
    as usual); with ``failIfUnavailable``, a ConfigError (exit 2) instead."""
    why = sandbox.unavailable() if sandbox.enabled else None
    if why is None:
        return
    if sandbox.fail_if_unavailable:
        raise ConfigError(f"the sandbox cannot start: {why}", key="sandbox.failIfUnavailable")
    warn(f"the sandbox cannot start: {why}; Bash commands run unsandboxed and ask as usual")


def _approver(launch: Launch) -> Approver:
    """A person at this terminal first, then the HTTP approver, if any."""
    chain: list[Approver] = []
    terminal = TerminalApprover(sys.stdin, sys.stdout)
    if terminal.available():
        chain.append(terminal)
    if launch.approver_url:
        token = launch.approver_token or os.environ.get(TOKEN_ENV) or None
        http = HttpApprover(launch.approver_url, token=token, timeout=launch.approver_timeout)
        chain.append(http)
    return ChainApprover(*chain) if chain else NoApprover()


def _folder(value: str, flag: str) -> str:
    folder = Path(value).resolve()
    if not folder.is_dir():
        raise ConfigError(f"no such folder {folder}", key=flag, fix="pass a folder")
    return str(folder)


def _absolute_model(spec: str) -> str:
    kind, _, value = spec.partition(":")
    return f"scripted:{Path(value).resolve()}" if kind == "scripted" and value else spec


def _absolute_setting(value: str) -> str:
    return value if value.lstrip().startswith("{") else str(Path(value).resolve())
