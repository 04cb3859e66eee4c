"""The watchdog: kills the process groups of a harness's children when the harness dies.

Run as a script with no imports beyond the standard library (``python -I -S watchdog.py``) by
``hookline._support.process``. Its stdin is a pipe whose only write end the harness holds;
the harness writes one line per child process group it starts (``+PGID``) and may take one
back (``-PGID``).
When the harness dies, however it dies (SIGKILL included), the kernel closes the write end, the
watchdog reads end-of-file, and sends SIGKILL to every group it was told of: the direct child,
its children and their children alike (a ``sleep &`` started by ``bash -c`` stays in the group).

It lives in a session of its own, so a Ctrl-C meant for the harness's terminal group does not
end it first. Every few seconds it forgets groups that have no process left, so a group id that
the kernel hands out again later is not killed by mistake.
"""

from __future__ import annotations

import os
import select
import signal
import sys
from contextlib import suppress

#: Seconds between two sweeps of the groups that have emptied.
SWEEP_SECONDS = 5.0


def main(fd: int = 0) -> None:
    """Watch ``fd`` until end-of-file, then kill every group still listed."""
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    groups: set[int] = set()
    pending = b""
    while True:
        ready, _, _ = select.select([fd], [], [], SWEEP_SECONDS)
        if not ready:
            groups = {pgid for pgid in groups if group_alive(pgid)}
            continue
        data = os.read(fd, 4096)
        if not data:
            break
        *lines, pending = (pending + data).split(b"\n")
        for line in lines:
            _apply(line.strip(), groups)
    for pgid in groups:
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)


def _apply(line: bytes, groups: set[int]) -> None:
    if line[:1] in (b"+", b"-") and line[1:].isdigit():
        pgid = int(line[1:])
        if pgid > 1:
            (groups.add if line[:1] == b"+" else groups.discard)(pgid)


def group_alive(pgid: int) -> bool:
    """Whether any process is left in group ``pgid``."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
