"""At most once: a call that started before a crash and has no result is never run again by a
resume on its own. The model reads that it was interrupted and its outcome is unknown; only
``rerun_interrupted`` (recorded, with who) runs it again.

Each crash is real: an agent in a subprocess, SIGKILLed while its tool body waits at a barrier
(a fifo the test opens), so the kill lands inside the body, never by timing."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli_runner import src_env
from hookline import Agent, ConfigError
from hookline._agent.saved.pause import UNKNOWN_OUTCOME, Resumer
from hookline._agent.transcript import read_conversation
from hookline._cli.sessions_cmd import sessions
from hookline.storage import open_store

#: The agent of these tests: ``charge`` logs a charge, then waits at the barrier (a fifo,
#: then a read that only ends when the test lets it); ``note`` logs a note.
AGENT_MODULE = '''
import os
from pathlib import Path
from hookline import Agent, ScriptedModel, tool

SCRIPT = [
    {"tool_calls": [{"id": "t_note", "name": "note", "input": {"text": "before"}},
                    {"id": "t_charge", "name": "charge", "input": {"amount": 30}}]},
    {"text": "settled"},
]

def build(cwd, **options):
    root = Path(cwd)

    @tool
    def charge(amount: int) -> str:
        """Charge an amount."""
        with open(root / "charges.log", "a") as log:
            log.write(f"{amount}\\n")
        if (root / "barrier").exists():
            with open(root / "barrier", "w") as barrier:  # meets the test here
                barrier.write("in the body\\n")
            with open(root / "hold") as hold:  # ends when the test lets it
                hold.read()
        return f"charged {amount}"

    @tool
    def note(text: str) -> str:
        """Write a note."""
        with open(root / "notes.log", "a") as log:
            log.write(text + "\\n")
        return "noted"

    model = ScriptedModel(SCRIPT)
    return Agent(model, tools=[note, charge], cwd=cwd, audit=True, **options)
'''


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Path]:
    (tmp_path / "agent_module.py").write_text(AGENT_MODULE)
    sys.path.insert(0, str(tmp_path))
    yield tmp_path
    sys.path.remove(str(tmp_path))
    sys.modules.pop("agent_module", None)


def build(project: Path, **options: object) -> Agent:
    import agent_module  # the same code the crashed process ran

    return agent_module.build(str(project), **options)  # type: ignore[no-any-return]


def lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def crash_in_the_body(project: Path) -> str:
    """Run the agent (checkpointed, audited) in a subprocess and SIGKILL it while ``charge``'s
    body waits at the barrier; the session id."""
    os.mkfifo(project / "barrier")
    os.mkfifo(project / "hold")
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(project)!r})
        from agent_module import build
        build({str(project)!r}, checkpoint=True).run_sync("settle the invoice")
    """)
    child = subprocess.Popen([sys.executable, "-c", code], cwd=project,
                             env=src_env(keep_pythonpath=False))  # fmt: skip
    try:
        with open(project / "barrier") as barrier:  # returns once the body opened it
            assert barrier.readline() == "in the body\n"
        child.send_signal(signal.SIGKILL)
        assert child.wait(timeout=60) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    (project / "barrier").unlink()  # a run from now on does not wait
    assert lines(project / "charges.log") == ["30"]
    store = open_store(None, state_dir=project / ".hookline" / "state")
    try:
        (record,) = store.list_sessions()
        assert record.status == "running"  # its process is gone: resumable as crashed
        return record.id
    finally:
        store.close()


async def _resume(agent: Agent, session_id: str, **how: object):  # type: ignore[no-untyped-def]
    async with agent:
        return await agent.resume(session_id, **how)  # type: ignore[arg-type]


def test_a_call_cut_by_a_crash_is_not_run_again_and_the_model_reads_why(project: Path) -> None:
    session_id = crash_in_the_body(project)
    agent = build(project)
    result = asyncio.run(_resume(agent, session_id))
    assert lines(project / "charges.log") == ["30"]  # one charge: not run again
    assert lines(project / "notes.log") == ["before"]  # finished before: not run again
    assert [(r.call.id, r.status) for r in result.tool_calls] == [
        ("t_note", "executed"), ("t_charge", "interrupted"),
    ]  # fmt: skip
    assert result.tool_calls[1].content == UNKNOWN_OUTCOME
    shown = agent.model.shown(agent.model.calls - 1)  # type: ignore[attr-defined]
    answers = [b for m in shown for b in m.content if getattr(b, "tool_use_id", "") == "t_charge"]
    assert [(b.content, b.is_error) for b in answers] == [(UNKNOWN_OUTCOME, True)]
    assert result.final_text == "settled"
    store = open_store(None, state_dir=project / ".hookline" / "state")
    rows = [r for r in store.audit_rows() if r.tool_use_id == "t_charge"]
    assert [r.kind for r in rows if r.kind == "tool_started"] == ["tool_started"]  # once
    assert [(r.kind, r.decision) for r in rows if r.kind == "tool"] == [("tool", "interrupted")]
    assert store.get_session(session_id).status == "done"  # type: ignore[union-attr]
    store.close()


