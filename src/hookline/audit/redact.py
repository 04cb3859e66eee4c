"""Redaction: secrets masked in every string of a value, before the audit hashes or writes it.

Built in: API keys (``sk-…`` of OpenAI and Anthropic, AWS ``AKIA…``/``ASIA…``, GitHub ``ghp_…``
and ``github_pat_…``, Slack ``xoxb-…``), ``Authorization:`` headers and ``Bearer <token>``, JWTs,
PEM private keys, and password-like pairs: ``password=…``, ``"api_key": "…"`` in text, and any
value under a dict key such as ``password``, ``db_password``, ``api_key`` or ``github_token``.
A mask keeps a short prefix so a reader knows what was there: ``sk-ant-…[REDACTED]``. Patterns
given to ``Redactor(patterns=...)`` are masked whole (``[REDACTED]``); they should not use
numbered backreferences, since all patterns are combined into one expression.

Speed. Each built-in kind has literal markers (``sk-``, ``akia``, ``bearer``, ...). A string is
lowered once and searched for them (substring search, at C speed); only the kinds whose marker
occurs, plus the configured patterns, go into the one regular-expression pass, compiled once
per combination. Password-like pairs are matched only where a keyword (``pass``, ``secret``,
``api``, ``access``, ``token``) starts. Most strings hold no marker and cost well under a
microsecond; short ones (names, keys) are remembered.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

from hookline.errors import ConfigError

MASK = "[REDACTED]"
_TOKEN = r"[A-Za-z0-9._~+/=-]"

#: (name, lowercase markers, pattern). A ``<name>_p`` group is the prefix the mask keeps.
KINDS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("pem", ("private key",),
     r"(?P<pem_p>-----BEGIN[A-Z0-9 ]*PRIVATE KEY-----)[\s\S]*?"
     r"(?:-----END[A-Z0-9 ]*PRIVATE KEY-----|\Z)"),
    ("sk", ("sk-",),
     r"(?P<sk_p>sk-(?<![A-Za-z0-9]sk-)(?:ant-(?:api\d\d-)?|proj-|svcacct-|admin-)?)"
     r"[A-Za-z0-9_-]{20,}"),
    ("aws", ("akia", "asia"), r"(?P<aws_p>A[KS]IA)(?<![A-Z0-9]A[KS]IA)[0-9A-Z]{16}(?![0-9A-Z])"),
    ("gh", ("gh",),
     r"(?P<gh_p>gh[pousr]_|github_pat_)(?<![A-Za-z0-9]gh[pousr]_)[A-Za-z0-9_]{30,}"),
    ("slack", ("xox",), r"(?P<slack_p>xox[abposr]-)[A-Za-z0-9-]{10,}"),
    ("auth", ("authorization",),
     rf"(?P<auth_p>(?i:authorization)[\"']?\s*[:=]\s*[\"']?(?:(?i:bearer|basic|token)\s+)?)"
     rf"{_TOKEN}{{8,}}"),
    ("bearer", ("bearer",),
     rf"(?P<bearer_p>(?i:bearer)\s+)(?:(?=[A-Za-z._~+/=-]*[0-9]){_TOKEN}{{12,}}|{_TOKEN}{{24,}})"),
    ("jwt", ("eyj",),
     r"(?P<jwt_p>eyJ)(?<![A-Za-z0-9_-]eyJ)[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
)  # fmt: skip

_BUILT_IN = frozenset(name for name, _, _ in KINDS)

#: ``password=…``, ``"api_key": "…"``, ``token: …``: matched where a keyword starts (see _pairs).
PAIR = re.compile(
    r"(?P<keep>(?i:passw(?:or)?d|passphrase|secret(?:[_-]?key)?|api[_-]?key|access[_-]?key|token)"
    r"[\"']?\s*[:=]\s*(?P<quote>[\"'])?)(?(quote)[^\"'\n]+|[^\s\"'&;,]+)"
)
PAIR_WORDS = ("pass", "secret", "api", "access", "token")

#: Dict keys whose values are secrets whatever they look like.
SECRET_KEY = re.compile(
    r"(?i)(?:^|[_-])(?:password|passwd|passphrase|secret(?:[_-]?key)?|api[_-]?key|"
    r"access[_-]?key|token|auth|authorization|credentials?|private[_-]?key)$"
)
_FLAGS = ((re.IGNORECASE, "i"), (re.MULTILINE, "m"), (re.DOTALL, "s"), (re.VERBOSE, "x"))
_MEMO_LENGTH = 64  # strings up to this long are remembered ...
_MEMO_SIZE = 4096  # ... this many at a time


class Redactor:
    """Masks secrets in every string (and dict key) of a nested value; returns plain JSON data.

    ``redact`` also makes the value JSON-safe: tuples and sets become lists, other objects
    their ``str``, non-finite floats a string, and strings with lone surrogates are escaped.
    """

    def __init__(self, patterns: Iterable[str | re.Pattern[str]] = ()) -> None:
        self.patterns = tuple(_configured(p) for p in patterns)
        self._custom = "|".join(f"(?P<c{i}>{p})" for i, p in enumerate(self.patterns))
        self._markers = [
            (1 << bit, marker) for bit, (_, markers, _) in enumerate(KINDS) for marker in markers
        ]
        self._passes: dict[int, re.Pattern[str]] = {}
        self._memo: dict[str, str] = {}
        self._secret_keys: dict[str, bool] = {}
        self._compile(0)  # the configured patterns, checked together once

    def redact(self, value: Any) -> Any:
        """``value`` with every secret masked, as plain JSON data."""
        return self._walk(value, False)

    def text(self, value: str) -> str:
        """One string with its secrets masked."""
        if len(value) > _MEMO_LENGTH:
            return self._scrub(value)
        done = self._memo.get(value)
        if done is None:
            if len(self._memo) >= _MEMO_SIZE:
                self._memo.clear()
            done = self._memo[value] = self._scrub(value)
        return done

    def _walk(self, value: Any, hide: bool) -> Any:
        kind = type(value)
        if kind is str:
            return MASK if hide and value else self.text(value)
        if value is None or kind is int or kind is bool:
            return value
        if kind is float:
            return value if math.isfinite(value) else str(value)
        if isinstance(value, Mapping):
            out = {}
            for key, item in value.items():
                name = key if type(key) is str else str(key)
                out[self.text(name)] = self._walk(item, hide or self._is_secret_key(name))
            return out
        if isinstance(value, list | tuple | set | frozenset):
            return [self._walk(item, hide) for item in value]
        if isinstance(value, bytes | bytearray):
            return self._walk(bytes(value).decode("utf-8", "replace"), hide)
        return self._walk(str(value), hide)

    def _is_secret_key(self, name: str) -> bool:
        known = self._secret_keys.get(name)
        if known is None:
            if len(self._secret_keys) >= _MEMO_SIZE:
                self._secret_keys.clear()
            known = self._secret_keys[name] = SECRET_KEY.search(name) is not None
        return known

    def _scrub(self, text: str) -> str:
        if not text.isascii():
            text = _encodable(text)
        lowered = text.lower()
        found = 0
        for bit, marker in self._markers:
            if marker in lowered:
                found |= bit
        if found or self._custom:
            pattern = self._passes.get(found) or self._compile(found)
            text = pattern.sub(_mask, text)
            lowered = text.lower()
        if (
            "pass" in lowered
            or "secret" in lowered
            or "api" in lowered
            or "access" in lowered
            or "token" in lowered
        ):
            return _pairs(text, lowered)
        return text

    def _compile(self, found: int) -> re.Pattern[str]:
        parts = [f"(?P<{name}>{rx})" for bit, (name, _, rx) in enumerate(KINDS) if found >> bit & 1]
        if self._custom:
            parts.append(self._custom)
        problem = "the redaction patterns do not combine"
        fix = "use named groups or none instead of numbered backreferences"
        pattern = self._passes[found] = _regex("|".join(parts), problem, fix)
        return pattern


def clip(value: Any, limit: int) -> Any:
    """``value`` with each string over ``limit`` characters cut to a preview. Clip only what is
    already redacted: a secret cut in half no longer looks like one."""
    if isinstance(value, str):
        extra = len(value) - limit
        return value if extra <= 0 else f"{value[:limit]}…[+{extra} chars]"
    if isinstance(value, dict):
        return {key: clip(item, limit) for key, item in value.items()}
    if isinstance(value, list):
        return [clip(item, limit) for item in value]
    return value


def _mask(match: re.Match[str]) -> str:
    name = match.lastgroup
    if name not in _BUILT_IN:  # a configured pattern: masked whole
        return MASK
    return f"{match.group(name + '_p')}…{MASK}"


def _pairs(text: str, lowered: str) -> str:
    """Mask the values of password-like pairs. A case-insensitive alternation tried at every
    position costs ~150 ns a character; trying it only where a keyword starts costs ~nothing."""
    if len(lowered) != len(text):  # lowering changed the length: the offsets would not fit
        return PAIR.sub(_mask_pair, text)
    starts = sorted(i for word in PAIR_WORDS for i in _occurrences(lowered, word))
    parts: list[str] = []
    done = 0
    for start in starts:
        match = PAIR.match(text, start) if start >= done else None
        if match is not None:
            parts += (text[done:start], _mask_pair(match))
            done = match.end()
    return "".join(parts) + text[done:] if parts else text


def _occurrences(text: str, word: str) -> list[int]:
    found, at = [], text.find(word)
    while at >= 0:
        found.append(at)
        at = text.find(word, at + 1)
    return found


def _mask_pair(match: re.Match[str]) -> str:
    return f"{match.group('keep')}…{MASK}"


def _configured(pattern: str | re.Pattern[str]) -> str:
    """A configured pattern as source text, its flags made inline."""
    if isinstance(pattern, re.Pattern):
        flags = "".join(letter for flag, letter in _FLAGS if pattern.flags & flag)
        source = f"(?{flags}:{pattern.pattern})" if flags else pattern.pattern
    else:
        source = pattern
    fix = "escape special characters (re.escape), and scope flags: (?i:...), not (?i)..."
    compiled = _regex(f"(?:{source})", f"{source!r} is not a valid regular expression", fix)
    if compiled.match(""):
        raise ConfigError(
            f"{source!r} matches the empty string, so it would mask nothing useful",
            key="redact",
            fix="make the pattern match at least one character",
        )
    return f"(?:{source})"


def _regex(source: str, problem: str, fix: str) -> re.Pattern[str]:
    """``source`` compiled; a ``ConfigError`` saying ``problem`` (and why) if it does not."""
    try:
        return re.compile(source)
    except re.error as exc:
        raise ConfigError(f"{problem}: {exc}", key="redact", fix=fix) from None


def _encodable(text: str) -> str:
    """``text`` with lone surrogates (from undecodable bytes) escaped, so it encodes as UTF-8."""
    try:
        text.encode()
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode()
    return text
