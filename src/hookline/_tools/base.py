"""Tools: what a tool is, a call to it, what came of the call, and the context it runs in."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache, cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import TypeAdapter

from hookline._decisions import Answer, Origin  # at run time: ``result_model`` reads the types
from hookline._errors import ConfigError, ToolInputError

if TYPE_CHECKING:
    from hookline._support.keepers import Leftovers
    from hookline._tools.shell import Shell
    from hookline.permissions._policy import PathCheck
    from hookline.permissions._sandbox.run import Sandbox
    from hookline.permissions._visibility import ReadFilter

#: What came of a call. Which permission settled it, and where from, are separate fields of
#: ToolResult (``permission``, ``origin``): a blocked call was denied by a hook, a rule, ...
#: ``interrupted``: it started before its session stopped (a crash, a kill), and what came of it
#: is unknown; a resume says so instead of running it again (``hookline._agent.saved.pause``).
ToolStatus = Literal["executed", "failed", "blocked", "deferred", "interrupted"]


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One call the model asked for."""

    id: str
    name: str
    input: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        """As a ``tool_use`` content block of an assistant message."""
        return {"type": "tool_use", "id": self.id, "name": self.name, "input": self.input}


@dataclass(frozen=True, slots=True)
class ToolResult:
    """What came of one call: what the model reads, and what a caller reports.

    ``input`` is the input as checked by the hooks and, when it ran, as executed (after
    normalisation and rewrites). ``output`` is the structured ``tool_response`` after any
    replacement; ``content`` is the text the model reads.
    """

    call: ToolCall
    status: ToolStatus
    content: str
    input: dict[str, Any]
    output: Any = None
    reason: str | None = None
    context: tuple[str, ...] = ()
    stop_reason: str | None = None
    stopped: bool = False
    duration_ms: float = 0.0
    #: Who answered when the call needed approval ("hook:<name>", "terminal", "cli", ...).
    approver: str | None = None
    #: The permission that settled the call, apart from ``status`` (what came of it): allow
    #: (it ran, and may still have failed), deny (blocked), defer; None when it never got that
    #: far (no such tool, an input too big or malformed).
    permission: Answer | None = None
    #: Where ``permission`` came from: a hook (by the way it answered), a rule, the mode, a
    #: tier, the sandbox, an approver, nobody answering (``hookline._decisions.Origin``); None
    #: when nothing decided (no permission layer and no hook's answer).
    origin: Origin | None = None
    #: A deferred call's deadline (seconds since the epoch): a resume after it gives the call
    #: the expiry answer, a deny (``hookline._agent.saved.deadline``). None: no deadline.
    deadline: float | None = None

    @property
    def is_error(self) -> bool:
        return self.status != "executed"

    def dump(self) -> dict[str, Any]:
        """Every field by the one typed model of a result (``result_model``), the call as a
        dict; a paused session saves the same model, as JSON (``hookline._agent.saved.state``)."""
        dumped: dict[str, Any] = result_model().dump_python(self, warnings=False)
        return dumped

    def to_dict(self) -> dict[str, Any]:
        """As a caller reports it (``AgentResult.to_dict``, ``hookline run --json``): the fields
        of ``dump`` but those only the loop reads (``LOOP_ONLY``), the call as its id and name."""
        fields = self.dump()
        call = fields.pop("call")
        kept = {key: value for key, value in fields.items() if key not in LOOP_ONLY}
        return {"tool_use_id": call["id"], "name": call["name"], **kept}


#: ToolResult fields left out of ``to_dict``: the model's text and the loop's bookkeeping.
LOOP_ONLY = frozenset({"content", "context", "stop_reason", "stopped", "duration_ms"})


@cache
def result_model() -> TypeAdapter[ToolResult]:
    """The typed model of a ToolResult, made from its fields, so a new field needs no second
    edit (built on first use: importing hookline does not pay for it)."""
    return TypeAdapter(ToolResult)


