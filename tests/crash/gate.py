"""The moments a kill is aimed at: named points a victim passes, one of which may be armed.

Standard library only: the victim imports it, and the command hook and the Bash bodies run it
(``python -S -I gate.py POINT``). Everything lives in the story's folder, ``$CRASH_DIR``:

- ``trace``: each point this victim passed, one a line (the campaign empties it per victim);
- ``armed``: ``POINT:N MODE``, the N-th pass of POINT is where the kill goes; MODE ``hold``
  waits there to be killed, ``go`` goes on (the kill comes a random moment later);
- ``gate``: a fifo the campaign reads; the first point passed writes ``start`` to it, the
  armed point ``POINT:N``.

A point held in a command hook or a tool body first starts a process of its own that leaves
its session and its folder (``setsid``, ``cd /``, a second fork), as a daemon would: the kill
of the harness must not leave it running, and it is found by the story's mark in its
environment alone.
"""

from __future__ import annotations

import os
import sys
import time

#: The environment variables a story sets on each victim (and its children inherit).
DIR_VAR, MARK_VAR = "CRASH_DIR", "CRASH_STORY"


def passed(point: str, *, escapee: bool = False) -> None:
    """Note that ``point`` was reached; if it is the armed pass, tell the campaign and hold
    there (``escapee``: start a detached process first) or go on."""
    folder = os.environ.get(DIR_VAR)
    if not folder:
        return
    trace = os.path.join(folder, "trace")
    fd = os.open(trace, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, (point + "\n").encode())
        upto = os.lseek(fd, 0, os.SEEK_CUR)  # the end of this pass's line
    finally:
        os.close(fd)
    if upto == len(point) + 1:  # the victim's first point: its work begins
        _tell(folder, "start")
    armed = _armed(folder)
    if armed is None or armed[0].rpartition(":")[0] != point:
        return
    if armed[0] != f"{point}:{_passes(trace, point, upto)}":
        return
    hold = armed[1] == "hold"
    if hold and escapee:
        _detached()
    _tell(folder, armed[0])
    while hold:
        time.sleep(3600)


def _armed(folder: str) -> tuple[str, str] | None:
    try:
        with open(os.path.join(folder, "armed")) as file:
            words = file.read().split()
    except FileNotFoundError:
        return None
    return (words[0], words[1]) if len(words) == 2 else None


def _passes(trace: str, point: str, upto: int) -> int:
    """How many times ``point`` was passed, this pass included (concurrent hooks each count
    the lines written before their own)."""
    with open(trace, "rb") as file:
        lines = file.read(upto).decode().splitlines()
    return lines.count(point)


def _detached() -> None:
    """A process in a session of its own, in ``/``, whose parent has exited."""
    import subprocess  # only here: a hook's every pass stays cheap

    subprocess.run(
        ["sh", "-c", "sleep 600 </dev/null >/dev/null 2>&1 &"],
        cwd="/", start_new_session=True, check=True,
    )  # fmt: skip


def _tell(folder: str, what: str) -> None:
    try:
        fd = os.open(os.path.join(folder, "gate"), os.O_WRONLY | os.O_NONBLOCK)
    except OSError:  # nobody reads it (a stray run): nothing to tell
        return
    try:
        os.write(fd, (what + "\n").encode())
    finally:
        os.close(fd)


if __name__ == "__main__":
    passed(sys.argv[1], escapee=True)
