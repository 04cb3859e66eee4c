"""Here-documents read as Bash reads them: where each one's body starts and which line ends it.

tree-sitter's grammar ends a here-document at a line that only *starts* with its delimiter
(``EOF ; cat ...``) and does not join an unquoted body's ``\\``-new-line pairs; Bash ends it
only at a line that *is* the delimiter, after joining (with ``<<-``, after dropping leading
tabs). Where the two differ, Bash reads on and runs what follows as the body (or as commands),
which the parsed tree does not show. ``reason(root, source)`` replays Bash's reading of every
here-document of a parsed line (``make_here_document``: the body starts on the line after the
operator's, or after the previous here-document started on that line; each line is read with
its ``\\``-new-line pairs joined when the delimiter is unquoted) and says why the line is
outside the known subset when Bash ends one anywhere but where the tree does, or when its
delimiter is not one of the plain forms (``EOF``, ``'EOF'``, ``"EOF"``, ``\\EOF``) whose
meaning to Bash is certain.
"""

from __future__ import annotations

import re
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node, Query

__all__ = ["reason"]

_PLAIN = r"[A-Za-z0-9_][A-Za-z0-9_.+:/@%=-]*"
#: The delimiter words whose meaning is certain: plain, or quoted whole (then the body is raw).
_DELIMITER = re.compile(
    rf"(?P<plain>{_PLAIN})|'(?P<single>{_PLAIN})'|\"(?P<double>{_PLAIN})\""
    rf"|\\(?P<escaped>{_PLAIN})"
)
_BLANK = frozenset(b" \t\n")


def reason(root: Node, source: bytes) -> str | None:
    """Why a here-document of the parsed line ``root`` (of ``source``) is not read as Bash
    reads it; None when every one is."""
    from tree_sitter import QueryCursor  # one per call: a cursor is not safe to share

    found = QueryCursor(_query()).captures(root).get("doc", [])
    after: dict[int, int] = {}  # an operator's line end -> where the next body there starts
    for doc in sorted(found, key=lambda n: n.start_byte):
        if why := _one(doc, source, after):
            return why
    return None


def _one(doc: Node, source: bytes, after: dict[int, int]) -> str | None:
    parts = {c.type: c for c in doc.children}  # one list of children: each costs a node
    start, end, body = (parts.get(k) for k in ("heredoc_start", "heredoc_end", "heredoc_body"))
    if start is None:
        return "a here-document has no delimiter"
    word = source[start.start_byte : start.end_byte].decode(errors="replace")
    plain = _DELIMITER.fullmatch(word)
    if plain is None:
        return f"the here-document delimiter `{_cut(word)}` is not a plain word"
    delimiter = next(v for v in plain.groupdict().values() if v is not None).encode()
    tabs = "<<-" in parts
    line_end = source.find(b"\n", start.end_byte)
    if line_end < 0:
        return None  # no body at all: nothing is read as one
    begin = after.get(line_end, line_end + 1)
    ends = _bash_end(source, begin, delimiter, join=plain.group("plain") is not None, tabs=tabs)
    after[line_end] = ends[1] if ends else len(source)
    tree_end = source.rfind(b"\n", 0, end.start_byte) + 1 if end is not None else None
    if (ends[0] if ends else None) != tree_end:
        shown = source[tree_end : source.find(b"\n", tree_end)] if tree_end is not None else b""
        where = f" at `{_cut(shown.decode(errors='replace'))}`" if shown else ""
        return f"a here-document ends{where} where Bash does not end it (`{_cut(word)}`)"
    if body is not None and not _BLANK.issuperset(source[begin : body.start_byte]):
        return f"a here-document's body (`{_cut(word)}`) starts where Bash does not start it"
    return None


def _bash_end(
    source: bytes, begin: int, delimiter: bytes, *, join: bool, tabs: bool
) -> tuple[int, int] | None:
    """Where Bash's reading from ``begin`` finds the line that ends the here-document (its
    start, and the start of the line after it); None when it reads to the end of the input."""
    position = begin
    while position < len(source):
        line, following = _line(source, position, join=join)
        if (line.lstrip(b"\t") if tabs else line) == delimiter:
            return position, following
        position = following
    return None


def _line(source: bytes, position: int, *, join: bool) -> tuple[bytes, int]:
    """One line as Bash's ``read_a_line`` reads it from ``position``: without its new line,
    a ``\\``-new-line pair removed when ``join`` (a backslash before any other character is
    kept and keeps that character); and where the next line starts."""
    end = source.find(b"\n", position)
    end = len(source) if end < 0 else end
    if not join or b"\\" not in source[position:end]:
        return source[position:end], end + 1
    out = bytearray()
    index = position
    while index < len(source):
        char = source[index]
        if char == 0x5C and index + 1 < len(source):  # a backslash
            if source[index + 1] == 0x0A:
                index += 2
                continue
            out += source[index : index + 2]
            index += 2
            continue
        if char == 0x0A:
            return bytes(out), index + 1
        out.append(char)
        index += 1
    return bytes(out), len(source)


@cache
def _query() -> Query:
    import tree_sitter_bash
    from tree_sitter import Language, Query

    return Query(Language(tree_sitter_bash.language()), "(heredoc_redirect) @doc")


def _cut(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 40 else text[:37] + "..."
