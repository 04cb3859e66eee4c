"""``hookline replay``: recorded sessions run through another policy, no tool or model run.

    events = [e for path in sessions(paths) for e in read(path)]   # history
    replayed = await replay(events, Replayer(project))              # each event's verdict
    Totals.of(replayed)                                             # what changes, and who

``history`` reads the sessions (``hosts``: Codex's and Gemini CLI's), each event a ``Recorded``;
``judged`` judges one event with one policy, ``report`` names what changed.
"""

from __future__ import annotations

from collections.abc import Iterable

from hookline._replay.history import read, recorded, sessions
from hookline._replay.judged import Replayer, Verdict
from hookline._replay.recorded import Recorded
from hookline._replay.report import CHANGES, Replayed, Totals

__all__ = [
    "CHANGES",
    "Recorded",
    "Replayed",
    "Replayer",
    "Totals",
    "Verdict",
    "read",
    "recorded",
    "replay",
    "sessions",
]


async def replay(
    events: Iterable[Recorded], after: Replayer, before: Replayer | None = None
) -> list[Replayed]:
    """Each event judged by ``after`` (and by ``before``, to compare two policies)."""
    done = []
    for event in events:
        was = await before.verdict(event) if before is not None else None
        done.append(Replayed(event, await after.verdict(event), was))
    return done
