"""What the approval prompt draws: the terminal reset, then every line of a request, wrapped.

Nothing here reads keys. ``prompt_lines`` lays a request out for a terminal ``width`` columns
wide: each untrusted value through ``display.shown`` (the command with its lines kept), each
input field on its own line(s), wrapped — never cut — with every wrapped continuation marked
``↪`` so text padded to a line's end cannot pass for a line of its own; the input's length; and
``display.suspicious`` warnings for each string in the input, just above the choices.
"""

from __future__ import annotations

import difflib
import json
import os
import shutil
import unicodedata
from collections.abc import Iterator
from typing import IO, Any, Final, NamedTuple

from hookline._support.display import shown, suspicious
from hookline._tools.approvals import ApprovalRequest

#: Written before each prompt: whatever earlier output left set, the prompt is drawn plainly.
#: Only ECMA-48 / DEC sequences every terminal emulator knows.
RESET = (
    "\x1b\\"  # ST: ends a string (OSC, DCS, APC) left open, which would swallow what follows
    "\x1b7\x1b[r\x1b8"  # DECSTBM: the whole screen scrolls (DECSC/DECRC keep the cursor)
    "\x1b[0m"  # SGR 0: no concealed, reversed, blinking or colour-on-colour text
    "\x1b(B\x0f"  # G0 is ASCII and shifted in: letters are not line-drawing glyphs
    "\x1b[4l"  # IRM off: text replaces, is not inserted
    "\x1b[?7h"  # DECAWM: autowrap on
    "\x1b[?25h"  # DECTCEM: cursor visible
)
MORE = "↪ "  # starts every wrapped continuation of a line
FIELD, VALUE = "    ", "      "  # indents: a field's name, the lines of a multi-line value
LONG = 60  # a string value longer than this says its length


class Line(NamedTuple):
    """One screen row of the prompt and its click style."""

    text: str
    style: dict[str, Any]


def terminal_size(stream: IO[str]) -> os.terminal_size:
    """The size of the terminal ``stream`` writes to, else ``shutil.get_terminal_size()``."""
    try:
        size = os.get_terminal_size(stream.fileno())
    except (AttributeError, OSError, ValueError):
        size = None
    if size is None or size.columns <= 0 or size.lines <= 0:  # a pty nobody sized is 0 x 0
        size = shutil.get_terminal_size()
    return size


def prompt_lines(r: ApprovalRequest, width: int) -> list[Line]:
    """Every row of the prompt above the choices, none wider than ``width`` columns."""
    width = max(width, 20)
    rows: list[Line] = [Line("", {}), Line(f"{shown(r.tool_name)} needs your approval", _TITLE)]
    rows += _wrapped(f"  asked by: {shown(r.source or 'unknown')}", width, {"fg": "magenta"})
    if r.reason:
        rows += _wrapped(f"  reason:   {shown(r.reason)}", width, {"fg": "yellow"})
    if r.session_grant is not None:  # what s allows from now on
        said = f"  s allows for the rest of this session: {shown(r.session_grant.describe())}"
        rows += _wrapped(said, width, {"fg": "blue"})
    fields = len(r.tool_input)
    size = f"{len(_json(r.tool_input)):,} characters, {fields} field{'s' * (fields != 1)}"
    rows.append(Line(f"  input ({size}):", {}))
    for key, value in r.tool_input.items():
        rows += _field(str(key), value, width)
    rows += _change(r.tool_input, width)
    if r.original_input is not None and r.original_input != r.tool_input:
        rows.append(Line("  rewritten by a hook (original → rewritten):", {}))
        for sign, text in _diff(r.original_input, r.tool_input):
            rows += _wrapped(f"    {sign} {text}", width, {"fg": _SIGNS[sign]})
    for warning in warnings(r):
        rows += _wrapped(f"  ⚠ {warning}", width, {"fg": "red", "bold": True})
    return rows


def warnings(r: ApprovalRequest) -> list[str]:
    """``display.suspicious`` on the tool name and every string in the input, named by field."""
    found = [f"tool name: {why}" for why in suspicious(r.tool_name)]
    for path, text in _strings(r.tool_input, ""):
        found += [f"{path}: {why}" for why in suspicious(text)]
    return found


def wrap(text: str, width: int, indent: str) -> list[str]:
    """``text`` cut into rows of at most ``width`` columns; rows after the first start with
    ``indent`` and ``MORE``. Nothing is dropped."""
    rows, row, used = [], "", 0
    lead = indent + MORE
    for char in text:
        w = _columns(char)
        if used + w > width and used > len(lead):
            rows.append(row)
            row, used = lead, len(lead)
        row += char
        used += w
    return [*rows, row]


