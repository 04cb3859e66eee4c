"""Read-only JSON values (``freeze``): every dict and list in a value is made read-only, the
value itself is left as it was, and a part already frozen is reused."""

from __future__ import annotations

from typing import Any

import pytest

from hookline._support.frozen import FrozenDict, FrozenList, copy_json, freeze


def _value() -> dict[str, Any]:
    return {"a": {"b": [1, {"c": 2}, []]}, "d": "x", "e": [{"f": None}], "g": 1.5}


def test_every_dict_and_list_inside_is_read_only_and_the_value_is_left_as_it_was() -> None:
    value = _value()
    frozen = freeze(value)
    assert frozen == _value() and value == _value()
    inner = frozen["a"]["b"]
    assert (type(frozen), type(frozen["a"]), type(inner)) == (FrozenDict, FrozenDict, FrozenList)
    assert type(inner[1]) is FrozenDict and type(inner[2]) is FrozenList
    assert type(frozen["e"]) is FrozenList and type(frozen["e"][0]) is FrozenDict
    assert frozen["a"] is not value["a"] and inner is not value["a"]["b"]
    for part, change in [
        (frozen, lambda p: p.update(d="y")),
        (frozen["a"], lambda p: p.__setitem__("b", 0)),
        (inner, lambda p: p.append(2)),
        (inner[1], lambda p: p.pop("c")),
        (frozen["e"][0], lambda p: p.__setitem__("f", 1)),
    ]:
        with pytest.raises(TypeError, match="read-only"):
            change(part)
    assert frozen == _value()


def test_a_frozen_part_is_reused_and_other_values_are_kept_as_they_are() -> None:
    part = freeze({"k": [1]})
    whole = freeze({"part": part, "items": [part, "s"]})
    assert whole["part"] is part and whole["items"][0] is part
    assert freeze("text") == "text" and freeze(None) is None
    marker = object()
    assert freeze([marker])[0] is marker


def test_a_copy_of_a_frozen_value_is_plain_and_writable() -> None:
    copied = copy_json(freeze(_value()))
    assert type(copied) is dict and type(copied["a"]["b"]) is list
    copied["a"]["b"].append(3)
    assert copied["a"]["b"] == [1, {"c": 2}, [], 3]
