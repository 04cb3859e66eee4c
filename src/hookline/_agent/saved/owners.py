"""Which process holds a stored session, and whether it is still alive.

Two things name a process: the state's ``owner`` (``{"host", "pid"}``, written by every save:
the process that saved it last) and a claim. A resume takes a session with one compare-and-set
of its status (``SessionStore.claim_session``), which is all a store has to do; so the claim's
status itself names who holds it and what it was taken from::

    resuming deferred 4242@build-7        claimed from deferred by pid 4242 on build-7

A process killed between its claim and its first save (which writes ``running`` under its own
pid) leaves that status behind: once the process is gone from this host the claim is stale,
and the next resume takes the session over with another compare-and-set on that exact
status (of two resumes at once, one wins), checking the state as it was sealed before the
claim. A bare ``resuming`` (written by an older hookline) names nobody and is never taken over.

A process on another host is taken to be alive: there is no way to tell from here, and a
session another machine may be running is never taken.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from typing import Any, Final

#: The first word of a claim's status (``sessions list`` shows it as the status).
RESUMING: Final = "resuming"


@dataclass(frozen=True, slots=True)
class Claim:
    """A claim read from a status: the status it was taken from and who took it."""

    taken_from: str
    owner: dict[str, Any]

    @property
    def stale(self) -> bool:
        """Whether the claiming process is gone from this host (its claim is left over)."""
        return not owner_alive(self.owner)


def claim_status(taken_from: str) -> str:
    """The status this process sets when it claims a session whose status is ``taken_from``."""
    return f"{RESUMING} {taken_from} {os.getpid()}@{socket.gethostname()}"


def claim_of(status: str) -> Claim | None:
    """The claim ``status`` holds, or None (another status, or a bare ``resuming``)."""
    words = status.split(" ")
    if len(words) != 3 or words[0] != RESUMING:
        return None
    pid, at, host = words[2].partition("@")
    if not (pid.isdigit() and at and host):
        return None
    return Claim(words[1], {"host": host, "pid": int(pid)})


def is_claimed(status: str) -> bool:
    """Whether ``status`` says a resume has the session (a claim, or a bare ``resuming``)."""
    return status == RESUMING or claim_of(status) is not None


def owner_alive(owner: Any) -> bool:
    """Whether the process ``owner`` names (``{"host", "pid"}``) may still run: False only
    when it was on this host and its pid is gone."""
    if not isinstance(owner, dict):
        return False
    if owner.get("host") != socket.gethostname():
        return True  # no way to tell from here: never take a session another machine may run
    try:
        os.kill(int(owner["pid"]), 0)
    except (ProcessLookupError, ValueError, KeyError, TypeError, OverflowError):
        return False
    except PermissionError:
        return True
    return True
