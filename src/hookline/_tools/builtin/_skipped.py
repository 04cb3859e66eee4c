"""What a folder walk (Glob, Grep) leaves out of sight, counted so the tool can say so."""

from __future__ import annotations

import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hookline.permissions._paths import PRIVATE, protected_part
from hookline.permissions._protected import is_key_file

if TYPE_CHECKING:
    from hookline._tools.base import ToolContext


@dataclass
class Skipped:
    """Counts of what a walk left out: by a Read deny rule, a link into hookline's private state
    (``.hookline``, whose own folders are left out silently, as ``.git`` is), or because a
    folder could not be read (a loop, no permission)."""

    denied: int = 0
    private: int = 0
    unreadable: int = 0

    def keeps_folder(self, folder: Path, ctx: ToolContext) -> bool:
        """Whether the walk goes into ``folder``; counts it when not."""
        if folder.is_symlink():
            return True  # os.walk never goes through a link: nothing there is shown
        if folder.name == PRIVATE:
            return False  # hookline's own state: never shown, and not worth a note each search
        return self._allowed(folder, ctx)

    def keeps_file(self, path: Path, ctx: ToolContext) -> bool:
        """Whether the walk shows ``path``; a link into ``.hookline`` is private state too."""
        roots = [str(root) for root in ctx.workspace.roots]
        try:
            found = path.lstat()
        except OSError:
            return self._allowed(path, ctx)  # gone: the search finds nothing in it
        if is_key_file(found) or (
            stat.S_ISLNK(found.st_mode) and protected_part(str(path), roots, names=(PRIVATE,))
        ):
            self.private += 1
            return False
        return self._allowed(path, ctx)

    def folder_failed(self, error: OSError) -> None:
        """``os.walk``'s ``onerror``: a folder it could not list."""
        self.unreadable += 1

    def _allowed(self, path: Path, ctx: ToolContext) -> bool:
        if ctx.read_filter is not None and ctx.read_filter.hides(str(path)):
            self.denied += 1
            return False
        return True

    def output(self) -> dict[str, Any]:
        """The keys for a tool's structured output; none when nothing was left out."""
        counts = {"skipped": self.denied + self.private, "unreadable": self.unreadable}
        return {key: count for key, count in counts.items() if count}


def skip_notes(output: Any) -> str:
    """The lines the model reads about what a walk left out, each starting with a new line."""
    if not isinstance(output, dict):
        return ""
    notes = ""
    if skipped := output.get("skipped"):
        what = "1 file or folder was" if skipped == 1 else f"{skipped} files or folders were"
        notes += f"\n{what} skipped: a Read deny rule covers them, or they hold hookline's "
        notes += "private state (.hookline); do not try to read them another way."
    if unreadable := output.get("unreadable"):
        what = "1 folder" if unreadable == 1 else f"{unreadable} folders"
        notes += f"\nSkipped {what} that could not be read (no permission, or a symlink loop)."
    return notes
