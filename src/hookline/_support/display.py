"""Untrusted text made safe to print: what a model, a tool or a hook wrote, shown as it is.

Everything hookline prints that it did not write itself (a command, a tool name, a reason, a
hook's output, a settings value) goes through ``shown`` first, whether or not stdout is a
terminal. Nothing in the result can move the cursor, clear a line, change a terminal mode,
reorder text or hide it:

- control characters (C0, DEL, C1, and so ESC and every escape sequence) are written as
  ``\\x1b``, ``\\r``, ``\\n``, ``\\t``, ``\\x85``;
- Unicode format and separator characters (bidi overrides and isolates, zero-width spaces and
  joiners, the BOM, U+2028 and U+2029), lone surrogates, private-use and unassigned code points
  are written as ``\\u202e``;
- spaces other than the plain one (no-break, ideographic, ...) and letters that draw nothing
  (Hangul fillers, the blank Braille pattern) are written as ``\\u00a0``;
- a run of more than ``RUN`` plain spaces keeps ``RUN`` of them and says how many it left out,
  so a wall of spaces cannot push the rest of a line out of sight.

With ``lines=True`` a new line stays a line break (a multi-line command in the approval prompt);
everywhere else one record is one line (``compact`` JSON and ``abridged`` text are cut to a
length too). ``shown_json`` is the same for JSON output: valid JSON with those characters
written as ``\\u`` escapes. ``suspicious`` says why a string may not be what it looks like
(mixed scripts in one word, look-alike letters), for the approval prompt to flag.
"""

from __future__ import annotations

import json
import re
import unicodedata
from functools import lru_cache
from typing import Any, Final

#: Plain spaces kept in a row before the rest of the run is counted instead.
RUN = 8
_ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_NAMED: Final = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
#: Letters that draw nothing: Hangul fillers, the blank Braille pattern, ...
_BLANK_LETTERS = frozenset("\u115f\u1160\u2800\u3164\uffa0\u17b4\u17b5")
_SPACES = re.compile(rf" {{{RUN + 1},}}")
#: Only printable ASCII other than the space: the common case, nothing to escape.
_PLAIN = re.compile(r"[!-~]*")
_WORD = re.compile(r"\w+", re.UNICODE)


def shown(text: object, *, lines: bool = False, collapse: bool = True) -> str:
    """``text`` (``str()`` of anything else) with everything that could deceive a terminal
    escaped; see the module docstring. ``collapse=False`` keeps runs of spaces: for a line
    hookline laid out itself (padded columns) whose untrusted parts were ``shown`` already,
    which escaping again leaves as they are."""
    value = text if isinstance(text, str) else str(text)
    if _PLAIN.fullmatch(value):
        return value
    if lines:
        return "\n".join(_line(part, collapse) for part in value.split("\n"))
    return _line(value, collapse)


