"""Glob and Grep: Claude Code's shapes, ordering, caps, filters and the workspace boundary."""

from __future__ import annotations

import asyncio
import os
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from hookline import Agent, ScriptedModel
from hookline._errors import ToolError, ToolInputError
from hookline._hooks.engine import HookEngine
from hookline._hooks.registry import HookRegistry
from hookline._tools.base import Tool, Toolbox, ToolCall, ToolContext, Workspace
from hookline._tools.builtin import Glob, Grep, search
from hookline._tools.pipeline import ToolPipeline
from hookline.permissions import PermissionPolicy
from hookline.permissions._rules import PermissionRule
from hookline.permissions._visibility import ReadFilter


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(cwd=tmp_path, workspace=Workspace.of(tmp_path))


@pytest.fixture
def outside(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("outside") / "secret.py"
    path.write_text("SECRET = 1\n")
    return path


def run(tool: Tool, raw: dict[str, Any], ctx: ToolContext) -> Any:
    return asyncio.run(tool.execute(tool.prepare(raw, ctx), ctx))


def make(root: Path, files: dict[str, str], *, mtimes: bool = False) -> None:
    """Write ``files``; with ``mtimes``, each later file is one minute newer."""
    for n, (name, text) in enumerate(files.items()):
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        if mtimes:
            os.utime(path, (1_000_000 + 60 * n, 1_000_000 + 60 * n))


def test_glob_double_star_finds_files_at_every_depth_newest_first(ctx: ToolContext) -> None:
    files = {"top.py": "", "a/mid.py": "", "a/b/deep.py": "", "a/notes.txt": "", ".git/x.py": ""}
    make(ctx.cwd, files, mtimes=True)
    output = run(Glob(), {"pattern": "**/*.py"}, ctx)
    expected = [str(ctx.cwd / name) for name in ("a/b/deep.py", "a/mid.py", "top.py")]
    assert output | {"durationMs": 0} == {
        "filenames": expected,
        "durationMs": 0,
        "numFiles": 3,
        "truncated": False,
    }
    assert isinstance(output["durationMs"], int)
    assert Glob().render(output) == "\n".join(expected)


def test_glob_single_star_stays_in_one_folder_and_braces_alternate(ctx: ToolContext) -> None:
    make(ctx.cwd, {"a.py": "", "b.txt": "", "c.md": "", "sub/d.py": ""})
    names = run(Glob(), {"pattern": "*.{py,txt}"}, ctx)["filenames"]
    assert sorted(names) == [str(ctx.cwd / "a.py"), str(ctx.cwd / "b.txt")]


def test_glob_stops_at_one_hundred_files(ctx: ToolContext) -> None:
    make(ctx.cwd, {f"f{n:03}.txt": "" for n in range(120)})
    output = run(Glob(), {"pattern": "*.txt"}, ctx)
    assert (output["numFiles"], len(output["filenames"]), output["truncated"]) == (100, 100, True)
    assert "truncated" in Glob().render(output)


def test_glob_searches_a_relative_path_and_says_when_nothing_matches(ctx: ToolContext) -> None:
    make(ctx.cwd, {"src/a.py": "", "b.py": ""})
    assert Glob().prepare({"pattern": "*.py", "path": "src"}, ctx)["path"] == str(ctx.cwd / "src")
    assert run(Glob(), {"pattern": "*.py", "path": "src"}, ctx)["filenames"] == [
        str(ctx.cwd / "src" / "a.py")
    ]
    assert Glob().render(run(Glob(), {"pattern": "*.rs"}, ctx)) == "No files found"


def test_glob_refuses_a_folder_outside_and_skips_links_that_escape(
    ctx: ToolContext, outside: Path
) -> None:
    with pytest.raises(ToolInputError, match="outside the workspace"):
        run(Glob(), {"pattern": "*", "path": str(outside.parent)}, ctx)
    (ctx.cwd / "link.py").symlink_to(outside)
    (ctx.cwd / "real.py").write_text("")
    assert run(Glob(), {"pattern": "*.py"}, ctx)["filenames"] == [str(ctx.cwd / "real.py")]


def test_glob_of_a_missing_folder_fails(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="Path does not exist"):
        run(Glob(), {"pattern": "*", "path": "nope"}, ctx)


@pytest.fixture
def code(ctx: ToolContext) -> Path:
    make(
        ctx.cwd,
        {
            "old.py": "import os\nTODO = 1\n",
            "pkg/new.py": "x = 1\n# todo: later\nTODO = 2\ny = 3\n",
            "notes.txt": "TODO list\n",
            ".git/config": "TODO\n",
        },
        mtimes=True,
    )
    (ctx.cwd / "blob.bin").write_bytes(b"\0TODO\n")
    return ctx.cwd


def test_grep_lists_files_with_matches_newest_first_by_default(
    ctx: ToolContext, code: Path
) -> None:
    output = run(Grep(), {"pattern": "TODO"}, ctx)
    expected = [str(code / "notes.txt"), str(code / "pkg/new.py"), str(code / "old.py")]
    assert output == {"mode": "files_with_matches", "numFiles": 3, "filenames": expected}
    assert Grep().render(output) == "Found 3 files\n" + "\n".join(expected)


def test_grep_content_mode_shows_numbered_lines_and_context(ctx: ToolContext, code: Path) -> None:
    raw = {"pattern": "TODO =", "output_mode": "content", "path": "pkg", "-C": 1}
    output = run(Grep(), raw, ctx)
    new = code / "pkg" / "new.py"
    assert output == {
        "mode": "content",
        "numFiles": 1,
        "filenames": [str(new)],
        "content": f"{new}-2-# todo: later\n{new}:3:TODO = 2\n{new}-4-y = 3",
        "numLines": 3,
    }
    assert Grep().render(output) == output["content"]


def test_grep_content_without_line_numbers_separates_groups(ctx: ToolContext) -> None:
    make(ctx.cwd, {"a.txt": "hit\nmiss\nmiss\nmiss\nhit\n"})
    output = run(Grep(), {"pattern": "hit", "output_mode": "content", "-n": False}, ctx)
    path = ctx.cwd / "a.txt"
    assert output["content"] == f"{path}:hit\n--\n{path}:hit"


def test_grep_count_mode_counts_matching_lines(ctx: ToolContext, code: Path) -> None:
    output = run(Grep(), {"pattern": "TODO", "output_mode": "count", "glob": "*.py"}, ctx)
    assert output["numMatches"] == 2
    assert output["content"] == f"{code / 'pkg/new.py'}:1\n{code / 'old.py'}:1"
    assert Grep().render(output).endswith("Found 2 matching lines across 2 files.")


def test_grep_ignore_case(ctx: ToolContext, code: Path) -> None:
    output = run(Grep(), {"pattern": "todo:", "-i": True, "output_mode": "count"}, ctx)
    assert output["numMatches"] == 1
    assert run(Grep(), {"pattern": "todo", "-i": True}, ctx)["numFiles"] == 3
    assert run(Grep(), {"pattern": "todo"}, ctx)["numFiles"] == 1


def test_grep_glob_matches_names_and_relative_paths(ctx: ToolContext, code: Path) -> None:
    assert run(Grep(), {"pattern": "TODO", "glob": "*.txt"}, ctx)["filenames"] == [
        str(code / "notes.txt")
    ]
    assert run(Grep(), {"pattern": "TODO", "glob": "pkg/*"}, ctx)["filenames"] == [
        str(code / "pkg/new.py")
    ]


def test_grep_bad_regex_is_an_input_error_naming_the_pattern(ctx: ToolContext) -> None:
    with pytest.raises(ToolInputError, match=r"pattern: invalid regular expression '\(oops'"):
        Grep().prepare({"pattern": "(oops"}, ctx)


def test_grep_searches_a_single_file_and_multiline(ctx: ToolContext) -> None:
    make(ctx.cwd, {"a.py": "def f(\n    x,\n):\n", "b.py": "def f(\n"})
    raw = {"pattern": r"f\(.*?\)", "path": "a.py", "multiline": True, "output_mode": "content"}
    output = run(Grep(), raw, ctx)
    path = ctx.cwd / "a.py"
    assert output["content"] == f"{path}:1:def f(\n{path}:2:    x,\n{path}:3:):"
    assert run(Grep(), {"pattern": r"f\(.*?\)"}, ctx)["numFiles"] == 0


def test_grep_head_limit_keeps_the_first_entries(ctx: ToolContext, code: Path) -> None:
    output = run(Grep(), {"pattern": "TODO", "head_limit": 2}, ctx)
    assert output["filenames"] == [str(code / "notes.txt"), str(code / "pkg/new.py")]
    content = run(Grep(), {"pattern": ".", "output_mode": "content", "head_limit": 1}, ctx)
    assert content["numLines"] == 1


def test_grep_skips_links_out_of_the_workspace_and_refuses_paths_there(
    ctx: ToolContext, outside: Path
) -> None:
    (ctx.cwd / "link.py").symlink_to(outside)
    output = run(Grep(), {"pattern": "SECRET"}, ctx)
    assert output["numFiles"] == 0
    assert Grep().render(output) == "No matches found"
    with pytest.raises(ToolInputError, match="outside the workspace"):
        run(Grep(), {"pattern": "SECRET", "path": "link.py"}, ctx)


def hiding(ctx: ToolContext, *rules: str) -> ToolContext:
    deny = tuple((PermissionRule.parse(rule), "test") for rule in rules)
    read_filter = ReadFilter.of(PermissionPolicy(deny=deny), cwd=str(ctx.cwd))
    return replace(ctx, read_filter=read_filter)


def test_grep_and_glob_skip_what_a_read_deny_rule_covers_and_say_how_many(
    ctx: ToolContext,
) -> None:
    make(ctx.cwd, {".env": "TOKEN=hunter2\n", "secrets/k.pem": "TOKEN\n", "a.py": "TOKEN = 1\n"})
    hidden = hiding(ctx, "Read(.env)", "Read(./secrets)")
    grep = run(Grep(), {"pattern": "TOKEN", "output_mode": "content"}, hidden)
    assert "hunter2" not in grep["content"] and grep["filenames"] == [str(ctx.cwd / "a.py")]
    assert grep["skipped"] == 2  # .env, and the secrets folder (not walked into)
    assert "2 files or folders were skipped: a Read deny rule covers them" in Grep().render(grep)
    glob = run(Glob(), {"pattern": "**/*"}, hidden)
    assert glob["filenames"] == [str(ctx.cwd / "a.py")] and glob["skipped"] == 2
    assert "2 files or folders were skipped" in Glob().render(glob)


def test_a_file_the_pattern_does_not_want_is_not_counted_as_skipped(ctx: ToolContext) -> None:
    make(ctx.cwd, {".env": "TOKEN=1\n", "a.py": "TOKEN = 1\n"})
    output = run(Glob(), {"pattern": "*.py"}, hiding(ctx, "Read(.env)"))
    assert output["numFiles"] == 1 and "skipped" not in output


def test_grep_and_glob_skip_hooklines_state_with_or_without_rules(ctx: ToolContext) -> None:
    make(ctx.cwd, {".hookline/state/t.jsonl": "TODO\n", "sub/.hookline/x": "TODO\n", "a": "TODO"})
    grep = run(Grep(), {"pattern": "TODO"}, ctx)
    assert grep["filenames"] == [str(ctx.cwd / "a")] and "skipped" not in grep
    glob = run(Glob(), {"pattern": "**/*"}, ctx)
    assert glob["filenames"] == [str(ctx.cwd / "a")] and "skipped" not in glob


# -- time limits ------------------------------------------------------------------------------


def _pipeline_run(tool: Tool, raw: dict[str, Any], ctx: ToolContext) -> tuple[str, str]:
    pipeline = ToolPipeline(Toolbox([tool]), HookEngine(HookRegistry()))
    scope = Agent(ScriptedModel([]), cwd=str(ctx.cwd)).session.scope
    result = asyncio.run(pipeline.run(ToolCall("t1", tool.name, raw), scope, ctx))
    return result.status, result.content


def _workers_of_this_process() -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            cmdline = (entry / "cmdline").read_bytes()
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if b"_search_worker" in cmdline and ppid == os.getpid():
            found.append(int(entry.name))
    return found


def test_a_catastrophic_pattern_stops_at_greps_time_limit_and_its_worker_dies(
    ctx: ToolContext,
) -> None:
    make(ctx.cwd, {"evil.txt": ("a" * 40 + "b\n") * 3, "fine.txt": "aaa\n"})
    grep = Grep()
    grep.timeout = 1.0  # the tool's own limit, shortened for the test
    status, content = _pipeline_run(grep, {"pattern": "(a+)+$"}, ctx)
    assert (status, content) == ("failed", "Grep timed out after 1s")
    assert _workers_of_this_process() == []


class HeldFilter:
    """Read rules whose first look at a file holds the walk until the test releases it, as a
    hung mount would; counts every look."""

    def __init__(self) -> None:
        self.entered, self.released = threading.Event(), threading.Event()
        self.looks = 0

    def hides(self, path: str) -> bool:
        self.looks += 1
        self.entered.set()
        self.released.wait(GUARD)
        return False


#: Seconds a held walk waits at most: a guard, so a walk that no timeout can stop fails its test
#: late instead of hanging it. Never a timing assertion.
GUARD = 60


@pytest.mark.parametrize("kind", [Glob, Grep], ids=["Glob", "Grep"])
def test_a_walk_held_by_the_file_system_times_out_and_stops_at_its_next_file(
    ctx: ToolContext, kind: type[Tool]
) -> None:
    make(ctx.cwd, {f"f{n}.txt": "x\n" for n in range(600)})
    held, tool = HeldFilter(), kind()
    tool.timeout = 0.2  # the tool's own limit, shortened for the test
    raw = {"pattern": "*.txt" if kind is Glob else "x"}
    try:
        status, content = _pipeline_run(tool, raw, replace(ctx, read_filter=held))
        assert held.entered.is_set() and not held.released.is_set()
    finally:
        held.released.set()
    assert (status, content) == ("failed", f"{tool.name} timed out after 0.2s")
    for thread in threading.enumerate():
        if thread.name.startswith("hookline: "):
            thread.join(GUARD)
    assert held.looks == 1  # released, the walk ended instead of looking at 599 more files


def test_grep_skips_special_files_instead_of_hanging_on_them(ctx: ToolContext) -> None:
    os.mkfifo(ctx.cwd / "pipe")
    make(ctx.cwd, {"a.txt": "needle\n"})
    output = run(Grep(), {"pattern": "needle"}, ctx)
    assert output["filenames"] == [str(ctx.cwd / "a.txt")]


def test_an_invalid_worker_answer_is_a_tool_error(
    ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    make(ctx.cwd, {"a.txt": "needle\n"})
    monkeypatch.setattr(search, "WORKER_OUTPUT_CAP", 2)
    with pytest.raises(ToolError, match="too many matches"):
        run(Grep(), {"pattern": "needle"}, ctx)
