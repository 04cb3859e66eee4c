"""JSON text on the hot path: compact, non-ASCII kept, from CPython's C encoder built once.

``json.JSONEncoder.encode`` builds a new C encoder on every call (about a microsecond); the
transcript, the audit log and the stores encode several values per tool call, so each form is
built once here. The output is exactly what the matching ``JSONEncoder`` would write, except
that ``strict`` writes a lone surrogate as its ``\\u`` escape: its text is always valid UTF-8.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, NoReturn


def _refuse(value: Any) -> NoReturn:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _encoder(*, sort_keys: bool, allow_nan: bool, default: Callable[[Any], Any]) -> Any:
    fallback = json.JSONEncoder(
        ensure_ascii=False, separators=(",", ":"), sort_keys=sort_keys, allow_nan=allow_nan,
        default=default,
    )  # fmt: skip
    try:
        from _json import make_encoder
    except ImportError:  # pragma: no cover - interpreters without the C accelerator
        return fallback.encode
    make = make_encoder(None, default, json.encoder.encode_basestring, None, ":", ",", sort_keys,
                        False, allow_nan)  # fmt: skip
    return lambda value: "".join(make(value, 0))


#: Compact JSON; what JSON cannot hold is written as ``str(value)`` (transcripts, previews).
compact: Callable[[Any], str] = _encoder(sort_keys=False, allow_nan=True, default=str)
#: Sorted keys, for hashing: the same value always gives the same text.
canonical: Callable[[Any], str] = _encoder(sort_keys=True, allow_nan=True, default=_refuse)

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
