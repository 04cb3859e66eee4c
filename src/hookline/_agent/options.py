"""Agent options: how an agent runs. ``Agent`` also takes the Agent SDK's ``ClaudeAgentOptions``
(``hookline.sdk._options``), which say what they mean here."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypedDict

from hookline._agent.saved.deadline import seconds
from hookline._errors import ConfigError
from hookline._events import PermissionMode
from hookline._hooks.sdk_matchers import HookMatcher

if TYPE_CHECKING:
    from hookline._agent.observers import Observer
    from hookline._agent.saved.store import SessionStore
    from hookline._agent.subagent_types import AgentDefinition
    from hookline._tools.approvals import Approver
    from hookline.mcp._servers import McpServersSpec
    from hookline.permissions import PermissionPolicy
    from hookline.permissions._sandbox import SandboxConfig

#: Claude Code ends a turn anyway after this many Stop-hook blocks in a row.
STOP_HOOK_BLOCK_CAP = 8


@dataclass
class AgentOptions:
    """How an agent runs. Field names follow ``claude_agent_sdk.ClaudeAgentOptions``."""

    hooks: Mapping[str, Sequence[HookMatcher]] = field(default_factory=dict)
    cwd: str | Path | None = None
    max_turns: int = 50
    system_prompt: str | None = None
    #: The mode events report; with ``permissions``, the policy's own mode when unset.
    permission_mode: PermissionMode | None = None
    #: Folders file tools may touch; the cwd when empty.
    roots: Sequence[str | Path] = ()
    #: The state folder (transcripts go in its ``transcripts/``); ``<cwd>/.hookline/state``.
    state_dir: str | Path | None = None
    stop_hook_block_cap: int = STOP_HOOK_BLOCK_CAP
    #: Variables added to the environment of Bash commands (the Agent SDK's ``env``).
    env: Mapping[str, str] = field(default_factory=dict)
    #: Who the session works for; every event carries them, so hooks can check and record them.
    user: str | None = None
    tenant: str | None = None
    #: The permission layer (rules, mode, default tiers). None: the hooks alone decide.
    permissions: PermissionPolicy | None = None
    #: The OS sandbox for Bash (``sandbox`` settings); None: commands run unsandboxed.
    sandbox: SandboxConfig | None = None
    #: Who answers when a call needs approval (after PermissionRequest hooks). None: nobody.
    approver: Approver | None = None
    #: An ask nobody can answer now pauses the run (resume it later) instead of refusing.
    defer_asks: bool = False
    #: Seconds a deferred call may wait for its answer: a resume after that gives it the expiry
    #: answer, a deny (``hookline._agent.saved.deadline``). None: it waits as long as it is kept.
    defer_deadline: float | None = None
    #: Where paused sessions and the audit are kept: a store object (``hookline.storage``:
    #: ``SqliteStore(path)``, ``PostgresStore(url)``; its owner closes it), or, opened by the
    #: agent on first use, a postgresql:// URL, a SQLite path, or None for
    #: ``<state_dir>/hookline.db``.
    store: SessionStore | str | None = None
    #: Write every hook run, tool call and approval to the audit log (JSONL and the store): an
    #: observer plugged in first (``hookline.audit``).
    audit: bool = False
    #: Group commit for the audit: records may wait this many seconds to share one write
    #: (a crash can lose that window). 0: each call's records are written when it ends.
    audit_delay: float = 0.0
    #: fsync the audit file's write ahead of each tool body, so what let a call run survives a
    #: power cut, not only a killed process (costs a disk flush per call; ``auditSync``).
    audit_sync: bool = False
    #: Regular expressions the audit masks besides its built-in kinds of secret (the ``redact``
    #: settings key; ``hookline.audit._redact``).
    redact: Sequence[str] = ()
    #: Save the session after every step, so a crashed run can be resumed (costs a write a step).
    checkpoint: bool = False
    #: Opaque data saved with a paused session (the CLI keeps its flags here to rebuild it).
    launch: Mapping[str, Any] | None = None
    #: Told of everything the agent does, in this order, after the audit log and session
    #: persistence (``hookline._agent.observers``; ``agent.observe`` adds more later).
    observers: Sequence[Observer] = ()
    #: MCP servers whose tools join the agent's (``mcp__<server>__<tool>``), started with the
    #: session and stopped with it: ``{"orders": {"command": ..., "args": [...]}}`` as in the
    #: Agent SDK, a ``.mcp.json`` path, or ``hookline.mcp.McpServers`` (``hookline.mcp``).
    mcp_servers: McpServersSpec = None
    #: Put the project's instruction files (CLAUDE.md, AGENTS.md, ``.claude/rules``) and
    #: skills in the model's context (``hookline._agent.instructions``), and offer the
    #: subagents of its ``.claude/agents`` files; nothing changes where there are none.
    instructions: bool = True
    #: Subagent types the Agent tool may start, by name, as the SDK's ``agents``: besides
    #: ``general-purpose`` and the ``.claude/agents`` files, which these win over
    #: (``hookline._agent.subagent_types``).
    agents: Mapping[str, AgentDefinition] | None = None
    #: Compact the conversation (``hookline._agent.compaction``) before a model request once its
    #: estimated size reaches this many tokens. None: never on its own (hookline does not know
    #: a model's context window; set this somewhat below it).
    compact_at_tokens: int | None = None
    #: Settings files whose change mid-session fires ConfigChange, as (source, path) pairs
    #: (``("project_settings", ".claude/settings.json")``, relative to ``cwd``;
    #: ``load_project`` fills it). A change is never applied to the running session
    #: (``hookline._agent.surroundings``).
    settings_files: Sequence[tuple[str, str | Path]] = ()
    #: Seconds after a run ends before Notification ``idle_prompt`` fires (once; the next
    #: run or ``close`` calls it off), as Claude Code's 60. None: never.
    idle_after: float | None = 60.0

    def __post_init__(self) -> None:
        budget = self.compact_at_tokens
        if budget is not None and (type(budget) is not int or budget < 1):
            raise ConfigError(
                f"compact_at_tokens must be a whole number of tokens, 1 or more; got {budget!r}",
                key="compact_at_tokens",
                fix="give a token budget below the model's context window, or None for never",
            )
        if self.defer_deadline is not None:
            fix = "give seconds (2 * 86400 for two days), or None for no deadline"
            self.defer_deadline = seconds(
                self.defer_deadline, key="defer_deadline", text=False, fix=fix
            )

    @classmethod
    def resolve(
        cls, options: AgentOptions | ConvertsToAgentOptions | None, settings: Mapping[str, Any]
    ) -> AgentOptions:
        """``options`` (or the defaults) with ``settings`` (keyword options) applied. Options
        of another shape (the Agent SDK's ``ClaudeAgentOptions``) say what they mean here."""
        if options is not None and not isinstance(options, AgentOptions):
            options = options.agent_options()
        base = options or cls()
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(settings) - known)
        if unknown:
            raise ConfigError(
                f"unknown agent option(s): {', '.join(unknown)}",
                key=unknown[0],
                fix=f"use one of: {', '.join(sorted(known))}",
            )
        resolved = replace(base, **settings) if settings else base
        return resolved.with_sandbox_in_policy()

    def with_sandbox_in_policy(self) -> AgentOptions:
        """The permission policy told of the sandbox, so sandboxed Bash may run unasked
        (``autoAllowBashIfSandboxed``)."""
        policy, sandbox = self.permissions, self.sandbox
        if policy is None or sandbox is None or policy.sandbox is not None:
            return self
        return replace(self, permissions=replace(policy, sandbox=sandbox))