def _field(key: str, value: Any, width: int) -> list[Line]:
    name = shown(key)
    if not isinstance(value, str):
        return _wrapped(f"{FIELD}{name}: {shown(_json(value))}", width, {})
    parts = shown(value, lines=key == "command").split("\n")
    if len(parts) == 1:
        said = f" ({len(value):,} characters)" if len(value) > LONG else ""
        return _wrapped(f"{FIELD}{name}{said}: {parts[0]}", width, {})
    rows = [Line(f"{FIELD}{name} ({len(parts)} lines, {len(value):,} characters):", {})]
    for part in parts:
        rows += _wrapped(f"{VALUE}| {part}", width, {}, indent=VALUE)
    return rows


def _wrapped(text: str, width: int, style: dict[str, Any], *, indent: str = VALUE) -> list[Line]:
    return [Line(row, style) for row in wrap(text, width, indent)]


def _columns(char: str) -> int:
    """Columns a character takes: 0 for combining marks, 2 for wide (CJK, emoji) ones."""
    if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me"):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def _strings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    """Each string in a JSON value (keys too), with where it is: ``command``, ``edits[0].old``."""
    if isinstance(value, str):
        yield path or "input", value
    elif isinstance(value, dict):
        for key, item in value.items():
            name = shown(key)
            yield from _strings(str(key), f"{path}.{name} (name)" if path else f"{name} (name)")
            yield from _strings(item, f"{path}.{name}" if path else name)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _strings(item, f"{path}[{index}]")


def _diff(before: dict[str, Any], after: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """The keys a rewrite removed (-), added (+) or changed (~, original → rewritten)."""
    for key in [*before, *(k for k in after if k not in before)]:
        name = shown(key)
        if key not in after:
            yield "-", f"{name}: {shown(_json(before[key]))}"
        elif key not in before:
            yield "+", f"{name}: {shown(_json(after[key]))}"
        elif before[key] != after[key]:
            yield "~", f"{name}: {shown(_json(before[key]))} → {shown(_json(after[key]))}"


def _change(tool_input: dict[str, Any], width: int) -> list[Line]:
    """What an edit (an ``old_string`` replaced by a ``new_string``, or a list of them in
    ``edits``) changes, line by line: removed (-), added (+), unchanged around them; at most
    ``CHANGE_ROWS`` lines (the fields above hold every character)."""
    pairs = [(e.get("old_string"), e.get("new_string")) for e in _edits(tool_input)]
    found = [pair for pair in pairs if isinstance(pair[0], str) and isinstance(pair[1], str)]
    if not found:
        return []
    rows = [Line("  the change (- removed, + added):", {})]
    lines = [line for old, new in found for line in _line_diff(str(old), str(new))]
    for sign, text in lines[:CHANGE_ROWS]:
        rows += _wrapped(f"    {sign} {shown(text)}", width, _CHANGE_STYLE[sign])
    if len(lines) > CHANGE_ROWS:
        rows.append(Line(f"    … {len(lines) - CHANGE_ROWS:,} more lines of the change", {}))
    return rows


def _edits(tool_input: dict[str, Any]) -> list[dict[str, Any]]:
    """The edits an input makes: itself (Edit), or each of its ``edits`` (MultiEdit)."""
    listed = tool_input.get("edits")
    if isinstance(listed, list):
        return [edit for edit in listed if isinstance(edit, dict)]
    return [tool_input]


def _line_diff(old: str, new: str) -> Iterator[tuple[str, str]]:
    """The lines of ``old`` removed and of ``new`` added, with two unchanged lines around."""
    if old == new:
        return
    if old and new and "\n" not in old + new:  # one line each: both whole
        yield from (("-", old), ("+", new))
        return
    diff = difflib.unified_diff(old.split("\n"), new.split("\n"), n=2, lineterm="")
    hunks = 0
    for line in diff:
        if line.startswith(("---", "+++")):
            continue
        if line.startswith("@@"):  # unchanged lines left out between two parts
            hunks += 1
            if hunks > 1:
                yield " ", "…"
            continue
        yield line[:1], line[1:]


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


_TITLE: Final[dict[str, Any]] = {"fg": "cyan", "bold": True}
_SIGNS: Final = {"-": "red", "+": "green", "~": "yellow"}
#: The most lines of an edit's change the prompt shows.
CHANGE_ROWS: Final = 80
_CHANGE_STYLE: Final[dict[str, dict[str, Any]]] = {
    "-": {"fg": "red"},
    "+": {"fg": "green"},
    " ": {"dim": True},
}
