"""The protected set as the sandbox keeps it: what to bind read-only, and each ``.git`` to pin.

The set is ``hookline.permissions._protected``'s (one place for that idea); this module asks it
for the paths of the sandbox's roots and the code files the settings name.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from hookline.permissions._protected import protected_set


def protected_entries(
    roots: Sequence[str], *, code_files: Sequence[str] = ()
) -> tuple[list[str], list[str]]:
    """The protected paths (existing or not) and each root's ``.git``."""
    found = protected_set(tuple(roots), home=os.path.expanduser("~"), code_files=code_files)
    return list(found.paths()), list(found.git_dirs())
