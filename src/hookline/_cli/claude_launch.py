"""What ``claude -p``'s flags (``hookline._cli.claude_flags``) make of the agent ``hookline run``
builds: its system prompt, MCP servers, workspace folders, settings sources, subagent types,
fallback models, structured output and session. Each value is checked when the flags are read,
so a mistake is one line naming the flag, before anything runs.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from hookline._agent import sessions
from hookline._errors import ConfigError
from hookline.mcp import McpServers
from hookline.models._choice import model_from_spec
from hookline.models._fallback import FallbackModel

if TYPE_CHECKING:
    from hookline._agent.loop import Agent
    from hookline._agent.model import ModelClient
    from hookline.mcp._config import ServerConfig

#: The settings files ``--setting-sources`` may name.
SOURCES: Final = ("user", "project", "local")


def system_prompt(
    *,
    system: str | None,
    system_file: str | None,
    append: str | None,
    append_file: str | None,
) -> str | None:
    """The system prompt the four flags ask for: ``--system-prompt`` (or its file), then what
    ``--append-system-prompt`` (or its file) adds. hookline has no default prompt of its own
    to append to; the project's instruction files follow either way."""
    if system is not None and system_file is not None:
        raise ConfigError(
            "--system-prompt and --system-prompt-file cannot both be given",
            key="--system-prompt-file",
            fix="give one of them",
        )
    if append is not None and append_file is not None:
        raise ConfigError(
            "--append-system-prompt and --append-system-prompt-file cannot both be given",
            key="--append-system-prompt-file",
            fix="give one of them",
        )
    base = _read(system_file, "--system-prompt-file") if system_file else system
    added = _read(append_file, "--append-system-prompt-file") if append_file else append
    parts = [part for part in (base, added) if part]
    return "\n\n".join(parts) if parts else None


def mcp_configs(values: Sequence[str]) -> tuple[str, ...]:
    """``--mcp-config`` values, checked: each a file (made absolute) or JSON text."""
    kept = []
    for value in values:
        if value.lstrip().startswith("{"):
            _mcp_json(value)  # checked now
            kept.append(value)
        elif Path(value).is_file():
            kept.append(str(Path(value).resolve()))
        else:
            raise ConfigError(
                f"no such file {value}",
                key="--mcp-config",
                fix='give a .mcp.json file or JSON text: {"mcpServers": {"name": {...}}}',
            )
    return tuple(kept)


def mcp_servers(
    configs: Sequence[str], found: Sequence[ServerConfig], *, strict: bool, cwd: str
) -> tuple[ServerConfig, ...]:
    """The ``--mcp-config`` servers (they win a name), then the project's and the settings'
    (``found``) unless ``--strict-mcp-config``."""
    own: list[ServerConfig] = []
    for config in configs:
        spec: Any = _mcp_json(config) if config.lstrip().startswith("{") else config
        own.extend(McpServers.of(spec, cwd=cwd).configs.values())
    names = {server.name for server in own}
    rest = [] if strict else [server for server in found if server.name not in names]
    return (*own, *rest)


def setting_sources(value: str | None) -> tuple[str, ...] | None:
    """``--setting-sources user,project,local``: which settings files are read (None: all)."""
    if value is None:
        return None
    names = tuple(name.strip() for name in value.split(",") if name.strip())
    unknown = [name for name in names if name not in SOURCES]
    if unknown:
        raise ConfigError(
            f"{', '.join(unknown)} is no settings source",
            key="--setting-sources",
            fix=f"name some of {', '.join(SOURCES)}, separated by commas",
        )
    return names


def agent_types(value: str | None) -> dict[str, Any] | None:
    """``--agents``: JSON text, or a file holding it, of subagent types by name."""
    if value is None:
        return None
    text = value if value.lstrip().startswith("{") else _read(value, "--agents")
    data = _json(text, "--agents", '{"reviewer": {"description": "...", "prompt": "..."}}')
    return data


