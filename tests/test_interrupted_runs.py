"""No stuck state: a run or a resume stopped by Ctrl-C or SIGKILL in the middle of a tool ends in
one line and a session that ``sessions list`` shows for what it is and, when it was paused or
checkpointed, ``sessions resume`` goes on with, never running a cut call twice.

Real processes and real signals: the tool (a Bash command) meets the test at a barrier (a fifo)
and waits on another, so each signal lands inside the tool body, never by timing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path

import pytest

from cli_runner import HOOKLINE, hookline, src_env

#: Logs a charge, meets the test at ``barrier``, then waits until the test opens ``hold``.
CHARGE = "echo 30 >> charges.log; echo in-the-body > barrier; cat hold > /dev/null"


def script(command: str) -> dict[str, object]:
    call = {"id": "t_charge", "name": "Bash", "input": {"command": command}}
    return {"turns": [{"tool_calls": [call]}, {"text": "settled"}]}


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Path]:
    (tmp_path / "script.json").write_text(json.dumps(script(CHARGE)))
    yield tmp_path
    release(tmp_path)


def release(project: Path) -> None:
    """Let a body still waiting on ``hold`` end (its harness was killed): a writer that opens
    and closes it gives the reader its end of file."""
    with suppress(OSError):  # no fifo, or nobody reads it (ENXIO)
        os.close(os.open(project / "hold", os.O_WRONLY | os.O_NONBLOCK))


def charges(project: Path) -> list[str]:
    path = project / "charges.log"
    return path.read_text().splitlines() if path.exists() else []


def signalled(project: Path, args: list[str], sig: signal.Signals) -> subprocess.CompletedProcess:
    """Run ``hookline ARGS`` and send it ``sig`` once the Bash body is at the barrier."""
    for fifo in ("barrier", "hold"):
        if not (project / fifo).exists():
            os.mkfifo(project / fifo)
    child = subprocess.Popen([*HOOKLINE, *args], cwd=project, env=src_env(),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        with open(project / "barrier") as barrier:  # returns once the body opened it
            assert barrier.readline() == "in-the-body\n"
        child.send_signal(sig)
        out, err = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        release(project)
    (project / "barrier").unlink()
    return subprocess.CompletedProcess(child.args, child.returncode, out, err)


def listed(project: Path) -> list[tuple[str, str]]:
    done = hookline("sessions", "list", "--json", cwd=project)
    return [(s["session_id"], s["status"]) for s in map(json.loads, done.stdout.splitlines())]


RUN = ["run", "settle it", "--model", "scripted:script.json", "--defer-asks"]


def paused(project: Path) -> str:
    done = hookline(*RUN, "--output-format", "json", cwd=project)
    out = json.loads(done.stdout)
    assert out["stop_reason"] == "tool_deferred", done.stderr
    assert charges(project) == []
    return str(out["session_id"])


def test_ctrl_c_in_a_tool_exits_130_in_one_line_and_marks_the_run_interrupted(
    project: Path,
) -> None:
    done = signalled(project, [*RUN[:4], "--permission-mode", "bypassPermissions"],
                     signal.SIGINT)  # fmt: skip
    assert done.returncode == 130, done.stderr
    (line,) = done.stderr.strip().splitlines()[-1:]
    assert line.startswith("interrupted: session ") and "Traceback" not in done.stderr
    assert "its conversation is in" in line  # a plain run keeps no checkpoint
    ((session, status),) = listed(project)
    assert status == "interrupted"  # not "running" for good
    again = hookline("sessions", "resume", session, cwd=project)
    assert again.returncode == 2 and "was interrupted before anything was saved" in again.stderr
    assert charges(project) == ["30"]


def test_ctrl_c_in_a_resumed_tool_leaves_it_resumable_and_nothing_runs_twice(
    project: Path,
) -> None:
    session = paused(project)
    done = signalled(project, ["sessions", "resume", session, "--approve"], signal.SIGINT)
    assert done.returncode == 130, done.stderr
    assert f"go on with: hookline sessions resume {session}" in done.stderr
    assert "Traceback" not in done.stderr
    assert listed(project) == [(session, "interrupted")]
    again = hookline("sessions", "resume", session, "--output-format", "json", cwd=project)
    assert again.returncode == 0, again.stderr
    out = json.loads(again.stdout)
    assert [(c["tool_use_id"], c["status"]) for c in out["tool_calls"]] == [
        ("t_charge", "interrupted")
    ]
    assert out["final_text"] == "settled"
    assert charges(project) == ["30"]
    assert listed(project) == [(session, "finished")]


def test_a_resume_killed_in_the_tool_is_not_left_resuming(project: Path) -> None:
    session = paused(project)
    done = signalled(project, ["sessions", "resume", session, "--approve"], signal.SIGKILL)
    assert done.returncode == -signal.SIGKILL
    assert listed(project) == [(session, "crashed")]  # its process is gone: resumable
    shown = json.loads(hookline("sessions", "show", session, "--json", cwd=project).stdout)
    assert [c["id"] for c in shown["interrupted"]] == ["t_charge"]
    again = hookline("sessions", "resume", session, "--output-format", "json", cwd=project)
    assert again.returncode == 0, again.stderr
    assert [c["status"] for c in json.loads(again.stdout)["tool_calls"]] == ["interrupted"]
    assert charges(project) == ["30"]


def test_a_run_killed_in_a_tool_is_listed_as_crashed_not_running(project: Path) -> None:
    done = signalled(project, [*RUN[:4], "--permission-mode", "bypassPermissions"],
                     signal.SIGKILL)  # fmt: skip
    assert done.returncode == -signal.SIGKILL
    listing = hookline("sessions", "list", "--json", cwd=project)
    ((session, status, alive),) = [
        (s["session_id"], s["status"], s["alive"])
        for s in map(json.loads, listing.stdout.splitlines())
    ]
    assert (status, alive) == ("crashed", False)  # its process is gone
    table = hookline("sessions", "list", cwd=project).stdout
    assert f"{session}  crashed " in table
    again = hookline("sessions", "resume", session, cwd=project)
    assert again.returncode == 2 and "Traceback" not in again.stderr
    assert len(again.stderr.strip().splitlines()) == 1


def killed_in_a_resumed_body(project: Path) -> str:
    """A paused session whose approved call was cut by a SIGKILL in its body; its id. The
    body no longer waits when run again."""
    session = paused(project)
    done = signalled(project, ["sessions", "resume", session, "--approve"], signal.SIGKILL)
    assert done.returncode == -signal.SIGKILL and charges(project) == ["30"]
    (project / "hold").unlink()
    (project / "hold").write_text("")
    return session


def test_sessions_resume_rerun_interrupted_runs_the_cut_call_again_and_records_who(
    project: Path,
) -> None:
    session = killed_in_a_resumed_body(project)
    again = hookline("sessions", "resume", session, "--rerun-interrupted", "--approve",
                     "--user", "oncall@example.com", "--output-format", "json",
                     cwd=project)  # fmt: skip
    assert again.returncode == 0, again.stderr
    out = json.loads(again.stdout)
    assert [(c["tool_use_id"], c["status"]) for c in out["tool_calls"]] == [
        ("t_charge", "executed")
    ]
    assert charges(project) == ["30", "30"]  # run again, because it was asked for
    assert listed(project) == [(session, "finished")]
    audit = hookline("audit", "--session", session, "--json", cwd=project)
    resumes = [r["data"] for r in map(json.loads, audit.stdout.splitlines())
               if r["kind"] == "resume"]  # fmt: skip
    assert [(r.get("rerun_interrupted"), r["user"], r["answer"]) for r in resumes] == [
        (None, None, "approve"), (True, "oncall@example.com", "approve"),
    ]  # fmt: skip
    assert hookline("audit", "verify", cwd=project).returncode == 0


def test_a_rerun_is_judged_again_so_a_call_that_asks_waits_for_its_answer(
    project: Path,
) -> None:
    session = killed_in_a_resumed_body(project)
    again = hookline("sessions", "resume", session, "--rerun-interrupted", cwd=project)
    assert again.returncode == 4, again.stderr  # nobody approved the new run: it waits
    assert charges(project) == ["30"]
    shown = json.loads(hookline("sessions", "show", session, "--json", cwd=project).stdout)
    assert ([c["id"] for c in shown["waiting"]], shown["interrupted"]) == (["t_charge"], [])
    approved = hookline("sessions", "resume", session, "--approve", cwd=project)
    assert approved.returncode == 0, approved.stderr
    assert charges(project) == ["30", "30"]
