"""The campaign: stories run until the kills are done, in worker processes, and summed up.

    python -m crash.campaign SEED KILLS WORKERS ROOT OUT     (tests/ and src/ on the path)

Each worker runs its share of the kills (a ``random.Random`` of the seed and its number), one
story at a time, with HOME set to the story's own home. Each victim gets a plan: no kill, a
kill after a random delay (``timed``; its phase is the last point it passed), or a kill at a
random pass of a random point of a random phase (waiting there, ``hold``, or a random moment
after it, ``go``). After each kill every check of ``crash.checks`` runs; after each victim the
story goes on with a resume of the session while it can be resumed.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
import uuid
from collections import Counter
from dataclasses import asdict
from pathlib import Path
from typing import Any

from crash import checks
from crash.story import HOOKED, Outcome, Plan, Story, strike

#: Where a gated kill can be aimed, by phase (``resume``: a resume's claim and first save).
POINTS = {
    "before model call": ["model"],
    "during hook": [f"hook:{event}" for event in HOOKED],
    "during tool body": ["tool:start", "tool:done"],
    "during audit write": ["audit:write", "audit:head", "audit:copied"],
    "at a session save": ["save"],
    "during resume": ["claim", "save"],
}
#: The phase of each point (by the word before its colon).
PREFIX_PHASE = {"model": "before model call", "hook": "during hook", "tool": "during tool body",
                "audit": "during audit write", "save": "at a session save",
                "claim": "during resume"}  # fmt: skip
#: The phase of a kill at a random moment of a victim's work.
TIMED = "at a random moment"
#: At most this many victims in one story before it counts as never ending.
MAX_VICTIMS = 12


class Worker:
    """One worker's share of the campaign: stories, one at a time, until its kills are done."""

    def __init__(self, seed: int, number: int, kills: int, root: Path) -> None:
        self.rng = random.Random(f"{seed}:{number}")
        self.number, self.kills_left, self.root = number, kills, root
        self.kills: list[dict[str, Any]] = []
        self.findings: list[dict[str, Any]] = []
        self.stories: list[dict[str, Any]] = []
        self.passes: dict[tuple[str, str], int] = {}  # (victim, point) -> most passes seen
        self.took: dict[str, list[float]] = {"run": [], "resume": []}  # unkilled: working time
        #: Marks no other campaign on this host uses (several may run at once).
        self.tag = f"crash-{os.getpid()}-{uuid.uuid4().hex[:8]}-w{number}"

    def run(self) -> None:
        number = 0
        while self.kills_left > 0:
            number += 1
            self.story(number)

    def story(self, number: int) -> None:
        kind = self.rng.choice(["cli", "agent"])
        story = Story.start(self.root / f"w{self.number}-s{number}", kind)
        os.environ["HOME"] = str(story.home)  # the checks read the story's keys
        argv, victim = story.first(), "run"
        for step in range(MAX_VICTIMS):
            plan = self.plan(victim, kind)
            mark = f"{self.tag}-s{number}-v{step}"
            outcome = strike(story, argv, plan, mark)
            self.learn(victim, outcome)
            at = {"story": story.root.name, "kind": kind, "victim": victim, "step": step}
            now = self.after(story, at | asdict(plan), outcome, mark)
            if now.kind != "resumable":
                break
            story.session_id = now.session_id
            argv, victim = story.resume(approve=now.waiting), "resume"
        else:
            self.finding(at, "ending", f"no end after {MAX_VICTIMS} victims")
        for problem in checks.not_once(story):
            self.finding(at, "once", problem)
        if now.status == "done":
            story.session_id = now.session_id
            for problem in checks.misshapen(story):
                self.finding(at, "conversation", problem)
        self.stories.append(at | {"end": now.status, "victims": step + 1,
                                  "ledger": len(checks.ledger(story))})  # fmt: skip

    def plan(self, victim: str, kind: str) -> Plan:
        if self.kills_left <= 0:
            return Plan("none")
        spare = 0.35 if victim == "run" and kind == "cli" else 0.1  # let runs reach a pause
        draw = self.rng.random()
        if draw < spare:
            return Plan("none")
        if draw < spare + (1 - spare) * 0.3:  # a moment of its working life, from its first point
            took = sorted(self.took[victim]) or [1.0]
            return Plan("timed", delay=self.rng.uniform(0, took[len(took) // 2]))
        seen = {point: n for (who, point), n in self.passes.items() if who == victim}
        phases = [p for p in POINTS if victim == "resume" or p != "during resume"]
        reached = [p for p in phases if any(point in seen for point in POINTS[p])]
        phase = self.rng.choice(reached or phases)
        points = [point for point in POINTS[phase] if point in seen] or POINTS[phase]
        point = self.rng.choice(points)
        most = 1 if phase == "during resume" else seen.get(point, 1)
        n = self.rng.randint(1, most)
        if self.rng.random() < 0.6:
            return Plan("hold", point, n)
        return Plan("go", point, n, self.rng.uniform(0, 0.03))

    def learn(self, victim: str, outcome: Outcome) -> None:
        """Remember how many passes of each point a victim makes, and how long one takes."""
        for point, count in Counter(outcome.trace).items():
            key = (victim, point)
            self.passes[key] = max(self.passes.get(key, 0), count)
        if not outcome.killed:
            self.took[victim].append(outcome.seconds)

    def after(
        self, story: Story, at: dict[str, Any], outcome: Outcome, mark: str
    ) -> checks.Standing:
        """Check what the victim left; a kill is recorded with every check's finding."""
        found = {
            "audit": checks.audit_problem(story),
            "twice": checks.doubled(story),
            "unrecorded": checks.unrecorded(story),
            "processes": [asdict(p) for p in checks.remaining(mark, story.root)],
        }
        now = checks.standing(story)
        found["session"] = now.problem
        if outcome.hung:
            self.finding(at, "hung", outcome.stderr)
        if not outcome.killed and outcome.returncode not in (0, 4):
            self.finding(at, "exit", f"exit {outcome.returncode}: {outcome.stderr}")
        if outcome.killed:
            self.kills_left -= 1
            phase = self.phase(at)
            self.kills.append(at | {"phase": phase, "status": now.status, "standing": now.kind,
                                    "last": outcome.trace[-1:], "found": found})  # fmt: skip
        for check, problem in found.items():
            if problem:
                self.finding(at, check, problem)
        return now

    @staticmethod
    def phase(at: dict[str, Any]) -> str:
        """The phase a gated kill was aimed at; ``timed`` for a kill at a random moment (its
        record keeps the last point it passed)."""
        if at["mode"] == "timed":
            return TIMED
        first_save = at["point"] == "save" and at["victim"] == "resume" and at["n"] == 1
        return "during resume" if first_save else PREFIX_PHASE[at["point"].split(":")[0]]

    def finding(self, at: dict[str, Any], check: str, detail: object) -> None:
        self.findings.append(at | {"check": check, "detail": detail})

    def report(self) -> dict[str, Any]:
        return {"kills": self.kills, "findings": self.findings, "stories": self.stories}


def campaign(seed: int, kills: int, workers: int, root: Path) -> dict[str, Any]:
    """Run ``kills`` kills over ``workers`` processes; everything they found, and the time."""
    began = time.monotonic()
    shares = [kills // workers + (1 if i < kills % workers else 0) for i in range(workers)]
    env = os.environ | {"PYTHONPATH": os.pathsep.join(sys.path)}
    outs = [root / f"worker-{i}.json" for i in range(workers)]
    module = [sys.executable, "-m", "crash.campaign", "worker", str(seed)]
    started = [
        subprocess.Popen([*module, str(i), str(share), str(root), str(out)], env=env)
        for i, (share, out) in enumerate(zip(shares, outs, strict=True))
    ]
    codes = [process.wait() for process in started]
    merged: dict[str, Any] = {"seed": seed, "kills": [], "findings": [], "stories": []}
    for code, out in zip(codes, outs, strict=True):
        if code != 0 or not out.exists():
            merged["findings"].append({"check": "worker", "detail": f"a worker exited {code}"})
            continue
        for key, value in json.loads(out.read_text()).items():
            merged[key] += value
    merged["seconds"] = time.monotonic() - began
    return merged


def main(argv: list[str]) -> None:
    if argv[0] == "worker":
        seed, number, kills, root, out = argv[1:]
        worker = Worker(int(seed), int(number), int(kills), Path(root))
        worker.run()
        Path(out).write_text(json.dumps(worker.report()))
        return
    seed, kills, workers, root, out = argv
    Path(out).write_text(json.dumps(campaign(int(seed), int(kills), int(workers), Path(root))))


if __name__ == "__main__":
    main(sys.argv[1:])
