"""One story of the campaign: a session from its first run, through its kills and resumes, to
its end. ``Story.start`` lays out a project (a temporary home, command hooks on five events, a
script of ledger calls, one of them deferred to a person); ``strike`` runs one victim process
and kills it as its ``Plan`` says.

A ``cli`` story runs ``hookline run`` and then ``hookline sessions resume`` (the ledger tool is
Bash: ``echo ID >> ledger.txt``); an ``agent`` story runs a library ``Agent`` with
``checkpoint=True, audit=True``, then ``agent.resume(session_id)`` (the ledger tool is a Python
function). Every call appends its own tool_use_id to ``ledger.txt``, so a side effect that
happened twice is a line seen twice.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from crash import gate, victim

HERE = Path(__file__).resolve().parent
SRC = str(HERE.parents[1] / "src")
#: The script's batches: each entry is one ledger call (id ``toolu_<entry>``); an ``ask-``
#: entry is deferred by the hook until a resume approves it.
BATCHES = (("t1", "t2"), ("ask-t3", "t4"), ("t5",), ("t6",))
HOOKED = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")
#: How long a victim may take before it counts as hung (killed, and a finding).
HUNG_AFTER = 60.0


@dataclass(frozen=True)
class Plan:
    """How a victim is killed: at the ``n``-th pass of ``point`` (``hold``: waiting there;
    ``go``: ``delay`` seconds after it passed), ``delay`` seconds after its first point
    (``timed``), or not at all (``none``)."""

    mode: str  # hold | go | timed | none
    point: str = ""
    n: int = 0
    delay: float = 0.0


@dataclass
class Outcome:
    """What became of one victim."""

    killed: bool
    returncode: int | None
    #: From its first point to its end.
    seconds: float
    #: Every point it passed, in order (the last is where a timed kill found it).
    trace: list[str]
    stderr: str
    hung: bool = False


@dataclass
class Story:
    """A story's folders and identity. ``project`` is also ``$CRASH_DIR``."""

    root: Path
    kind: str  # cli | agent
    session_id: str | None = None

    @property
    def project(self) -> Path:
        return self.root / "project"

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def state(self) -> Path:
        return self.project / ".hookline" / "state"

    @classmethod
    def start(cls, root: Path, kind: str) -> Story:
        story = cls(root, kind)
        for folder in (story.project / ".claude", story.home, root / "managed"):
            folder.mkdir(parents=True)
        for module in ("gate.py", "hook.py"):
            shutil.copy(HERE / module, story.project / module)
        run = f"{sys.executable} -S -I hook.py"
        hooks = {e: [{"hooks": [{"type": "command", "command": f"{run} {e}"}]}] for e in HOOKED}
        (story.project / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
        (story.project / "script.json").write_text(json.dumps(script(kind)))
        os.mkfifo(story.project / "gate")
        return story

    def first(self) -> list[str]:
        """The argv (after ``victim.py``) of the story's first run."""
        if self.kind == "agent":
            return ["agent", "run"]
        flags = ["--model", "scripted:script.json", "--permission-mode", "bypassPermissions"]
        return ["cli", "run", victim.PROMPT, *flags]

    def resume(self, approve: bool) -> list[str]:
        """The argv of a resume of the story's session (approving what waits, if asked)."""
        assert self.session_id is not None
        answer = ["--approve"] if approve else []
        if self.kind == "agent":
            return ["agent", "resume", self.session_id, *answer]
        return ["cli", "sessions", "resume", self.session_id, *answer]

    def environment(self, mark: str) -> dict[str, str]:
        """A victim's environment: this story's home and settings folders, its mark."""
        keep = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("HOOKLINE_", "CRASH_")) and k != "PYTHONDONTWRITEBYTECODE"
        }
        return keep | {
            "PYTHONPYCACHEPREFIX": str(self.root.parent / "pycache"),  # compiled once, outside
            "HOME": str(self.home),
            "HOOKLINE_MANAGED_SETTINGS_DIR": str(self.root / "managed"),
            "PYTHONPATH": SRC,
            gate.DIR_VAR: str(self.project),
            gate.MARK_VAR: mark,
        }


def script(kind: str) -> dict[str, object]:
    """The model's script: one turn per batch of ledger calls, then a final text."""
    turns: list[dict[str, object]] = []
    for batch in BATCHES:
        calls = [ledger_call(kind, entry) for entry in batch]
        turns.append({"tool_calls": calls})
    turns.append({"text": "The ledger is written."})
    return {"turns": turns}


def ledger_call(kind: str, entry: str) -> dict[str, object]:
    call_id = f"toolu_{entry}"
    if kind == "agent":
        return {"id": call_id, "name": "ledger", "input": {"entry": call_id}}
    passes = f"{sys.executable} -S -I gate.py"
    command = f"{passes} tool:start && echo {call_id} >> {victim.LEDGER} && {passes} tool:done"
    return {"id": call_id, "name": "Bash", "input": {"command": command}}


def strike(story: Story, argv: list[str], plan: Plan, mark: str) -> Outcome:
    """Run ``victim.py ARGV`` in the story's project, its processes marked ``mark``, and kill
    it as ``plan`` says."""
    project = story.project
    armed = f"{plan.point}:{plan.n} {plan.mode}" if plan.mode in ("hold", "go") else ""
    (project / "armed").write_text(armed)
    (project / "trace").write_text("")
    errors = story.root / "stderr"
    # read and write: the gates' writes never leave it at end-of-file, so select waits
    reader = os.open(project / "gate", os.O_RDWR | os.O_NONBLOCK)
    with open(errors, "w") as err:
        child = subprocess.Popen(
            [sys.executable, str(HERE / "victim.py"), *argv], cwd=project,
            env=story.environment(mark), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=err,
        )  # fmt: skip
    try:
        clock = _Clock(plan)
        clock.watch(child, reader)
        child.wait()
    finally:
        os.close(reader)
        if child.poll() is None:
            child.kill()
            child.wait()
    trace = (project / "trace").read_text().splitlines()
    (project / "armed").write_text("")
    killed = child.returncode == -signal.SIGKILL
    return Outcome(killed, child.returncode, clock.working(), trace,
                   errors.read_text()[-2000:], clock.hung)  # fmt: skip


class _Clock:
    """When to kill a victim: ``delay`` after its first point (timed), at its armed point
    (hold), a random moment after it (go), or never."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.began = time.monotonic()
        self.first: float | None = None
        self.ended = self.began
        self.hung = False

    def watch(self, child: subprocess.Popen[bytes], reader: int) -> None:
        due: float | None = None
        while child.poll() is None:
            now = time.monotonic()
            if now - self.began > HUNG_AFTER:
                self.hung = True
                due = now
            if due is not None and now >= due:
                child.send_signal(signal.SIGKILL)
                break
            wait = 0.05 if due is None else min(0.05, due - now)
            if select.select([reader], [], [], wait)[0]:
                for said in os.read(reader, 4096).decode().split():
                    due = self._heard(said, time.monotonic(), due)
        self.ended = time.monotonic()

    def _heard(self, said: str, now: float, due: float | None) -> float | None:
        if said == "start":
            self.first = now
            return now + self.plan.delay if self.plan.mode == "timed" else due
        if self.plan.mode == "hold":
            return now
        return now + self.plan.delay if self.plan.mode == "go" else due

    def working(self) -> float:
        """Seconds from its first point to its end (to its start, if it passed none)."""
        return self.ended - (self.first if self.first is not None else self.began)
