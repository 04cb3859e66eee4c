"""What reading tools may see, and where file tools may not write unasked.

- ``private_reason``: Read, Glob and Grep never reach ``.hookline`` (transcripts, the store, the
  audit) nor the per-user keys (``protected.secret_paths``: the key that seals sessions and keys
  the audit's chain, and the audit's kept heads), on the path as given or on its real path; the
  permission layer denies them.
- ``PrivateReads``: the same places, as the read-only tier proves a Bash line's reads against
  them (``hookline.permissions._reads``): a line that may read one is not run unasked.
- ``protected_write_reason``: Write, Edit and NotebookEdit into the protected set
  (``hookline.permissions._protected``: ``.claude``, ``.hookline``, ``.mcp.json``, the code parts
  of ``.git``, the settings' code files, ``~/.claude``, ``~/.hookline``; a symlink into one
  included) need an explicit ask in every mode.
- ``ReadFilter``: what Glob and Grep leave out of a folder walk, and count: files a Read deny
  rule covers (on the given or the real path) and hookline's private state.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterable, Mapping
from contextlib import suppress
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from hookline._file_tools import READERS, WRITERS
from hookline.permissions._paths import PRIVATE, absolute, forms, inside, protected_part, real
from hookline.permissions._protected import KEY_ENV, is_key_file, protected_set, secret_paths

if TYPE_CHECKING:
    from hookline.permissions._policy import PermissionPolicy
    from hookline.permissions._rules import PermissionRule


def private_reason(
    tool_name: str,
    tool_input: Mapping[str, Any],
    *,
    cwd: str,
    roots: Iterable[str],
    resolve: bool = True,
    home: str | None = None,
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
    try:
        judged = _forms(path, cwd, home, resolve)
        # ``~`` as this process has it for the workspace's state, as ``home`` has it for the keys
        own = (
            judged if home is None or not path.startswith("~") else _forms(path, cwd, None, resolve)
        )
    except ValueError:  # a NUL byte: no such file, and the tool refuses the path itself
        return None
    found = _private_part(own, roots) or _secret(judged, home)
    if found is None:
        return None
    why = f"{tool_name} was refused: {found} holds hookline's private state (transcripts, the "
    return why + "session store, the audit log, its keys), which no tool reads. Do not retry it."


def _forms(path: str, cwd: str, home: str | None, resolve: bool) -> tuple[str, ...]:
    """``path`` made absolute, and (``resolve``) its real path when that differs."""
    return forms(path, cwd, home) if resolve else (absolute(path, cwd, home),)


def _private_part(forms: Iterable[str], roots: Iterable[str]) -> str | None:
    """The ``.hookline`` folder below a root that one of ``forms`` (absolute) lies in."""
    tops = tuple(roots)
    found = (protected_part(f, tops, names=(PRIVATE,), resolve=False) for f in forms)
    return next((part for part in found if part is not None), None)


def _secret(forms: Iterable[str], home: str | None) -> str | None:
    """The per-user key place one of ``forms`` (absolute) lies in, if any."""
    return next((p for p in secret_paths(home) for f in forms if inside(f, p)), None)


@dataclass(frozen=True)
class PrivateReads:
    """hookline's private places as the read-only tier proves a Bash line's reads against them
    (``hookline.permissions._reads.ReadRules``): each root's ``.hookline`` and the per-user keys.
    A line that may read one (a literal path, a word only run time knows, a walk that reaches
    one) is not run unasked."""

    places: tuple[str, ...]
    what: str = "hookline keeps private (its state and keys)"

    @classmethod
    def of(cls, roots: tuple[str, ...], home: str | None) -> PrivateReads:
        return _private_reads(roots, home, os.environ.get(KEY_ENV, ""))

    def covers(self, path: str) -> bool:
        try:
            forms = dict.fromkeys((path, real(path)))
        except ValueError:  # a NUL byte: no such file
            forms = {path: None}
        return any(self.covers_real(form) for form in forms) or _a_key_by_another_name(path)

    def covers_real(self, path: str) -> bool:
        path = posixpath.normpath(path)
        return any(inside(path, place) for place in self.places)

    @property
    def scopes(self) -> tuple[str, ...]:
        return self.places


def _a_key_by_another_name(path: str) -> bool:
    """Whether ``path`` is one of the per-user keys under a name no place covers (a hard link):
    the places are names, and a hard link is the same file under any name."""
    with suppress(OSError, ValueError):
        return is_key_file(os.stat(path))
    return False


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
    """The protected entry (``hookline.permissions._protected``: ``<root>/.git/hooks``,
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


@lru_cache(maxsize=64)
def _private_reads(roots: tuple[str, ...], home: str | None, key: str) -> PrivateReads:
    """Made once per workspace, home and key file (``key`` is in the cache key only: where
    ``secret_paths`` finds it). The places are resolved now; a link that later moves one needs
    a write into the protected set, which asks."""
    tops = [top for root in roots for top in (root, real(root))]
    found = [f"{top.rstrip('/')}/{PRIVATE}" for top in tops] + list(secret_paths(home))
    found += [real(place) for place in found]
    return PrivateReads(tuple(dict.fromkeys(found)))
