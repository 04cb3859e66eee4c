"""Reloading the policy when a file it comes from changes, or on SIGHUP; each reload on record.

    watcher = Watcher(policies, audit, say=print, hangup=True)
    async with watcher.running(): ...                 # polls every second while the server serves
    await watcher.check()                             # one poll (what the loop does each tick)

The files watched are the active policy's (``hookline._policy.digest.watched``): its settings
layers, hooks files and hook code, and the settings files a run would read once they exist.
A change of size or modification time reloads (``Policies.reload``). Every reload writes one
``policy_reload`` audit record (the old and the new digest, why, and the error when refused)
and says in one line what became of it; a refused one is not tried again until another change.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress
from functools import partial
from typing import TYPE_CHECKING, Final, TypeAlias

from hookline._policy.digest import SHORT, watched
from hookline.storage._base import AuditEntry

if TYPE_CHECKING:
    from hookline._serve.policies import Policies, Reloaded
    from hookline.audit._writer import AuditWriter

#: The ``kind`` of a reload's audit record.
KIND: Final = "policy_reload"
#: How often the files are looked at, in seconds.
EVERY: Final = 1.0
#: A file's size and modification time (None: it is not there).
Stamp: TypeAlias = "tuple[int, int] | None"


class Watcher:
    """Reloads ``policies`` when their files change (``check``) or when asked (``reload``)."""

    def __init__(
        self,
        policies: Policies,
        audit: AuditWriter,
        *,
        say: Callable[[str], None],
        wait: Callable[[], Awaitable[object]] | None = None,
        hangup: bool = False,
    ) -> None:
        """``say`` prints a line; ``wait`` returns when it is time to look at the files again;
        ``hangup``: SIGHUP reloads too (only the main thread's loop can have it)."""
        self.policies, self.audit, self.say = policies, audit, say
        self._wait = wait or partial(asyncio.sleep, EVERY)
        self.hangup = hangup
        self._seen = self._stamps()

    async def check(self) -> Reloaded | None:
        """Reload if a watched file changed since the last look; what the reload did."""
        now = self._stamps()
        changed = [path for path, stamp in now.items() if self._seen.get(path) != stamp]
        if not changed:
            return None
        return await self.reload("changed: " + ", ".join(changed))

    async def reload(self, why: str) -> Reloaded:
        """Reload now, for ``why``: on record, and said in one line. The files as they were
        before it loaded are the ones seen: a change while it loads is looked at again."""
        before = self._stamps()
        done = await self.policies.reload(why)
        now = self._stamps()  # the new policy's files: those it did not have are new to it
        self._seen = {path: before[path] if path in before else now[path] for path in now}
        try:
            self._record(done)
        except Exception as exc:  # the audit is broken: every request says so too
            self.say(f"hookline serve: this reload could not be put on record: {exc}")
        self.say(wording(done))
        return done

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Poll the files (and take SIGHUP, with ``hangup``) while the block runs."""
        loop = asyncio.get_running_loop()
        polling = asyncio.create_task(self._watch())
        held: set[asyncio.Task[Reloaded]] = set()
        if self.hangup:
            loop.add_signal_handler(signal.SIGHUP, self._hung_up, held)
        try:
            yield
        finally:
            if self.hangup:
                loop.remove_signal_handler(signal.SIGHUP)
            for task in (polling, *held):
                task.cancel()
            with suppress(asyncio.CancelledError):
                await asyncio.gather(polling, *held)

    def _hung_up(self, held: set[asyncio.Task[Reloaded]]) -> None:
        task = asyncio.get_running_loop().create_task(self.reload("SIGHUP"))
        held.add(task)
        task.add_done_callback(held.discard)

    async def _watch(self) -> None:
        while True:
            await self._wait()
            await self.check()

    def _stamps(self) -> dict[str, Stamp]:
        active = self.policies.current
        return {path: _stamp(path) for path in watched(active.judge.project, active.digest)}

    def _record(self, done: Reloaded) -> None:
        data = {"why": done.why, "old": done.old, "new": done.new}
        if done.error is not None:
            data["error"] = done.error
        data = self.audit.redactor.redact(data)
        entry = AuditEntry(kind=KIND, decision=done.outcome, data=data)
        self.audit.add(entry)
        self.audit.flush()


def wording(done: Reloaded) -> str:
    """What a reload did, in one line."""
    old, new = done.old[:SHORT], done.new[:SHORT]
    if done.error is not None:
        kept = f"policy {old} still serves"
        return f"hookline serve: reload refused ({done.why}); {kept}: {done.error}"
    if done.new == done.old:
        return f"hookline serve: policy {old} unchanged ({done.why})"
    return f"hookline serve: policy {new} replaces {old} ({done.why})"


def _stamp(path: str) -> Stamp:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_size, stat.st_mtime_ns
