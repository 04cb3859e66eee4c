"""Subagent types: what the Agent tool may start, by the name the model gives (``subagent_type``).

Three places, a later one winning on the same name, as in Claude Code and the Agent SDK:

- built in: ``general-purpose``, with every tool of the agent;
- files (unless ``AgentOptions.instructions`` is off): ``~/.claude/agents/*.md`` (the user's),
  then ``.claude/agents/*.md`` in the project. Front matter ``name`` and ``description`` (both
  needed), ``tools`` and ``disallowedTools`` (comma lists), ``model`` and ``maxTurns``; the body
  is the subagent's system prompt. A file that cannot be used is left out with a one-line
  warning, as is a listed tool the agent does not have (a file written for Claude Code may name
  WebFetch): the rest still loads;
- code: ``AgentOptions.agents`` (``ClaudeAgentOptions.agents``), a mapping of names to
  ``AgentDefinition``, with the SDK's field names. A mistake there is a ConfigError.

A subagent never has the Agent tool: subagents do not start subagents. ``model`` is kept for the
SDK's sake, but a subagent works with its agent's model client (the tool's result names it).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hookline.agent.instructions import MAX_BYTES, front_matter
from hookline.errors import ConfigError
from hookline.tools.base import Toolbox

if TYPE_CHECKING:
    from hookline.agent.loop import Agent

logger = logging.getLogger(__name__)

#: The tool that starts subagents, which no subagent is given.
AGENT_TOOL = "Agent"
#: Its name before Claude Code 2.x: a definition listing it means the same, and is not offered.
NEVER_OFFERED = frozenset({AGENT_TOOL, "Task"})
GENERAL_PURPOSE = "general-purpose"


@dataclass(frozen=True)
class AgentDefinition:
    """A subagent type, as ``claude_agent_sdk.AgentDefinition`` (its camelCase field names)."""

    #: When to use it: the model reads this in the Agent tool's description.
    description: str
    #: Its system prompt.
    prompt: str
    #: The tools it may use; None: every tool of its agent (but Agent).
    tools: Sequence[str] | None = None
    disallowedTools: Sequence[str] | None = None
    #: The SDK's model choice; shown, not used (a subagent works with its agent's model).
    model: str | None = None
    #: The SDK's fields hookline does not honour yet: setting one is a ConfigError.
    skills: Sequence[str] | None = None
    memory: str | None = None
    mcpServers: Sequence[Any] | None = None
    initialPrompt: str | None = None
    #: Model calls it may make; None: its agent's ``max_turns``.
    maxTurns: int | None = None
    background: bool | None = None
    effort: Any = None
    permissionMode: str | None = None

    def __post_init__(self) -> None:
        unsupported = [name for name in _NOT_YET if getattr(self, name) is not None]
        if unsupported:
            raise ConfigError(
                f"hookline does not support AgentDefinition.{', '.join(unsupported)} yet",
                key=unsupported[0],
                fix="leave it unset (docs/agent-sdk.md lists what is covered)",
            )

    def toolbox(self, tools: Toolbox) -> Toolbox:
        """The tools of ``tools`` this type may use (``tools`` as they are now: MCP tools join
        when the session starts)."""
        names = tools.names() if self.tools is None else [n for n in self.tools if n in tools]
        barred = NEVER_OFFERED | set(self.disallowedTools or ())
        return Toolbox(tool for name in names if name not in barred and (tool := tools.get(name)))

    def tools_line(self) -> str:
        """Its tools, as the Agent tool's description lists them."""
        if self.tools is None and not self.disallowedTools:
            return "*"
        if self.tools is None:
            return "all but " + ", ".join(self.disallowedTools or ())
        barred = set(self.disallowedTools or ())
        return ", ".join(n for n in self.tools if n not in barred) or "none"


#: The SDK's ``AgentDefinition`` fields a subagent cannot have here yet.
_NOT_YET = (
    "skills",
    "memory",
    "mcpServers",
    "initialPrompt",
    "background",
    "effort",
    "permissionMode",
)

GENERAL = AgentDefinition(
    description=(
        "For research and multi-step tasks: searching code and files, answering questions that "
        "need several steps, and doing work whose details would crowd this conversation."
    ),
    prompt=(
        "You are a subagent: another agent gave you the task in the user message and will read "
        "only your final message. Use your tools to do the task fully, and nothing beyond it. "
        "You cannot ask questions. End with a complete, concise report of what you found or did, "
        "naming the files and commands that matter, with absolute paths."
    ),
)


