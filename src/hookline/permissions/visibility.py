"""What reading tools may see, and where file tools may not write unasked.

- ``private_reason``: Read, Glob and Grep never reach ``.hookline`` (transcripts, the store, the
  audit), on the path as given or on its real path; the permission layer denies them.
- ``protected_write_reason``: Write, Edit and NotebookEdit into the protected set
  (``hookline.permissions.protected``: ``.claude``, ``.hookline``, ``.mcp.json``, the code parts
  of ``.git``, the settings' code files, ``~/.claude``, ``~/.hookline``; a symlink into one
  included) need an explicit ask in every mode.
- ``ReadFilter``: what Glob and Grep leave out of a folder walk, and count: files a Read deny
  rule covers (on the given or the real path) and hookline's private state.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hookline.file_tools import READERS, WRITERS
from hookline.permissions.paths import PRIVATE, absolute, protected_part
from hookline.permissions.protected import protected_set

if TYPE_CHECKING:
    from hookline.permissions.policy import PermissionPolicy
    from hookline.permissions.rules import PermissionRule


def private_reason(
    tool_name: str,
    tool_input: Mapping[str, Any],
    *,
    cwd: str,
    roots: Iterable[str],
    resolve: bool = True,
) -> str | None:
    """Why a Read, Glob or Grep of hookline's private state is denied; None for any other call.
    The path is checked as given and (``resolve``) as its real path.

    Glob and Grep without a ``path`` search ``cwd``, which is checked the same way."""
    if tool_name not in READERS:
        return None
    path = tool_input.get(READERS[tool_name])
    path = cwd if path is None and tool_name != "Read" else path
    if not isinstance(path, str):
        return None
    found = _part(path, cwd, None, roots, (PRIVATE,), resolve)
    if found is None:
        return None
    why = f"{tool_name} was refused: {found} holds hookline's private state (transcripts, the "
    return why + "session store, the audit log), which no tool reads. Do not retry it."


def protected_write_reason(
    tool_name: str,
    tool_input: Mapping[str, Any],
    *,
    cwd: str,
    roots: Iterable[str],
    home: str | None = None,
    resolve: bool = True,
    code_files: Iterable[str] = (),
) -> str | None:
    """The protected entry (``hookline.permissions.protected``: ``<root>/.git/hooks``,
    ``<root>/.claude``, ``~/.claude``, a hook's code file) a Write, Edit or NotebookEdit writes
    into, on the path as given or (``resolve``) its real path; None for any other call."""
    path = tool_input.get(WRITERS.get(tool_name, ""))
    if not isinstance(path, str):
        return None
    found = protected_set(roots, home=home, code_files=code_files)
    try:
        return found.covers(absolute(path, cwd, found.home), resolve=resolve)
    except ValueError:  # a NUL byte: no such file, and the tool refuses the path itself
        return None


def _part(
    path: str,
    cwd: str,
    home: str | None,
    roots: Iterable[str],
    names: Iterable[str],
    resolve: bool = True,
) -> str | None:
    try:
        return protected_part(absolute(path, cwd, home), roots, names=names, resolve=resolve)
    except ValueError:  # a NUL byte: no such file, and the tool refuses the path itself
        return None


@dataclass(frozen=True, slots=True)
class ReadFilter:
    """The Read deny rules a folder walk (Glob, Grep) applies to each file it would show."""

    rules: tuple[PermissionRule, ...] = ()
    cwd: str = "/"
    home: str | None = None

    @classmethod
    def of(cls, policy: PermissionPolicy, *, cwd: str, home: str | None = None) -> ReadFilter:
        """The policy's Read deny rules, and those of its dangerous tier."""
        rules = [rule for rule, _ in policy.deny if rule.tool == "Read"]
        rules += [d.rule for d in policy.dangerous if d.rule is not None and d.rule.tool == "Read"]
        return cls(tuple(rules), cwd, home)

    def hides(self, path: str) -> bool:
        """Whether a Read deny rule covers absolute ``path`` (as given or its real path)."""
        given = {READERS["Read"]: path}
        return any(r.matches("Read", given, cwd=self.cwd, home=self.home) for r in self.rules)
