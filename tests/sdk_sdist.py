"""The claude-agent-sdk source distribution the SDK tests read: fetched once, checked, kept.

The SDK is third-party code, so it is not kept in this repository: ``read(member)`` downloads
the sdist with pip (into a cache folder that outlives the run, checked against its sha256) and
returns one file of it as text. Without network the calling test skips, unless
``HOOKLINE_REQUIRE_SDK_EXAMPLE=1`` (CI sets it), which makes that a failure: CI must run every
test that reads the sdist. Nothing of it is installed; the bundled Claude Code CLI is not needed.

Tests on several workers may fetch at once: each downloads into a folder of its own and moves
the file into place in one step, so a reader sees the whole file or none.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import pytest

SDK = "claude-agent-sdk==0.2.189"
SDIST = "claude_agent_sdk-0.2.189.tar.gz"
SDIST_SHA256 = "1d859a142ee6cd97aef972215ed7ab5c09f623018194a6577c7dafbbfa481216"
#: The folder every path inside the sdist starts with.
TOP = "claude_agent_sdk-0.2.189"
#: Read at import, before the tests' own empty home is set: the download is kept between runs.
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "hookline-tests"


def fetch_sdist() -> Path:
    """The sdist in the cache, downloaded with pip when it is not there yet."""
    kept = CACHE / SDIST
    if not kept.is_file():
        CACHE.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=CACHE) as folder:
            pip = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:"]
            done = subprocess.run(
                [*pip, SDK, "-d", folder], capture_output=True, text=True, timeout=600
            )
            if done.returncode or not Path(folder, SDIST).is_file():
                raise OSError(f"pip download {SDK} failed: {done.stderr.strip()[-500:]}")
            os.replace(Path(folder, SDIST), kept)
    return kept


def checked_sdist() -> Path:
    """The sdist, checked against its sha256; the calling test skips when it cannot be had
    (fails instead when ``HOOKLINE_REQUIRE_SDK_EXAMPLE=1``)."""
    try:
        sdist = fetch_sdist()
    except (OSError, subprocess.SubprocessError) as failure:
        if os.environ.get("HOOKLINE_REQUIRE_SDK_EXAMPLE") == "1":
            pytest.fail(f"HOOKLINE_REQUIRE_SDK_EXAMPLE=1 and the sdist is missing: {failure}")
        pytest.skip(f"the claude-agent-sdk sdist could not be fetched (no network?): {failure}")
    digest = hashlib.sha256(sdist.read_bytes()).hexdigest()
    assert digest == SDIST_SHA256, f"{sdist} is not the sdist these tests were written against"
    return sdist


def read(member: str) -> str:
    """The text of ``member``, a path inside the sdist's top folder."""
    with tarfile.open(checked_sdist()) as archive:
        found = archive.extractfile(f"{TOP}/{member}")
        assert found is not None, f"{member} is not a file of {SDIST}"
        return found.read().decode("utf-8")
