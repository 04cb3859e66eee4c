"""Replay in several processes: the sessions shared out, each process judging its share with
the same policy, which it loads itself from where the first process read it.

A policy crosses to a process as what loads it (``Policy``), never as loaded hooks. A session
stays whole, in order, in one process, so a hook that remembers what it saw of a session sees
all of it; a hook that keeps state across sessions sees only those of its own process (one
process keeps every session together). Each process judges exactly as one alone would: the
same judge, the same policy files, command hooks run for real unless they are left out.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import sys
import threading
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from hookline._project import load_project
from hookline._replay import replay
from hookline._replay.judged import Replayer, Verdict
from hookline._replay.report import Replayed

if TYPE_CHECKING:
    from hookline._project import Project
    from hookline._replay.recorded import Recorded

#: The fewest events a process is started for: below that, starting it (importing hookline,
#: loading the policy) costs more than it saves.
PER_PROCESS: Final = 5000


@dataclass(frozen=True, slots=True)
class Policy:
    """What loads one policy, as ``load_project`` takes it: a folder, settings on top (files
    or inline JSON), hook files; and whether command hooks are left out."""

    folder: str
    settings: tuple[str, ...] = ()
    hook_files: tuple[str, ...] = ()
    lenient: bool = False
    skip_commands: bool = False

    def load(self) -> Project:
        return load_project(
            self.folder, settings=self.settings, hook_files=self.hook_files, lenient=self.lenient
        )

    def replayer(self, project: Project | None = None) -> Replayer:
        """A replayer of this policy (``project``: the policy, when it is loaded already)."""
        return Replayer(project or self.load(), skip_commands=self.skip_commands)


def processes(events: int, asked: int | None = None) -> int:
    """How many processes judge ``events``: ``asked``, else one a core, at most one for every
    ``PER_PROCESS`` events (never fewer than one)."""
    if asked is not None:
        return max(1, asked)
    return max(1, min(os.cpu_count() or 1, events // PER_PROCESS))


def shares(events: Sequence[Recorded], count: int) -> list[list[int]]:
    """The events' indexes in ``count`` shares of whole sessions, each in its recorded order:
    the largest session first into the smallest share."""
    sessions: dict[str, list[int]] = {}
    for index, event in enumerate(events):
        sessions.setdefault(event.session_id, []).append(index)
    split: list[list[int]] = [[] for _ in range(max(1, count))]
    for indexes in sorted(sessions.values(), key=len, reverse=True):
        min(split, key=len).extend(indexes)
    return [sorted(share) for share in split if share]


async def replayed(
    events: Sequence[Recorded], after: Replayer, before: Replayer | None = None
) -> list[Replayed]:
    """Each event judged by ``after`` (and by ``before``, to compare two policies), in this
    process; both replayers are closed after."""
    try:
        return await replay(events, after, before)
    finally:
        await after.aclose()
        if before is not None:
            await before.aclose()


def replay_shared(
    events: Sequence[Recorded], after: Policy, before: Policy | None, count: int
) -> list[Replayed]:
    """Each event judged in one of ``count`` new processes, returned in the events' order."""
    split = shares(events, count)
    context = multiprocessing.get_context(start_method())
    with ProcessPoolExecutor(len(split), mp_context=context) as pool:
        futures = [
            pool.submit(_judge_share, after, before, [events[i] for i in share]) for share in split
        ]
        done: list[Replayed | None] = [None] * len(events)
        for share, future in zip(split, futures, strict=True):
            for index, (now, was) in zip(share, future.result(), strict=True):
                done[index] = Replayed(events[index], now, was)
    return [replayed for replayed in done if replayed is not None]


def start_method() -> str:
    """How a process is started: as a copy of this one (it has imported hookline and loaded
    the policy's modules already) on Linux while this process runs one thread, as a copy of
    a thread holding a lock would hold it for ever; else anew."""
    alone = threading.active_count() == 1
    return "fork" if sys.platform == "linux" and alone else "spawn"


def _judge_share(
    after: Policy, before: Policy | None, events: list[Recorded]
) -> list[tuple[Verdict, Verdict | None]]:
    """In a process of its own: one share's verdicts (only they go back, not the events)."""
    old = before.replayer() if before is not None else None
    done = asyncio.run(replayed(events, after.replayer(), old))
    return [(r.after, r.before) for r in done]
