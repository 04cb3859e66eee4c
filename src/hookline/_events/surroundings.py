"""What changes around a session: instruction files entering the context, the shell's folder,
watched files, settings files."""

from __future__ import annotations

from typing import ClassVar, Literal

from hookline._events.base import HookEvent
from hookline._events.facts import EventFacts


class InstructionsLoaded(HookEvent):
    """An instruction file (CLAUDE.md, AGENTS.md, a ``.claude/rules`` file) entered the model's
    context: every one at session start, a rule with ``paths`` globs when a tool call first
    touches a matching path, a file an ``@path`` import pulls in with its importer. Hooks run
    for their side effects (a record of what the model was told); they cannot block, as in
    Claude Code."""

    facts: ClassVar[EventFacts] = EventFacts(served="optional")

    has_mode: ClassVar[bool] = False
    #: session_start, path_glob_match, include (Claude Code also has nested_traversal, compact).
    match_field: ClassVar[str | None] = "load_reason"
    omit_when_none: ClassVar[frozenset[str]] = HookEvent.omit_when_none | {
        "globs",
        "trigger_file_path",
        "parent_file_path",
    }
    file_path: str
    memory_type: Literal["User", "Project", "Local", "Managed"]
    load_reason: Literal[
        "session_start", "nested_traversal", "path_glob_match", "include", "compact"
    ]
    globs: list[str] | None = None
    trigger_file_path: str | None = None
    parent_file_path: str | None = None


class CwdChanged(HookEvent):
    """A Bash ``cd`` moved the shell to another folder (later events carry it as ``cwd``).
    Side effects only; command hooks may export variables through ``CLAUDE_ENV_FILE``."""

    facts: ClassVar[EventFacts] = EventFacts(served="optional", env_file=True)
    has_mode: ClassVar[bool] = False
    old_cwd: str
    new_cwd: str


class FileChanged(HookEvent):
    """A watched file changed on disk, by anyone (matchers name the files to watch, by
    basename). Side effects only; command hooks may export variables through
    ``CLAUDE_ENV_FILE``."""

    facts: ClassVar[EventFacts] = EventFacts(served="optional", env_file=True)
    has_mode: ClassVar[bool] = False
    match_field: ClassVar[str | None] = "file_name"
    file_path: str
    event: Literal["change", "add", "unlink"]

    @property
    def file_name(self) -> str:
        return self.file_path.rsplit("/", 1)[-1]


#: Which settings changed, in Claude Code's words (``policy_settings``: the managed ones).
ConfigSource = Literal[
    "user_settings", "project_settings", "local_settings", "policy_settings", "skills"
]


class ConfigChange(HookEvent):
    """A settings file changed while the session ran. hookline never applies such a change
    to a running session (its hooks and rules stay those it started with); hooks record or
    refuse it, and a deny ends the run."""

    facts: ClassVar[EventFacts] = EventFacts(
        served="optional", answers=("block (ends the run)",), exit_2="blocks"
    )
    has_mode: ClassVar[bool] = False
    match_field: ClassVar[str | None] = "source"
    omit_when_none: ClassVar[frozenset[str]] = HookEvent.omit_when_none | {"file_path"}
    source: ConfigSource
    file_path: str | None = None
