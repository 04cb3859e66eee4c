"""The analyser's claim about a line, and whether what Bash did keeps to it.

``claim_of(line, ...)`` asks the permission layer's public decision path
(``hookline.permissions.evaluate``) about a Bash call, as a session in that workspace would:
in default mode, whether the read-only tier runs it unasked; else in acceptEdits mode, whether
that mode runs it unasked as a provable file edit. ``disagreements(claim, run, ...)`` lists what
the run did beyond the claim:

- a program started (or tried) whose name is not a command of the line's analysis
  (``Analysis.commands``), unless ``known.INCIDENTAL_EXECS`` says the listed program starts it;
- a change (a write open, a rename, unlink, mkdir, chmod, ...) that is not
  ``known.incidental`` and, for a read-only line, any at all except to ``/dev/null``; for an
  acceptEdits line, any but those a file-editing program of edits' list makes strictly inside
  the workspace, outside ``.git``, ``.claude`` and ``.hookline``, links resolved.

Paths are resolved against the template (the state as it was when the line started), not the
state the batch left behind.
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass
from typing import Literal

from bashfuzz.jail import Jail, Run
from bashfuzz.known import INCIDENTAL_EXECS, incidental
from bashfuzz.trace import Change
from hookline._decisions import NO_DECISION
from hookline.permissions import PermissionPolicy, evaluate
from hookline.permissions.bash import analyze

Kind = Literal["read-only", "acceptEdits"]
#: Where a write changes no file (and ``pipe:[N]``: ``> /dev/stdout`` in a pipeline opens the
#: pipe Bash made for it).
NOWHERE = frozenset({"/dev/null"})
#: The programs whose writes an acceptEdits line may make (edits' file-editing programs).
EDITORS = frozenset({"mkdir", "touch", "cp", "mv", "rm", "rmdir", "chmod"})
PROTECTED = frozenset({".git", ".claude", ".hookline"})
_DEFAULT = PermissionPolicy(mode="default")
_EDITS = PermissionPolicy(mode="acceptEdits")


@dataclass(frozen=True, slots=True)
class Claim:
    """What the permission layer claims of a line: its tier, and the programs it listed."""

    kind: Kind
    programs: frozenset[str]


@dataclass(frozen=True, slots=True)
class Disagreement:
    line: str
    claim: Kind
    seen: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.line!r}\n  claimed {self.claim}; Bash did:\n    " + "\n    ".join(self.seen)


def claim_of(line: str, *, workspace: str, home: str) -> Claim | None:
    """The claim the permission layer makes of ``line``; None when it would ask."""
    names = frozenset(c.name for c in analyze(line).commands if c.name)
    for policy, kind, source in ((_DEFAULT, "read-only", "tier:read-only"),
                                 (_EDITS, "acceptEdits", "mode:acceptEdits")):  # fmt: skip
        verdict = evaluate(
            policy,
            tool_name="Bash",
            tool_input={"command": line},
            read_only=False,
            hook=NO_DECISION,
            cwd=workspace,
            home=home,
            project_dir=workspace,
        )
        if verdict.permission == "allow" and verdict.source == source:
            return Claim(kind, names)  # type: ignore[arg-type]
    return None


def disagreements(claim: Claim, run: Run, jail: Jail) -> Disagreement | None:
    """What ``run`` did beyond ``claim``; None when it kept to it."""
    seen: list[str] = []
    execs = run.trace.execs[1:]  # the first is the Bash the driver started
    allowed = claim.programs | {x for p in claim.programs for x in INCIDENTAL_EXECS.get(p, ())}
    for started in execs:
        name = posixpath.basename(started.path)
        if name not in allowed:
            outcome = "started" if started.ok else "tried to start"
            seen.append(f"{outcome} `{name}` ({started.path} {list(started.argv)})")
    for change in run.trace.changes:
        if why := _unproved(claim, change, jail):
            seen.append(why)
    if not seen:
        return None
    return Disagreement(run.line, claim.kind, tuple(dict.fromkeys(seen)))


def _unproved(claim: Claim, change: Change, jail: Jail) -> str | None:
    path = _as_before(change, jail)
    if path in NOWHERE or path.startswith("pipe:[") or incidental(change, path, jail.workspace):
        return None
    said = f"`{change.program}` {change.syscall} {path}" + (f" [{change.flags}]" if change.flags
                                                              else "")  # fmt: skip
    said += "" if change.ok else " (refused)"
    if claim.kind == "read-only":
        return said
    if change.program not in EDITORS:
        return said + f": `{change.program}` is not a file-editing program"
    if not inside(path, jail.workspace):
        return said + ": not strictly inside the workspace, or into a protected folder"
    return None


def inside(path: str, workspace: str) -> bool:
    """Strictly inside the workspace and outside its protected folders."""
    root = os.path.realpath(workspace)
    if not path.startswith(root + "/"):
        return False
    return not PROTECTED & set(path[len(root) + 1 :].split("/"))


def _as_before(change: Change, jail: Jail) -> str:
    """The path, links resolved as they were when the line started (in the template); the last
    part kept as it is for calls that act on a link itself (unlink, rename, mkdir, ...)."""
    path, state, template = change.path, str(jail.state), str(jail.template)
    if not (path == state or path.startswith(state + "/")):
        return os.path.realpath(path) if path.startswith("/") else path
    follows_last = change.syscall in ("open", "openat", "openat2", "creat", "truncate", "chmod",
                                      "fchmodat", "utimensat", "chown") and "O_NOFOLLOW" not in (
                                          change.flags)  # fmt: skip
    before = template + path[len(state) :]
    head, tail = (before, "") if follows_last else posixpath.split(before)
    real = os.path.realpath(head)
    real = posixpath.join(real, tail) if tail else real
    if real == template or real.startswith(template + "/"):
        return str(jail.state) + real[len(template) :]
    return real
