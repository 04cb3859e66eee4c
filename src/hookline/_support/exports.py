"""A package's public names from one table, each imported when first used.

A public package lists the module each of its names is defined in (a dict of module names to
names); its ``__all__`` is those names, and its module ``__getattr__`` imports a name on first use
and keeps it, so importing the package costs nothing the caller does not touch. Type checkers
read the package's ``if TYPE_CHECKING:`` imports instead (a test keeps them equal to the table).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any


@dataclass(frozen=True, slots=True)
class Exports:
    """The public names of ``package``: ``where`` maps each defining module to its names."""

    package: str
    where: Mapping[str, tuple[str, ...]]
    home: Mapping[str, str]

    @classmethod
    def of(cls, package: str, where: Mapping[str, Sequence[str]]) -> Exports:
        """The table, checked: a name listed twice is an error."""
        home = {name: module for module, names in where.items() for name in names}
        if len(home) != sum(len(names) for names in where.values()):
            raise ValueError(f"{package}: a public name is listed twice")
        table = {module: tuple(names) for module, names in where.items()}
        return cls(package, MappingProxyType(table), MappingProxyType(home))

    @property
    def names(self) -> list[str]:
        """The package's ``__all__``, sorted."""
        return sorted(self.home)

    def get(self, name: str) -> Any:
        """The value of ``name``, imported from its module and kept on the package."""
        module = self.home.get(name)
        if module is None:
            raise AttributeError(f"module {self.package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[self.package], name, value)  # once: later lookups are plain
        return value

    def dir(self) -> list[str]:
        """What ``dir(package)`` shows: what it holds and every public name."""
        return sorted({*vars(sys.modules[self.package]), *self.home})
