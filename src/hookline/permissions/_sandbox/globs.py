"""The path forms of the sandbox's ``filesystem`` keys, and their expansion when a sandbox starts.

An entry is read as Claude Code's sandbox settings read it:

- ``//abs`` and ``/abs`` are absolute, ``~/x`` is under the home folder, anything else (a
  name, or one that starts with a dot folder) is relative to the project;
- ``*`` and ``?`` match within one path part, ``[...]`` one character of a set, ``**`` any
  number of parts (none included);
- a trailing ``/**`` (``secrets/**``) names the folder itself: all of it, files made later too;
- a pattern with no ``/`` in it (``*.pem``) matches at any depth below the project, as a
  ``.gitignore`` line does; a plain name without wildcards (``.env``) is that one path.

A pattern is expanded against the filesystem each time a sandbox starts (``expand``): what it
matches then is hidden, made read-only or made writable. A file made later, while the command
runs, is not covered; that is why ``denyWrite`` takes no wildcard but a trailing ``/**`` (a
command could make a new matching file) and says so when read (``check``), while ``denyRead``
may take any: a file the command makes itself it has read anyway. ``allowWrite`` patterns open
only what exists when the sandbox starts. A pattern that walks too many entries or matches too
many paths cannot be applied: an error naming it, never a silent drop.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Final

#: The most folder entries one pattern's expansion may look at, and the most paths it may match.
WALK_LIMIT: Final = 200_000
MATCH_LIMIT: Final = 2_000
_WILD: Final = re.compile(r"[*?\[]")


class PatternError(ValueError):
    """An entry that cannot be applied; the message says why and what to write instead."""


def absolute(text: str, *, project: str) -> str:
    """The entry made absolute (``//`` and ``/`` absolute, ``~`` the home, else the project's),
    normalised, with a trailing ``/**`` dropped; wildcards are kept."""
    text = text.strip()
    text = text[1:] if text.startswith("//") else text
    if text.endswith("/**"):
        text = text[:-3] or "/"
    if "/" not in text and not text.startswith("~") and _WILD.search(text):
        text = "**/" + text  # a pattern without a slash: at any depth
    joined = os.path.join(project, os.path.expanduser(text))
    return os.path.normpath(joined)


def check(pattern: str, *, wildcards: bool) -> None:
    """Raise PatternError when ``pattern`` (from ``absolute``) cannot be read, or has wildcards
    where they may not be (``wildcards`` False: ``denyWrite``)."""
    if not _WILD.search(pattern):
        return
    if not wildcards:
        raise PatternError(
            "a wildcard cannot be applied here: a new file matching it could still be "
            'written; name the folder ("certs/**") or each file'
        )
    try:
        _regex(pattern)
    except re.error as exc:
        raise PatternError(f"not a valid pattern ({exc})") from None


def expand(pattern: str) -> list[str]:
    """The existing paths ``pattern`` names now, shallowest first (a path under another one
    left out); a plain path is itself when it exists. PatternError past the limits."""
    if not _WILD.search(pattern):
        return [pattern] if os.path.lexists(pattern) else []
    base = _base(pattern)
    regex = _regex(pattern)
    found: list[str] = []
    for path in _walk(base, pattern):
        if regex.fullmatch(path) and not any(path.startswith(f + "/") for f in found[-1:]):
            found.append(path)
            if len(found) > MATCH_LIMIT:
                raise PatternError(
                    f"matches more than {MATCH_LIMIT} paths; name the folder that holds them"
                )
    return found


def _base(pattern: str) -> str:
    """The folder of the longest leading part of ``pattern`` without a wildcard."""
    parts = pattern.split("/")
    index = next(i for i, part in enumerate(parts) if _WILD.search(part))
    return "/".join(parts[:index]) or "/"


def _walk(base: str, pattern: str) -> Iterator[str]:
    """Every path below ``base``, parents before children, links not followed."""
    seen = 0
    stack = [base]
    while stack:
        folder = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name, reverse=True)
        except OSError:
            continue
        seen += len(entries)
        if seen > WALK_LIMIT:
            raise PatternError(
                f"looks at more than {WALK_LIMIT} entries under {base}; name a narrower folder"
            )
        for entry in reversed(entries):
            yield entry.path
        stack.extend(e.path for e in entries if e.is_dir(follow_symlinks=False))


@lru_cache(maxsize=256)
def _regex(pattern: str) -> re.Pattern[str]:
    """``pattern`` (absolute) as a regular expression over absolute paths."""
    out: list[str] = []
    for index, part in enumerate(pattern.split("/")):
        if part == "**":
            out.append("(?:/[^/]+)*")  # any number of parts, none included
        else:
            out.append(("/" if index else "") + _part(part))
    return re.compile("".join(out))


def _part(part: str) -> str:
    """One path part's wildcards as a regular expression that never crosses a ``/``."""
    out, index = [], 0
    while index < len(part):
        char = part[index]
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[" and (close := part.find("]", index + 2)) != -1:
            body = part[index + 1 : close]
            body = "^/" + body[1:] if body.startswith(("!", "^")) else body
            out.append(f"[{body.replace(chr(92), chr(92) * 2)}]")
            index = close
        elif char == "[":
            raise re.error(f"unclosed [ in {part!r}")
        else:
            out.append(re.escape(char))
        index += 1
    return "".join(out)
