"""Sessions as people name them: any unique start of an id, one status vocabulary in the list,
``--json``, ``--status`` and the hints, and a line when an answer overrides a hook's defer.
Real subprocesses throughout."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from cli_runner import hookline
from hookline._agent.saved.store import SessionRecord
from hookline._agent.session import STATE_DIR
from hookline.storage import open_store
from test_first_hour_cli import PAUSED, finish, pause, session_of

DEFER = {
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [
                    {
                        "type": "command",
                        "command": 'echo \'{"hookSpecificOutput": {"hookEventName": '
                        '"PreToolUse", "permissionDecision": "defer", '
                        '"permissionDecisionReason": "needs the on-call"}}\'',
                    }
                ],
            }
        ]
    }
}


def listed(project: Path, *flags: str) -> list[dict[str, object]]:
    done = hookline("sessions", "list", "--json", *flags, cwd=project)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_a_start_of_an_id_shows_and_resumes_the_session_from_any_folder(tmp_path: Path) -> None:
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir(), elsewhere.mkdir()
    paused = session_of(pause(project).stdout)
    short = paused[:8]  # what `hookline audit` prints
    where = ("--cwd", str(project))
    shown = hookline("sessions", "show", short, "--json", *where, cwd=elsewhere)
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["session_id"] == paused
    resumed = hookline("sessions", "resume", short, "--approve", *where, cwd=elsewhere)
    assert resumed.returncode == 0, resumed.stderr
    assert (project / "out.txt").read_text() == "v1"
    assert [(s["session_id"], s["status"]) for s in listed(project)] == [(paused, "finished")]


def test_a_start_several_sessions_share_is_one_line_naming_them_and_runs_nothing(
    tmp_path: Path,
) -> None:
    paused = session_of(pause(tmp_path).stdout)
    with open_store(None, state_dir=tmp_path / STATE_DIR) as store:
        record = store.get_session(paused)
        assert record is not None
        twin = "ab12" + paused[4:]
        store.put_session(SessionRecord(twin, record.status, record.version, record.state))
        store.put_session(SessionRecord("ab13" + paused[4:], "done", 1, {}))
    done = hookline("sessions", "resume", "ab1", "--approve", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("hookline: error: ")
    assert "is the start of 2 sessions" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out.txt").exists()
    unknown = hookline("sessions", "show", "zz", cwd=tmp_path)
    assert unknown.returncode == 2 and "no session 'zz'" in unknown.stderr


def test_one_status_vocabulary_in_the_list_the_json_and_the_filter(tmp_path: Path) -> None:
    finished = finish(tmp_path)
    paused = session_of(pause(tmp_path).stdout)
    words = {s["session_id"]: (s["status"], s["resumable"]) for s in listed(tmp_path)}
    assert words == {finished: ("finished", False), paused: ("paused", True)}
    table = hookline("sessions", "list", cwd=tmp_path).stdout
    rows = {line.split()[0]: line.split()[1] for line in table.splitlines()[1:]}
    assert rows == {finished: "finished", paused: "paused"}
    assert [s["session_id"] for s in listed(tmp_path, "--status", "PAUSED")] == [paused]
    assert [s["session_id"] for s in listed(tmp_path, "--status", "finished")] == [finished]
    assert listed(tmp_path, "--status", "crashed") == []


def test_an_unknown_status_is_an_error_naming_the_known_ones(tmp_path: Path) -> None:
    finish(tmp_path)
    done = hookline("sessions", "list", "--status", "deferred-ish", cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert "'deferred-ish' is not one of 'paused', 'running', 'crashed'" in done.stderr


def test_an_answer_that_overrides_a_hooks_defer_says_so(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps(DEFER))
    run = hookline("run", "run touch made.txt", "--model", "rules", cwd=tmp_path)
    assert run.returncode == PAUSED, run.stderr
    assert not (tmp_path / "made.txt").exists()
    approve = next(line.strip() for line in run.stdout.splitlines() if "--approve" in line)
    _, *args = shlex.split(approve)
    resumed = hookline(*args, "--user", "ann", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert (tmp_path / "made.txt").exists()
    said = [line for line in resumed.stdout.splitlines() if "overriding" in line]
    assert said == ["tool Bash approved by cli:ann, overriding a PreToolUse hook's defer: "
                    "needs the on-call"]  # fmt: skip
