"""Glob and Grep: find files by name and by content, in Python, within their time limits.

Both walk the folder in a worker thread, so the pipeline's timeout applies however long the
walk or any one file system call takes; a walk left behind by a timeout ends at its next file.
Grep's regex work runs in a worker process (``_search_worker``) that the timeout kills: Python's
``re`` can backtrack for ever on one line (``(a+)+$``), and nothing inside the process can
interrupt it.
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import Field, field_validator
from pydantic_core import PydanticCustomError

from hookline._errors import ToolError
from hookline._support.process import run_process
from hookline._support.threads import Stop, in_thread
from hookline._tools.base import ToolContext
from hookline._tools.builtin import _search_worker
from hookline._tools.builtin._common import (
    BlockingTool,
    BuiltinTool,
    ToolInput,
    glob_matcher,
    newest_first,
    search_root,
    truncate,
    walk_files,
)
from hookline._tools.builtin._skipped import Skipped, skip_notes

MAX_GLOB_FILES = 100
MAX_CONTENT_CHARS = 30_000
#: Bytes kept of the worker's answer (every hit's line numbers, and lines in content mode).
WORKER_OUTPUT_CAP = 64 << 20
_PATH_HELP = "folder to search in (default: the working directory)."


class GlobInput(ToolInput):
    pattern: str = Field(min_length=1, description="Glob to match, e.g. `**/*.py` or `src/*.ts`.")
    path: str | None = Field(default=None, description="The " + _PATH_HELP)


class GrepInput(ToolInput):
    pattern: str = Field(min_length=1, description="Python regular expression to search for.")
    path: str | None = Field(default=None, description="File or " + _PATH_HELP)
    glob: str | None = Field(default=None, description="Only files matching this glob (`*.py`).")
    output_mode: Literal["content", "files_with_matches", "count"] = Field(
        default="files_with_matches",
        description="content: matching lines; files_with_matches: paths; count: per file.",
    )
    ignore_case: bool | None = Field(default=None, alias="-i", description="Ignore case.")
    line_numbers: bool | None = Field(
        default=None, alias="-n", description="Show line numbers (content mode; default true)."
    )
    after: int | None = Field(default=None, ge=0, alias="-A", description="Lines after a match.")
    before: int | None = Field(default=None, ge=0, alias="-B", description="Lines before.")
    around: int | None = Field(default=None, ge=0, alias="-C", description="Lines around.")
    multiline: bool = Field(default=False, description="Let the pattern span lines (`.` too).")
    head_limit: int | None = Field(
        default=None, ge=0, description="Keep only the first N lines or files (0: all)."
    )

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, value: str) -> str:
        try:
            re.compile(value)
        except re.error as exc:
            raise PydanticCustomError(
                "regex",
                "invalid regular expression {pattern}: {error}",
                {"pattern": repr(value), "error": str(exc)},
            ) from None
        return value

    @property
    def limit(self) -> int | None:
        return self.head_limit or None


class Glob(BlockingTool[GlobInput]):
    name = "Glob"
    description = (
        "Find files by name with a glob pattern such as `**/*.py` or `src/**/*.{ts,tsx}`. "
        "`*` matches within one folder, `**` across folders. Searches `path` (default: the "
        "working directory) and returns absolute paths, most recently modified first, at most "
        f"{MAX_GLOB_FILES}. `.git` folders are skipped, and so (counted in `skipped`) are "
        "`.hookline` and files a Read deny rule covers. Use Grep to search file contents."
    )
    input_model = GlobInput
    read_only = True
    timeout = 60.0

    def work(self, args: GlobInput, ctx: ToolContext, stop: Stop) -> Any:
        started = time.monotonic()
        root = search_root(args.path, ctx, self.name, want_dir=True)
        match, skipped = glob_matcher(args.pattern), Skipped()
        walk = walk_files(root, ctx, skipped, wanted=lambda path, rel: match(rel), stop=stop)
        found = newest_first([path for path, _ in walk], Path)
        kept = [str(p) for p in found[:MAX_GLOB_FILES]]
        return {
            "filenames": kept,
            "durationMs": round((time.monotonic() - started) * 1000),
            "numFiles": len(kept),
            "truncated": len(found) > MAX_GLOB_FILES,
        } | skipped.output()

    def render(self, output: Any) -> str:
        notes = skip_notes(output)
        if not output["filenames"]:
            return "No files found" + notes
        more = "\n(Results are truncated; use a narrower pattern or path.)"
        return "\n".join(output["filenames"]) + (more if output["truncated"] else "") + notes


@dataclass(frozen=True)
class _Hit:
    """One file with matches: its path, the indexes of the matching lines, and the lines to
    show around them (content mode) by index."""

    path: Path
    matched: list[int]
    lines: dict[int, str]


class Grep(BuiltinTool[GrepInput]):
    name = "Grep"
    description = (
        "Search file contents with a regular expression (Python `re` syntax). Searches `path` "
        "(a file or folder; default: the working directory), optionally only files whose name "
        "matches `glob`. output_mode `files_with_matches` (default) lists matching files, most "
        "recently modified first; `content` shows matching lines as path:line:text, with -A/-B/-C "
        "context lines; `count` gives matching lines per file. -i ignores case; multiline lets "
        "the pattern and `.` span lines; head_limit keeps the first N entries. Binary files and "
        "`.git` are skipped, and so (counted in `skipped`) are `.hookline` and files a Read deny "
        "rule covers."
    )
    input_model = GrepInput
    read_only = True
    timeout = 60.0

    async def execute(self, tool_input: dict[str, Any], ctx: ToolContext) -> Any:
        """The walk and the ordering in a thread, the regex work in a process: all can stop."""
        args, skipped, stop = self.parse(tool_input), Skipped(), Stop()
        root, files = await in_thread(_to_search, self.name, args, ctx, skipped, stop, stop=stop)
        found = await _in_worker(_job(args, files), cwd=_folder(root)) if files else []
        hits = await in_thread(_newest_hits, files, found, stop=stop)
        output = {
            "mode": args.output_mode,
            "numFiles": len(hits),
            "filenames": [str(hit.path) for hit in hits],
        }
        return output | _BY_MODE[args.output_mode](hits, args) | skipped.output()

    def render(self, output: Any) -> str:
        return _render_hits(output) + skip_notes(output)


def _render_hits(output: Any) -> str:
    files = output["numFiles"]
    if not files:
        return "No matches found"
    if output["mode"] == "content":
        return str(output["content"])
    if output["mode"] == "count":
        total = output["numMatches"]
        return f"{output['content']}\n\nFound {total} matching lines across {_files(files)}."
    return f"Found {_files(files)}\n" + "\n".join(output["filenames"])


def _files(count: int) -> str:
    return f"{count} file" if count == 1 else f"{count} files"


def _files_mode(hits: list[_Hit], args: GrepInput) -> dict[str, Any]:
    names = [str(hit.path) for hit in hits[: args.limit]]
    return {"numFiles": len(names), "filenames": names}


def _content_mode(hits: list[_Hit], args: GrepInput) -> dict[str, Any]:
    lines = [line for hit in hits for line in _content_lines(hit, args)][: args.limit]
    return {"content": truncate("\n".join(lines), MAX_CONTENT_CHARS), "numLines": len(lines)}


def _count_mode(hits: list[_Hit], args: GrepInput) -> dict[str, Any]:
    shown = hits[: args.limit]
    counts = "\n".join(f"{hit.path}:{len(hit.matched)}" for hit in shown)
    return {
        "content": truncate(counts, MAX_CONTENT_CHARS),
        "numMatches": sum(len(hit.matched) for hit in shown),
    }


_BY_MODE: Final[dict[str, Callable[[list[_Hit], GrepInput], dict[str, Any]]]] = {
    "files_with_matches": _files_mode,
    "content": _content_mode,
    "count": _count_mode,
}


def _to_search(
    tool: str, args: GrepInput, ctx: ToolContext, skipped: Skipped, stop: Stop
) -> tuple[Path, list[Path]]:
    """The file or folder to search, and the files in it to hand to the worker process."""
    root = search_root(args.path, ctx, tool, want_dir=False)
    keep = glob_matcher(args.glob) if args.glob else None
    wanted = (lambda path, rel: keep(path.name) or keep(rel)) if keep else (lambda p, r: True)
    return root, [path for path, _ in walk_files(root, ctx, skipped, wanted=wanted, stop=stop)]


def _folder(root: Path) -> str:
    return str(root if root.is_dir() else root.parent)


def _newest_hits(files: list[Path], found: list[list[Any]]) -> list[_Hit]:
    """The worker's hits as ``_Hit``s, the files most recently modified first."""
    hits = [
        _Hit(files[i], matched, {int(j): t for j, t in shown.items()})
        for i, matched, shown in found
    ]
    return newest_first(hits, lambda hit: hit.path)