def test_rerun_interrupted_runs_it_again_on_purpose_and_says_who(project: Path) -> None:
    session_id = crash_in_the_body(project)
    by = Resumer(user="oncall@example.com")
    result = asyncio.run(_resume(build(project), session_id, by=by, rerun_interrupted=True))
    assert lines(project / "charges.log") == ["30", "30"]  # run again, because asked to
    assert lines(project / "notes.log") == ["before"]
    assert [(r.call.id, r.status) for r in result.tool_calls][1:] == [("t_charge", "executed")]
    store = open_store(None, state_dir=project / ".hookline" / "state")
    (resumed,) = [r for r in store.audit_rows() if r.kind == "resume"]
    assert (resumed.tool_use_id, resumed.data["user"]) == ("t_charge", "oncall@example.com")
    assert resumed.data["rerun_interrupted"] is True
    store.close()


def test_a_resume_killed_in_the_body_is_not_stuck_and_runs_nothing_twice(project: Path) -> None:
    session_id = crash_in_the_body(project)
    os.mkfifo(project / "barrier")  # the rerun waits at the barrier again: kill the resume
    code = textwrap.dedent(f"""
        import asyncio, sys
        sys.path.insert(0, {str(project)!r})
        from agent_module import build
        agent = build({str(project)!r})
        async def go():
            async with agent:
                await agent.resume({session_id!r}, rerun_interrupted=True)
        asyncio.run(go())
    """)
    child = subprocess.Popen([sys.executable, "-c", code], cwd=project,
                             env=src_env(keep_pythonpath=False))  # fmt: skip
    try:
        with open(project / "barrier") as barrier:
            assert barrier.readline() == "in the body\n"
        child.send_signal(signal.SIGKILL)
        assert child.wait(timeout=60) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    (project / "barrier").unlink()
    store = open_store(None, state_dir=project / ".hookline" / "state")
    assert store.get_session(session_id).status == "running"  # type: ignore[union-attr]
    store.close()
    result = asyncio.run(_resume(build(project), session_id))  # not "resuming" for good
    assert lines(project / "charges.log") == ["30", "30"]  # the rerun's charge, not a third
    assert [(r.call.id, r.status) for r in result.tool_calls][1:] == [("t_charge", "interrupted")]


#: A resume whose store, once it has won the claim, meets the test at the barrier and waits:
#: the process is killed between its claim and its first save.
CLAIM_AND_WAIT = """
import asyncio, sys
sys.path.insert(0, {project!r})
from agent_module import build
from hookline.storage import SqliteStore

class Waiting(SqliteStore):
    def claim_session(self, id, *, expected, new):
        won = super().claim_session(id, expected=expected, new=new)
        if won:
            with open({barrier!r}, "w") as barrier:
                barrier.write("claimed\\n")
            with open({hold!r}) as hold:
                hold.read()
        return won

agent = build({project!r}, store=Waiting({db!r}))
async def go():
    async with agent:
        await agent.resume({session!r})
asyncio.run(go())
"""


def status(project: Path, session_id: str) -> str:
    store = open_store(None, state_dir=project / ".hookline" / "state")
    try:
        return store.get_session(session_id).status  # type: ignore[union-attr]
    finally:
        store.close()


def test_a_resume_killed_between_its_claim_and_its_first_save_is_taken_over(
    project: Path,
) -> None:
    session_id = crash_in_the_body(project)
    for fifo in ("barrier", "hold"):
        os.mkfifo(project / f"claim-{fifo}")
    code = CLAIM_AND_WAIT.format(
        project=str(project), barrier=str(project / "claim-barrier"),
        hold=str(project / "claim-hold"), session=session_id,
        db=str(project / ".hookline" / "state" / "hookline.db"),
    )  # fmt: skip
    child = subprocess.Popen([sys.executable, "-c", code], cwd=project,
                             env=src_env(keep_pythonpath=False))  # fmt: skip
    try:
        with open(project / "claim-barrier") as barrier:  # the claim is won, nothing saved
            assert barrier.readline() == "claimed\n"
        held = status(project, session_id)
        assert held == f"resuming running {child.pid}@{socket.gethostname()}"
        with pytest.raises(ConfigError, match="is being resumed by another process"):
            asyncio.run(_resume(build(project), session_id))  # its process lives: not taken
        child.send_signal(signal.SIGKILL)
        assert child.wait(timeout=60) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert status(project, session_id) == held  # left behind by the killed resume
    for status_flag in ([], ["--status", "crashed"]):
        args = ["list", "--json", "--cwd", str(project), *status_flag]
        listing = CliRunner().invoke(sessions, args)
        ((listed,),) = [[json.loads(line) for line in listing.output.splitlines()]]
        assert (listed["status"], listed["alive"], listed["resumable"]) == ("crashed", False, True)
    result = asyncio.run(_resume(build(project), session_id))  # taken over, not stuck
    assert [(r.call.id, r.status) for r in result.tool_calls] == [
        ("t_note", "executed"), ("t_charge", "interrupted"),
    ]  # fmt: skip
    assert lines(project / "charges.log") == ["30"]  # still not run again
    assert status(project, session_id) == "done"


