"""The prebuilt JSON encoders write exactly what the standard library's encoder writes."""

from __future__ import annotations

import json
import math

import pytest

from hookline._support import jsontext

VALUES = [
    {"b": 1, "a": [1.5, None, True, "é ✓ \u2028 \x01"], "c": {"z": {}, "y": []}},
    [0.1, 1e16, -0.0, 12345678901234567890],
    "plain",
    {"nested": [{"k": "v"}] * 3},
]


@pytest.mark.parametrize("value", VALUES)
def test_compact_and_canonical_match_the_standard_encoder(value: object) -> None:
    assert jsontext.compact(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    assert jsontext.canonical(value) == json.dumps(
        value, ensure_ascii=False, separators=(",", ":"), sort_keys=True
    )
    assert jsontext.strict(value) == jsontext.compact(value)


def test_compact_writes_foreign_objects_as_text_and_strict_refuses_them() -> None:
    assert jsontext.compact({"when": object}) == '{"when":"<class \'object\'>"}'
    with pytest.raises(TypeError, match="not JSON serializable"):
        jsontext.strict({"when": object})
    with pytest.raises(TypeError):
        jsontext.canonical(object())


def test_strict_refuses_nan_the_others_write_it() -> None:
    with pytest.raises(ValueError):
        jsontext.strict([math.nan])
    assert jsontext.canonical([math.nan]) == "[NaN]"


def test_strict_writes_a_lone_surrogate_as_an_escape_so_its_text_is_utf8() -> None:
    value = {"text": "a \ud800 b \udfff é"}
    text = jsontext.strict(value)
    assert text == '{"text":"a \\ud800 b \\udfff é"}'
    assert json.loads(text.encode("utf-8")) == value
    assert jsontext.strict({"text": "é \u2028"}) == jsontext.compact({"text": "é \u2028"})


def _starlette(value: object) -> bytes:
    """What Starlette's ``JSONResponse.render`` writes."""
    text = json.dumps(
        value, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":")
    )
    return text.encode("utf-8")


ANSWERS = [
    *VALUES[1:],  # the first holds a float, written the standard way: see below
    {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "".join(map(chr, range(0x800))) + "\u2028\u2029\ufeff",
            "updatedInput": {"command": "ls", "n": [2**63 - 1, -(2**63) + 1, 0], "x": None},
        },
        "continue": False,
    },
    {"big": 2**63, "small": -(2**63), "huge": 10**30},  # beyond 64 bits: the standard way
    {1: "a key that is not text", "f": 1e16, "t": (1, 2)},
    [[[["deep"]]]],
]


@pytest.mark.parametrize("value", [*VALUES, *ANSWERS])
def test_a_response_is_what_starlettes_json_response_writes(value: object) -> None:
    assert jsontext.response(value) == _starlette(value)


def test_a_response_deeper_than_orjson_goes_writes_the_same() -> None:
    deep: list[object] = ["end"]
    for _ in range(300):
        deep = [deep]
    assert jsontext.response(deep) == _starlette(deep)


def test_a_response_refuses_what_starlette_refuses() -> None:
    with pytest.raises(ValueError):
        jsontext.response({"n": math.nan})
    with pytest.raises(TypeError, match="not JSON serializable"):
        jsontext.response({"when": object()})
    with pytest.raises(UnicodeEncodeError):
        jsontext.response({"text": "a \ud800"})
