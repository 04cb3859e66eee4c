"""The crash campaign's own parts, shown to work and to fail (tests/crash/): a kill held at a
point lands there, its detached child is found by the mark in its environment alone and
ended, and each check finds what it is there to find."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from dataclasses import replace
from pathlib import Path

import pytest

from crash import checks, gate
from crash.story import Plan, Story, strike
from hookline.storage import open_store


def unique(number: int) -> str:
    """A mark no other process running these tests on this host uses."""
    return f"control-{os.getpid()}-{number}"


@pytest.fixture
def story(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Story:
    made = Story.start(tmp_path / "story", "cli")
    monkeypatch.setenv("HOME", str(made.home))  # the checks read the story's keys
    return made


def gone(mark: str, folder: Path) -> bool:
    """Whether no process carries ``mark`` any more (a killed one ends in a moment)."""
    for _ in range(100):
        if not checks.marked(mark, folder):
            return True
        time.sleep(0.05)
    return False


def test_a_kill_held_in_the_tool_body_lands_there(story: Story) -> None:
    outcome = strike(story, story.first(), Plan("hold", "tool:done", 1), unique(1))
    assert outcome.killed and outcome.trace[-1] == "tool:done"
    assert checks.ledger(story) == ["toolu_t1"]  # the side effect happened, then the kill
    checks.remaining(unique(1), story.root, grace=0.2)
    assert gone(unique(1), story.root)  # what was left is ended by its pid
    assert checks.audit_problem(story) is None
    assert (checks.doubled(story), checks.unrecorded(story)) == ([], [])
    now = checks.standing(story)
    assert (now.kind, now.status) == ("final", "started")  # a run that saved nothing: crashed


def test_a_detached_process_is_found_by_the_mark_in_its_environment_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mark = unique(4)
    unmarked = subprocess.Popen(["sleep", "600"], cwd="/", start_new_session=True)
    monkeypatch.setenv(gate.MARK_VAR, mark)
    try:
        gate._detached()  # setsid, cd /, its parent gone: as a daemon starts
        for _ in range(100):  # the forked shell becomes ``sleep`` in a moment
            (found,) = checks.marked(mark, tmp_path)
            if found.command.startswith("sleep"):
                break
            time.sleep(0.05)
        assert (found.how, found.command.strip()) == ("environment", "sleep 600")
        assert os.readlink(f"/proc/{found.pid}/cwd") == "/"
        assert checks.remaining(mark, tmp_path, grace=0.1) == [found]
        assert gone(mark, tmp_path)
        assert unmarked.poll() is None  # a process without the mark is left alone
    finally:
        checks.remaining(mark, tmp_path, grace=0)
        unmarked.kill()
        unmarked.wait()


def test_the_checks_find_a_doubled_entry_an_unrecorded_one_and_an_edited_audit(
    story: Story,
) -> None:
    outcome = strike(story, story.first(), Plan("none"), unique(2))
    assert (outcome.killed, outcome.returncode) == (False, 4)  # paused for the person
    assert checks.ledger(story) == ["toolu_t1", "toolu_t2", "toolu_t4"]  # ask-t3 waits
    now = checks.standing(story)
    assert (now.kind, now.status, now.waiting) == ("resumable", "deferred", True)
    assert checks.not_once(story) == [] and checks.audit_problem(story) is None
    with open(story.project / "ledger.txt", "a") as ledger:
        ledger.write("toolu_t1\ntoolu_t9\n")
    assert checks.doubled(story) == ["toolu_t1"]
    assert checks.unrecorded(story) == ["toolu_t9"]  # ran with no write-ahead record
    assert checks.not_once(story) == ["toolu_t1 executed, in the ledger 2 times"]
    audit = story.state / "audit.jsonl"
    audit.write_text(audit.read_text().replace("toolu_t4", "toolu_t7", 1))
    assert "TAMPERED" in str(checks.audit_problem(story))


def test_standing_finds_a_session_no_resume_can_take(story: Story) -> None:
    strike(story, story.first(), Plan("none"), unique(3))
    store = open_store(None, state_dir=story.state)
    (record,) = store.list_sessions()
    store.put_session(replace(record, status="resuming"))  # a claim that names nobody
    assert checks.standing(story).kind == "stuck"
    alive = dict(record.state, owner={"host": socket.gethostname(), "pid": os.getpid()})
    store.put_session(replace(record, status="started", state=alive))
    store.close()
    now = checks.standing(story)
    assert (now.kind, now.problem) == ("stuck", "started, and its process looks alive")


def test_a_finished_story_answers_each_call_once_and_a_doubled_transcript_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    story = Story.start(tmp_path / "story", "agent")
    monkeypatch.setenv("HOME", str(story.home))
    strike(story, story.first(), Plan("none"), unique(5))  # pauses for the person
    now = checks.standing(story)
    story.session_id = now.session_id
    strike(story, story.resume(approve=now.waiting), Plan("none"), unique(6))
    assert checks.standing(story).status == "done"
    assert checks.misshapen(story) == []
    transcript = story.state / "transcripts" / f"{story.session_id}.jsonl"
    transcript.write_text(transcript.read_text() * 2)  # the whole conversation written twice
    assert "a call asked for twice" in " ".join(checks.misshapen(story))
