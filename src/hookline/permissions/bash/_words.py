"""Bash words after quote removal: what a word of the parsed line will be when the line runs.

``word_of(node, source)`` reads one tree-sitter word node (a plain word, ``'...'``, ``"..."``,
``$'...'``, a concatenation of those) into a ``Word``: its value with quotes and backslashes
removed, or None when an expansion or substitution makes the value unknowable until run time.
``$HOME`` and ``${HOME}`` at the start of a word read as ``~``. ``brace_expand`` expands the
unquoted braces of a word (``{a,b}``, ``{1..3}``) as Bash does before anything else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import pairwise
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from tree_sitter import Node

#: Words one brace expansion may produce before the line counts as unknowable.
MAX_EXPANSIONS = 256
_HOME = frozenset({"$HOME", "${HOME}"})
#: Word nodes whose text is their value, when they hold no backslash.
_PLAIN = frozenset({"word", "number"})
_DQ_ESCAPES = frozenset('"\\$`')
_C_ESCAPES: Final = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}
_C_NUMERIC = re.compile(r"x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.")
_SEQUENCE = re.compile(r"(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?")


@dataclass(frozen=True, slots=True)
class Word:
    """One word as Bash will see it: its value, or None when only run time knows it."""

    value: str | None
    raw: str = ""
    #: Unquoted ``*``, ``?`` or ``[``: Bash expands it against the file system.
    glob: bool = False
    #: An unquoted ``~`` starts it (or ``$HOME``): it is relative to the home folder.
    tilde: bool = False
    #: One character per character of ``value``: "q" where it was quoted, "." where not.
    mask: str = field(default="", compare=False, repr=False)


def node_text(node: Node, source: bytes) -> str:
    """The text of a parsed node, cut from the ``source`` it was parsed from."""
    return source[node.start_byte : node.end_byte].decode(errors="replace")


def literal(text: str) -> Word:
    """A word that is just ``text`` (as if every character were quoted)."""
    return Word(text, raw=text, mask="q" * len(text))


def word_of(node: Node, source: bytes) -> Word:
    """The word ``node`` will be after quote removal."""
    raw = node_text(node, source)
    if node.type in _PLAIN and "\\" not in raw:  # the common case: nothing to remove
        return _word(raw, "." * len(raw), raw)
    parts = _chars(node, source)
    if parts is None:
        return Word(None, raw=raw)
    value = "".join(c for c, _ in parts)
    mask = "".join("q" if q else "." for _, q in parts)
    return _word(value, mask, raw)


def _word(value: str, mask: str, raw: str) -> Word:
    glob = ("*" in value or "?" in value or "[" in value) and any(
        c in "*?[" and m == "." for c, m in zip(value, mask, strict=True)
    )
    tilde = value.startswith("~") and mask[:1] == "."
    return Word(value, raw=raw, glob=glob, tilde=tilde, mask=mask)


Chars = list[tuple[str, bool]]


def _chars(node: Node, source: bytes, *, first: bool = True) -> Chars | None:
    """The characters of a word node and whether each was quoted; None if not literal."""
    kind, text = node.type, node_text(node, source)
    if kind in ("word", "number", "brace_expression", "special_variable_name"):
        return _unescaped(text)
    if kind == "raw_string":
        return [(c, True) for c in text[1:-1]]
    if kind in ("string", "translated_string"):
        return _double_quoted(node, source, first=first)
    if kind == "ansi_c_string":
        return [(c, True) for c in _ansi_c(text[2:-1])]
    if kind == "concatenation":
        return _joined(node, source)
    if kind in ("simple_expansion", "expansion") and text in _HOME and first:
        return [("~", False)]  # read as a tilde only where it starts the word
    return None


def _joined(node: Node, source: bytes) -> Chars | None:
    out: Chars = []
    for child in node.children:
        part = _chars(child, source, first=not out)
        if part is None:
            return None
        out.extend(part)
    return out


def _unescaped(text: str) -> Chars:
    out: Chars = []
    chars = iter(text)
    for char in chars:
        if char != "\\":
            out.append((char, False))
            continue
        escaped = next(chars, "")
        if escaped and escaped != "\n":
            out.append((escaped, True))
    return out


def _double_quoted(node: Node, source: bytes, *, first: bool) -> Chars | None:
    """Inside ``"..."``: only ``$``, backticks and some backslashes are special."""
    out: Chars = []
    start, end = node.start_byte + (2 if node.type == "translated_string" else 1), node.end_byte - 1
    offset = 0
    position = start
    for child in node.named_children:
        out.extend(_dq_text(source[position - offset : child.start_byte - offset]))
        if child.type in ("simple_expansion", "expansion") and node_text(child, source) in _HOME:
            if not (first and not out):
                return None
            out.append(("~", False))  # "$HOME" at the start: the home folder, unsplit
        elif child.type != "string_content":
            return None
        else:
            out.extend(_dq_text(source[child.start_byte : child.end_byte]))
        position = child.end_byte
    out.extend(_dq_text(source[position - offset : end - offset]))
    return out


def _dq_text(raw: bytes) -> Chars:
    text, out = raw.decode(errors="replace"), Chars()
    index = 0
    while index < len(text):
        char = text[index]
        following = text[index + 1 : index + 2]
        if char == "\\" and following in _DQ_ESCAPES:
            out.append((following, True))
            index += 2
        elif char == "\\" and following == "\n":
            index += 2
        else:
            out.append((char, True))
            index += 1
    return out


def _ansi_c(body: str) -> str:
    out, index = [], 0
    while index < len(body):
        char = body[index]
        if char != "\\" or index + 1 >= len(body):
            out.append(char)
            index += 1
            continue
        following = body[index + 1]
        if following in _C_ESCAPES:
            out.append(_C_ESCAPES[following])
            index += 2
            continue
        number = _C_NUMERIC.match(body, index + 1)
        if number is None:
            out.append("\\" + following)
            index += 2
            continue
        out.append(_c_number(number.group()))
        index = number.end()
    return "".join(out)


def _c_number(token: str) -> str:
    if token[0] == "c":
        return chr(ord(token[1]) & 0x1F)
    base, digits = (8, token) if token[0].isdigit() else (16, token[1:])
    return chr(min(int(digits, base), 0x10FFFF))


def brace_expand(word: Word) -> list[Word] | None:
    """The words an unquoted brace expression makes of ``word`` (itself if none); None if
    more than ``MAX_EXPANSIONS``."""
    if word.value is None or "{" not in word.value:
        return [word]
    results = _expand(word.value, word.mask)
    if results is None or len(results) > MAX_EXPANSIONS:
        return None
    return [_word(value, mask, word.raw) for value, mask in results]


def _expand(value: str, mask: str) -> list[tuple[str, str]] | None:
    found = _braces(value, mask)
    if found is None:
        return [(value, mask)]
    start, end, items = found
    out: list[tuple[str, str]] = []
    for item_value, item_mask in items:
        tail = _expand(
            value[:start] + item_value + value[end + 1 :],
            mask[:start] + item_mask + mask[end + 1 :],
        )
        if tail is None or len(out) + len(tail) > MAX_EXPANSIONS:
            return None
        out.extend(tail)
    return out


def _braces(value: str, mask: str) -> tuple[int, int, list[tuple[str, str]]] | None:
    """The first expandable ``{...}``: its span and its items."""
    for start, char in enumerate(value):
        if char != "{" or mask[start] != ".":
            continue
        depth, commas = 0, []
        for end in range(start, len(value)):
            if mask[end] != ".":
                continue
            depth += {"{": 1, "}": -1}.get(value[end], 0)
            if value[end] == "," and depth == 1:
                commas.append(end)
            if depth == 0:
                items = _items(value, mask, start, end, commas)
                if items is not None:
                    return start, end, items
                break
    return None


def _items(
    value: str, mask: str, start: int, end: int, commas: list[int]
) -> list[tuple[str, str]] | None:
    if commas:
        cuts = [start, *commas, end]
        return [(value[a + 1 : b], mask[a + 1 : b]) for a, b in pairwise(cuts)]
    sequence = _SEQUENCE.fullmatch(value, start + 1, end)
    if sequence is None or sequence[1].isalpha() != sequence[2].isalpha():
        return None  # {1..a} stays as it is, as in Bash
    return [(item, "." * len(item)) for item in _sequence(*sequence.groups())]


def _sequence(first: str, last: str, step: str | None) -> list[str]:
    by = abs(int(step or 1)) or 1
    if first.lstrip("-").isdigit() and last.lstrip("-").isdigit():
        a, b = int(first), int(last)
        span = range(a, b + 1, by) if a <= b else range(a, b - 1, -by)
        return [str(n) for n in span[: MAX_EXPANSIONS + 1]]
    a, b = ord(first), ord(last)
    span = range(a, b + 1, by) if a <= b else range(a, b - 1, -by)
    return [chr(n) for n in span]
