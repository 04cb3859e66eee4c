"""JSON text as hookline writes it: compact, non-ASCII kept, in three forms.

Each form is one ``json.JSONEncoder`` built once with its options, so every caller writes the
same bytes (Claude Code's transcripts are compact, ``ensure_ascii`` off). ``strict`` also writes a
lone surrogate as its ``\\u`` escape: its text is always valid UTF-8.

Only the public API (``JSONEncoder.encode``), never CPython's private C encoder. ``check_circular``
is off: these values are trees of plain data. ``response`` writes a hook's JSON answer as Starlette
does, by orjson where that gives the same bytes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, Final, NoReturn

import orjson


def _refuse(value: Any) -> NoReturn:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _encoder(*, sort_keys: bool, allow_nan: bool, default: Callable[[Any], Any]) -> Any:
    encoder = json.JSONEncoder(
        ensure_ascii=False,
        separators=(",", ":"),
        sort_keys=sort_keys,
        allow_nan=allow_nan,
        default=default,
        check_circular=False,
    )
    return encoder.encode


#: Compact JSON; what JSON cannot hold is written as ``str(value)`` (transcripts, previews).
compact: Callable[[Any], str] = _encoder(sort_keys=False, allow_nan=True, default=str)
#: Sorted keys, for hashing: the same value always gives the same text.
canonical: Callable[[Any], str] = _encoder(sort_keys=True, allow_nan=True, default=_refuse)

#: What Starlette's ``JSONResponse`` writes (NaN, infinities and foreign objects refused, keys
#: as given), with one encoder instead of one made for every answer.
_response: Callable[[Any], str] = _encoder(sort_keys=False, allow_nan=False, default=_refuse)
#: Integers orjson writes as the standard encoder does (it refuses those beyond 64 bits).
_ORJSON_INTS: Final = 1 << 63
#: The deepest value taken to orjson (it refuses those past 255 levels; the encoder does not).
_ORJSON_DEPTH: Final = 64


def response(value: Any) -> bytes:
    """The bytes Starlette's ``JSONResponse`` writes for ``value`` (UTF-8): by orjson for a
    value of only strings, booleans, None, 64-bit integers, lists and objects with text keys
    (a hook's answer), whose bytes are the same (tested); the standard encoder for the rest,
    floats among them (orjson spells some otherwise, and writes NaN instead of refusing it)."""
    if _plain(value, 0):
        try:
            return orjson.dumps(value)
        except orjson.JSONEncodeError:  # a lone surrogate: refused below as Starlette does
            pass
    return _response(value).encode("utf-8")


def _plain(value: Any, depth: int) -> bool:
    """Whether ``value`` is only what ``response`` takes to orjson (text leaves inline: a call
    a level, not one a value)."""
    kind = type(value)
    if kind is dict or kind is list:
        if depth >= _ORJSON_DEPTH:
            return False
        for key, item in value.items() if kind is dict else enumerate(value):
            leaf = type(item)
            if kind is dict and type(key) is not str:
                return False
            if not (leaf is str or leaf is bool or item is None or _plain(item, depth + 1)):
                return False
        return True
    if kind is int:
        return bool(-_ORJSON_INTS < value < _ORJSON_INTS)
    return kind is str or kind is bool or value is None


_SURROGATE = re.compile("[\ud800-\udfff]")


def _utf8(encode: Callable[[Any], str]) -> Callable[[Any], str]:
    """``encode`` with lone surrogates written as ``\\u`` escapes (JSON reads them back as the
    same characters; UTF-8 cannot hold them raw). Outside strings JSON text is ASCII."""

    def encoded(value: Any) -> str:
        text = encode(value)
        if text.isascii() or not _SURROGATE.search(text):
            return text
        return _SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)

    return encoded


#: Strict: NaN, infinities and foreign objects are refused, lone surrogates escaped (what a
#: database column keeps, as UTF-8).
strict: Callable[[Any], str] = _utf8(_encoder(sort_keys=False, allow_nan=False, default=_refuse))
#: ``strict`` with sorted keys: the text of a value inside ``canonical`` JSON, as UTF-8 (a lone
#: surrogate's escape is what ``canonical`` text encoded with ``backslashreplace`` holds).
strict_sorted: Callable[[Any], str] = _utf8(
    _encoder(sort_keys=True, allow_nan=False, default=_refuse)
)
