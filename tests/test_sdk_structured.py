"""Structured output (``output_format``): the model answers through the StructuredOutput tool,
whose input must fit the schema, and the result carries what it gave."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from hookline import ClaudeAgentOptions, ClaudeSDKClient, ConfigError
from hookline._claude.structured import RETRIES
from hookline.sdk._types import ResultMessage, ToolResultBlock, UserMessage
from recording_model import RecordingModel

SCHEMA = {
    "type": "object",
    "properties": {"file_count": {"type": "number"}, "has_tests": {"type": "boolean"}},
    "required": ["file_count", "has_tests"],
}
FORMAT = {"type": "json_schema", "schema": SCHEMA}


def output(data: dict[str, Any]) -> dict[str, Any]:
    return {"tool_calls": [{"name": "StructuredOutput", "input": data}]}


def run(tmp_path: Path, model: RecordingModel, **options: Any) -> list[Any]:
    async def go() -> list[Any]:
        given = ClaudeAgentOptions(cwd=tmp_path, model=model, output_format=FORMAT, **options)
        async with ClaudeSDKClient(options=given) as client:
            await client.query("Count the files.")
            return [m async for m in client.receive_response()]

    return asyncio.run(go())


def test_the_structured_output_is_the_results(tmp_path: Path) -> None:
    model = RecordingModel([output({"file_count": 3, "has_tests": True}), {"text": "Done."}])
    result = run(tmp_path, model)[-1]
    assert isinstance(result, ResultMessage) and result.subtype == "success"
    assert result.structured_output == {"file_count": 3, "has_tests": True}
    assert "StructuredOutput" in model.seen[0].tools and "StructuredOutput" in model.systems[0]


def test_an_output_that_does_not_fit_is_an_error_the_model_reads(tmp_path: Path) -> None:
    model = RecordingModel(
        [
            output({"file_count": "three"}),
            output({"file_count": 3, "has_tests": False}),
            {"text": "Done."},
        ]
    )
    messages = run(tmp_path, model)
    first = next(
        b for m in messages if isinstance(m, UserMessage) for b in m.content
        if isinstance(b, ToolResultBlock)
    )  # fmt: skip
    assert first.is_error and "does not fit the schema" in str(first.content)
    assert messages[-1].structured_output == {"file_count": 3, "has_tests": False}


def test_a_model_that_ends_without_it_is_sent_back(tmp_path: Path) -> None:
    model = RecordingModel(
        [{"text": "There are 3."}, output({"file_count": 3, "has_tests": True}), {"text": "ok"}]
    )
    result = run(tmp_path, model)[-1]
    assert result.structured_output == {"file_count": 3, "has_tests": True}
    assert model.seen[1].shows("Call it now.")


def test_a_model_that_never_gives_it_fails_the_response(tmp_path: Path) -> None:
    model = RecordingModel([{"text": "No."}] * (RETRIES + 2))
    result = run(tmp_path, model)[-1]
    assert (result.subtype, result.is_error, result.structured_output) == (
        "error_max_structured_output_retries", True, None,
    )  # fmt: skip
    assert len(model.seen) == RETRIES + 1


@pytest.mark.parametrize(
    "given",
    [
        {"type": "json_schema"},
        {"type": "text"},
        {"type": "json_schema", "schema": {"type": "array"}},
    ],
)
def test_an_output_format_hookline_cannot_use_is_one_error(tmp_path: Path, given: Any) -> None:
    options = ClaudeAgentOptions(cwd=tmp_path, model=RecordingModel([]), output_format=given)

    async def go() -> None:
        async with ClaudeSDKClient(options=options):
            pass

    with pytest.raises(ConfigError, match="output_format"):
        asyncio.run(go())
