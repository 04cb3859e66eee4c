"""Grep's regex work, in a process of its own so that a timeout can stop it.

Python's ``re`` backtracks: ``(a+)+$`` over a line of ``a``s ending in ``b`` runs for longer
than the universe, holding the GIL, and no ``asyncio`` timeout can interrupt it. So Grep walks
the folder itself (the Read deny rules and ``.hookline`` apply there) and hands the files it
keeps to this script, run as ``python -I -S _search_worker.py`` with only the standard library;
a timeout kills it. It also never opens anything but a regular file, so a FIFO cannot hang it.

stdin, JSON: ``{"pattern", "flags", "multiline", "before", "after", "files": [path, ...]}``.
stdout, JSON: one ``[index, matched, shown]`` per file with a match: its index in ``files``,
the indexes of its matching lines, and ``{line index: text}`` for the lines within ``before``
and ``after`` of a match (empty unless asked for).
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from typing import Any

#: A NUL byte in a file's first bytes marks it binary: it is not searched.
BINARY_SNIFF = 8192


def search(job: dict[str, Any]) -> list[list[Any]]:
    """The hits of ``job`` (the stdin document above)."""
    regex = re.compile(job["pattern"], job["flags"])
    before, after = job.get("before", 0), job.get("after", 0)
    hits = []
    for index, path in enumerate(job["files"]):
        lines = text_lines(path)
        if lines is None:
            continue
        matched = matching(regex, lines, multiline=job["multiline"])
        if matched:
            hits.append([index, matched, shown_lines(lines, matched, before, after)])
    return hits


def text_lines(path: str) -> list[str] | None:
    """The lines of a regular text file; None for binary, unreadable or special files."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        with open(path, "rb") as file:
            data = file.read()
    except OSError:
        return None
    if b"\0" in data[:BINARY_SNIFF]:
        return None
    text = data.decode("utf-8", errors="replace")
    lines = text.split("\n")
    return lines[:-1] if text.endswith("\n") else lines


def matching(regex: re.Pattern[str], lines: list[str], *, multiline: bool) -> list[int]:
    """Indexes of the lines a match touches."""
    if not multiline:
        return [i for i, line in enumerate(lines) if regex.search(line)]
    text, touched = "\n".join(lines), set[int]()
    for m in regex.finditer(text):
        first = text.count("\n", 0, m.start())
        touched.update(range(first, first + text.count("\n", m.start(), m.end()) + 1))
    return sorted(touched)


def shown_lines(lines: list[str], matched: list[int], before: int, after: int) -> dict[int, str]:
    """The lines to show around the matches, by index (none when no context is asked for)."""
    if before < 0 or after < 0:
        return {}
    wanted = {j for i in matched for j in range(i - before, i + after + 1)}
    return {j: lines[j] for j in sorted(wanted) if 0 <= j < len(lines)}


def main() -> None:
    job = json.load(sys.stdin.buffer)
    json.dump(search(job), sys.stdout)


if __name__ == "__main__":
    main()
