"""The jail the fuzzer runs Bash in: bubblewrap, a throwaway state folder, strace around Bash.

A ``Jail`` owns one folder: ``template/`` (built once by ``build_template``), ``state/`` (a
fresh copy of it before each line: ``ws/`` the workspace, ``home/`` the home folder,
``outside/`` a folder beside the workspace) and ``traces/``. ``Jail.run(lines)`` starts one
``bwrap`` for the batch: the whole file system read-only, a fresh ``/tmp``, no network, no
other processes; only ``traces/`` is writable, and ``state/`` is a fresh folder in memory
(tmpfs) at the same path, so the analyser outside reads the state as every line starts from,
and inside, putting it back before a line is fast. There ``driver.py`` runs each line under
strace. The workspace holds files, a folder, a git repository (two commits, a tag, a
branch, a stash, a remote), ``.claude/settings.json`` and links: ``lnk`` to a file,
``dirlink`` to a folder, ``gitlink`` to ``.git``, ``link_out`` out of the workspace,
``homelink`` to the home folder.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from bashfuzz.trace import SYSCALLS, Trace, read_trace

BWRAP, STRACE, BASH = shutil.which("bwrap"), shutil.which("strace"), shutil.which("bash")
DRIVER = Path(__file__).resolve().with_name("driver.py")
#: Seconds a line may run before its process group is killed (the trace so far is judged).
LINE_TIMEOUT = 3.0
_PATH = "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"
_GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "PATH": _PATH,
            "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
            "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}  # fmt: skip


def missing() -> str | None:
    """What the jail needs and this machine lacks, as an install hint; None when nothing."""
    lacking = [name for name, found in (("bubblewrap", BWRAP), ("strace", STRACE)) if not found]
    return f"apt-get install {' '.join(lacking)}" if lacking else None


@dataclass(frozen=True, slots=True)
class Run:
    """One line run in the jail: what strace saw, its exit status, whether it was killed."""

    line: str
    trace: Trace
    status: int
    timed_out: bool


def build_template(template: Path) -> None:
    """The files every line starts from (see the module docstring)."""
    ws, home, outside = template / "ws", template / "home", template / "outside"
    for folder in (ws / "sub" / "deep", ws / ".claude", home, outside):
        folder.mkdir(parents=True)
    files = {"a.txt": "alpha\nbeta\n", "b.md": "# b\n", "sp ace.txt": "s\n", ".hidden": "h\n",
             "sub/c.txt": "gamma\n", "sub/deep/d.txt": "delta\n", "nums.txt": "3\n1\n2\n",
             "data.json": '{"k": [1, 2]}\n', ".claude/settings.json": "{}\n"}  # fmt: skip
    for name, text in files.items():
        (ws / name).write_text(text)
    (home / "h.txt").write_text("home\n")
    (outside / "o.txt").write_text("out\n")
    git = ["git", "-C", str(ws)]
    for step in (
        ["init", "-q", "-b", "main"],
        ["add", "a.txt", "b.md", "sub"],
        ["commit", "-qm", "first"],
        ["tag", "v1"],
        ["branch", "feature"],
    ):
        _git([*git, *step])
    (ws / "a.txt").write_text("alpha\nbeta\ngamma\n")
    for step in (
        ["commit", "-qam", "second"],
        ["clone", "-q", "--bare", str(ws), str(outside / "origin.git")],
    ):
        _git(git + step if step[0] == "commit" else ["git", *step])
    _git([*git, "remote", "add", "origin", "../outside/origin.git"])
    (ws / "a.txt").write_text("alpha\nstashed\n")
    _git([*git, "stash", "-q"])
    (ws / "b.md").write_text("# b\nchanged\n")
    for hook in (ws / ".git" / "hooks").glob("*.sample"):
        hook.unlink()
    for name, target in (
        ("lnk", "a.txt"),
        ("dirlink", "sub"),
        ("gitlink", ".git"),
        ("link_out", "../outside"),
        ("homelink", "../home"),
    ):
        (ws / name).symlink_to(target)


def _git(command: list[str]) -> None:
    subprocess.run(command, env=_GIT_ENV, check=True, capture_output=True)


class Jail:
    """One batch folder and the bubblewrap jail its lines run in."""

    def __init__(self, root: Path, template: Path) -> None:
        self.root = root
        self.template = root / "template"
        self.state = root / "state"
        self.traces = root / "traces"
        root.mkdir(parents=True, exist_ok=True)
        shutil.copytree(template, self.template, symlinks=True)
        # What the analyser sees; inside the jail the same path is a fresh copy in memory.
        shutil.copytree(template, self.state, symlinks=True)

    @property
    def workspace(self) -> str:
        return str(self.state / "ws")

    @property
    def home(self) -> str:
        return str(self.state / "home")

    def run(self, lines: list[str]) -> list[Run]:
        """Each line run by real Bash under strace, in a fresh state, inside the jail."""
        if self.traces.exists():
            shutil.rmtree(self.traces)
        self.traces.mkdir()
        job = self.root / "job.json"
        job.write_text(json.dumps({
            "lines": lines, "template": str(self.template), "state": str(self.state),
            "workspace": self.workspace, "traces": str(self.traces), "strace": STRACE,
            "bash": BASH, "timeout": LINE_TIMEOUT, "syscalls": SYSCALLS,
            "env": {"PATH": _PATH, "HOME": self.home, "LANG": "C.UTF-8", "TMPDIR": "/tmp",
                    "USER": "fuzz", "GIT_CONFIG_NOSYSTEM": "1"},
        }))  # fmt: skip
        guard = 60 + len(lines) * (LINE_TIMEOUT + 2)  # against a hang, not a timing assertion
        subprocess.run([*self._bwrap(), sys.executable, str(DRIVER), str(job)], check=True,
                       timeout=guard, stdin=subprocess.DEVNULL)  # fmt: skip
        done = json.loads((self.traces / "done.json").read_text())
        runs = []
        for index, (line, outcome) in enumerate(zip(lines, done, strict=True)):
            text = (self.traces / f"{index}.trace").read_text(errors="surrogateescape")
            trace = read_trace(text, cwd=self.workspace)
            runs.append(Run(line, trace, outcome["status"], outcome["timed_out"]))
        return runs

    def _bwrap(self) -> list[str]:
        needed = {Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve(), DRIVER.parent}
        rebind = [a for p in needed if p.is_relative_to("/tmp") for a in ("--ro-bind", str(p),
                                                                          str(p))]  # fmt: skip
        return [str(BWRAP), "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                "--tmpfs", "/tmp", *rebind, "--ro-bind", str(self.root), str(self.root),
                "--tmpfs", str(self.state), "--bind", str(self.traces), str(self.traces),
                "--unshare-all", "--die-with-parent", "--clearenv",
                "--setenv", "PATH", _PATH, "--chdir", str(self.root)]  # fmt: skip


def jails(base: Path, count: int) -> list[Jail]:
    """``count`` jails under ``base``, from one template."""
    template = base / "template"
    build_template(template)
    return [Jail(base / f"jail{n}", template) for n in range(count)]


def workers() -> int:
    """How many jails run at once: one per core, at most two (each is a busy process tree)."""
    return max(1, min(2, os.cpu_count() or 1))
