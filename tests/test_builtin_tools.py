"""The built-in tool set and what its tools share: schemas, input validation, patches."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from hookline._errors import ToolInputError
from hookline._tools.base import Tool, ToolContext, Workspace
from hookline._tools.builtin import Bash, Edit, Glob, Grep, Read, Write, builtin_tools
from hookline._tools.builtin._common import structured_patch, truncate

MINIMAL = {
    "Bash": {"command": "true"},
    "Read": {"file_path": "a.txt"},
    "Write": {"file_path": "a.txt", "content": ""},
    "Edit": {"file_path": "a.txt", "old_string": "a", "new_string": "b"},
    "Glob": {"pattern": "*"},
    "Grep": {"pattern": "x"},
}
TOOLS: dict[str, Tool] = {tool.name: tool for tool in builtin_tools()}


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(cwd=tmp_path, workspace=Workspace.of(tmp_path))


def test_builtin_tools_are_six_fresh_instances_with_claude_code_names() -> None:
    first, second = builtin_tools(), builtin_tools()
    assert [t.name for t in first] == ["Bash", "Read", "Write", "Edit", "Glob", "Grep"]
    assert [type(t) for t in first] == [Bash, Read, Write, Edit, Glob, Grep]
    assert all(a is not b for a, b in zip(first, second, strict=True))


def test_only_the_looking_tools_are_read_only() -> None:
    assert {t.name for t in builtin_tools() if t.read_only} == {"Read", "Glob", "Grep"}
    assert Bash.timeout is None


@pytest.mark.parametrize("name", list(MINIMAL))
def test_schema_forbids_unknown_keys_and_requires_the_minimal_fields(name: str) -> None:
    schema = TOOLS[name].spec()["input_schema"]
    assert schema["type"] == "object"
    assert schema["additionalProperties"] is False
    assert set(schema["required"]) == set(MINIMAL[name])
    assert "title" not in schema
    assert TOOLS[name].description.count(" ") > 20


def test_grep_schema_uses_the_flag_names_the_model_sends() -> None:
    properties = Grep.input_schema["properties"]
    assert {"-i", "-n", "-A", "-B", "-C"} <= set(properties)
    assert properties["path"] == {
        "type": "string",
        "description": "File or folder to search in (default: the working directory).",
    }


@pytest.mark.parametrize("name", list(MINIMAL))
def test_prepare_rejects_an_unknown_key_naming_it(name: str, ctx: ToolContext) -> None:
    with pytest.raises(ToolInputError, match=rf"^Invalid input for {name}: bogus: "):
        TOOLS[name].prepare({**MINIMAL[name], "bogus": 1}, ctx)


@pytest.mark.parametrize("name", list(MINIMAL))
def test_prepare_rejects_a_missing_field_naming_it(name: str, ctx: ToolContext) -> None:
    field = next(iter(MINIMAL[name]))
    raw = {k: v for k, v in MINIMAL[name].items() if k != field}
    with pytest.raises(ToolInputError, match=rf"{field}: Field required"):
        TOOLS[name].prepare(raw, ctx)


def test_prepare_rejects_an_ill_typed_field_without_coercing(ctx: ToolContext) -> None:
    with pytest.raises(ToolInputError, match="offset: Input should be a valid integer"):
        Read().prepare({"file_path": "a.txt", "offset": "10"}, ctx)
    with pytest.raises(ToolInputError, match="replace_all: Input should be a valid boolean"):
        Edit().prepare({**MINIMAL["Edit"], "replace_all": "yes"}, ctx)


def test_prepare_error_is_one_line(ctx: ToolContext) -> None:
    with pytest.raises(ToolInputError) as caught:
        Edit().prepare({"bogus": 1}, ctx)
    assert "\n" not in str(caught.value)
    assert "file_path" in str(caught.value) and "bogus" in str(caught.value)


def test_prepare_returns_the_given_keys_by_their_wire_names(ctx: ToolContext) -> None:
    prepared = Grep().prepare({"pattern": "x", "-i": True}, ctx)
    assert prepared == {"pattern": "x", "-i": True}
    assert Edit().prepare(MINIMAL["Edit"], ctx) == {  # Edit shows replace_all, as Claude Code
        **MINIMAL["Edit"],
        "replace_all": False,
        "file_path": str(ctx.cwd / "a.txt"),
    }


def test_execute_validates_again_after_a_hook_rewrite(ctx: ToolContext) -> None:
    with pytest.raises(ToolInputError, match="bogus"):
        asyncio.run(Read().execute({"file_path": "a.txt", "bogus": True}, ctx))


def test_structured_patch_keeps_three_lines_of_context_per_hunk() -> None:
    old = "".join(f"{n}\n" for n in range(1, 11))
    new = old.replace("5\n", "five\n")
    assert structured_patch(old, new) == [
        {
            "oldStart": 2,
            "oldLines": 7,
            "newStart": 2,
            "newLines": 7,
            "lines": [" 2", " 3", " 4", "-5", "+five", " 6", " 7", " 8"],
        }
    ]


def test_structured_patch_of_equal_texts_is_empty() -> None:
    assert structured_patch("same\n", "same\n") == []


def test_truncate_says_how_much_was_cut() -> None:
    assert truncate("abcdef", 10) == "abcdef"
    assert truncate("abcdef", 4) == "abcd\n... [output truncated: 2 more characters]"
