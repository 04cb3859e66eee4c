"""Ids as people type them: a whole session id, or any start of one that only one id has.

``hookline audit`` prints the first eight characters of a session id; every command that takes
an id takes that, or any other unique start, as ``git`` takes a short commit hash.
"""

from __future__ import annotations

from collections.abc import Callable

from hookline._errors import ConfigError
from hookline._support.display import shown

#: How many matching ids an ambiguous start lists.
SHOWN_MATCHES = 20


def unique_start(given: str, starting: Callable[[str], list[str]], *, key: str) -> str | None:
    """The one id that ``starting(given)`` finds; None when none does; a ConfigError naming
    ``key`` and listing them when several do."""
    found = starting(given)
    if given in found:
        return given
    if len(found) > 1:
        listed = ", ".join(shown(id) for id in found[:SHOWN_MATCHES])
        raise ConfigError(
            f"{given!r} is the start of {len(found)} sessions: {listed}",
            key=key,
            fix="give more of the id",
        )
    return found[0] if found else None
