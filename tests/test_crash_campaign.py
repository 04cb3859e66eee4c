"""The crash campaign: 200 SIGKILLs, at random moments, of ``hookline run``, of ``hookline
sessions resume`` and of a checkpointed, audited library agent and its ``agent.resume``, with
command hooks on five events, a ledger tool with a side effect, the audit, and calls deferred
to a person (tests/crash/).

Each kill is aimed at a phase (before a model call, in a command hook, in the tool body, in an
audit write, in a resume's claim and first save, at a session save) at a random pass of one of
its points, or lands at a random moment of the victim's work. After each: ``hookline audit
verify`` passes, no side effect happened twice (each call appends its own tool_use_id to the
ledger) nor unrecorded, no process of the run remains (a held hook or body first starts a
detached, ``setsid`` process), and the session can be resumed or is final; each story then
resumes its session until it ends, and at its end each executed call is in the ledger once.

The campaign is random but repeatable: the seed is printed, and ``CRASH_SEED`` sets it. It runs
once per test session (shared by xdist workers), in worker processes of its own.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections import Counter
from typing import Any

import pytest

from crash.campaign import POINTS, TIMED, campaign

#: The campaign runs in its first test's setup: minutes on a loaded machine, past the suite's
#: per-test timeout (pyproject.toml), so this module has a longer one.
pytestmark = pytest.mark.timeout(1200)

SEED = int(os.environ.get("CRASH_SEED", "25"))
KILLS = 200
WORKERS = 4


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory, worker_id: str, testrun_uid: str) -> Any:
    """The campaign's findings: run by the first xdist worker that asks, read by the others."""
    base = tmp_path_factory.getbasetemp()
    root = base / "crash" if worker_id == "master" else base.parent / f"crash-{testrun_uid}"
    root.mkdir(exist_ok=True)
    out = root / "results.json"
    with open(root / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not out.exists():
            print(f"crash campaign: seed {SEED} (CRASH_SEED sets it), {KILLS} kills")
            out.write_text(json.dumps(campaign(SEED, KILLS, WORKERS, root)))
    found = json.loads(out.read_text())
    print(figures(found))
    return found


def figures(found: dict[str, Any]) -> str:
    """The campaign in a few lines: kills by phase and victim, what each check found, time."""
    kills = found["kills"]
    phases = Counter(k["phase"] for k in kills)
    victims = Counter(f"{k['kind']} {k['victim']}" for k in kills)
    last = Counter((k["last"] or ["(none yet)"])[0] for k in kills if k["phase"] == TIMED)
    checks = Counter(f["check"] for f in found["findings"])
    ends = Counter(s["end"] for s in found["stories"])
    return "\n".join([
        f"seed {found['seed']}: {len(kills)} kills, {len(found['stories'])} stories, "
        f"{found['seconds']:.0f} s",
        f"by phase: {dict(phases)}", f"timed kills, last point passed: {dict(last)}",
        f"by victim: {dict(victims)}", f"findings by check: {dict(checks)}",
        f"stories ended: {dict(ends)}",
    ])  # fmt: skip


def findings(found: dict[str, Any], *checks: str) -> list[dict[str, Any]]:
    return [f for f in found["findings"] if f["check"] in checks]


def test_the_campaign_kills_200_times_in_every_phase_and_victim(results: Any) -> None:
    said = figures(results)
    assert findings(results, "worker") == [], said
    kills = results["kills"]
    assert len(kills) == KILLS, said
    phases = Counter(k["phase"] for k in kills)
    assert all(phases[phase] >= 5 for phase in [*POINTS, TIMED]), said
    victims = Counter((k["kind"], k["victim"]) for k in kills)
    assert min(victims.values()) >= 10 and len(victims) == 4, said
    held = [k for k in kills if k["mode"] == "hold" and k["point"].startswith(("hook", "tool"))]
    assert len(held) >= 5, said  # each started a detached (setsid) process first
    assert sum(s["ledger"] for s in results["stories"]) > KILLS, said  # real side effects


def test_the_audit_verifies_after_every_kill(results: Any) -> None:
    assert findings(results, "audit") == [], figures(results)


def test_no_side_effect_happened_twice_or_unrecorded(results: Any) -> None:
    assert findings(results, "twice", "unrecorded", "once") == [], figures(results)


def test_every_session_can_be_resumed_or_is_final(results: Any) -> None:
    said = figures(results)
    assert findings(results, "session", "ending", "exit", "hung", "conversation") == [], said
    assert {s["end"] for s in results["stories"]} <= {"done", "started", "nothing stored"}, said
    resumed = [k for k in results["kills"] if k["standing"] == "resumable"]
    assert len(resumed) > KILLS // 2, said  # and each was resumed by the story's next victim


def in_python_tool_body(finding: dict[str, Any]) -> bool:
    """Killed at a point of the library agent's tool body, a Python function run in the
    harness's own process (the CLI's ledger tool is Bash)."""
    return bool(finding["kind"] == "agent" and finding["point"].startswith("tool:"))


def test_no_process_of_the_run_remains_after_a_kill(results: Any) -> None:
    """What hooks and Bash calls start ends with the killed harness, however detached."""
    left = [f for f in findings(results, "processes") if not in_python_tool_body(f)]
    assert left == [], f"{len(left)} kills left processes, e.g. {left[:3]}\n{figures(results)}"


@pytest.mark.xfail(
    strict=True,
    reason="a detached child that a Python tool body starts itself (subprocess.run, from the "
    "harness's own process) is the program's process, not a command hookline started: no "
    "keeper contains it, and it outlives a SIGKILLed library agent",
)
def test_no_process_a_python_tool_body_starts_itself_remains_after_a_kill(results: Any) -> None:
    left = [f for f in findings(results, "processes") if in_python_tool_body(f)]
    assert left == [], f"{len(left)} kills left processes, e.g. {left[:3]}\n{figures(results)}"
