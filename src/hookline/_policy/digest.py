"""One digest of everything that decides: ``policy_digest(project)``.

sha256 over a canonical JSON listing of

- each settings layer: its name, its file and the file's bytes (an inline ``--settings`` value,
  or the command line's rules, by their JSON);
- each ``--hooks`` file, and each file the hooks run as code (a Python hook's module and the
  project's modules it imports, a command hook's script: ``PermissionPolicy.code_files``);
- the policy as loaded (``hookline._policy.view.loaded``): the permission mode, the rules, the
  tiers and every hook with its matcher and what runs.

A file that changes changes the digest; a file nothing reads does not. The short form (12 hex
digits) is for people; records carry the whole. ``watched`` lists the files whose change may
change the policy: these, and the settings files a run would read if they existed.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from hookline._policy.view import loaded

if TYPE_CHECKING:
    from collections.abc import Iterator

    from hookline._project import Project

#: How many hex digits the short form shows.
SHORT: Final = 12
#: The role of a ``--hooks`` file and of a file hooks run as code.
HOOKS_FILE: Final = "hooks file"
HOOK_CODE: Final = "hook code"


@dataclass(frozen=True, slots=True)
class PolicyFile:
    """One input of the policy: where it is, what it is, and the sha256 of its bytes (None:
    it could not be read when the digest was taken)."""

    path: str
    role: str
    sha256: str | None

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "role": self.role, "sha256": self.sha256}


@dataclass(frozen=True, slots=True)
class PolicyDigest:
    """The digest of one loaded policy, and the files it covers."""

    sha256: str
    files: tuple[PolicyFile, ...]

    @property
    def short(self) -> str:
        return self.sha256[:SHORT]


def policy_digest(project: Project) -> PolicyDigest:
    """The digest of ``project``'s policy: its inputs' bytes and the policy as loaded."""
    files = tuple(_inputs(project))
    listing = {"files": [file.to_dict() for file in files], "loaded": loaded(project)}
    return PolicyDigest(_sha256(_canonical(listing)), files)


def watched(project: Project, digest: PolicyDigest) -> tuple[str, ...]:
    """The files whose change may change the policy: the digest's, and every settings file
    a run in the project reads, whether or not it exists yet."""
    candidates = (str(path) for _, path in project.settings_files)
    real = (file.path for file in digest.files if os.path.isabs(file.path))
    return tuple(dict.fromkeys((*real, *candidates)))


def _inputs(project: Project) -> Iterator[PolicyFile]:
    seen: set[str] = set()
    for layer in project.settings.layers:
        role = f"settings ({layer.name})"
        if os.path.isabs(layer.path):
            seen.add(layer.path)
            yield PolicyFile(layer.path, role, _file_sha256(layer.path))
        else:  # an inline --settings value, the command line's rules: their JSON
            yield PolicyFile(layer.path, role, _sha256(_canonical(layer.data)))
    for role, path in _code(project):
        if path not in seen:
            seen.add(path)
            yield PolicyFile(path, role, _file_sha256(path))


def _code(project: Project) -> Iterator[tuple[str, str]]:
    """The ``--hooks`` files (named in their hooks' sources), then the hooks' code files."""
    for spec in project.hooks:
        kind, _, file = spec.source.partition(":")
        if kind == "python" and file:
            yield HOOKS_FILE, os.path.abspath(file)
    for path in project.permissions.code_files:
        yield HOOK_CODE, path


def _file_sha256(path: str) -> str | None:
    try:
        return _sha256(Path(path).read_bytes())
    except OSError:
        return None


def _canonical(value: object) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