@dataclass(frozen=True)
class Subagents:
    """The subagent types of an agent, by name, and what was wrong in their files."""

    types: Mapping[str, AgentDefinition]
    warnings: tuple[str, ...] = ()

    @classmethod
    def of(
        cls,
        defined: Mapping[str, AgentDefinition | Mapping[str, Any]] | None,
        project: Path | None,
        tools: Toolbox,
        *,
        home: Path | None = None,
    ) -> Subagents:
        """The built-in type, those of the agent files (the user's and ``project``'s; none
        when ``project`` is None), then ``defined`` (``AgentOptions.agents``), checked against
        ``tools``, the tools of the agent."""
        found: dict[str, AgentDefinition] = {GENERAL_PURPOSE: GENERAL}
        warnings: list[str] = []
        user = (home or Path.home()) / ".claude" / "agents"
        folders = (user, project / ".claude" / "agents") if project is not None else ()
        for folder in folders:
            for path in _listed(folder):
                read = _from_file(path, tools, warnings)
                if read is not None:
                    found[read[0]] = read[1]
        for name, given in (defined or {}).items():
            found[name] = _from_code(name, given, tools)
        return cls(found, tuple(warnings))

    def get(self, name: str) -> AgentDefinition | None:
        return self.types.get(name)

    def listing(self) -> str:
        """Each type, its description and its tools, for the Agent tool's description."""
        return "\n".join(
            f"- {name}: {d.description} (Tools: {d.tools_line()})" for name, d in self.types.items()
        )


def _from_code(name: object, given: object, tools: Toolbox) -> AgentDefinition:
    """An ``AgentOptions.agents`` entry, checked: an AgentDefinition, or a mapping of its fields
    (as JSON gives it)."""
    key = f"agents.{name}"
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(f"agent name {name!r} is not a name", key="agents", fix="use a word")
    if isinstance(given, Mapping):
        known = {f.name for f in fields(AgentDefinition)}
        if unknown := sorted(set(given) - known):
            fix = f"use the fields of AgentDefinition: {', '.join(sorted(known))}"
            raise ConfigError(f"unknown field {unknown[0]!r}", key=f"{key}.{unknown[0]}", fix=fix)
        try:
            given = AgentDefinition(**given)
        except TypeError:
            fix = "give at least description and prompt"
            raise ConfigError("description and prompt are required", key=key, fix=fix) from None
    if not isinstance(given, AgentDefinition):
        fix = "give hookline.agent.subagent_types.AgentDefinition(description=..., prompt=...)"
        raise ConfigError(f"{given!r} is not an AgentDefinition", key=key, fix=fix)
    if problem := _problem(given):
        raise ConfigError(problem[1], key=f"{key}.{problem[0]}", fix=problem[2])
    if missing := _missing_tools(given, tools):
        have = ", ".join(n for n in tools.names() if n not in NEVER_OFFERED)
        fix = f"name tools the agent has: {have}"
        raise ConfigError(f"names {missing[0]!r}, a tool the agent does not have", key=key, fix=fix)
    return given


def _problem(definition: AgentDefinition) -> tuple[str, str, str] | None:
    """The first field of ``definition`` of the wrong kind: (field, what is wrong, the fix)."""
    for name in ("description", "prompt"):
        value = getattr(definition, name)
        if not isinstance(value, str) or not value.strip():
            return name, f"{name} must be a text, not {value!r}", f"write the {name}"
    for name in ("tools", "disallowedTools"):
        value = getattr(definition, name)
        if value is not None and (
            isinstance(value, str) or not all(isinstance(v, str) for v in value)
        ):
            return name, f"{name} must be a list of tool names", f'write {name}=["Read", "Grep"]'
    if definition.model is not None and not isinstance(definition.model, str):
        return "model", "model must be a text", 'write model="inherit" or leave it out'
    turns = definition.maxTurns
    if turns is not None and (type(turns) is not int or turns < 1):
        return "maxTurns", f"maxTurns must be a whole number, 1 or more; got {turns!r}", "fix it"
    return None


