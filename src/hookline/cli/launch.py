"""How the CLI builds an agent from its flags, and builds it again to resume a paused session.

The flags are kept as a ``Launch`` (paths made absolute) and saved with a paused session, so
``hookline sessions resume ID`` rebuilds the same model, hooks, settings and permissions in any
process, from any folder.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, cast

import click

from hookline import Agent, ConfigError, RuleModel, RunResult, ScriptedModel
from hookline.agent.model import ModelClient
from hookline.claude.fingerprint import fingerprint
from hookline.cli.approve_prompt import TerminalApprover
from hookline.cli.render import StreamView, TextView, emit_json, print_summary, warn
from hookline.events import PermissionMode
from hookline.permissions.sandbox import SandboxConfig
from hookline.project import load_project
from hookline.tools.approvals import (
    DEFAULT_TIMEOUT,
    TOKEN_ENV,
    Approver,
    ChainApprover,
    HttpApprover,
    NoApprover,
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
            default=DEFAULT_TIMEOUT,
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
    user: str | None = None
    tenant: str | None = None
    permission_mode: str | None = None
    defer_asks: bool = False
    approver_url: str | None = None
    approver_timeout: float = DEFAULT_TIMEOUT
    #: Never saved with a paused session, nor shown: on resume it comes from
    #: ``HOOKLINE_APPROVER_TOKEN``.
    approver_token: str | None = field(default=None, repr=False)
    store: str | None = None
    audit: bool = True
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
        **flags: Any,
    ) -> Launch:
        """The launch for these flags, with every path made absolute."""
        project = Path(cwd or ".").resolve()
        if not project.is_dir():
            raise ConfigError(f"no such folder {project}", key="--cwd", fix="pass a folder")
        return cls(
            cwd=str(project),
            model=_absolute_model(model),
            hooks=tuple(str(Path(h).resolve()) for h in hooks),
            settings=tuple(_absolute_setting(s) for s in settings),
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
        for key in ("hooks", "settings"):
            known[key] = tuple(known.get(key) or ())
        return cls(**known)

    def to_dict(self) -> dict[str, Any]:
        """The launch as saved with a paused session: without the approver token."""
        data = asdict(self)
        del data["approver_token"]
        return data


def build_agent(launch: Launch) -> Agent:
    """The agent ``launch`` describes; settings warnings go to stderr. The launch saved with
    a paused session carries the fingerprints of the files its hooks came from."""
    prints = fingerprint(launch.cwd, settings=launch.settings, hook_files=launch.hooks)
    mode = cast("PermissionMode | None", launch.permission_mode)  # click checked the choice
    project = load_project(launch.cwd, settings=launch.settings, hook_files=launch.hooks, mode=mode)
    for warning in project.warnings:
        warn(warning)
    _check_sandbox(project.sandbox)
    return Agent(
        model_from_spec(launch.model),
        **project.agent_options(),
        max_turns=launch.max_turns,
        user=launch.user,
        tenant=launch.tenant,
        approver=_approver(launch),
        defer_asks=launch.defer_asks,
        store=launch.store,
        audit=launch.audit,
        launch=replace(launch, fingerprints=prints).to_dict(),
    )


def _check_sandbox(sandbox: SandboxConfig) -> None:
    """Warn when the sandbox is enabled but cannot start (Bash then runs unsandboxed and asks
    as usual); with ``failIfUnavailable``, a ConfigError (exit 2) instead."""
    why = sandbox.unavailable() if sandbox.enabled else None
    if why is None:
        return
    if sandbox.fail_if_unavailable:
        raise ConfigError(f"the sandbox cannot start: {why}", key="sandbox.failIfUnavailable")
    warn(f"the sandbox cannot start: {why}; Bash commands run unsandboxed and ask as usual")


def model_from_spec(spec: str) -> ModelClient:
    """``rules`` or ``scripted:FILE``."""
    kind, _, value = spec.partition(":")
    if kind == "rules" and not value:
        return RuleModel()
    if kind == "scripted" and value:
        return ScriptedModel.from_file(value)
    raise ConfigError(
        f"unknown model {spec!r}", key="--model", fix="use --model scripted:FILE or --model rules"
    )


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


def _absolute_model(spec: str) -> str:
    kind, _, value = spec.partition(":")
    return f"scripted:{Path(value).resolve()}" if kind == "scripted" and value else spec


def _absolute_setting(value: str) -> str:
    return value if value.lstrip().startswith("{") else str(Path(value).resolve())


def show(agent: Agent, output_format: str, work: Callable[[], Awaitable[RunResult]]) -> None:
    """Run ``work`` on ``agent`` and print it as ``output_format`` asks."""
    if output_format == "text":
        agent.watch(TextView())
    elif output_format == "stream-json":
        agent.watch(StreamView())

    async def once() -> RunResult:
        async with agent:
            return await work()

    _watch_children_with_pidfd()
    result = asyncio.run(once())
    if output_format == "json":
        emit_json(result.to_dict(), indent=2)
    elif output_format == "stream-json":
        emit_json({"type": "result", **result.to_dict()})
    else:
        print_summary(result)


def _watch_children_with_pidfd() -> None:
    """On Python 3.11 asyncio waits for each child process (each command hook) on a thread of
    its own; a pidfd watcher, the default from 3.12 on, makes a command hook ~20% cheaper and
    five at once ~30%. The CLI owns its process, so it may choose."""
    if sys.version_info < (3, 12) and hasattr(os, "pidfd_open"):
        with contextlib.suppress(OSError):
            os.close(os.pidfd_open(os.getpid()))  # the kernel supports it
            asyncio.set_child_watcher(asyncio.PidfdChildWatcher())
