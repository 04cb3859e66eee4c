"""``hookline run`` at a real terminal: a call that needs approval is shown and asked about."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import time
from pathlib import Path

from cli_runner import HOOKLINE, src_env

SCRIPT = {"turns": [
    {"tool_calls": [{"id": "t1", "name": "Write",
                     "input": {"file_path": "out.txt", "content": "approved"}}]},
    {"text": "done"},
]}  # fmt: skip


def read_until(fd: int, text: str, seconds: float = 20.0) -> str:
    seen, deadline = b"", time.monotonic() + seconds
    while text.encode() not in seen:
        assert time.monotonic() < deadline, f"never saw {text!r} in {seen.decode(errors='replace')}"
        if select.select([fd], [], [], 0.1)[0]:
            try:
                seen += os.read(fd, 4096)
            except OSError:
                break
    return seen.decode(errors="replace")


def run_at_a_terminal(tmp_path: Path, answers: list[tuple[str, str]]) -> str:
    (tmp_path / "s.json").write_text(json.dumps(SCRIPT))
    main, follower = pty.openpty()
    env = src_env({"TERM": "dumb"}, keep_pythonpath=False)
    argv = [
        *HOOKLINE,
        "run",
        "write it",
        "--model",
        "scripted:s.json",
    ]
    proc = subprocess.Popen(
        argv, cwd=tmp_path, env=env, stdin=follower, stdout=follower, stderr=follower
    )
    os.close(follower)
    shown = ""
    try:
        for wait_for, answer in answers:
            shown += read_until(main, wait_for)
            os.write(main, answer.encode())
        assert proc.wait(timeout=30) == 0
        shown += read_until(main, "end_turn")
    finally:
        proc.kill()
        proc.wait()
        os.close(main)
    return shown


def test_the_terminal_prompt_shows_the_call_and_an_approval_runs_it(tmp_path: Path) -> None:
    shown = run_at_a_terminal(tmp_path, [("Approve? [a/s/d/e/?]", "a\n")])
    assert "Write" in shown and "approved" in shown  # the tool and its input were shown
    assert "s allows for the rest of this session: file edits in the workspace" in shown
    assert (tmp_path / "out.txt").read_text() == "approved"


def test_a_denial_at_the_terminal_reaches_the_model_and_nothing_is_written(tmp_path: Path) -> None:
    shown = run_at_a_terminal(
        tmp_path, [("Approve? [a/s/d/e/?]", "d\n"), ("Message for the model", "use a branch\n")]
    )
    assert "tool Write blocked: use a branch" in shown
    assert not (tmp_path / "out.txt").exists()
