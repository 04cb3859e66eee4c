"""What the tests that drive a host's real CLI share: whether they can run here, and one run.

Each host's CLI is found as ``hookline doctor`` finds it (``find_cli`` of its canary module).
Where CI installs it, it sets ``HOOKLINE_REQUIRE_<HOST>_CLI=1``, so a missing CLI fails there
instead of skipping.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import pytest


def needs(cli: str | None, host: str, install: str) -> pytest.MarkDecorator:
    """The mark that skips a test without ``cli`` (``host``: ``CODEX``, ``GEMINI``, ``CLAUDE``;
    ``install``: how to get it); a RuntimeError when CI requires it and it is missing."""
    required = f"HOOKLINE_REQUIRE_{host}_CLI"
    if cli is None and os.environ.get(required) == "1":
        raise RuntimeError(f"{required}=1 (CI) but no {host.title()} CLI was found")
    return pytest.mark.skipif(cli is None, reason=f"no {host.title()} CLI: {install}")


@dataclass(frozen=True)
class Run:
    """One headless run of a host's CLI: its exit code, its JSON events, and the command's
    output as the model was told it (None: the model was never told)."""

    returncode: int
    events: list[dict[str, Any]]
    output: str | None
    stderr: str