def test_a_claim_written_outside_hookline_does_not_reopen_a_finished_session(
    project: Path,
) -> None:
    session_id = crash_in_the_body(project)
    asyncio.run(_resume(build(project), session_id))
    store = open_store(None, state_dir=project / ".hookline" / "state")
    finished = store.get_session(session_id)
    assert finished is not None and finished.status == "done"
    forged = f"resuming running 999999999@{socket.gethostname()}"  # names no live process
    store.put_session(replace(finished, status=forged))
    store.close()
    with pytest.raises(ConfigError, match=r"changed outside hookline \(row\.status\)"):
        asyncio.run(_resume(build(project), session_id))
    assert status(project, session_id) == forged  # refused before anything was taken
    assert lines(project / "charges.log") == ["30"]


#: A run whose store, when it is about to save the session as done, meets the test at the
#: barrier and waits: killed after its last reply is in the transcript, before the state has it.
WAIT_BEFORE_DONE = """
import sys
sys.path.insert(0, {project!r})
from agent_module import build
from hookline.storage import SqliteStore

class Waiting(SqliteStore):
    def put_session(self, record):
        if record.status == "done":
            with open({barrier!r}, "w") as barrier:
                barrier.write("saving\\n")
            with open({hold!r}) as hold:
                hold.read()
        super().put_session(record)

build({project!r}, checkpoint=True, store=Waiting({db!r})).run_sync("settle the invoice")
"""


def test_a_resume_goes_on_from_its_checkpoint_in_the_transcript_too(project: Path) -> None:
    for fifo in ("barrier", "hold"):
        os.mkfifo(project / f"done-{fifo}")
    code = WAIT_BEFORE_DONE.format(
        project=str(project), barrier=str(project / "done-barrier"),
        hold=str(project / "done-hold"),
        db=str(project / ".hookline" / "state" / "hookline.db"),
    )  # fmt: skip
    child = subprocess.Popen([sys.executable, "-c", code], cwd=project,
                             env=src_env(keep_pythonpath=False))  # fmt: skip
    try:
        with open(project / "done-barrier") as barrier:  # the reply is written, not saved
            assert barrier.readline() == "saving\n"
        child.send_signal(signal.SIGKILL)
        assert child.wait(timeout=60) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    store = open_store(None, state_dir=project / ".hookline" / "state")
    (record,) = store.list_sessions()
    store.close()
    result = asyncio.run(_resume(build(project), record.id))  # the reply is asked for again
    assert result.final_text == "settled"
    transcript = Path(result.transcript_path)
    said = [
        (m.role, [getattr(b, "id", None) or getattr(b, "tool_use_id", None) or b.text
                  for b in m.content])
        for m in read_conversation(transcript)
    ]  # fmt: skip
    assert said == [
        ("user", ["settle the invoice"]),
        ("assistant", ["t_note", "t_charge"]),
        ("user", ["t_note", "t_charge"]),  # answered once, right after the calls
        ("assistant", ["settled"]),
    ]
    cut = transcript.with_name(f"{record.id}.crashed.jsonl")  # what the killed run wrote last
    assert [m.role for m in read_conversation(cut)] == ["user", "assistant"]


def test_a_transcript_replaced_by_a_link_is_refused_not_cut_through(project: Path) -> None:
    session_id = crash_in_the_body(project)
    transcript = project / ".hookline" / "state" / "transcripts" / f"{session_id}.jsonl"
    other = project / "other.jsonl"  # another file of transcript lines, longer than the save
    other.write_text(transcript.read_text() * 3)
    before = other.read_bytes()
    transcript.unlink()
    transcript.symlink_to(other)
    with pytest.raises(ConfigError, match="symbolic link"):
        asyncio.run(_resume(build(project), session_id))
    assert other.read_bytes() == before  # nothing cut from the file the link names
    assert status(project, session_id) == "running"  # the claim given back
    assert lines(project / "charges.log") == ["30"]
