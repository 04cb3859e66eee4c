"""From ``ClaudeAgentOptions`` to a hookline ``Agent``, set up as the SDK's Claude Code would be.

* **Settings**: the project's files are read as ``hookline run`` reads them
  (``hookline._project``), limited to ``setting_sources``; ``settings`` and ``sandbox`` join
  them as one more layer. Their hooks, rules, sandbox and MCP servers apply, so a rule a
  team keeps in ``.claude/settings.json`` holds for the SDK program too.
* **Rules**: ``allowed_tools`` and ``disallowed_tools`` are allow and deny rules, as the
  CLI's ``--allowedTools`` and ``--disallowedTools``; ``permission_mode`` is the mode.
* **Asks**: a call the rules leave open goes to PermissionRequest hooks, then to
  ``can_use_tool`` (``hookline.sdk._permission``); without it nobody answers and it is refused.
* **Tools**: the built-in tools (or those ``tools`` names), the SDK MCP servers' tools
  (``hookline.sdk._tools``) and the other MCP servers' tools, all judged by the same hooks
  and rules.
* **Model**: a Claude model name (or None) is hookline's Anthropic client, configured by
  ``ANTHROPIC_*`` in the environment or ``env``; ``openai:NAME``, ``anthropic:NAME``,
  ``scripted:FILE`` and ``rules`` are ``hookline run``'s ``--model`` values; a ``ModelClient``
  object is used as it is; ``fallback_model`` stands behind it (``hookline.models._fallback``).
* **Once made**: structured output (``hookline._claude.structured``), the skills offered,
  ``can_use_tool``'s permission updates (``hookline.sdk._updates``) and the session to work in
  (``resume``, ``fork_session``, ...: ``hookline._agent.sessions``).
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Callable, Mapping
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import hookline.sdk._updates as updates
from hookline._agent import sessions
from hookline._agent.loop import Agent
from hookline._claude import structured
from hookline._errors import ConfigError
from hookline._project import Project, load_project
from hookline._tools.builtin import builtin_tools
from hookline._tools.builtin.skill import Skill
from hookline.mcp import McpServers
from hookline.models._choice import model_from_spec
from hookline.models._fallback import FallbackModel
from hookline.sdk._permission import CanUseTool
from hookline.sdk._tools import sdk_server_tools

if TYPE_CHECKING:
    from hookline._agent.model import ModelClient
    from hookline._tools.base import Tool
    from hookline.sdk._options import ClaudeAgentOptions

#: ``model`` values that name a provider or a model kind, as ``hookline run --model`` takes them.
_SPEC_KINDS: Final = frozenset({"openai", "anthropic", "scripted", "rules"})


def build(options: ClaudeAgentOptions, *, interrupt: Callable[[], None] | None = None) -> Agent:
    """The agent ``options`` describe; ``interrupt`` stops its run (a ``can_use_tool`` deny
    with ``interrupt=True`` calls it). A ConfigError for what it cannot honour."""
    options.check()
    core = options.core()
    project = load_project(
        core["cwd"],
        settings=_settings_layers(options),
        mode=options.permission_mode,
        cli_rules={"allow": options.allowed_tools, "deny": options.disallowed_tools},
        sources=options.setting_sources,
        env=core["env"],
    )
    agent = _made(options, project, core, interrupt)
    _fitted(agent, options)
    return agent


def _made(
    options: ClaudeAgentOptions,
    project: Project,
    core: dict[str, Any],
    interrupt: Callable[[], None] | None,
) -> Agent:
    """The agent: the project's configuration, then the options' own on top."""
    configured = project.agent_options()
    registry = configured.pop("hooks")  # the settings' hooks, then the program's
    registry.add_matchers(core.pop("hooks"), source="sdk")
    own = dict(options.hookline or {})
    _, servers = options.servers()
    return Agent(
        _model(options, core["env"]),
        tools=_tools(options.tools),
        hooks=registry,
        **{
            **configured,
            **core,
            "mcp_servers": _servers(servers, project, options),
            **_approver(options, own, interrupt),
            **own,
        },
    )


def _fitted(agent: Agent, options: ClaudeAgentOptions) -> None:
    """What joins the agent once it exists: the SDK MCP servers' tools, ``can_use_tool``'s
    updates, structured output, the skills offered, and the session to work in."""
    for key, config in options.servers()[0].items():
        for item in sdk_server_tools(key, config):
            agent.tools.add(item)
    if isinstance(approver := agent.pipeline.permit.approver, CanUseTool):
        approver.remember = partial(updates.apply, agent)
    if options.output_format is not None:
        structured.offer(agent, options.output_format)
    if options.skills is not None:
        _keep_skills(agent, options.skills)
    _choose_session(agent, options)


def _model(options: ClaudeAgentOptions, env: Mapping[str, str]) -> ModelClient:
    """The model, with ``fallback_model`` behind it when given."""
    model = model_for(options.model, env)
    if options.fallback_model:
        return FallbackModel(model, model_for(options.fallback_model, env))
    return model


def resumes(options: ClaudeAgentOptions) -> bool:
    """Whether the agent goes on with an earlier session (its SessionStart says ``resume``)."""
    return bool(options.resume or options.continue_conversation)


def _keep_skills(agent: Agent, wanted: list[str] | str) -> None:
    """Offer only the skills ``wanted`` names (``"all"``: every one found): the others leave
    the system prompt and the Skill tool. A name that is no skill here is a ConfigError, so a
    typo does not hide a skill without a word."""
    if wanted == "all":
        return
    found = agent.instructions.skills
    names = {entry.name for entry in found}
    if not isinstance(wanted, list) or not all(isinstance(n, str) for n in wanted):
        raise ConfigError(
            f"skills must be a list of skill names or 'all', not {wanted!r}",
            key="skills",
            fix='give ["name", ...], [] for none, or "all"',
        )
    if unknown := sorted(set(wanted) - names):
        raise ConfigError(
            f"no skill is named {', '.join(map(repr, unknown))} here",
            key="skills",
            fix=f"use the names of the project's skills: {', '.join(sorted(names)) or 'none'}",
        )
    found[:] = [entry for entry in found if entry.name in wanted]
    tool = agent.tools.get("Skill")
    if isinstance(tool, Skill):
        tool.skills = {entry.name: entry for entry in found}


def _choose_session(agent: Agent, options: ClaudeAgentOptions) -> None:
    """The session ``session_id``, ``resume``, ``continue_conversation`` and ``fork_session``
    ask for (``hookline._agent.sessions``), in the combinations the SDK allows."""
    if options.resume and options.continue_conversation:
        raise ConfigError(
            "resume and continue_conversation cannot both be set",
            key="resume",
            fix="resume one session by id, or continue the latest",
        )
    if not resumes(options):
        if options.fork_session:
            fix = "set resume or continue_conversation too"
            raise ConfigError("fork_session needs a session to fork", key="fork_session", fix=fix)
        if options.session_id is not None:
            sessions.name(agent, options.session_id)
        return
    if options.session_id is not None and not options.fork_session:
        raise ConfigError(
            "session_id names a new session, so with resume it needs fork_session",
            key="session_id",
            fix="set fork_session=True, or leave session_id out",
        )
    resumed = options.resume or sessions.latest(agent)
    fork = (options.session_id or str(uuid.uuid4())) if options.fork_session else None
    sessions.reopen(agent, resumed, fork=fork)


def model_for(given: str | ModelClient | None, env: Mapping[str, str]) -> ModelClient:
    """The client the SDK's ``model`` names; ``env`` adds to the process environment."""
    if given is not None and not isinstance(given, str):
        return given
    merged = {**os.environ, **env}
    if given and given.partition(":")[0] in _SPEC_KINDS:
        return model_from_spec(given, env=merged)
    return model_from_spec(f"anthropic:{given or ''}", env=merged)


