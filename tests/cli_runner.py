"""Running hookline (or any Python snippet) in a subprocess against this checkout's ``src``."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

SRC = str(Path(__file__).resolve().parents[1] / "src")

#: ``python -m hookline._cli.main``: the real entry point, with this interpreter.
HOOKLINE = [sys.executable, "-m", "hookline._cli.main"]


def src_env(
    extra: Mapping[str, str] | None = None, *, keep_pythonpath: bool = True
) -> dict[str, str]:
    """This process's environment plus ``extra``, with ``src`` on PYTHONPATH.

    ``keep_pythonpath=False`` makes PYTHONPATH exactly ``src`` instead of prepending it.
    """
    path = SRC + os.pathsep + os.environ.get("PYTHONPATH", "") if keep_pythonpath else SRC
    return {**os.environ, **(extra or {}), "PYTHONPATH": path}


def hookline(
    *args: str,
    cwd: Path | None = None,
    stdin: str | None = None,
    env: Mapping[str, str] | None = None,
    keep_pythonpath: bool = True,
) -> subprocess.CompletedProcess[str]:
    """``hookline ARGS`` in a subprocess: output captured as text, 60 s timeout; stdin is
    ``stdin``, else empty (never the test runner's)."""
    return subprocess.run(
        [*HOOKLINE, *args],
        cwd=cwd,
        env=src_env(env, keep_pythonpath=keep_pythonpath),
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        timeout=60,
    )
