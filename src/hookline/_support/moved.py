"""Modules that moved: the old name still imports, for one release, and says where to go.

An alias module calls ``moved(__name__, "new.place")`` first thing; importing it warns with a
DeprecationWarning and hands the importer the module at its new place, so every name (private
ones too) is the same object under both names.
"""

from __future__ import annotations

import importlib
import sys
import warnings


def moved(old: str, new: str) -> None:
    """Warn that ``old`` is now ``new`` and make ``old`` import as ``new``."""
    warnings.warn(
        f"{old} moved to {new}; import it from there ({old} goes in the next release)",
        DeprecationWarning,
        stacklevel=3,
    )
    sys.modules[old] = importlib.import_module(new)
