"""Rows printed as aligned columns under a header, for ``sessions list`` and ``audit``."""

from __future__ import annotations

from collections.abc import Sequence

from hookline._cli.render import echo, say


def aligned(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """The header and each row as one line, every column but the last padded to its widest
    cell, so each column starts at the same offset on every line. Cells must be ``shown``."""
    lines = [header, *rows]
    widths = [max(len(line[i]) for line in lines) for i in range(len(header) - 1)]
    out = []
    for line in lines:
        cells = [cell.ljust(width) for cell, width in zip(line, widths, strict=False)]
        out.append("  ".join([*cells, line[-1]]).rstrip())
    return out


def print_aligned(header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """``aligned``, the header coloured as a title on a terminal."""
    first, *rest = aligned(header, rows)
    say("title", first)
    for line in rest:
        echo(line)
