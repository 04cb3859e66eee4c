"""Redaction: secrets masked in every string of a value, before the audit hashes or writes it.

What counts as a secret is the table in ``hookline.audit._secrets``: provider keys (OpenAI and
Anthropic ``sk-…``, Stripe ``sk_live_…``/``rk_live_…``, AWS ``AKIA…``, Google ``AIza…``, GitHub
``ghp_…``/``gho_…``/``ghs_…``/``github_pat_…``, GitLab ``glpat-…``, npm ``npm_…``, Slack
``xoxb-…``), ``Authorization:`` headers and ``Bearer <token>``, JWTs, PEM private keys, URL
userinfo (``postgres://user:…@host``), ``curl -u user:…``, ``mysql -p…``, ``--password …``,
``*_KEY=``/``*_SECRET=``/``*_TOKEN=``/``*_PASSWORD=`` assignments, password-like pairs
(``password=…``, ``"api_key": "…"``) and any value under a dict key such as ``password``,
``db_password`` or ``github_token``. A mask keeps a short prefix so a reader knows what was
there: ``sk_live_…[REDACTED]``, ``postgres://admin:…[REDACTED]@db``.

A team adds its own patterns with the ``redact`` settings key, a list of regular expressions
in any settings layer (all layers' lists are joined; see ``patterns_from_settings``), or with
``Redactor(patterns=...)``. They are masked whole (``[REDACTED]``) and should not use numbered
backreferences, since all patterns are combined into one expression.

Speed. Each built-in kind has literal markers (``sk-``, ``akia``, ``://``, ...). A string is
lowered once and searched for them (substring search, at C speed); only the kinds whose marker
occurs, plus the configured patterns, go into the one regular-expression pass, compiled once
per combination. Password-like pairs are matched only where a keyword (``pass``, ``secret``,
``api``, ``access``, ``token``) starts. Most strings hold no marker and pass after the search;
short ones (names, keys) are remembered. No detector library: those tried were far slower per
record and missed kinds this table has.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from hookline._errors import ConfigError
from hookline.audit._commandline import masked_commands
from hookline.audit._secrets import KINDS, PAIR, PAIR_WORDS, SECRET_KEY

if TYPE_CHECKING:
    from hookline._settings_layers import Layer

MASK = "[REDACTED]"
#: The settings key whose list of regular expressions a team adds to the built-in kinds.
SETTINGS_KEY = "redact"
_BUILT_IN = frozenset(kind.name for kind in KINDS)
_FLAGS = ((re.IGNORECASE, "i"), (re.MULTILINE, "m"), (re.DOTALL, "s"), (re.VERBOSE, "x"))
_MEMO_LENGTH = 64  # strings up to this long are remembered ...
_MEMO_SIZE = 4096  # ... this many at a time
_LEARNED = 256  # passwords from parsed command lines, the newest kept
_LEARNED_MASK = f"…{MASK}"
_PEM_END = re.compile(r"-----END [^\n]*-----")


class Redactor:
    """Masks secrets in every string (and dict key) of a nested value; returns plain JSON data.

    ``redact`` also makes the value JSON-safe: tuples and sets become lists, other objects
    their ``str``, non-finite floats a string, and strings with lone surrogates are escaped
    (``\\ud800`` as text), unless ``keep_surrogates`` (for JSON output, which escapes them
    itself and must parse back to what was said).
    """

    def __init__(
        self, patterns: Iterable[str | re.Pattern[str]] = (), *, keep_surrogates: bool = False
    ) -> None:
        self.keep_surrogates = keep_surrogates
        self.patterns = tuple(_configured(p) for p in patterns)
        custom = "|".join(f"(?P<c{i}>{p})" for i, p in enumerate(self.patterns))
        problem = "the redaction patterns do not combine"
        fix = "use named groups or none instead of numbered backreferences"
        self._custom = _regex(custom, problem, fix) if custom else None
        #: (marker, bit) to find in the lowered text; upper-case markers, in the text as it is.
        pairs = [(m, 1 << bit) for bit, kind in enumerate(KINDS) for m in kind.markers]
        self._lower = tuple((m, bit) for m, bit in pairs if m == m.lower())
        self._cased = tuple((m, bit) for m, bit in pairs if m != m.lower())
        self._memo: dict[str, str] = {}
        self._secret_keys: dict[str, bool] = {}
        #: Passwords found in parsed command lines, masked wherever they appear from then on.
        self._learned: dict[str, str] = {}
        self._known: re.Pattern[str] | None = None

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

    def _walk(self, value: Any, hide: bool, command: bool = False) -> Any:
        """``hide``: under a secret-looking key; ``command``: under a ``command`` key, so a
        Bash line, whose commands' password options are masked first (``commandline``)."""
        kind = type(value)
        if kind is str:
            if hide and value:
                return MASK
            return self.text(self._command(value) if command else value)
        if value is None or kind is int or kind is bool:
            return value
        if kind is float:
            return value if math.isfinite(value) else str(value)
        if kind is dict or isinstance(value, Mapping):
            return self._mapping(value, hide, command)
        if isinstance(value, list | tuple | set | frozenset):
            return [self._walk(item, hide, command) for item in value]
        if isinstance(value, bytes | bytearray):
            return self._walk(bytes(value).decode("utf-8", "replace"), hide)
        return self._walk(str(value), hide)

    def _mapping(self, value: Mapping[Any, Any], hide: bool, command: bool) -> dict[str, Any]:
        """A mapping walked as ``_walk`` walks it: its keys masked (and remembered) as texts;
        a plain string under a key that hides nothing, a number, an empty list and a dict taken
        as ``_walk`` takes them, without a call of ``_walk`` (most of a record's values are
        those)."""
        out: dict[str, Any] = {}
        memo, secret_keys = self._memo, self._secret_keys  # hold short strings only
        for key, item in value.items():
            name = key if type(key) is str else str(key)
            shown = memo.get(name)
            if shown is None:
                shown = self.text(name)
            secret = secret_keys.get(name)
            if secret is None:
                secret = self._is_secret_key(name)
            kind = type(item)
            if kind is str and not (hide or secret or command or name == "command"):
                done = memo.get(item)
                out[shown] = self.text(item) if done is None else done
            elif item is None or kind is int or kind is bool:
                out[shown] = item
            elif kind is float:
                out[shown] = item if math.isfinite(item) else str(item)
            elif kind is dict:  # one frame a level, as deep as ``_walk`` alone went
                out[shown] = self._mapping(item, hide or secret, command or name == "command")
            elif kind is list and not item:
                out[shown] = []
            else:
                out[shown] = self._walk(item, hide or secret, command or name == "command")
        return out

    def learn(self, tool_input: Any) -> None:
        """Learn the passwords of a tool input's Bash line (its ``command``) before anything
        about the call is masked: a hook's reason may quote it before the input is recorded."""
        line = tool_input.get("command") if isinstance(tool_input, Mapping) else None
        if isinstance(line, str):
            self._command(line)

    def _command(self, line: str) -> str:
        """A Bash line with its programs' passwords masked; each one learned."""
        before = len(self._learned)
        masked = masked_commands(line, self._learned)
        if len(self._learned) != before:
            while len(self._learned) > _LEARNED:
                del self._learned[next(iter(self._learned))]
            words = sorted(self._learned, key=len, reverse=True)
            either = "|".join(map(re.escape, words))
            self._known = re.compile(rf"(?<![A-Za-z0-9])(?:{either})(?![A-Za-z0-9])")
            self._memo.clear()  # a string remembered before may hold one
        return masked

    def _is_secret_key(self, name: str) -> bool:
        known = self._secret_keys.get(name)
        if known is None:
            if len(self._secret_keys) >= _MEMO_SIZE:
                self._secret_keys.clear()
            known = self._secret_keys[name] = SECRET_KEY.search(name) is not None
        return known

    def _scrub(self, text: str) -> str:
        """Configured patterns first, then each kind whose marker occurs, one pass each (a
        pattern that starts with a literal is searched at C speed), then password pairs."""
        if not self.keep_surrogates and not text.isascii():
            text = _encodable(text)
        if self._known is not None:
            text = self._known.sub(_LEARNED_MASK, text)
        lowered = text.lower()
        found = 0
        for marker, bit in self._lower:
            if marker in lowered:
                found |= bit
        for marker, bit in self._cased:
            if marker in text:
                found |= bit
        if self._custom is not None:
            text = self._custom.sub(MASK, text)
        for index in range(found.bit_length()):
            if found >> index & 1:
                text = _compiled(index).sub(_mask, text)
        if found or self._custom is not None:
            lowered = text.lower()
        if (
            "pass" in lowered
            or "secret" in lowered
            or "api" in lowered
            or "access" in lowered
            or "token" in lowered
            or "private" in lowered
        ):
            return _pairs(text, lowered)
        return text


