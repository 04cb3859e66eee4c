"""hookline's CLI path with its defaults: ``hookline run --model scripted:FILE --hooks FILE.py
--output-format json PROMPT`` in a fresh project folder, driven in this process through the
CLI's ``main()``.

The defaults stay on (but ``--max-turns``, 50 by default, is raised to the run's length): the
audit (SQLite and JSONL in the project's state folder), permissions in ``default`` mode, the
transcript. The script makes N calls of the built-in ``Read`` (of a
one-line file in the project, a read-only tool the default permissions allow), then answers.
The hooks file is what a user writes: ``HOOKS`` with ``HookMatcher`` callbacks, the gates with
matcher ``Read`` (hookline_sdk.py's). Each run's figure is ``main()`` from its call to its
return, the JSON written to a buffer; per call, the run of no call is taken out (``peerkit``'s
``subtract_empty_run``), so building the agent and opening the store do not count, and neither
does starting Python (the start-up rows measure that). The run's JSON is read back: every call
executed.
"""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import peerkit

from benchkit import SCRATCH
from hookline._cli.main import main

HOOKS_FILE = "from hookline_sdk import matchers\n\nHOOKS = matchers({hooks}, tool='Read')\n"


@contextlib.contextmanager
def agent(calls: int, hooks: int) -> Iterator[Callable[[], str]]:
    with tempfile.TemporaryDirectory(dir=SCRATCH) as tmp:
        root = Path(tmp)
        note, script = root / "note.txt", root / "script.json"
        note.write_text("one line\n")
        turn = {"tool_calls": [{"name": "Read", "input": {"file_path": str(note)}}]}
        script.write_text(json.dumps({"turns": [turn] * calls + [{"text": peerkit.FINAL}]}))
        argv = ["run", "--cwd", tmp, "--model", f"scripted:{script}", "--output-format", "json",
                "--max-turns", str(calls + 1)]  # fmt: skip
        if hooks:
            (root / "hooks_file.py").write_text(HOOKS_FILE.format(hooks=hooks))
            argv += ["--hooks", str(root / "hooks_file.py")]

        def run() -> str:
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                main([*argv, "call Read"])
            result = json.loads(out.getvalue())
            peerkit.TALLY.executed = [c["status"] for c in result["tool_calls"]].count("executed")
            return str(result["result"])

        yield run


if __name__ == "__main__":
    peerkit.main(agent, dist="hookline", hook="--hooks FILE.py: HOOKS of HookMatcher callbacks",
                 subtract_empty_run=True)  # fmt: skip
