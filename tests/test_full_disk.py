"""A full disk while the transcript is written ends the run in one line (exit 2, no traceback),
and the session is left as one ``sessions list`` and ``sessions resume`` handle (the disk is
still full, so the store cannot mark it interrupted: it stays listed as started, and a resume
refuses it in one line).

The disk is real: a 1 MiB tmpfs mounted over the project (root only; skipped where mounting
is not allowed), filled by a model reply of 2 MiB."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli_runner import hookline


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(disk)],
                             capture_output=True, text=True)  # fmt: skip
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", str(disk)], check=True)


def test_a_full_disk_at_a_transcript_write_is_one_line_and_leaves_a_listed_session(
    tmp_path: Path, small_disk: Path
) -> None:
    script = tmp_path / "script.json"  # beside the disk, not on it
    script.write_text(json.dumps({"turns": [{"text": "x" * (2 << 20)}]}))
    done = hookline("run", "write a lot", "--model", f"scripted:{script}", "--cwd",
                    str(small_disk), cwd=tmp_path)  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert "could not be written: No space left on device" in line
    assert "transcripts" in line  # names the file
    listed = hookline("sessions", "list", "--json", "--cwd", str(small_disk), cwd=tmp_path)
    ((session, status),) = [(s["session_id"], s["status"]) for s in map(json.loads,
                            listed.stdout.splitlines())]  # fmt: skip
    assert status == "crashed"
    again = hookline("sessions", "resume", session, "--cwd", str(small_disk), cwd=tmp_path)
    assert again.returncode == 2 and "Traceback" not in again.stderr
    assert "ended without saving anything to go on from" in again.stderr
