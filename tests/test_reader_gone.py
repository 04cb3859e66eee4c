"""When the reader of stdout goes away (``hookline run ... | head -1``), the run ends quietly:
exit 0 as ``claude -p`` exits, no traceback, and no tool body starts after that.

A real pipe, closed by the test while the first tool's body waits at a barrier (fifos, as in
``test_interrupted_runs``); the second tool's side effect is the sentinel that must never
happen. In text and stream-json output a failed write finds the reader gone; json writes only
at the end, so the check before each tool body asks the pipe itself.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from cli_runner import HOOKLINE, hookline, src_env
from hookline._cli.reader import Reader

#: Meets the test at ``barrier``, then waits until the test opens ``hold``.
WAIT = "echo in-the-body > barrier; cat hold > /dev/null"
SCRIPT = {
    "turns": [
        {"tool_calls": [{"id": "t_wait", "name": "Bash", "input": {"command": WAIT}}]},
        {"tool_calls": [{"id": "t_late", "name": "Bash", "input": {"command": "touch late.txt"}}]},
        {"text": "both ran"},
    ]
}


def closed_early(folder: Path, *flags: str) -> tuple[int, str]:
    """Run the script with ``flags``, close its stdout while the first tool waits, let the
    tool end; the exit code and stderr."""
    (folder / "script.json").write_text(json.dumps(SCRIPT))
    for fifo in ("barrier", "hold"):
        os.mkfifo(folder / fifo)
    args = ["run", "go", "--model", "scripted:script.json", "--allowedTools", "Bash", *flags]
    with (folder / "stderr.txt").open("w") as err:
        child = subprocess.Popen([*HOOKLINE, *args], cwd=folder, env=src_env(),
                                 stdout=subprocess.PIPE, stderr=err)  # fmt: skip
        try:
            with open(folder / "barrier") as barrier:  # returns once the body opened it
                assert barrier.readline() == "in-the-body\n"
            assert child.stdout is not None
            child.stdout.close()  # the reader goes away, as `head -1` does
            with open(folder / "hold", "w"):
                pass  # the first tool ends
            code = child.wait(timeout=60)
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
    return code, (folder / "stderr.txt").read_text()


@pytest.mark.parametrize("output", ["text", "stream-json", "json"])
def test_a_reader_gone_ends_the_run_quietly_and_no_later_tool_runs(
    tmp_path: Path, output: str
) -> None:
    code, stderr = closed_early(tmp_path, "--output-format", output)
    assert (code, stderr) == (0, "")  # as claude -p ends: 0, nothing said
    assert not (tmp_path / "late.txt").exists()  # the later call never ran


def test_the_stopped_run_is_kept_as_interrupted(tmp_path: Path) -> None:
    code, _ = closed_early(tmp_path, "--output-format", "stream-json")
    assert code == 0
    done = hookline("sessions", "list", "--json", cwd=tmp_path)
    assert [s["status"] for s in map(json.loads, done.stdout.splitlines())] == ["interrupted"]
    assert not (tmp_path / "late.txt").exists()


def test_with_the_reader_there_both_tools_run(tmp_path: Path) -> None:
    """The control: the same script, read to the end, runs the later call."""
    (tmp_path / "script.json").write_text(json.dumps({"turns": SCRIPT["turns"][1:]}))
    done = hookline("run", "go", "--model", "scripted:script.json", "--allowedTools", "Bash",
                    "--no-audit", "--output-format", "json", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "late.txt").exists()


class _Broken(io.StringIO):
    def write(self, text: str) -> Any:
        raise BrokenPipeError(32, "Broken pipe")


def test_a_guarded_stream_drops_writes_after_a_broken_pipe_and_says_so_once() -> None:
    reader, stops = Reader(), []
    reader._stop = lambda: stops.append(1)
    stream = reader.guard(_Broken())
    assert stream.write("lost") == 4 and reader.gone
    stream.write("also lost")
    stream.flush()
    assert stops == [1]


def test_a_guarded_stream_lets_other_errors_through() -> None:
    class Full(io.StringIO):
        def write(self, text: str) -> Any:
            raise OSError(28, "No space left on device")

    reader = Reader()
    with pytest.raises(OSError, match="No space"):
        reader.guard(Full()).write("x")
    assert not reader.gone


def test_a_pipe_without_a_reader_is_gone_and_a_file_is_not(tmp_path: Path) -> None:
    read_end, write_end = os.pipe()
    with os.fdopen(write_end, "w") as pipe, (tmp_path / "out").open("w") as file:
        reader = Reader()
        reader.guard(pipe)
        assert not reader.check()
        os.close(read_end)
        assert reader.check() and reader.gone
        other = Reader()
        other.guard(file)
        assert not other.check()