@cache
class LineMasker:
    """Text that arrives in pieces (a streaming model's), masked a line at a time: ``feed``
    gives back the whole lines received so far, masked, and keeps the rest; ``flush`` the rest.
    A secret cut across pieces is whole when its line is, and a PEM block is held until its
    ``-----END`` line, so its body is masked with it."""

    def __init__(self, redactor: Redactor) -> None:
        self.redactor = redactor
        self._held = ""

    def feed(self, piece: str) -> str:
        text = self._held + piece
        end = text.rfind("\n") + 1
        begun = text.rfind("-----BEGIN ")
        if begun >= 0 and not _PEM_END.search(text, begun):  # the block is not whole yet
            end = min(end, text.rfind("\n", 0, begun) + 1)
        self._held = text[end:]
        return self.redactor.text(text[:end]) if end else ""

    def flush(self) -> str:
        text, self._held = self._held, ""
        return self.redactor.text(text) if text else ""


def _compiled(bit: int) -> re.Pattern[str]:
    """One built-in kind's pattern, compiled the first time a text holds its marker."""
    kind = KINDS[bit]
    return re.compile(f"(?P<{kind.name}>{kind.pattern})")


def patterns_from_settings(layers: Sequence[Layer]) -> tuple[str, ...]:
    """Every layer's ``redact`` patterns, joined without repeats (checked by ``Redactor``).

    A team's patterns are never dropped quietly: a ``redact`` that is not a list of strings is
    a ``ConfigError`` naming the file, so the run does not start with its secrets in clear."""
    found: dict[str, None] = {}
    for layer in layers:
        value = layer.data.get(SETTINGS_KEY)
        if value is None:
            continue
        if not isinstance(value, list) or not all(isinstance(p, str) for p in value):
            raise ConfigError(
                "redact must be a list of regular expressions",
                file=layer.path,
                key=SETTINGS_KEY,
                fix='write "redact": ["ORDER-\\\\d{6}", "(?i:internal-[a-z]+)"]',
            )
        found.update(dict.fromkeys(value))
    return tuple(found)