def compact(value: Any, limit: int = 160) -> str:
    """``value`` as compact JSON, cut at ``limit`` characters, ``shown``: one line."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    return shown(text if len(text) <= limit else text[: limit - 3] + "...")


def abridged(text: str, limit: int = 80) -> str:
    """``text`` on one line (its white space run together), cut at ``limit`` characters with
    ``…``, ``shown``."""
    line = " ".join(text.split())
    return shown(line if len(line) <= limit else line[:limit] + "…")


def _line(value: str, collapse: bool = True) -> str:
    escaped = "".join(_char(char) for char in value)
    return _SPACES.sub(_collapsed, escaped) if collapse else escaped


def shown_json(value: Any, *, indent: int | None = None) -> str:
    """``value`` as JSON text that is safe to print: every character ``shown`` would escape is
    a ``\\u`` escape (DEL, C1, U+2028, bidi controls, lone surrogates...), so the text parses
    back to ``value`` and holds no raw control character. Other text (accents, CJK) stays as it
    is; what JSON cannot hold is written as ``str(value)``."""
    separators = None if indent else (",", ":")
    text = json.dumps(value, ensure_ascii=False, default=str, indent=indent, separators=separators)
    return text if text.isascii() and "\x7f" not in text else _NOT_ASCII.sub(_json_escape, text)


#: DEL and everything above ASCII: JSON itself escapes the rest of the control characters.
_NOT_ASCII = re.compile(r"[^\x00-\x7e]")


def _json_escape(match: re.Match[str]) -> str:
    char = match.group()
    if _char(char) == char:
        return char
    code = ord(char)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


@lru_cache(maxsize=4096)
def _char(char: str) -> str:
    if " " <= char <= "~":
        return char
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    category = unicodedata.category(char)
    blank = (category == "Zs" and char != " ") or char in _BLANK_LETTERS
    if category in _ESCAPED_CATEGORIES or blank:
        if code < 0x100:
            return f"\\x{code:02x}"
        return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
    return char


def _collapsed(run: re.Match[str]) -> str:
    left_out = len(run.group()) - RUN
    return " " * RUN + f"[+{left_out} spaces]"


def suspicious(text: str) -> list[str]:
    """Why ``text`` may not read as what it is: words mixing scripts (``paypal`` spelled with
    a Cyrillic ``a``) and letters that look like ASCII but are not (U+02BA for a quote,
    fullwidth letters)."""
    found: list[str] = []
    for word in dict.fromkeys(_WORD.findall(text)):
        scripts = {_script(c) for c in word if c.isalpha()} - {"COMMON"}
        if len(scripts) > 1:
            found.append(f"`{shown(word)}` mixes scripts ({', '.join(sorted(scripts))})")
    look_alikes = sorted({c for c in text if ord(c) > 0x7F and _looks_ascii(c)})
    if look_alikes:
        listed = ", ".join(
            f"{shown(c)} (U+{ord(c):04X} {unicodedata.name(c, '?')})" for c in look_alikes
        )
        found.append(f"characters that look like ASCII but are not: {listed}")
    return found


def _named(char: str) -> str:
    return f"{shown(char)} (U+{ord(char):04X} {unicodedata.name(char, '?')})"


def _script(char: str) -> str:
    """A rough script of a letter: the first word of its Unicode name (LATIN, CYRILLIC...)."""
    name = unicodedata.name(char, "")
    return name.split(" ", 1)[0] if name else "UNKNOWN"


def _looks_ascii(char: str) -> bool:
    """A non-ASCII character whose compatibility form, or whose name, is an ASCII look-alike:
    fullwidth letters, modifier quotes (``ʺ``), Cyrillic/Greek letters shaped like Latin ones."""
    folded = unicodedata.normalize("NFKC", char)
    if folded != char and folded.isascii() and folded.isprintable():
        return True
    name = unicodedata.name(char, "")
    return any(part in name for part in _LOOK_ALIKE_NAMES)


_LOOK_ALIKE_NAMES = (
    "MODIFIER LETTER DOUBLE PRIME",
    "MODIFIER LETTER PRIME",
    "MODIFIER LETTER APOSTROPHE",
    "MODIFIER LETTER TURNED COMMA",
    "RIGHT SINGLE QUOTATION MARK",
    "LEFT SINGLE QUOTATION MARK",
    "RIGHT DOUBLE QUOTATION MARK",
    "LEFT DOUBLE QUOTATION MARK",
    "PRIME",
    "FULLWIDTH",
    "CYRILLIC SMALL LETTER A",
    "CYRILLIC SMALL LETTER IE",
    "CYRILLIC SMALL LETTER O",
    "CYRILLIC SMALL LETTER ER",
    "CYRILLIC SMALL LETTER ES",
    "CYRILLIC SMALL LETTER U",
    "CYRILLIC SMALL LETTER HA",
    "CYRILLIC SMALL LETTER DZE",
    "CYRILLIC SMALL LETTER I",
    "CYRILLIC SMALL LETTER JE",
    "GREEK SMALL LETTER OMICRON",
    "GREEK SMALL LETTER ALPHA",
    "DIVISION SLASH",
    "FRACTION SLASH",
    "SMALL AMPERSAND",
    "HYPHEN",
    "MINUS SIGN",
    "DASH",
)
