"""A function named by where it lives, imported on its first call.

    open_store = NamedFunction("hookline.storage:open_store")
    open_store(url, state_dir=folder)        # imports hookline.storage now, then calls it

A lower layer names a default that lives in a layer beside it without importing it: the value
is a constant (a frozen name), the import happens when the function is first used, and
``tests/test_layers.py`` holds every such name to the layers as it does an import.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class NamedFunction:
    """``where`` is ``"package.module:function"``."""

    where: str

    @property
    def module(self) -> str:
        """The module the function is defined in."""
        return self.where.partition(":")[0]

    def resolve(self) -> Any:
        """The function itself (its module imported)."""
        module, _, name = self.where.partition(":")
        return getattr(importlib.import_module(module), name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.resolve()(*args, **kwargs)
