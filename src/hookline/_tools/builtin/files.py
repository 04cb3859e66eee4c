"""Read, Write and Edit: the file tools, with Claude Code's names, inputs and outputs.

Write and Edit work in a worker thread (``BlockingTool``), so their time limit applies even when
the file blocks (a FIFO with no writer, a hung network mount). Read does too, except for a small
regular file, which it reads on the event loop (``read_small``).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from hookline._errors import ToolError
from hookline._support.threads import Stop, in_thread
from hookline._tools.base import ToolContext
from hookline._tools.builtin._common import (
    BlockingTool,
    BuiltinTool,
    ToolInput,
    resolve,
    resolve_text,
    structured_patch,
)
from hookline._tools.builtin._file_io import read_small, read_text, write_text

DEFAULT_LIMIT = 2000
_PATH_HELP = "Absolute path of the file (a relative path is taken from the working directory)."


class ReadInput(ToolInput):
    file_path: str = Field(description=_PATH_HELP)
    offset: int | None = Field(
        default=None, ge=0, description="Line number to start reading at (1 = first line)."
    )
    limit: int | None = Field(
        default=None, ge=1, description=f"Number of lines to read (default {DEFAULT_LIMIT})."
    )


class WriteInput(ToolInput):
    file_path: str = Field(description=_PATH_HELP)
    content: str = Field(description="The complete new content of the file.")


class EditInput(ToolInput):
    file_path: str = Field(description=_PATH_HELP)
    old_string: str = Field(min_length=1, description="The exact text to replace.")
    new_string: str = Field(description="The text to put in its place (must differ).")
    replace_all: bool = Field(
        default=False, description="Replace every occurrence instead of exactly one."
    )


class Read(BuiltinTool[ReadInput]):
    name = "Read"
    description = (
        "Read a text file from the local filesystem. Give an absolute file_path. By default it "
        f"returns up to {DEFAULT_LIMIT} lines from the start of the file; for long files pass "
        "offset (the 1-based line to start at) and limit (how many lines) to read a part. Lines "
        "are numbered: the line number, a tab, then the line. Reading a directory "
        "fails; use Glob to list files instead. Bytes that are not UTF-8 are replaced."
    )
    input_model = ReadInput
    read_only = True
    timeout = 30.0

    async def execute(self, tool_input: dict[str, Any], ctx: ToolContext) -> Any:
        """A small regular file is read here, on the event loop; any other in a worker thread,
        where the time limit applies while it waits (``read_small``)."""
        args = self.parse(tool_input)
        shown, real = resolve_text(args.file_path, ctx, self.name)
        text = read_small(real, ctx)
        if text is None:
            text = await in_thread(read_text, real, ctx)
        lines = text.split("\n")
        start = max(args.offset or 1, 1)
        chosen = lines[start - 1 : start - 1 + (args.limit or DEFAULT_LIMIT)]
        file = {
            "filePath": shown,
            "content": "\n".join(chosen),
            "numLines": len(chosen),
            "startLine": start,
            "totalLines": len(lines),
        }
        return {"type": "text", "file": file}

    def render(self, output: Any) -> str:
        file = output["file"]
        if file["numLines"] == 0:
            total, start = file["totalLines"], file["startLine"]
            return f"(the file has {total} lines; line {start} is past the end)"
        if file["totalLines"] == 1 and not file["content"]:
            return "(the file exists but is empty)"
        lines = file["content"].split("\n")
        return "\n".join(
            f"{number}\t{line}" for number, line in enumerate(lines, start=file["startLine"])
        )


class Write(BlockingTool[WriteInput]):
    name = "Write"
    description = (
        "Write a file to the local filesystem, replacing it entirely if it exists and creating "
        "it (and any missing parent folders) if it does not. Give an absolute file_path and the "
        "complete content. Prefer Edit to change part of an existing file: it sends only the "
        "change. Read an existing file first so you do not overwrite content you have not seen."
    )
    input_model = WriteInput
    timeout = 30.0

    def work(self, args: WriteInput, ctx: ToolContext, stop: Stop) -> Any:
        shown, real = resolve(args.file_path, ctx, self.name)
        original = read_text(real, ctx) if real.is_file() else None
        write_text(real, args.content)
        return {
            "type": "create" if original is None else "update",
            "filePath": shown,
            "content": args.content,
            "structuredPatch": [] if original is None else structured_patch(original, args.content),
            "originalFile": original,
            "userModified": False,
        }

    def render(self, output: Any) -> str:
        if output["type"] == "create":
            return f"File created successfully at: {output['filePath']}"
        return _updated(output["filePath"])


class Edit(BlockingTool[EditInput]):
    name = "Edit"
    description = (
        "Replace exact text in an existing file. old_string must match the file exactly, "
        "including whitespace and indentation, and must occur exactly once unless replace_all "
        "is true; if it occurs several times, add surrounding lines to make it unique. "
        "new_string must differ from old_string. Read the file first to copy the text exactly. "
        "Use replace_all to rename something throughout the file."
    )
    input_model = EditInput
    timeout = 30.0

    def prepare(self, raw: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        """As Claude Code shows it to hooks: ``replace_all`` is always there (default false)."""
        return {**super().prepare(raw, ctx), "replace_all": raw.get("replace_all", False)}

    def work(self, args: EditInput, ctx: ToolContext, stop: Stop) -> Any:
        shown, real = resolve(args.file_path, ctx, self.name)
        original = read_text(real, ctx, errors="strict")
        updated = _replace(original, args)
        write_text(real, updated)
        return {
            "filePath": shown,
            "oldString": args.old_string,
            "newString": args.new_string,
            "originalFile": original,
            "structuredPatch": structured_patch(original, updated),
            "userModified": False,
            "replaceAll": args.replace_all,
        }

    def render(self, output: Any) -> str:
        return _updated(output["filePath"])


def _replace(text: str, args: EditInput) -> str:
    """``text`` with the edit applied, or a ToolError saying why it cannot be."""
    old, new = args.old_string, args.new_string
    if old == new:
        raise ToolError("No changes to make: old_string and new_string are exactly the same.")
    count = text.count(old)
    if count == 0:
        raise ToolError(f"String to replace not found in file.\nString: {old}")
    if count > 1 and not args.replace_all:
        raise ToolError(
            f"Found {count} matches of the string to replace, but replace_all is false. "
            "To replace all occurrences, set replace_all to true. To replace only one "
            "occurrence, please provide more context to uniquely identify the instance.\n"
            f"String: {old}"
        )
    return text.replace(old, new) if args.replace_all else text.replace(old, new, 1)


def _updated(path: str) -> str:
    return f"The file {path} has been updated successfully."