class ConvertsToAgentOptions(Protocol):
    """Options of another shape that ``Agent`` takes too (``hookline.ClaudeAgentOptions``)."""

    def agent_options(self) -> AgentOptions: ...


class AgentSettings(TypedDict, total=False):
    """``AgentOptions``' fields as keyword options of ``Agent(model, **settings)``, so a type
    checker sees a misspelt option (``max_turn=3``). Every field but ``hooks``, which ``Agent``
    takes as a parameter of its own; a test keeps this equal to the dataclass."""

    cwd: str | Path | None
    max_turns: int
    system_prompt: str | None
    permission_mode: PermissionMode | None
    roots: Sequence[str | Path]
    state_dir: str | Path | None
    stop_hook_block_cap: int
    env: Mapping[str, str]
    user: str | None
    tenant: str | None
    permissions: PermissionPolicy | None
    sandbox: SandboxConfig | None
    approver: Approver | None
    defer_asks: bool
    defer_deadline: float | None
    store: SessionStore | str | None
    audit: bool
    audit_delay: float
    audit_sync: bool
    redact: Sequence[str]
    checkpoint: bool
    launch: Mapping[str, Any] | None
    observers: Sequence[Observer]
    mcp_servers: McpServersSpec
    instructions: bool
    agents: Mapping[str, AgentDefinition] | None
    compact_at_tokens: int | None
    settings_files: Sequence[tuple[str, str | Path]]
    idle_after: float | None