def _job(args: GrepInput, files: list[Path]) -> dict[str, Any]:
    flags = re.IGNORECASE if args.ignore_case else 0
    if args.multiline:
        flags |= re.MULTILINE | re.DOTALL
    before, after = _context(args) if args.output_mode == "content" else (-1, -1)
    return {
        "pattern": args.pattern,
        "flags": int(flags),
        "multiline": args.multiline,
        "before": before,
        "after": after,
        "files": [str(path) for path in files],
    }


async def _in_worker(job: dict[str, Any], *, cwd: str) -> list[list[Any]]:
    """The worker's hits for ``job``; cancelling the await (a timeout) kills the worker."""
    argv = [sys.executable, "-I", "-S", _search_worker.__file__]
    stdin = json.dumps(job).encode()
    try:
        done = await run_process(
            argv, stdin=stdin, cwd=cwd, env={}, kill_grace=0.0, stream_cap=WORKER_OUTPUT_CAP
        )
    except OSError as exc:
        raise ToolError(f"Cannot start the search: {exc.strerror}") from None
    if done.returncode != 0 or done.stdout_dropped:
        last = done.stderr.strip().splitlines()[-1:] or [f"exit code {done.returncode}"]
        why = "too many matches" if done.stdout_dropped else last[0]
        raise ToolError(f"The search failed: {why}. Narrow the pattern, path or glob.")
    hits: list[list[Any]] = json.loads(done.stdout)
    return hits


def _context(args: GrepInput) -> tuple[int, int]:
    """Lines before and after each match that content mode shows (-B, -A, else -C)."""
    before = args.before if args.before is not None else args.around or 0
    after = args.after if args.after is not None else args.around or 0
    return before, after


def _content_lines(hit: _Hit, args: GrepInput) -> list[str]:
    """ripgrep-style lines: ``path:N:text`` for matches, ``path-N-text`` for context, ``--``."""
    numbered = args.line_numbers is not False
    matched = set(hit.matched)
    out: list[str] = []
    for j in sorted(hit.lines):
        if out and j - 1 not in hit.lines:
            out.append("--")
        sep = ":" if j in matched else "-"
        number = f"{j + 1}{sep}" if numbered else ""
        out.append(f"{hit.path}{sep}{number}{hit.lines[j]}")
    return out
