"""Runs inside the jail: each line of a batch under strace, in a fresh copy of the workspace.

``python3 driver.py JOB.json`` reads the job (``lines``, ``template``, ``state``, ``workspace``,
``traces``, ``strace``, ``bash``, ``timeout``, ``syscalls``, ``env``). Before each line it puts
the state folder back as the template has it (when the line before changed anything in it),
then starts ``strace -f ... bash -c LINE`` in the workspace with stdin, stdout and stderr on
``/dev/null``, and kills the whole process group when the line runs longer than ``timeout``
seconds. The trace goes to ``traces/N.trace``; ``traces/done.json``
lists, per line, its exit status and whether it timed out. Only the standard library is used:
the jail has the host's Python but not its packages on the path.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path


def main(job_file: str) -> None:
    job = json.loads(Path(job_file).read_text())
    template, state, traces = Path(job["template"]), Path(job["state"]), Path(job["traces"])
    done, before = [], None
    for index, line in enumerate(job["lines"]):
        if before is None or fingerprint(state) != before:
            reset(template, state)
            before = fingerprint(state)
        trace = traces / f"{index}.trace"
        command = [job["strace"], "-f", "-qq", "-y", "-xx", "-s", "4096", "--seccomp-bpf",
                   "-e", "signal=none", "-e", f"trace={job['syscalls']}", "-o", str(trace),
                   job["bash"], "--norc", "--noprofile", "-c", line]  # fmt: skip
        done.append(run(command, job["workspace"], job["env"], job["timeout"]))
    (traces / "done.json").write_text(json.dumps(done))


def fingerprint(state: Path) -> list[tuple[str, int, int, int, int]]:
    """What a change to the state would change: each entry's name, inode, mode, size and
    change time (a write, rename, chmod or time change moves the last)."""
    out = []
    for folder, names, files in os.walk(state):
        for name in sorted(names + files):
            path = os.path.join(folder, name)
            info = os.lstat(path)
            out.append((path, info.st_ino, info.st_mode, info.st_size, info.st_ctime_ns))
    return out


def reset(template: Path, state: Path) -> None:
    """The state folder (a mount point: emptied, not removed) as the template has it, links
    copied as links."""
    os.chmod(state, 0o755)
    for entry in os.scandir(state):
        if entry.is_dir(follow_symlinks=False):
            os.chmod(entry.path, 0o755)
            _rmtree(entry.path)
        else:
            os.unlink(entry.path)
    shutil.copytree(template, state, symlinks=True, dirs_exist_ok=True)


def _rmtree(path: Path | str) -> None:
    if sys.version_info >= (3, 12):
        shutil.rmtree(path, onexc=_writable)
    else:
        shutil.rmtree(path, onerror=_writable)


def _writable(_func: object, path: str, _exc: object) -> None:
    """A line may have taken away write permission (``chmod``): give it back, then remove."""
    os.chmod(os.path.dirname(path), 0o755)
    if os.path.isdir(path) and not os.path.islink(path):
        os.chmod(path, 0o755)
        _rmtree(path)
    else:
        os.unlink(path)


def run(command: list[str], cwd: str, env: dict[str, str], timeout: float) -> dict[str, object]:
    with subprocess.Popen(
        command,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    ) as process:
        try:
            status = process.wait(timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            status = process.wait()
            timed_out = True
    with contextlib.suppress(ProcessLookupError):  # what it left in the background goes too
        os.killpg(process.pid, signal.SIGKILL)
    return {"status": status, "timed_out": timed_out}


if __name__ == "__main__":
    main(sys.argv[1])
