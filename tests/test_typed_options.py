"""mypy sees a misspelt option of ``Agent(...)``: its keyword options are typed
(``AgentSettings``), not ``**Any``. Runs mypy, in a process of its own, on a two-line program."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import hookline

PROGRAM = """\
from hookline import Agent, ScriptedModel

model = ScriptedModel([{"text": "done"}])
Agent(model, max_turns=3, permission_mode="plan")
Agent(model, max_turn=3)
Agent(model, max_turns="three")
"""


def test_mypy_flags_a_misspelt_or_mistyped_agent_option(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    program = tmp_path / "program.py"
    program.write_text(PROGRAM)
    cached = getattr(request.config, "cache", None)  # absent under -p no:cacheprovider
    cache = cached.mkdir("mypy-typed-options") if cached else tmp_path
    source = Path(hookline.__file__).resolve().parent.parent  # this checkout's hookline
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--no-error-summary",
            "--hide-error-context",
            "--cache-dir",
            str(cache),
            "--config-file",
            os.devnull,
            str(program),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "MYPYPATH": str(source)},
        check=False,
    )
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert [line.split(":")[1] for line in errors] == ["5", "6"], done.stdout + done.stderr
    assert 'Unexpected keyword argument "max_turn" for "Agent"' in errors[0]
    assert '"max_turns"' in errors[1] and '"int"' in errors[1]
