"""What the fuzzer excuses, in one place, each entry with why it is harmless.

``INCIDENTAL_EXECS``: programs a listed program starts as part of itself. ``incidental``:
writes a program makes on its own that change no user file. Nothing else is excused: every
other program started or file changed beyond the claim is a finding (``findings``).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bashfuzz.trace import Change

if TYPE_CHECKING:
    from bashfuzz.judge import Disagreement

#: A listed program -> the programs it starts as part of itself.
INCIDENTAL_EXECS: dict[str, tuple[str, ...]] = {
    # Debian's egrep and fgrep are shell scripts that run `grep -E` / `grep -F`.
    "egrep": ("grep",),
    "fgrep": ("grep",),
}


def incidental(change: Change, path: str, workspace: str) -> bool:
    """Whether ``change`` (to ``path``, links resolved) is one of the writes below."""
    return any(rule(change, path, workspace) for rule in _RULES)


def _git_index_refresh(change: Change, path: str, workspace: str) -> bool:
    """git refreshes the stat data its index caches for the work tree when it reads it
    (``git status``, ``git describe --dirty``): it writes ``.git/index.lock`` and renames it
    onto ``.git/index``, or removes the lock when there was nothing to refresh. The index keeps
    the same entries; only git's own bookkeeping changes (the state is copied afresh before
    each line, so every read of the work tree finds the stat data stale)."""
    git = posixpath.join(workspace, ".git")
    lock, index = f"{git}/index.lock", f"{git}/index"
    return change.program == "git" and path in (lock, index) and change.syscall in (
        "openat", "rename", "renameat", "renameat2", "unlink", "unlinkat")  # fmt: skip


def _terminal(change: Change, path: str, workspace: str) -> bool:
    """Bash opens ``/dev/tty`` read-write at start, to see whether it has a controlling
    terminal; a terminal is no file (and inside the jail there is none: the open fails)."""
    return change.program == "bash" and path == "/dev/tty" and change.syscall == "openat"


_RULES = (_git_index_refresh, _terminal)


@dataclass(frozen=True, slots=True)
class Finding:
    """A disagreement the fuzzer found that the analyser does not fix yet: ``repro`` is the
    smallest line that shows it. It explains a thing Bash did (``seen``, as the judge words
    it) on a line the analyser claimed ``claim`` of, when ``line`` and ``seen`` (regular
    expressions) both match."""

    name: str
    repro: str
    claim: str
    line: str
    seen: str
    about: str

    def explains(self, line: str, claim: str, seen: str) -> bool:
        return (claim == self.claim and re.search(self.line, line) is not None
                and re.search(self.seen, seen) is not None)  # fmt: skip


#: The analyser's findings not fixed yet (each kept as a strict xfail in the test module).
FINDINGS: tuple[Finding, ...] = ()


def explained(found: Disagreement) -> tuple[tuple[str, ...], list[str]]:
    """What of ``found`` no listed finding explains, and the findings that explain the rest."""
    unexplained, by = [], []
    for seen in found.seen:
        names = [f.name for f in FINDINGS if f.explains(found.line, found.claim, seen)]
        by.extend(names)
        if not names:
            unexplained.append(seen)
    return tuple(unexplained), list(dict.fromkeys(by))
