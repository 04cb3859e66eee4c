"""What the built-in tools share: strict input models, paths, file walking, diffs, truncation.

Every built-in declares a time limit, and every one can be held up by the file system (a FIFO, a
hung network mount, a huge folder), so none does blocking work on the event loop: file work and
folder walks run in a worker thread (``BlockingTool``), commands and Grep's regex work in a
process. The pipeline's timeout then stops the wait; a walk also stops itself, at its next file.
Read's one exception, a small regular file read on the loop, is in ``_file_io``.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final, Generic, TypeVar, cast

from pydantic import BaseModel, ConfigDict

from hookline._errors import ToolError, ToolInputError
from hookline._file_tools import PATH_FIELDS
from hookline._support.threads import Stop, in_thread
from hookline._tools.base import Tool, ToolContext
from hookline._tools.builtin._skipped import Skipped
from hookline._tools.function import validate

SKIP_DIRS = frozenset({".git"})
_GLOB_TOKEN = re.compile(r"\*\*/|\*\*|\*|\?|\[[^\]]+\]|\{[^}]*\}")
_WILDCARDS: Final = {"**/": "(?:.*/)?", "**": ".*", "*": "[^/]*", "?": "[^/]"}
T = TypeVar("T")
Opcodes = list[tuple[str, int, int, int, int]]


class ToolInput(BaseModel):
    """Base of the built-in input models: unknown keys and loose types are errors."""

    model_config = ConfigDict(extra="forbid", strict=True)


InputT = TypeVar("InputT", bound=ToolInput)


class BuiltinTool(Tool, Generic[InputT]):
    """A built-in tool: its input model gives the schema, validation and path normalisation."""

    input_model: type[InputT]
    #: The input key holding a path that ``prepare`` makes absolute, if any: a file tool's
    #: path field (``hookline._file_tools``).
    path_key: str | None = None
    #: The work awaits a thread or a process, so the pipeline's timeout applies.
    suspends = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "input_model" in cls.__dict__:
            cls.input_schema = schema_of(cls.input_model)
        if "name" in cls.__dict__:
            cls.path_key = PATH_FIELDS.get(cls.name)

    def parse(self, raw: Any) -> InputT:
        """``raw`` checked against the input model, or a ToolInputError."""
        return cast(InputT, validate(self.input_model, raw, self.name))

    def prepare(self, raw: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        """The keys the model gave, validated, with the path made absolute (not yet checked)."""
        given = self.parse(raw).model_dump(by_alias=True, exclude_unset=True)
        key = self.path_key
        if key and isinstance(given.get(key), str):
            given[key] = ctx.workspace.absolute(given[key], ctx.cwd)
        return given


class BlockingTool(BuiltinTool[InputT]):
    """A built-in whose work blocks (file I/O, a folder walk): ``work`` runs in a worker thread.

    On timeout the tool fails with ``<name> timed out after <timeout>s`` and the run moves on.
    Nothing can kill the thread: it is left to finish (a Write blocked on a FIFO may still
    write once a reader comes), its result dropped. ``stop`` is set then; a walk checks it at
    every file and ends.
    """

    async def execute(self, tool_input: dict[str, Any], ctx: ToolContext) -> Any:
        stop = Stop()
        return await in_thread(self.work, self.parse(tool_input), ctx, stop, stop=stop)

    def work(self, args: InputT, ctx: ToolContext, stop: Stop) -> Any:
        """Do the work in the worker thread; return the structured output."""
        raise NotImplementedError


def schema_of(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON Schema a model API wants for ``model``: aliases, no titles, no ``| null``."""
    return cast(dict[str, Any], _tidy(model.model_json_schema(by_alias=True)))


