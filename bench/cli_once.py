"""One ``hookline run`` of N ``Read`` calls in this process, for counting instructions.

    valgrind --tool=callgrind --callgrind-out-file=/dev/null python bench/cli_once.py 120
    valgrind --tool=callgrind --callgrind-out-file=/dev/null python bench/cli_once.py 20

Per call = (instructions of the 120-call run - those of the 20-call run) / 100: start-up, the
imports and opening the store cancel out, and a count does not move with the machine's load as
time does. ``HOOKS=0`` runs without the hooks (five Agent SDK callbacks, matcher ``Read``, as
peers/hookline_cli.py); other arguments go to ``hookline run`` (``--no-audit``). The run is
checked: every call executed.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import tempfile
from pathlib import Path

import benchkit  # noqa: F401  (beside this script; puts ../src on sys.path when needed)
from benchkit import SCRATCH
from hookline._cli.main import main

HOOKS_FILE = Path(__file__).parent / "peers" / "hookline_cli.py"


def run(calls: int, hooks: bool, extra: list[str]) -> None:
    with tempfile.TemporaryDirectory(dir=SCRATCH) as tmp:
        root = Path(tmp)
        note = root / "note.txt"
        note.write_text("one line\n")
        turn = {"tool_calls": [{"name": "Read", "input": {"file_path": str(note)}}]}
        (root / "script.json").write_text(json.dumps({"turns": [turn] * calls + [{"text": "ok"}]}))
        argv = ["run", "--cwd", tmp, "--model", f"scripted:{root / 'script.json'}",
                "--output-format", "json", "--max-turns", str(calls + 1), *extra]  # fmt: skip
        if hooks:
            sys.path.insert(0, str(HOOKS_FILE.parent))
            (root / "hooks.py").write_text(
                "from hookline_sdk import matchers\n\nHOOKS = matchers(5, tool='Read')\n"
            )
            argv += ["--hooks", str(root / "hooks.py")]
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            main([*argv, "go"])
        done = [c["status"] for c in json.loads(out.getvalue())["tool_calls"]]
        if done.count("executed") != calls:
            raise SystemExit(f"expected {calls} calls executed, got {done}")


if __name__ == "__main__":
    run(int(sys.argv[1]), os.environ.get("HOOKS", "5") != "0", sys.argv[2:])