#: How deep a preview goes; below it, a stand-in (a hook may answer with any nesting).
CLIP_DEPTH = 64


def clip(value: Any, limit: int, _depth: int = 0) -> Any:
    """``value`` with each string over ``limit`` characters cut to a preview, and anything
    nested deeper than ``CLIP_DEPTH`` replaced by a stand-in saying so. Clip only what is
    already redacted: a secret cut in half no longer looks like one."""
    if isinstance(value, str):
        extra = len(value) - limit
        return value if extra <= 0 else f"{value[:limit]}…[+{extra} chars]"
    if isinstance(value, dict | list) and _depth >= CLIP_DEPTH:
        return f"[nested deeper than {CLIP_DEPTH} levels]"
    if isinstance(value, dict):
        return {key: clip(item, limit, _depth + 1) for key, item in value.items()}
    if isinstance(value, list):
        return [clip(item, limit, _depth + 1) for item in value]
    return value


def _mask(match: re.Match[str]) -> str:
    name = match.lastgroup
    if name not in _BUILT_IN:  # a configured pattern: masked whole
        return MASK
    return f"{match.group(name + '_p')}…{MASK}"


def _pairs(text: str, lowered: str) -> str:
    """Mask the values of password-like pairs, trying the case-insensitive alternation only
    where a keyword starts (tried at every position, it would cost time for every character)."""
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
