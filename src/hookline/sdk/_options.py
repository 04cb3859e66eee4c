"""``ClaudeAgentOptions``: the Claude Agent SDK's options, every field under its own name.

An SDK program builds them as it always has; ``ClaudeSDKClient`` and ``query``
(``hookline.sdk._client``) turn them into a hookline agent (``hookline.sdk._build``). Each field
is one of three kinds, and ``check`` says so before anything runs:

* **honoured**: hookline does what the SDK does with it (tools, rules, hooks, MCP servers,
  ``can_use_tool``, the model, settings sources, ...);
* **no subprocess**: it configures the Claude Code process the SDK starts, which hookline
  does not have (``cli_path``, ``stderr``, ``extra_args``, ...). A value other than the
  default is accepted with a ``UserWarning`` that says it has no effect;
* **not supported yet**: hookline cannot do what it asks (``max_budget_usd``, ``thinking``,
  ``plugins``, ...: ``NOT_YET``). A value other than the default is a ConfigError that names
  every such field, so a program never runs without something it asked for.

``hookline`` is this library's own field: keyword options of ``hookline.AgentOptions``
(``{"audit": True, "store": "sessions.db", "defer_asks": True}``) for what the SDK has no
words for. ``model`` may also be a hookline ``ModelClient``, or ``openai:NAME`` for another
provider.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

from hookline._agent.options import AgentOptions
from hookline._errors import ConfigError
from hookline._hooks.sdk_matchers import HookMatcher

if TYPE_CHECKING:
    from hookline._agent.model import ModelClient
    from hookline._agent.subagent_types import AgentDefinition
    from hookline._events import PermissionMode

#: Where the fields hookline covers, and those it does not, are listed for users.
DOCS: Final = "docs/agent-sdk.md"


@dataclass
class ClaudeAgentOptions:
    """The SDK's options (claude-agent-sdk 0.2.x), field for field, plus ``hookline``."""

    tools: list[str] | Mapping[str, Any] | None = None
    allowed_tools: list[str] = field(default_factory=list)
    system_prompt: str | Mapping[str, Any] | None = None
    mcp_servers: Mapping[str, Any] | str | Path = field(default_factory=dict)
    strict_mcp_config: bool = False
    permission_mode: PermissionMode | None = None
    continue_conversation: bool = False
    resume: str | None = None
    session_id: str | None = None
    max_turns: int | None = None
    max_budget_usd: float | None = None
    disallowed_tools: list[str] = field(default_factory=list)
    model: str | ModelClient | None = None
    fallback_model: str | None = None
    betas: list[str] = field(default_factory=list)
    permission_prompt_tool_name: str | None = None
    cwd: str | Path | None = None
    cli_path: str | Path | None = None
    settings: str | None = None
    add_dirs: list[str | Path] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    extra_args: dict[str, str | None] = field(default_factory=dict)
    max_buffer_size: int | None = None
    debug_stderr: Any = sys.stderr
    stderr: Callable[[str], None] | None = None
    can_use_tool: Callable[..., Any] | None = None
    hooks: Mapping[str, list[HookMatcher]] | None = None
    user: str | None = None
    include_partial_messages: bool = False
    include_hook_events: bool = False
    forward_subagent_text: bool = False
    verbatim_prompts: bool = False
    fork_session: bool = False
    resume_session_at: str | None = None
    resume_drops_turn: str | None = None
    agents: dict[str, AgentDefinition] | None = None
    setting_sources: list[Literal["user", "project", "local"]] | None = None
    skills: list[str] | Literal["all"] | None = None
    sandbox: Mapping[str, Any] | None = None
    plugins: list[Mapping[str, Any]] = field(default_factory=list)
    max_thinking_tokens: int | None = None
    thinking: Mapping[str, Any] | None = None
    effort: str | None = None
    output_format: dict[str, Any] | None = None
    enable_file_checkpointing: bool = False
    session_store: Any = None
    session_store_flush: Literal["batched", "eager"] = "batched"
    load_timeout_ms: int = 60_000
    task_budget: Mapping[str, Any] | None = None
    client_app: str | None = None
    #: hookline's own: keyword options of ``hookline.AgentOptions`` (audit, store, approver,
    #: defer_asks, ...) for what the SDK has no field for.
    hookline: Mapping[str, Any] | None = None

    def check(self) -> None:
        """A ConfigError naming every field set that hookline cannot honour yet; a warning
        for each field set that only configures the SDK's Claude Code process."""
        unsupported = [name for name in NOT_YET if _is_set(self, name)]
        if unsupported:
            listed = ", ".join(unsupported)
            raise ConfigError(
                f"hookline does not support ClaudeAgentOptions.{listed} yet",
                key=unsupported[0],
                fix=f"leave {'it' if len(unsupported) == 1 else 'them'} unset; {DOCS} lists "
                "what is covered",
            )
        for name in NO_SUBPROCESS:
            if _is_set(self, name):
                warnings.warn(
                    f"ClaudeAgentOptions.{name} has no effect on hookline: it configures the "
                    "Claude Code process the SDK starts, and hookline runs in this one",
                    UserWarning,
                    stacklevel=3,
                )

    def agent_options(self) -> AgentOptions:
        """What these options mean to ``Agent(model, tools=..., options=...)``, which is given
        its model and tools apart. Fields only ``ClaudeSDKClient`` and ``query`` can honour
        (the model, tools, rules, ``can_use_tool``, settings) are a ConfigError here."""
        self.check()
        elsewhere = [name for name in CLIENT_ONLY if _is_set(self, name)]
        if elsewhere:
            raise ConfigError(
                f"Agent(options=ClaudeAgentOptions(...)) cannot honour {', '.join(elsewhere)}",
                key=elsewhere[0],
                fix="run the options with hookline.ClaudeSDKClient or hookline.query, or give "
                "Agent its model, tools and permissions itself",
            )
        in_process, servers = self.servers()
        if in_process:
            raise ConfigError(
                f"Agent(options=ClaudeAgentOptions(...)) cannot run SDK MCP server "
                f"{next(iter(in_process))!r}",
                key="mcp_servers",
                fix="run the options with hookline.ClaudeSDKClient or hookline.query",
            )
        return AgentOptions.resolve(
            None, {**self.core(), "mcp_servers": servers, **(self.hookline or {})}
        )

    def servers(self) -> tuple[dict[str, Mapping[str, Any]], Mapping[str, Any] | str | Path]:
        """``mcp_servers`` split: the in-process SDK servers (``create_sdk_mcp_server``) by
        name, and the rest (a mapping of other servers, or a ``.mcp.json`` path)."""
        given = self.mcp_servers
        if not isinstance(given, Mapping):
            return {}, given
        in_process = {
            name: entry
            for name, entry in given.items()
            if isinstance(entry, Mapping) and entry.get("type") == "sdk"
        }
        return in_process, {k: v for k, v in given.items() if k not in in_process}

    def core(self) -> dict[str, Any]:
        """The fields that are ``AgentOptions`` fields under another name, as its keywords."""
        cwd = Path(self.cwd) if self.cwd is not None else Path.cwd()
        core: dict[str, Any] = {
            "hooks": dict(self.hooks or {}),
            "cwd": cwd,
            "max_turns": MAX_TURNS if self.max_turns is None else self.max_turns,
            "system_prompt": system_prompt(self.system_prompt, cwd),
            "permission_mode": self.permission_mode,
            "env": dict(self.env),
            "user": self.user,
            "agents": self.agents,
            "instructions": self.setting_sources is None or "project" in self.setting_sources,
        }
        if self.add_dirs:
            core["roots"] = (cwd, *(Path(d) for d in self.add_dirs))
        return core


