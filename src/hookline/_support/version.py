"""hookline's version, as the installed package's metadata gives it: ``pyproject.toml`` is the
one place it is written. Imported when first asked for (``hookline.__version__``, ``hookline
--version``), so a plain ``import hookline`` does not load ``importlib.metadata``."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("hookline")
except PackageNotFoundError:  # a source tree on sys.path that was never installed
    __version__ = "0+unknown"
