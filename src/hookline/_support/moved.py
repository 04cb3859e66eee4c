"""Modules that moved keep their old names for one release: importing one warns, and hands back
the module at its new place, so every name (private ones too) is the same object under both.

Three kinds of move are known here, and nowhere else:

    MOVED                 single modules renamed: hookline.layers -> hookline._settings_layers
    RENAMED               internal packages and modules marked private with a leading
                          underscore, and everything under them: hookline.agent.loop ->
                          hookline._agent.loop
    UNDERSCORED           public packages whose own modules were marked private:
                          hookline.storage.sqlite -> hookline.storage._sqlite

``install()`` (run by ``import hookline``) puts ``OldNames`` on ``sys.meta_path``: it answers
only for an old name. It stands first: under an old package name, the path finder would find
the file and load a second copy of the module.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from types import ModuleType
from typing import Final

MOVED: Final = {
    "hookline.layers": "hookline._settings_layers",
    "hookline.hooks.sdk": "hookline._hooks.sdk_matchers",
    "hookline.claude.resources": "hookline._hooks.resources",
    "hookline.claude.wording": "hookline._wording",
    "hookline.mcp.sdk": "hookline.mcp._mcp_client",
}
RENAMED: Final = frozenset(
    [
        "agent",
        "hooks",
        "tools",
        "claude",
        "cli",
        "demo",
        "events",
        "decisions",
        "errors",
        "matchers",
        "wording",
        "file_tools",
        "settings_layers",
        "project",
        "trust",
    ]
)
UNDERSCORED: Final = frozenset(
    {
        "hookline.storage",
        "hookline.models",
        "hookline.permissions",
        "hookline.permissions.bash",
        "hookline.audit",
        "hookline.mcp",
        "hookline.sdk",
    }
)


def new_name(old: str) -> str | None:
    """Where the module once named ``old`` is now; None for a name that never moved (or, under
    a moved package, a module that does not exist there either)."""
    if old in MOVED:
        return MOVED[old]
    root, _, rest = old.partition(".")
    top, _, below = rest.partition(".")
    parent, _, last = old.rpartition(".")
    imported = sys.modules.get(parent)
    if imported is not None and imported.__name__ != parent:  # under a package that moved
        new = f"{imported.__name__}.{last}"
    elif root == "hookline" and top in RENAMED:
        new = f"hookline._{top}" + (f".{below}" if below else "")
    elif parent in UNDERSCORED and not last.startswith("_"):
        new = f"{parent}._{last}"
    else:
        return None
    return new if importlib.util.find_spec(new) is not None else None


class OldNames(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds a moved module under its old name: the module at its new place, with a warning."""

    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith("hookline.") or fullname in sys.modules:
            return None
        new = new_name(fullname)
        return None if new is None else importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        new = new_name(spec.name)
        assert new is not None  # find_spec answered for it
        warnings.warn(
            f"{spec.name} moved to {new}; import it from there, or its public names from "
            f"hookline ({spec.name} goes in the next release)",
            DeprecationWarning,
            stacklevel=2,
        )
        return importlib.import_module(new)

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the module at its new place ran when it was first imported."""


def install() -> None:
    """Answer for the old names from now on (once per process)."""
    if not any(isinstance(finder, OldNames) for finder in sys.meta_path):
        sys.meta_path.insert(0, OldNames())  # before the path finder, which would load a copy
