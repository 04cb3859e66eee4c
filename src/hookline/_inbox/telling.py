"""The inbox's telling loop: webhooks told of each call that starts to wait (``notify``).

    notifying(inbox)   # in the inbox app's lifespan: hookline inbox, and hookline serve --inbox

Every ``refresh`` seconds it looks at the store and tells its notifier what waits there: the
paused sessions, and the live asks too unless the server that makes a live ask tells of it
itself (``Inbox.tell_live``: ``hookline serve`` does, at once). One process tells at a time
among those sharing the audit's state folder (a server's workers, an inbox beside it): the
one holding ``TELLING_LOCK`` there (``flock``, tried each round without waiting, let go when
the process ends), so a pause is told once, not once per worker. The one that takes over reads
the ``inbox_notify`` records first (``Notifier``) and tells only what nobody told. Processes
with folders of their own on one PostgreSQL store each tell.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
from typing import TYPE_CHECKING, Final

from starlette.concurrency import run_in_threadpool

from hookline._inbox.live import waiting
from hookline._inbox.pending import pending_sessions
from hookline._support.private import open_private

if TYPE_CHECKING:
    from pathlib import Path

    from hookline._inbox.app import Inbox

#: The file in the state folder whose lock says which process tells.
TELLING_LOCK: Final = "inbox-notify.lock"


async def notifying(inbox: Inbox) -> None:
    """Tell each call not told yet, every ``refresh`` seconds, while this process holds the
    turn to tell (until cancelled)."""
    assert inbox.notifier is not None
    file = inbox.audit.file
    turn = Turn(file.path.with_name(TELLING_LOCK) if file is not None else None)
    look = waiting if inbox.tell_live else pending_sessions
    try:
        while True:
            if await run_in_threadpool(turn.mine):
                found = await run_in_threadpool(look, inbox.store)
                await inbox.notifier.newly(found)
            await asyncio.sleep(inbox.refresh)
    finally:
        turn.release()


class Turn:
    """The turn to tell among the processes sharing ``path`` (None: always this one's): an
    exclusive ``flock`` on it, held from the first round it is free until ``release``."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._fd: int | None = None

    def mine(self) -> bool:
        """Whether this process holds the turn (taking it if it is free)."""
        if self.path is None or self._fd is not None:
            return True
        fd = open_private(self.path, os.O_RDWR | os.O_NOFOLLOW)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        return True

    def release(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None