def system_prompt(given: str | Mapping[str, Any] | None, cwd: Path) -> str | None:
    """The system prompt text the SDK's ``system_prompt`` asks for. hookline has no Claude Code
    prompt: the ``claude_code`` preset is its ``append`` alone (the project's instruction files
    follow either way, as ``hookline._agent.instructions`` adds them)."""
    if given is None or isinstance(given, str):
        return given
    kind = given.get("type") if isinstance(given, Mapping) else None
    if kind == "preset" and given.get("preset") == "claude_code":
        append = given.get("append")
        if append is None or isinstance(append, str):
            return str(append) if append else None
    if kind == "custom" and isinstance(given.get("prompt"), str):
        return str(given["prompt"])
    if kind == "file" and isinstance(given.get("path"), str):
        path = cwd / str(given["path"])
        try:
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            why = f"cannot read the system prompt file: {exc}"
            raise ConfigError(
                why, file=str(path), key="system_prompt", fix="check the path"
            ) from None
    raise ConfigError(
        f"system_prompt {given!r} is not a form hookline knows",
        key="system_prompt",
        fix='give a string, {"type": "preset", "preset": "claude_code", "append": ...}, '
        '{"type": "custom", "prompt": ...} or {"type": "file", "path": ...}',
    )


#: The turn limit when ``max_turns`` is None, which the SDK leaves unlimited: high enough
#: never to end honest work, low enough that a model looping on tools stops.
MAX_TURNS: Final = 1000
#: Fields only ``ClaudeSDKClient`` and ``query`` honour: ``Agent`` is given these apart.
CLIENT_ONLY: Final = (
    "tools",
    "allowed_tools",
    "disallowed_tools",
    "strict_mcp_config",
    "model",
    "settings",
    "can_use_tool",
    "setting_sources",
    "sandbox",
)
#: Fields hookline cannot honour yet: setting one is an error rather than a quiet no-op.
NOT_YET: Final = (
    "max_budget_usd",
    "betas",
    "permission_prompt_tool_name",
    "resume_session_at",
    "resume_drops_turn",
    "plugins",
    "max_thinking_tokens",
    "thinking",
    "effort",
    "enable_file_checkpointing",
    "session_store",
    "session_store_flush",
    "task_budget",
)
#: Fields that only configure the SDK's subprocess: accepted, with a warning.
NO_SUBPROCESS: Final = (
    "cli_path",
    "extra_args",
    "max_buffer_size",
    "debug_stderr",
    "stderr",
    "load_timeout_ms",
    "client_app",
)


def _is_set(options: ClaudeAgentOptions, name: str) -> bool:
    """Whether ``name`` holds something other than its default."""
    spec = _FIELDS[name]
    default = spec.default_factory() if callable(spec.default_factory) else spec.default
    return bool(getattr(options, name) != default)


_FIELDS: Final = {spec.name: spec for spec in fields(ClaudeAgentOptions)}