def json_schema(value: str | None) -> dict[str, Any] | None:
    """``--json-schema``: the Agent SDK's ``output_format`` for that schema."""
    if value is None:
        return None
    schema = _json(value, "--json-schema", '{"type": "object", "properties": {...}}')
    return {"type": "json_schema", "schema": schema}


def with_fallbacks(model: ModelClient, value: str | None) -> ModelClient:
    """``model`` with the ``--fallback-model`` models behind it, in order."""
    names = [name.strip() for name in (value or "").split(",") if name.strip()]
    behind: ModelClient | None = None
    for name in reversed(names):
        spare = model_from_spec(name)
        behind = spare if behind is None else FallbackModel(spare, behind)
    return model if behind is None else FallbackModel(model, behind)


def dangerous_skip(*, root: bool | None = None) -> str:
    """``--dangerously-skip-permissions``: the bypassPermissions mode, refused as root (outside
    a sandbox that says so with ``IS_SANDBOX=1``), as Claude Code refuses it."""
    as_root = os.geteuid() == 0 if root is None else root
    if as_root and os.environ.get("IS_SANDBOX") != "1":
        raise ConfigError(
            "--dangerously-skip-permissions cannot be used with root/sudo privileges for "
            "security reasons",
            key="--dangerously-skip-permissions",
            fix="run as another user, or set IS_SANDBOX=1 inside a sandbox",
        )
    return "bypassPermissions"


def choose_session(
    agent: Agent,
    *,
    resume: str | None,
    continue_latest: bool,
    session_id: str | None,
    fork: bool,
) -> None:
    """The session ``--resume``, ``--continue``, ``--session-id`` and ``--fork-session`` ask
    for, in the combinations Claude Code allows (``hookline._agent.sessions``)."""
    if resume and continue_latest:
        raise ConfigError(
            "--resume and --continue cannot both be given",
            key="--resume",
            fix="resume one session by id, or continue the latest",
        )
    if not (resume or continue_latest):
        if fork:
            fix = "give --resume ID or --continue too"
            raise ConfigError(
                "--fork-session needs a session to fork", key="--fork-session", fix=fix
            )
        if session_id is not None:
            sessions.name(agent, session_id)
        return
    if session_id is not None and not fork:
        raise ConfigError(
            "--session-id names a new session, so with --resume or --continue it needs "
            "--fork-session",
            key="--session-id",
            fix="add --fork-session, or leave --session-id out",
        )
    resumed = resume or sessions.latest(agent)
    sessions.reopen(agent, resumed, fork=(session_id or str(uuid.uuid4())) if fork else None)


def passing_state_dir() -> str:
    """``--no-session-persistence``: a state folder of this process's own, removed when it
    exits, so the transcript is never kept (the audit is kept in the project's store)."""
    folder = tempfile.mkdtemp(prefix="hookline-session-")
    atexit.register(shutil.rmtree, folder, True)
    return folder


def _mcp_json(text: str) -> Mapping[str, Any]:
    """The servers of ``--mcp-config`` JSON text (``{"mcpServers": {...}}``)."""
    data = _json(text, "--mcp-config", '{"mcpServers": {"name": {"command": "..."}}}')
    servers = data.get("mcpServers")
    if not isinstance(servers, Mapping):
        raise ConfigError(
            "--mcp-config JSON has no mcpServers object",
            key="--mcp-config",
            fix='give {"mcpServers": {"name": {"command": "..."}}}',
        )
    return servers


def _json(text: str, flag: str, example: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"not JSON: {exc}", key=flag, fix=f"give JSON such as {example}"
        ) from None
    if not isinstance(data, dict):
        raise ConfigError("not a JSON object", key=flag, fix=f"give JSON such as {example}")
    return data


def _read(path: str, flag: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise ConfigError(
            f"cannot read it: {reason}", file=path, key=flag, fix="check the path"
        ) from None