def _tidy(node: Any) -> Any:
    if isinstance(node, list):
        return [_tidy(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: _tidy(value) for key, value in node.items() if key != "title"}
    options = node.pop("anyOf", None)
    if options is None:
        return node
    kept = [option for option in options if option != {"type": "null"}]
    if len(kept) > 1:
        return {"anyOf": kept, **node}
    if node.get("default", 0) is None:
        del node["default"]
    return {**kept[0], **node}


def resolve(path: str, ctx: ToolContext, tool: str) -> tuple[str, Path]:
    """``path`` made absolute (as shown to the model) and its real path inside the workspace,
    which ``tool`` may use now: the path rules are applied again to the real path, here, at
    the moment of use (``PathCheck``), and the body then opens that real path, not the link."""
    shown, real = resolve_text(path, ctx, tool)
    return shown, Path(real)


def resolve_text(path: str, ctx: ToolContext, tool: str) -> tuple[str, str]:
    """``resolve``, with the real path as text (what a read opens needs no ``Path``)."""
    shown = ctx.workspace.absolute(path, ctx.cwd)
    real = ctx.workspace.real(shown)
    if ctx.path_check is not None and (why := ctx.path_check.refusal(tool, real, shown)):
        raise ToolError(f"{shown} leads to {real} now: {why}")
    return shown, real


def split_lines(text: str) -> list[str]:
    """The lines of ``text``; a final newline ends the last line rather than starting one."""
    lines = text.split("\n")
    return lines[:-1] if text.endswith("\n") else lines


def structured_patch(old: str, new: str, *, context: int = 3) -> list[dict[str, Any]]:
    """Claude Code's ``structuredPatch``: unified-diff hunks from ``old`` to ``new``."""
    a, b = split_lines(old), split_lines(new)
    if a == b:
        return []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return [_hunk(group, a, b) for group in matcher.get_grouped_opcodes(context)]


def _hunk(group: Opcodes, a: list[str], b: list[str]) -> dict[str, Any]:
    lines: list[str] = []
    for tag, i1, i2, j1, j2 in group:
        if tag == "equal":
            lines += [" " + line for line in a[i1:i2]]
            continue
        lines += ["-" + line for line in a[i1:i2]]
        lines += ["+" + line for line in b[j1:j2]]
    old_start, old_end = group[0][1], group[-1][2]
    new_start, new_end = group[0][3], group[-1][4]
    return {
        "oldStart": old_start + 1 if old_end > old_start else old_start,
        "oldLines": old_end - old_start,
        "newStart": new_start + 1 if new_end > new_start else new_start,
        "newLines": new_end - new_start,
        "lines": lines,
    }


def truncate(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, saying how much was left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n... [output truncated: {len(text) - limit} more characters]"


def search_root(path: str | None, ctx: ToolContext, tool: str, *, want_dir: bool) -> Path:
    """The absolute folder (or file) ``tool`` searches, checked to lie inside the workspace."""
    shown, real = resolve(path or str(ctx.cwd), ctx, tool)
    if not real.exists():
        raise ToolError(
            f"Path does not exist: {shown}. Note: your current working directory is {ctx.cwd}."
        )
    if want_dir and not real.is_dir():
        raise ToolError(f"{shown} is not a directory; give a folder to search in.")
    return Path(shown)


def walk_files(
    root: Path,
    ctx: ToolContext,
    skipped: Skipped | None = None,
    *,
    wanted: Callable[[Path, str], bool] = lambda path, rel: True,
    stop: Stop | None = None,
) -> list[tuple[Path, str]]:
    """The ``wanted`` files under ``root`` with their relative paths; skips .git and links out of
    the workspace, and, counted in ``skipped``, what reading tools may not see and folders that
    cannot be read. Once ``stop`` is set (the tool timed out) it ends at the next file."""
    found = []
    for entry in walk_steps(root, ctx, skipped, wanted=wanted):
        if stop is not None and stop.is_set():
            break
        if entry:
            found.append(entry)
    return found


def walk_steps(
    root: Path,
    ctx: ToolContext,
    skipped: Skipped | None = None,
    *,
    wanted: Callable[[Path, str], bool] = lambda path, rel: True,
) -> Iterator[tuple[Path, str] | None]:
    """The files ``walk_files`` keeps, with a None for each file or folder looked at and left
    out (a chance to stop)."""
    skipped = Skipped() if skipped is None else skipped
    if not root.is_dir():
        if wanted(root, root.name) and skipped.keeps_file(root, ctx):
            yield root, root.name
        return
    for folder, dirs, files in os.walk(root, onerror=skipped.folder_failed):
        dirs[:] = sorted(
            d for d in dirs if d not in SKIP_DIRS and skipped.keeps_folder(Path(folder, d), ctx)
        )
        yield None
        for name in sorted(files):
            path = Path(folder, name)
            rel = path.relative_to(root).as_posix()
            keep = wanted(path, rel) and (not path.is_symlink() or _inside(path, ctx))
            yield (path, rel) if keep and skipped.keeps_file(path, ctx) else None


def _inside(path: Path, ctx: ToolContext) -> bool:
    try:
        ctx.workspace.check(str(path))
    except ToolInputError:
        return False
    return True


def newest_first(items: list[T], path_of: Callable[[T], Path]) -> list[T]:
    """``items`` most recently modified first; those whose file vanished are dropped."""
    stamped: list[tuple[float, T]] = []
    for item in items:
        try:
            stamped.append((path_of(item).stat().st_mtime, item))
        except OSError:
            continue
    stamped.sort(key=lambda pair: pair[0], reverse=True)
    return [item for _, item in stamped]


def glob_matcher(pattern: str) -> Callable[[str], bool]:
    """A test of relative paths against a glob with `*`, `**`, `?`, `[...]` and `{a,b}`."""
    try:
        regex = re.compile(_translate(pattern.removeprefix("./")) + r"\Z", re.DOTALL)
    except re.error as exc:
        raise ToolInputError(f"Invalid glob pattern {pattern!r}: {exc}") from None
    return lambda rel: regex.match(rel) is not None


def _translate(pattern: str) -> str:
    parts, pos = [], 0
    for m in _GLOB_TOKEN.finditer(pattern):
        parts += [re.escape(pattern[pos : m.start()]), _glob_token(m.group())]
        pos = m.end()
    return "".join([*parts, re.escape(pattern[pos:])])


def _glob_token(token: str) -> str:
    if token in _WILDCARDS:
        return _WILDCARDS[token]
    if token.startswith("["):
        body = token[1:-1]
        return "[^" + body[1:] + "]" if body.startswith("!") else "[" + body + "]"
    return "(?:" + "|".join(_translate(alt) for alt in token[1:-1].split(",")) + ")"
