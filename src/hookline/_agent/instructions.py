"""The advisory layer: the project's instruction files and skills, in the model's context.

"The prompt sets the model on the right path; the hook is the floor." What the project writes
for the model reaches it here, as in Claude Code:

- ``~/.claude/CLAUDE.md`` (User), ``CLAUDE.md``, ``.claude/CLAUDE.md`` and ``AGENTS.md`` in the
  project folder (Project), ``CLAUDE.local.md`` (Local): in the system prompt from the start;
- ``.claude/rules/*.md``: with no ``paths`` in their front matter, from the start too; with
  ``paths`` globs (relative to the project folder), from the first tool call on a matching
  path, for the rest of the session;
- ``.claude/skills/<name>/SKILL.md`` (project, then user): the ``name`` and ``description`` of
  each are listed, and the ``Skill`` tool gives the model a skill's body when it asks.

An instruction file's ``@path`` imports (``hookline._agent.imports``) load with it, each as a
section of its own right after the importing file's (then the files it imports: depth first,
at most ``MAX_IMPORT_DEPTH`` imports deep), with the importer's memory type; a file already
loaded (an import cycle, two files importing one, a CLAUDE.md importing AGENTS.md) loads once,
where it came first. As in Claude Code (which asks before following them), a project's own
files (Project, Local) import only files inside the project folder, after symbolic links and
``..``; the user's ``~/.claude/CLAUDE.md`` may import any file. No import is read under
``/proc``, ``/sys`` or ``/dev``, nor one that is not a regular file (a FIFO, a device), nor one
in hookline's private state (a ``.hookline`` folder), nor one a Read deny rule covers (on the
path as written or its real path: ``refuses``, from ``import_refusal(policy, project)``), so
``@secrets/key.txt`` with ``Read(./secrets/**)`` denied never reaches the model.

Each file entering the context fires ``InstructionsLoaded`` (the loop does, with ``events``;
an import with ``load_reason: "include"`` and the importing file as ``parent_file_path``).
A file too large, unreadable or not UTF-8 is left out with a one-line warning, and so is an
import that leads where it may not; an import of a file that does not exist is skipped without
one (a mention of ``@someone`` in prose is not an error). The run goes on.
With no such files nothing changes: the system prompt is the options' own, no tool is added.
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from hookline._agent.imports import mentions, target
from hookline._errors import ToolInputError
from hookline._file_tools import PATH_KEYS
from hookline._support.private import FOLDER as PRIVATE

if TYPE_CHECKING:  # the built-in tools are imported where a rule or a skill needs them
    from hookline._tools.builtin.skill import Skill, SkillEntry
    from hookline.permissions._policy import PermissionPolicy

logger = logging.getLogger(__name__)

#: Bytes an instruction file or SKILL.md may have; a larger one is left out, with a warning.
MAX_BYTES = 64 * 1024
#: How many imports deep files are followed (Claude Code's five hops): a file imported by a
#: file imported five deep is not read.
MAX_IMPORT_DEPTH = 5
#: Folders no import is read from, whoever the file is (system state, devices, secrets).
SYSTEM_FOLDERS = (Path("/proc"), Path("/sys"), Path("/dev"))

MemoryType = Literal["User", "Project", "Local"]
FrontMatter = dict[str, str | list[str]]


@dataclass(frozen=True, slots=True)
class Instruction:
    """One instruction file: where it is, whose it is, its text, the globs that load it."""

    path: Path
    memory_type: MemoryType
    text: str
    globs: tuple[str, ...] = ()
    matches: Callable[[str], bool] | None = None
    #: The file whose ``@path`` import this is; None: not an import.
    parent: Path | None = None


@dataclass
class Instructions:
    """A session's instruction files and skills, and which path-scoped rules are loaded."""

    project: Path
    loaded: list[Instruction] = field(default_factory=list)
    waiting: list[Instruction] = field(default_factory=list)
    skills: list[SkillEntry] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: Where ``~/`` imports lead.
    home: Path = field(default_factory=Path.home)
    #: Why an import of this (absolute) path may not be read, or None: the Read deny rules.
    refuses: Callable[[Path], str | None] | None = None
    #: The real paths of the files read or being read, so that each loads once.
    _seen: set[str] = field(default_factory=set)

    @classmethod
    def discover(
        cls,
        project: Path,
        *,
        home: Path | None = None,
        refuses: Callable[[Path], str | None] | None = None,
    ) -> Instructions:
        """Every instruction file and skill for ``project`` (and the user's, under ``home``);
        ``refuses`` says why an import may not be read (``import_refusal``)."""
        found = cls(project, home=home or Path.home(), refuses=refuses)
        user = found.home / ".claude"
        places: list[tuple[Path, MemoryType]] = [
            (user / "CLAUDE.md", "User"),
            (project / "CLAUDE.md", "Project"),
            (project / ".claude" / "CLAUDE.md", "Project"),
            (project / "AGENTS.md", "Project"),
            (project / "CLAUDE.local.md", "Local"),
        ]
        for path, kind in places:
            text = found._read(path) if found._first(path) else None
            if text is not None:
                found._load(Instruction(path, kind, text))
        for path in _listed(project / ".claude" / "rules", "*.md"):
            found._rule(path)
        for folder in (project / ".claude" / "skills", user / "skills"):
            for path in _listed(folder, "*/SKILL.md"):
                found._skill(path)
        return found

    def __bool__(self) -> bool:
        return bool(self.loaded or self.waiting or self.skills)

    def system(self, base: str | None) -> str | None:
        """``base`` (the options' system prompt) followed by the loaded files and the skills;
        ``base`` itself when there are none."""
        parts = [base] if base else []
        if self.loaded:
            parts.append(
                "# Project instructions\nThe project's instruction files follow. Follow them; "
                "they take precedence over your defaults.\n\n"
                + "\n\n".join(f"Contents of {i.path}:\n\n{i.text.strip()}" for i in self.loaded)
            )
        if self.skills:
            listed = "\n".join(f"- {s.name}: {s.description}" for s in self.skills)
            parts.append(
                "# Skills\nWhen a task fits one of these skills, load its instructions with "
                f"the Skill tool first.\n\n{listed}"
            )
        return "\n\n".join(parts) if parts else base

    def touched(self, tool_input: Mapping[str, Any]) -> list[tuple[Instruction, str | None]]:
        """The waiting rules a call on ``tool_input``'s paths matches, now loaded, each with
        the path that matched (then the files it imports, with None). Nothing to do (no path
        resolved) when no rule waits."""
        newly: list[tuple[Instruction, str | None]] = []
        if not self.waiting:
            return newly
        for path in _paths(tool_input):
            rel = _relative(path, self.project)
            if rel is None:
                continue
            for rule in [r for r in self.waiting if r.matches is not None and r.matches(rel)]:
                self.waiting.remove(rule)
                newly += [(f, path if f is rule else None) for f in self._load(rule)]
        return newly

    def _load(self, file: Instruction) -> list[Instruction]:
        """Put ``file`` and the files it imports in the context; all of them, in that order."""
        added = [file, *self._imports(file, depth=1)]
        self.loaded += added
        return added

    # -- imports --------------------------------------------------------------------------------

    def _imports(self, file: Instruction, *, depth: int) -> Iterator[Instruction]:
        """The files ``file`` imports, each followed by the files it imports (depth first)."""
        if depth > MAX_IMPORT_DEPTH:
            return
        for mention in mentions(file.text):
            path = Path(os.path.normpath(target(mention, file.path.parent, self.home)))
            text = self._imported(path, file)
            if text is not None:
                imported = Instruction(path, file.memory_type, text, parent=file.path)
                yield imported
                yield from self._imports(imported, depth=depth + 1)

    def _imported(self, path: Path, parent: Instruction) -> str | None:
        """The text of an import of ``path`` by ``parent``, or None: absent, loaded already, or
        left out with a warning (where it may not lead, or as ``_read``)."""
        real = Path(os.path.realpath(path))
        if not self._first(path) or not os.path.lexists(path):
            return None
        if any(real == folder or folder in real.parents for folder in SYSTEM_FOLDERS):
            self._warn(path, f"(imported by {parent.path}) leads into {real}; left out")
            return None
        if why := self._refused(path, real):
            self._warn(path, f"(imported by {parent.path}) {why}; left out")
            return None
        project = Path(os.path.realpath(self.project))
        if parent.memory_type != "User" and not real.is_relative_to(project):
            self._warn(
                path,
                f"(imported by {parent.path}) is outside the project folder; left out (a "
                "project's files import only its own; import it from ~/.claude/CLAUDE.md)",
            )
            return None
        return self._read(real, shown=path, regular_only=True)

    def _refused(self, path: Path, real: Path) -> str | None:
        """Why ``path`` (leading to ``real``) is kept from the model: hookline's private state,
        or a Read deny rule."""
        if PRIVATE in path.parts or PRIVATE in real.parts:
            return "is in hookline's private state (.hookline), which no tool reads"
        if self.refuses is not None:
            return self.refuses(path) or self.refuses(real)
        return None

    def _first(self, path: Path) -> bool:
        """Whether ``path`` is met for the first time (after symbolic links); it now is not."""
        real = os.path.realpath(path)
        if real in self._seen:
            return False
        self._seen.add(real)
        return True

    # -- reading --------------------------------------------------------------------------------

    def _rule(self, path: Path) -> None:
        text = self._read(path) if self._first(path) else None
        if text is None:
            return
        meta, body = front_matter(text)
        globs = _strings(meta.get("paths"))
        if not globs:
            self._load(Instruction(path, "Project", body))
            return
        from hookline._tools.builtin._common import glob_matcher

        try:
            tests = [glob_matcher(g) for g in globs]
        except ToolInputError as exc:
            self._warn(path, f"a glob in 'paths' is not valid ({exc}); left out")
            return
        rule = Instruction(path, "Project", body, globs, lambda rel: any(t(rel) for t in tests))
        self.waiting.append(rule)

    def _skill(self, path: Path) -> None:
        text = self._read(path)
        if text is None:
            return
        meta, body = front_matter(text)
        name = meta.get("name") or path.parent.name
        description = meta.get("description")
        if not isinstance(name, str) or not isinstance(description, str) or not description:
            self._warn(path, "its front matter needs 'name' and 'description' strings; left out")
            return
        if any(s.name == name for s in self.skills):
            return  # a project skill hides a user skill of the same name
        from hookline._tools.builtin.skill import SkillEntry

        self.skills.append(SkillEntry(name, description, body.strip(), str(path)))

    def _read(
        self, path: Path, *, shown: Path | None = None, regular_only: bool = False
    ) -> str | None:
        """The text of ``path``, or None: absent or not a regular file (a folder, a FIFO, a
        device: never opened), or left out with a warning (``regular_only``: for anything
        but a regular file too). ``shown``: the path the warnings name."""
        shown = shown or path
        try:
            data = _regular_file(path)
        except FileNotFoundError:
            return None
        except OSError as exc:
            self._warn(shown, f"cannot be read ({exc.strerror or exc}); left out")
            return None
        if data is None:
            if regular_only:
                self._warn(shown, "is not a regular file; left out")
            return None
        if len(data) > MAX_BYTES:
            self._warn(shown, f"is larger than {MAX_BYTES} bytes; left out (make it shorter)")
            return None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            self._warn(shown, f"is not UTF-8 (byte {exc.start}); left out (save it as UTF-8)")
            return None

    def _warn(self, path: Path, problem: str) -> None:
        message = f"{path}: {problem}"
        self.warnings.append(message)
        logger.warning("%s", message)