def _missing_tools(definition: AgentDefinition, tools: Toolbox) -> list[str]:
    """Listed tools the agent does not have (MCP tools are known only once their servers run)."""
    listed = [*(definition.tools or ()), *(definition.disallowedTools or ())]
    return [n for n in listed if n not in tools and n not in NEVER_OFFERED and "mcp__" not in n]


def _from_file(
    path: Path, tools: Toolbox, warnings: list[str]
) -> tuple[str, AgentDefinition] | None:
    """The type an agent file defines, or None (left out, with a warning saying why)."""
    text = _read(path, warnings)
    if text is None:
        return None
    meta, body = front_matter(text)
    name, description, turns = meta.get("name"), meta.get("description"), meta.get("maxTurns")
    if not isinstance(name, str) or not name or not isinstance(description, str):
        _warn(warnings, path, "its front matter needs 'name' and 'description'; left out")
        return None
    if turns is not None and not (isinstance(turns, str) and turns.isdigit() and int(turns)):
        _warn(warnings, path, f"maxTurns {turns!r} is not a whole number, 1 or more; left out")
        return None
    model = meta.get("model")
    definition = AgentDefinition(
        description=description,
        prompt=body.strip() or description,
        tools=_names(meta.get("tools")),
        disallowedTools=_names(meta.get("disallowedTools")),
        model=model if isinstance(model, str) and model else None,
        maxTurns=int(turns) if turns else None,
    )
    missing = _missing_tools(definition, tools)
    for tool in missing:
        _warn(warnings, path, f"lists {tool}, a tool this agent does not have; left out of it")
    if missing and definition.tools is not None:
        definition = replace(definition, tools=[n for n in definition.tools if n not in missing])
    return name, definition


def _names(value: str | list[str] | None) -> tuple[str, ...] | None:
    """A ``tools`` value: a comma list (``Read, Grep``) or a YAML list; None when not given
    or empty (every tool, as when the key is left out)."""
    items = value.split(",") if isinstance(value, str) else value or ()
    names = tuple(item.strip() for item in items if item.strip())
    return names or None


def _read(path: Path, warnings: list[str]) -> str | None:
    """The text of an agent file, or None (left out, with a warning)."""
    try:
        with path.open("rb") as file:
            data = file.read(MAX_BYTES + 1)
    except OSError as exc:
        _warn(warnings, path, f"cannot be read ({exc.strerror or exc}); left out")
        return None
    if len(data) > MAX_BYTES:
        _warn(warnings, path, f"is larger than {MAX_BYTES} bytes; left out (make it shorter)")
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        _warn(warnings, path, f"is not UTF-8 (byte {exc.start}); left out (save it as UTF-8)")
        return None


def _warn(warnings: list[str], path: Path, problem: str) -> None:
    message = f"{path}: {problem}"
    warnings.append(message)
    logger.warning("%s", message)


def _listed(folder: Path) -> Iterable[Path]:
    try:
        return sorted(folder.glob("*.md")) if folder.is_dir() else []
    except OSError:
        return []


def offer(agent: Agent, *, builtin: bool) -> Subagents:
    """``agent``'s subagent types (those of the agent files only with ``instructions`` on).
    The Agent tool joins its tools when it has the built-in tools, as Claude Code's agent does,
    or the options define subagents: an explicit tool list gains it only then (agent files
    alone do not add it), and a tool of that name already there is kept. The tool is imported
    only then: it is a built-in tool, and those bring the permission layer with them."""
    opts = agent.options
    project = agent.session.cwd if opts.instructions else None
    found = Subagents.of(opts.agents, project, agent.tools)
    if (builtin or opts.agents) and AGENT_TOOL not in agent.tools:
        from hookline.agent.subagents import AgentTool

        agent.tools.add(AgentTool(agent, found))
    return found


def own_tools(tools: Toolbox, agent: Agent) -> Toolbox:
    """``tools`` for another conversation of an agent: the same tools, but an Agent tool that
    starts its subagents from ``agent`` (imported only when there is one, as in ``offer``)."""
    copied = Toolbox()
    for name in tools.names():
        tool = tools.get(name)
        if name == AGENT_TOOL and tool is not None:
            from hookline.agent.subagents import AgentTool

            if isinstance(tool, AgentTool):
                tool = AgentTool(agent, tool.types)
        if tool is not None:
            copied.add(tool)
    return copied