@dataclass(frozen=True)
class Workspace:
    """The folders file tools may touch. Paths are checked after every rewrite, at execution."""

    roots: tuple[Path, ...]

    @classmethod
    def of(cls, *roots: str | os.PathLike[str]) -> Workspace:
        return cls(tuple(Path(os.path.realpath(r)) for r in roots))

    def absolute(self, path: str, cwd: Path) -> str:
        """``path`` made absolute against ``cwd`` (``~`` expanded), as hooks will see it."""
        return os.path.normpath(os.path.join(cwd, os.path.expanduser(path)))

    def check(self, path: str) -> Path:
        """``path`` if it lies inside a root (after symlinks), else a ToolInputError."""
        return Path(self.real(path))

    def real(self, path: str) -> str:
        """``path``'s real path (no links) as text if it lies inside a root, else a
        ToolInputError."""
        real = os.path.realpath(path)
        if any(real == root or real.startswith(below) for root, below in self._texts):
            return real
        roots = ", ".join(str(r) for r in self.roots)
        raise ToolInputError(f"{path} is outside the workspace ({roots}); use a path inside it.")

    @cached_property
    def _texts(self) -> tuple[tuple[str, str], ...]:
        """Each root as text, and how a path below it starts: ``check`` compares text, where
        ``Path.parents`` made and compared a Path for each folder up from the file."""
        return tuple((str(root), os.path.join(root, "")) for root in self.roots)


@dataclass(frozen=True)
class ToolContext:
    """What a tool body may know about the session it runs in."""

    cwd: Path
    workspace: Workspace
    session_id: str = ""
    env: Mapping[str, str] = field(default_factory=dict)
    #: Shell files hooks wrote for the session (``CLAUDE_ENV_FILE``); Bash sources them first.
    env_dir: Path | None = None
    #: The OS sandbox Bash commands run in (``hookline.permissions._sandbox.run``); None: none.
    sandbox: Sandbox | None = None
    #: The Read deny rules Glob and Grep apply to each file of a folder; None: no rules.
    read_filter: ReadFilter | None = None
    #: The path rules a body applies again to the real path it is about to use; None: none.
    path_check: PathCheck | None = None
    #: Where Bash's shell is between calls (``hookline._tools.shell``); ``cwd`` is its folder
    #: when the call was checked. None: every Bash call starts in ``cwd``.
    shell: Shell | None = None
    #: Keeps what Bash commands leave running (``server &``) until the session ends; None:
    #: it ends with the call (``hookline._support.process``).
    leftovers: Leftovers | None = None

    @property
    def project_dir(self) -> Path:
        """The project folder, where ``./`` permission rules are anchored (``cwd`` may be
        a folder below it, after a ``cd``)."""
        return self.shell.project_dir if self.shell is not None else self.cwd


class Tool:
    """Base class of every tool. Subclasses set the class attributes and ``execute``."""

    name: str = ""
    description: str = ""
    input_schema: Mapping[str, Any] = {"type": "object", "properties": {}}
    #: Seconds the body may take; None for no limit. Enforced by cancellation, so only for
    #: bodies that await (``suspends``); a body that never yields cannot be interrupted.
    timeout: float | None = 120.0
    #: Whether ``execute`` awaits I/O. False for bodies that finish without yielding.
    suspends: bool = True
    #: True for tools that only look (Read, Glob, Grep): the permission tiers use it.
    read_only: bool = False

    def prepare(self, raw: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        """Check and normalise the model's input before hooks see it (paths made absolute)."""
        return raw

    async def execute(self, tool_input: dict[str, Any], ctx: ToolContext) -> Any:
        """Do the work and return the structured output (``tool_response``).

        Raise ToolError (with a message for the model) when the work fails.
        """
        raise NotImplementedError

    def render(self, output: Any) -> str:
        """The text the model reads for ``output``."""
        if isinstance(output, str):
            return output
        return json.dumps(output, ensure_ascii=False, separators=(",", ":"), default=str)

    def spec(self) -> dict[str, Any]:
        """Name, description and JSON Schema, as a model API wants them."""
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": dict(self.input_schema),
        }


class Toolbox:
    """The tools of an agent, by name."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        self._specs: list[dict[str, Any]] | None = None
        for item in tools:
            self.add(item)

    def add(self, item: Tool) -> None:
        if not isinstance(item, Tool):
            raise ConfigError(
                f"{item!r} is not a hookline Tool",
                key="tools",
                fix="wrap a typed function with hookline.tool(fn)",
            )
        if item.name in self._tools:
            raise ConfigError(
                f"two tools are named {item.name!r}", key="tools", fix="give each tool its own name"
            )
        self._tools[item.name] = item
        self._specs = None

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return list(self._tools)

    def specs(self) -> list[dict[str, Any]]:
        """Every tool's spec, as a model API wants them (built once)."""
        if self._specs is None:
            self._specs = [t.spec() for t in self._tools.values()]
        return self._specs

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)
