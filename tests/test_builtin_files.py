"""Read, Write and Edit: Claude Code's shapes, path handling, the workspace boundary, and where
Read reads (a small regular file on the event loop, any other in a worker thread)."""

from __future__ import annotations

import asyncio
import errno
import os
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hookline import Agent, ScriptedModel
from hookline._errors import ToolError, ToolInputError
from hookline._hooks.engine import HookEngine
from hookline._hooks.registry import HookRegistry
from hookline._support.threads import WORKERS
from hookline._tools.base import Tool, Toolbox, ToolCall, ToolContext, ToolResult, Workspace
from hookline._tools.builtin import Edit, Read, Write, files
from hookline._tools.builtin._common import resolve_text
from hookline._tools.builtin._file_io import INLINE_READ_BYTES
from hookline._tools.pipeline import ToolPipeline

#: The structuredPatch real Claude Code gave for editing "two" -> "three" in "one\ntwo\n".
ONE_TWO_TO_THREE = [
    {
        "oldStart": 1,
        "oldLines": 2,
        "newStart": 1,
        "newLines": 2,
        "lines": [" one", "-two", "+three"],
    }
]


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(cwd=tmp_path, workspace=Workspace.of(tmp_path))


@pytest.fixture
def outside(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A file outside the workspace, with content that must never change or leak."""
    path = tmp_path_factory.mktemp("outside") / "secret.txt"
    path.write_text("SECRET\n")
    return path


def run(tool: Tool, raw: dict[str, Any], ctx: ToolContext) -> Any:
    return asyncio.run(tool.execute(tool.prepare(raw, ctx), ctx))


def test_read_output_has_claude_codes_shape(ctx: ToolContext) -> None:
    (ctx.cwd / "a.txt").write_text("one\ntwo\n")
    output = run(Read(), {"file_path": "a.txt"}, ctx)
    assert output == {
        "type": "text",
        "file": {
            "filePath": str(ctx.cwd / "a.txt"),
            "content": "one\ntwo\n",
            "numLines": 3,
            "startLine": 1,
            "totalLines": 3,
        },
    }


def test_prepare_makes_a_relative_file_path_absolute(ctx: ToolContext) -> None:
    prepared = Read().prepare({"file_path": "sub/../a.txt", "limit": 5}, ctx)
    assert prepared == {"file_path": str(ctx.cwd / "a.txt"), "limit": 5}


def test_read_offset_and_limit_select_numbered_lines(ctx: ToolContext) -> None:
    (ctx.cwd / "ten.txt").write_text("".join(f"line{n}\n" for n in range(1, 11)))
    output = run(Read(), {"file_path": "ten.txt", "offset": 3, "limit": 2}, ctx)
    assert output["file"] | {"filePath": ""} == {
        "filePath": "",
        "content": "line3\nline4",
        "numLines": 2,
        "startLine": 3,
        "totalLines": 11,
    }
    assert Read().render(output) == "3\tline3\n4\tline4"


def test_read_past_the_end_and_empty_file_render_a_note(ctx: ToolContext) -> None:
    (ctx.cwd / "empty.txt").write_text("")
    assert "empty" in Read().render(run(Read(), {"file_path": "empty.txt"}, ctx))
    (ctx.cwd / "two.txt").write_text("a\nb")
    past = run(Read(), {"file_path": "two.txt", "offset": 9}, ctx)
    assert past["file"]["numLines"] == 0
    assert Read().render(past) == "(the file has 2 lines; line 9 is past the end)"


def test_read_of_a_missing_file_names_the_working_directory(ctx: ToolContext) -> None:
    expected = f"File does not exist. Note: your current working directory is {ctx.cwd}."
    with pytest.raises(ToolError) as caught:
        run(Read(), {"file_path": "nope.txt"}, ctx)
    assert str(caught.value) == expected
    assert not isinstance(caught.value, ToolInputError)


def test_read_of_a_directory_points_to_glob(ctx: ToolContext) -> None:
    (ctx.cwd / "folder").mkdir()
    with pytest.raises(ToolError, match=r"is a directory.*Glob"):
        run(Read(), {"file_path": "folder"}, ctx)


def test_read_replaces_bytes_that_are_not_utf8(ctx: ToolContext) -> None:
    (ctx.cwd / "latin.txt").write_bytes(b"caf\xe9\n")
    assert run(Read(), {"file_path": "latin.txt"}, ctx)["file"]["content"] == "caf\ufffd\n"


def test_read_refuses_a_path_outside_the_workspace(ctx: ToolContext, outside: Path) -> None:
    with pytest.raises(ToolInputError, match="outside the workspace"):
        run(Read(), {"file_path": str(outside)}, ctx)


def test_read_refuses_a_symlink_that_escapes_the_workspace(ctx: ToolContext, outside: Path) -> None:
    (ctx.cwd / "link.txt").symlink_to(outside)
    prepared = Read().prepare({"file_path": "link.txt"}, ctx)
    assert prepared == {"file_path": str(ctx.cwd / "link.txt")}  # prepare does not check
    with pytest.raises(ToolInputError, match="outside the workspace"):
        asyncio.run(Read().execute(prepared, ctx))


# -- where Read reads: on the event loop, or in a worker thread --------------------------------


@pytest.fixture
def handed(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The calls handed to a worker thread (``WORKERS.submit``); they still run there."""
    calls: list[object] = []
    submit = WORKERS.submit

    def spy(job: Callable[[], None]) -> None:
        calls.append(job)
        submit(job)

    monkeypatch.setattr(WORKERS, "submit", spy)
    return calls


def test_read_of_a_small_regular_file_is_done_on_the_event_loop(
    ctx: ToolContext, handed: list[object]
) -> None:
    (ctx.cwd / "a.txt").write_text("one\n")
    (ctx.cwd / "limit.txt").write_bytes(b"x" * INLINE_READ_BYTES)
    assert run(Read(), {"file_path": "a.txt"}, ctx)["file"]["content"] == "one\n"
    at_limit = run(Read(), {"file_path": "limit.txt"}, ctx)["file"]["content"]
    assert at_limit == "x" * INLINE_READ_BYTES
    assert handed == []


def test_read_of_a_file_over_the_limit_is_done_in_a_worker_thread(
    ctx: ToolContext, handed: list[object]
) -> None:
    (ctx.cwd / "big.txt").write_text("x\n" * (INLINE_READ_BYTES // 2) + "end")
    output = run(Read(), {"file_path": "big.txt", "offset": INLINE_READ_BYTES // 2 + 1}, ctx)
    assert (output["file"]["content"], output["file"]["totalLines"]) == (
        "end",
        INLINE_READ_BYTES // 2 + 1,
    )
    assert len(handed) == 1


def test_an_empty_file_is_read_in_a_worker_thread_and_still_says_it_is_empty(
    ctx: ToolContext, handed: list[object]
) -> None:
    """Its size, 0, is what ``/proc`` gives every file: a size that is not known."""
    (ctx.cwd / "empty.txt").write_text("")
    output = run(Read(), {"file_path": "empty.txt"}, ctx)
    assert Read().render(output) == "(the file exists but is empty)"
    assert len(handed) == 1


@pytest.mark.parametrize(
    ("folder", "name", "expected"),
    [("/proc/self", "status", "Name:"), ("/sys/devices/system/cpu", "online", "0")],
    ids=["proc-size-0", "sysfs-no-blocks"],
)
def test_a_file_the_kernel_makes_up_is_read_in_a_worker_thread(
    handed: list[object], folder: str, name: str, expected: str
) -> None:
    """``/proc`` gives a size of 0, sysfs one of a page, and neither has disk blocks: their
    real size is not known, and reading them may wait."""
    path = Path(folder, name)
    if not path.is_file() or path.stat().st_blocks:
        pytest.skip(f"{path} is not a made-up file here")
    real = Path(os.path.realpath(folder))
    ctx = ToolContext(cwd=real, workspace=Workspace.of(real))
    assert expected in run(Read(), {"file_path": str(real / name)}, ctx)["file"]["content"]
    assert len(handed) == 1


def test_read_refuses_a_link_swapped_in_after_the_check(
    ctx: ToolContext, outside: Path, monkeypatch: pytest.MonkeyPatch, handed: list[object]
) -> None:
    """``resolve_text`` checked a small regular file; before the open it became a link out of
    the workspace. The open on the event loop does not follow it: nothing is read."""
    checked = ctx.cwd / "a.txt"
    checked.write_text("mine\n")

    def resolve_then_swap(path: str, context: ToolContext, tool: str) -> tuple[str, str]:
        shown_and_real = resolve_text(path, context, tool)
        checked.unlink()
        checked.symlink_to(outside)
        return shown_and_real

    monkeypatch.setattr(files, "resolve_text", resolve_then_swap)
    expected = f"Cannot read {checked}: {os.strerror(errno.ELOOP)}"
    with pytest.raises(ToolError, match=re.escape(expected)) as refused:
        run(Read(), {"file_path": "a.txt"}, ctx)
    assert "SECRET" not in str(refused.value)
    assert handed == []


def test_read_of_a_folder_leaves_no_file_open(ctx: ToolContext) -> None:
    (ctx.cwd / "folder").mkdir()
    before = sorted(os.listdir("/proc/self/fd"))
    with pytest.raises(ToolError, match="is a directory"):
        run(Read(), {"file_path": "folder"}, ctx)
    assert sorted(os.listdir("/proc/self/fd")) == before


def test_write_creates_a_file_and_its_folders(ctx: ToolContext) -> None:
    output = run(Write(), {"file_path": "new/deep/a.txt", "content": "one\ntwo\n"}, ctx)
    path = ctx.cwd / "new" / "deep" / "a.txt"
    assert path.read_text() == "one\ntwo\n"
    assert output == {
        "type": "create",
        "filePath": str(path),
        "content": "one\ntwo\n",
        "structuredPatch": [],
        "originalFile": None,
        "userModified": False,
    }
    assert Write().render(output) == f"File created successfully at: {path}"


def test_write_over_an_existing_file_is_an_update_with_a_patch(ctx: ToolContext) -> None:
    path = ctx.cwd / "a.txt"
    path.write_text("one\ntwo\n")
    output = run(Write(), {"file_path": "a.txt", "content": "one\nthree\n"}, ctx)
    assert path.read_text() == "one\nthree\n"
    assert output["type"] == "update"
    assert output["originalFile"] == "one\ntwo\n"
    assert output["structuredPatch"] == ONE_TWO_TO_THREE
    assert Write().render(output) == f"The file {path} has been updated successfully."


def test_write_through_a_symlinked_folder_creates_nothing_outside(
    ctx: ToolContext, outside: Path
) -> None:
    (ctx.cwd / "out").symlink_to(outside.parent, target_is_directory=True)
    with pytest.raises(ToolInputError):
        run(Write(), {"file_path": "out/sentinel.txt", "content": "x"}, ctx)
    assert not (outside.parent / "sentinel.txt").exists()


def test_write_over_a_symlink_leaves_the_outside_file_unchanged(
    ctx: ToolContext, outside: Path
) -> None:
    (ctx.cwd / "link.txt").symlink_to(outside)
    with pytest.raises(ToolInputError):
        run(Write(), {"file_path": "link.txt", "content": "pwned"}, ctx)
    with pytest.raises(ToolInputError):
        run(Write(), {"file_path": f"../{outside.parent.name}/x.txt", "content": "x"}, ctx)
    assert outside.read_text() == "SECRET\n"


def test_edit_output_has_claude_codes_shape(ctx: ToolContext) -> None:
    path = ctx.cwd / "a.txt"
    path.write_text("one\ntwo\n")
    raw = {"file_path": "a.txt", "old_string": "two", "new_string": "three", "replace_all": False}
    output = run(Edit(), raw, ctx)
    assert path.read_text() == "one\nthree\n"
    assert output == {
        "filePath": str(path),
        "oldString": "two",
        "newString": "three",
        "originalFile": "one\ntwo\n",
        "structuredPatch": ONE_TWO_TO_THREE,
        "userModified": False,
        "replaceAll": False,
    }
    assert Edit().render(output) == f"The file {path} has been updated successfully."


def test_edit_of_a_string_that_is_not_there_fails(ctx: ToolContext) -> None:
    (ctx.cwd / "a.txt").write_text("one\n")
    with pytest.raises(
        ToolError, match=re.escape("String to replace not found in file.\nString: two")
    ):
        run(Edit(), {"file_path": "a.txt", "old_string": "two", "new_string": "2"}, ctx)


def test_edit_of_several_matches_needs_replace_all(ctx: ToolContext) -> None:
    path = ctx.cwd / "a.txt"
    path.write_text("x = 1\nx = 1\n")
    raw = {"file_path": "a.txt", "old_string": "x = 1", "new_string": "x = 2"}
    with pytest.raises(ToolError, match=r"Found 2 matches.*set replace_all to true.*more context"):
        run(Edit(), raw, ctx)
    assert path.read_text() == "x = 1\nx = 1\n"
    output = run(Edit(), {**raw, "replace_all": True}, ctx)
    assert path.read_text() == "x = 2\nx = 2\n"
    assert output["replaceAll"] is True
    assert output["structuredPatch"][0]["lines"] == ["-x = 1", "-x = 1", "+x = 2", "+x = 2"]


def test_edit_with_equal_strings_or_a_missing_file_fails(ctx: ToolContext) -> None:
    (ctx.cwd / "a.txt").write_text("one\n")
    with pytest.raises(ToolError, match="No changes to make"):
        run(Edit(), {"file_path": "a.txt", "old_string": "one", "new_string": "one"}, ctx)
    with pytest.raises(ToolError, match="File does not exist"):
        run(Edit(), {"file_path": "b.txt", "old_string": "one", "new_string": "1"}, ctx)


def test_edit_refuses_a_file_that_is_not_utf8(ctx: ToolContext) -> None:
    path = ctx.cwd / "latin.txt"
    path.write_bytes(b"caf\xe9\n")
    with pytest.raises(ToolError, match="not UTF-8"):
        run(Edit(), {"file_path": "latin.txt", "old_string": "caf", "new_string": "tea"}, ctx)
    assert path.read_bytes() == b"caf\xe9\n"


def test_edit_through_a_symlink_leaves_the_outside_file_unchanged(
    ctx: ToolContext, outside: Path
) -> None:
    (ctx.cwd / "link.txt").symlink_to(outside)
    with pytest.raises(ToolInputError, match="outside the workspace"):
        run(Edit(), {"file_path": "link.txt", "old_string": "SECRET", "new_string": "x"}, ctx)
    assert outside.read_text() == "SECRET\n"


def test_execute_checks_a_path_a_hook_rewrote_to_outside(ctx: ToolContext, outside: Path) -> None:
    prepared = Write().prepare({"file_path": "a.txt", "content": "x"}, ctx)
    rewritten = {**prepared, "file_path": os.fspath(outside)}
    with pytest.raises(ToolInputError):
        asyncio.run(Write().execute(rewritten, ctx))
    assert outside.read_text() == "SECRET\n"
    assert not (ctx.cwd / "a.txt").exists()


# -- time limits ------------------------------------------------------------------------------
# A FIFO holds a file tool the way a hung mount would: its open() waits for the other end. The
# test opens that end only after it has seen the tool's result.

#: Seconds before a guard releases a held body, or gives up on a released thread: a regression
#: then fails late instead of hanging. Never a timing assertion.
GUARD = 60


def pipeline_run(
    tool: Tool, raw: dict[str, Any], ctx: ToolContext, *, unless: Callable[[], Any]
) -> ToolResult:
    """The call's result; ``unless`` releases the FIFO after ``GUARD`` seconds, so a body that
    blocks where no timeout can stop it fails the test instead of hanging it."""
    pipeline = ToolPipeline(Toolbox([tool]), HookEngine(HookRegistry()))
    scope = Agent(ScriptedModel([]), cwd=str(ctx.cwd)).session.scope
    guard = threading.Timer(GUARD, unless)
    guard.start()
    try:
        return asyncio.run(pipeline.run(ToolCall("t1", tool.name, raw), scope, ctx))
    finally:
        guard.cancel()


def finish_workers(tool: Tool) -> None:
    """Wait for the worker threads to finish what the timeout left behind (the test has
    released them): the tool's body returns."""
    assert WORKERS.settled(GUARD), f"{tool.name}'s body is still running"


def open_writer(fifo: Path) -> int:
    """The FIFO's write end, opened once a reader waits on it (the worker thread, blocked)."""
    deadline = time.monotonic() + GUARD
    while True:
        try:
            return os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as exc:  # ENXIO: no reader yet, the thread has not reached open()
            if exc.errno != errno.ENXIO or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


@pytest.mark.parametrize(
    ("make", "raw"),
    [(Read, {}), (Edit, {"old_string": "a", "new_string": "b"})],
    ids=["Read", "Edit"],
)
def test_a_file_tool_held_by_a_fifo_times_out_with_a_clear_error(
    ctx: ToolContext, make: type[Tool], raw: dict[str, Any]
) -> None:
    fifo = ctx.cwd / "pipe"
    os.mkfifo(fifo)
    tool = make()
    tool.timeout = 0.2  # the tool's own limit, shortened for the test
    release = lambda: os.close(open_writer(fifo))  # noqa: E731 - end of file lets the read go
    result = pipeline_run(tool, {"file_path": str(fifo), **raw}, ctx, unless=release)
    assert (result.status, result.content) == ("failed", f"{tool.name} timed out after 0.2s")
    release()  # the worker thread still waits in open()
    finish_workers(tool)


def test_read_of_a_fifo_waits_for_its_writer_in_a_thread_while_the_loop_runs_on(
    ctx: ToolContext, handed: list[object]
) -> None:
    """The open on the event loop does not wait for a writer; the FIFO is left to the thread,
    and the loop runs another coroutine, then lets the writer in. A Read whose open waited on
    the loop would hold it until the guard came with a writer of its own."""
    fifo = ctx.cwd / "pipe"
    os.mkfifo(fifo)

    def write_late() -> None:
        writer = open_writer(fifo)
        os.write(writer, b"late\n")
        os.close(writer)

    async def another() -> str:
        await asyncio.sleep(0)
        return "ran"

    async def main() -> Any:
        reading = asyncio.create_task(Read().execute({"file_path": str(fifo)}, ctx))
        assert await another() == "ran"
        assert not reading.done()
        await asyncio.to_thread(write_late)
        return await reading

    guarded: list[bool] = []

    def guard_opens() -> None:
        guarded.append(True)
        os.close(open_writer(fifo))

    guard = threading.Timer(GUARD, guard_opens)
    guard.start()
    try:
        output = asyncio.run(main())
    finally:
        guard.cancel()
    assert guarded == []  # the loop let the writer in itself
    assert output["file"]["content"] == "late\n"
    assert len(handed) == 1


def test_a_write_held_by_a_fifo_times_out_and_may_still_land_later(ctx: ToolContext) -> None:
    fifo = ctx.cwd / "pipe"
    os.mkfifo(fifo)
    write = Write()
    write.timeout = 0.2
    readers: list[int] = []
    release = lambda: readers.append(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))  # noqa: E731
    result = pipeline_run(write, {"file_path": str(fifo), "content": "late"}, ctx, unless=release)
    assert (result.status, result.content) == ("failed", "Write timed out after 0.2s")
    release()
    reader = readers[-1]
    try:
        finish_workers(write)  # with a reader there, its open() returns and it writes
        assert os.read(reader, 100) == b"late"  # as the tools' docs warn
    finally:
        os.close(reader)