def _settings_layers(options: ClaudeAgentOptions) -> list[str]:
    """``settings`` (a file or JSON text) and ``sandbox``, as ``--settings`` values."""
    layers = [options.settings] if options.settings else []
    if options.sandbox is not None:
        layers.append(json.dumps({"sandbox": dict(options.sandbox)}))
    return layers


def _tools(given: list[str] | Mapping[str, Any] | None) -> list[Tool] | None:
    """The built-in tools ``tools`` asks for (None: all of them, and the Agent tool)."""
    if given is None or (isinstance(given, Mapping) and given.get("preset") == "claude_code"):
        return None
    if not isinstance(given, list | tuple) or not all(isinstance(n, str) for n in given):
        raise ConfigError(
            f"tools must be a list of tool names or the claude_code preset, not {given!r}",
            key="tools",
            fix='give ["Bash", "Read", ...], [] for none, or {"type": "preset", "preset": '
            '"claude_code"}',
        )
    found = {item.name: item for item in builtin_tools()}
    unknown = [name for name in given if name not in found]
    if unknown:
        raise ConfigError(
            f"hookline has no built-in tool {', '.join(map(repr, unknown))}",
            key="tools",
            fix=f"use some of: {', '.join(found)}",
        )
    return [found[name] for name in given]


def _servers(
    servers: Mapping[str, Any] | str | Path, project: Project, options: ClaudeAgentOptions
) -> McpServers | None:
    """The options' MCP servers (they win a name), then the project's unless
    ``strict_mcp_config``; both get the credentials the settings pass on."""
    given = McpServers.of(servers, cwd=project.cwd).configs.values() if servers else ()
    own = [replace(config, passthrough=project.env or {}) for config in given]
    found = [] if options.strict_mcp_config else list(project.mcp_servers)
    return McpServers([*own, *found]) if own or found else None


def _approver(
    options: ClaudeAgentOptions, own: Mapping[str, Any], interrupt: Callable[[], None] | None
) -> dict[str, Any]:
    """``can_use_tool`` as the approver, unless there is none."""
    if options.can_use_tool is None:
        return {}
    if own.get("approver") is not None:
        raise ConfigError(
            "both can_use_tool and hookline's approver are set; only one can answer",
            key="can_use_tool",
            fix="keep one of them",
        )
    return {"approver": CanUseTool(options.can_use_tool, interrupt)}
