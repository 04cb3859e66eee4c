"""Where the Bash tool's shell is between calls: as in Claude Code, a ``cd`` carries over.

Each Bash call is a fresh process started in ``Shell.cwd``; when it ends, the folder it left
(its ``pwd -P``) becomes the next call's. A folder outside the workspace roots, or one that is
gone, sends the shell back to the project folder, and the model is told so (``RESET_NOTE``).
Permission rules stay anchored at the project folder (``project_dir``) wherever the shell is,
so a ``cd`` never moves what a ``./`` rule covers.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

#: What the model reads when its shell was sent back to the project folder (Claude Code's words).
RESET_NOTE = "Shell cwd was reset to {project_dir}"


@dataclass
class Shell:
    """The project folder, the roots the shell may stay in, and the folder it is in now."""

    project_dir: Path
    roots: tuple[Path, ...]
    cwd: Path = field(init=False)

    def __post_init__(self) -> None:
        self.cwd = self.project_dir

    @classmethod
    def of(cls, project_dir: str | os.PathLike[str], roots: Sequence[Path]) -> Shell:
        return cls(Path(os.path.realpath(project_dir)), tuple(roots))

    def follow(self, reported: str | None) -> str | None:
        """Move to ``reported`` (where a command left the shell); None keeps the folder (the
        command exited the shell itself). Returns the note for the model when the shell had
        to go back to the project folder instead."""
        if reported is None:
            return None
        where = Path(os.path.realpath(reported)) if os.path.isabs(reported) else None
        if where is not None and where.is_dir() and self._inside(where):
            self.cwd = where
            return None
        return self.reset()

    def reset(self) -> str:
        """Back to the project folder; the note that says so."""
        self.cwd = self.project_dir
        return RESET_NOTE.format(project_dir=self.project_dir)

    def _inside(self, where: Path) -> bool:
        return any(where == root or root in where.parents for root in self.roots)


def session_env_dir(session_id: str, transcript_path: str) -> Path:
    """The folder of a session's env files (``CLAUDE_ENV_FILE``), which Bash sources before
    each command: ``<state>/session-env/<session_id>/`` beside ``<state>/transcripts/``."""
    return Path(transcript_path).parent.parent / "session-env" / session_id
