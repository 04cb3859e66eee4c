"""Glob and Grep: find files by name and by content, in pure Python."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator
from pydantic_core import PydanticCustomError

from hookline.tools.base import ToolContext
from hookline.tools.builtin._common import (
    BuiltinTool,
    ToolInput,
    glob_matcher,
    newest_first,
    search_root,
    split_lines,
    truncate,
    walk_files,
)
from hookline.tools.builtin._skipped import Skipped, skip_notes

MAX_GLOB_FILES = 100
MAX_CONTENT_CHARS = 30_000
BINARY_SNIFF = 8192
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


class Glob(BuiltinTool[GlobInput]):
    name = "Glob"
    description = (
        "Find files by name with a glob pattern such as `**/*.py` or `src/**/*.{ts,tsx}`. "
        "`*` matches within one folder, `**` across folders. Searches `path` (default: the "
        "working directory) and returns absolute paths, most recently modified first, at most "
        f"{MAX_GLOB_FILES}. `.git` folders are skipped, and so (counted in `skipped`) are "
        "`.hookline` and files a Read deny rule covers. Use Grep to search file contents."
    )
    input_model = GlobInput
    path_key = "path"
    read_only = True
    timeout = 60.0

    async def execute(self, tool_input: dict[str, Any], ctx: ToolContext) -> Any:
        args = self.parse(tool_input)
        started = time.monotonic()
        root = search_root(args.path, ctx, want_dir=True)
        match, skipped = glob_matcher(args.pattern), Skipped()
        walk = walk_files(root, ctx, skipped, wanted=lambda path, rel: match(rel))
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
    """One file with matches: its path, its lines and the indexes of the matching ones."""

    path: Path
    lines: list[str]
    matched: list[int]


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
    path_key = "path"
    read_only = True
    timeout = 60.0

    async def execute(self, tool_input: dict[str, Any], ctx: ToolContext) -> Any:
        args = self.parse(tool_input)
        root, skipped = search_root(args.path, ctx, want_dir=False), Skipped()
        hits = newest_first(list(_search(root, args, ctx, skipped)), lambda hit: hit.path)
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


_BY_MODE: dict[str, Callable[[list[_Hit], GrepInput], dict[str, Any]]] = {
    "files_with_matches": _files_mode,
    "content": _content_mode,
    "count": _count_mode,
}


def _search(root: Path, args: GrepInput, ctx: ToolContext, skipped: Skipped) -> Iterator[_Hit]:
    flags = re.IGNORECASE if args.ignore_case else 0
    if args.multiline:
        flags |= re.MULTILINE | re.DOTALL
    regex = re.compile(args.pattern, flags)
    keep = glob_matcher(args.glob) if args.glob else None
    wanted = (lambda path, rel: keep(path.name) or keep(rel)) if keep else (lambda p, r: True)
    for path, _ in walk_files(root, ctx, skipped, wanted=wanted):
        lines = _text_lines(path)
        if lines is None:
            continue
        matched = _matching(regex, lines, multiline=args.multiline)
        if matched:
            yield _Hit(path, lines, matched)


def _matching(regex: re.Pattern[str], lines: list[str], *, multiline: bool) -> list[int]:
    """Indexes of the lines a match touches."""
    if not multiline:
        return [i for i, line in enumerate(lines) if regex.search(line)]
    text, touched = "\n".join(lines), set[int]()
    for m in regex.finditer(text):
        first = text.count("\n", 0, m.start())
        touched.update(range(first, first + text.count("\n", m.start(), m.end()) + 1))
    return sorted(touched)


def _content_lines(hit: _Hit, args: GrepInput) -> list[str]:
    """ripgrep-style lines: ``path:N:text`` for matches, ``path-N-text`` for context, ``--``."""
    before = args.before if args.before is not None else args.around or 0
    after = args.after if args.after is not None else args.around or 0
    numbered = args.line_numbers is not False
    matched = set(hit.matched)
    shown = sorted({j for i in matched for j in range(i - before, i + after + 1)})
    out: list[str] = []
    for j in (j for j in shown if 0 <= j < len(hit.lines)):
        if out and j - 1 not in shown:
            out.append("--")
        sep = ":" if j in matched else "-"
        number = f"{j + 1}{sep}" if numbered else ""
        out.append(f"{hit.path}{sep}{number}{hit.lines[j]}")
    return out


def _text_lines(path: Path) -> list[str] | None:
    """The lines of a text file; None for binary (a NUL byte early on) or unreadable files."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if b"\0" in data[:BINARY_SNIFF]:
        return None
    return split_lines(data.decode("utf-8", errors="replace"))