def _regular_file(path: Path) -> bytes | None:
    """Up to ``MAX_BYTES + 1`` bytes of ``path``; None when it is not a regular file. Opened
    without waiting (a FIFO put there after the check does not hang the start), and checked
    again once open."""
    if not stat.S_ISREG(os.stat(path).st_mode):
        return None
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    with open(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return file.read(MAX_BYTES + 1)


def import_refusal(policy: PermissionPolicy | None, project: Path) -> Callable[[Path], str | None]:
    """Why an import may not be read under ``policy``: a Read deny rule (of the settings or the
    dangerous tier) covers it, as it would a Read of it (``./`` rules start at ``project``)."""
    if policy is None:
        return lambda path: None
    from hookline.permissions._visibility import ReadFilter

    hidden = ReadFilter.of(policy, cwd=str(project))

    def refuses(path: Path) -> str | None:
        return "is covered by a Read deny rule" if hidden.hides(str(path)) else None

    return refuses


def skill_tool(instructions: Instructions) -> Skill:
    """The ``Skill`` tool serving ``instructions``' skills."""
    from hookline._tools.builtin.skill import Skill

    return Skill(instructions.skills)


def front_matter(text: str) -> tuple[FrontMatter, str]:
    """The ``---`` front matter of a Markdown file (``key: value``, ``key: [a, b]`` and
    ``- item`` lists: the subset of YAML these files use) and the body after it."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return {}, text
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        return {}, text
    meta: FrontMatter = {}
    key = ""
    for line in lines[1:end]:
        stripped = line.strip()
        if stripped.startswith("- ") and key:
            listed = meta.get(key)
            meta[key] = [*(listed if isinstance(listed, list) else []), _unquote(stripped[2:])]
        elif ":" in line and not line[:1].isspace():
            key, _, value = line.partition(":")
            key, value = key.strip(), value.strip()
            meta[key] = _value(value) if value else []
    return meta, "\n".join(lines[end + 1 :])


def _value(value: str) -> str | list[str]:
    if value.startswith("[") and value.endswith("]"):
        return [_unquote(v) for v in value[1:-1].split(",") if v.strip()]
    return _unquote(value)


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def _strings(value: str | list[str] | None) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,) if value else ()
    return tuple(v for v in value or () if v)


def _listed(folder: Path, pattern: str) -> list[Path]:
    try:
        return sorted(folder.glob(pattern)) if folder.is_dir() else []
    except OSError:
        return []


def _paths(tool_input: Mapping[str, Any]) -> Iterable[str]:
    return [v for k in PATH_KEYS if isinstance(v := tool_input.get(k), str) and v]


def _relative(path: str, project: Path) -> str | None:
    """``path`` relative to the project folder (``/``-separated), or None when outside it
    (a path through a symbolic link is compared as the file it leads to, too)."""
    for candidate in (Path(path), Path(os.path.realpath(path))):
        if candidate.is_relative_to(project):
            return candidate.relative_to(project).as_posix()
    return None
