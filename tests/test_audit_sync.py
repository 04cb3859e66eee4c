"""The audit's durability as ``hookline run`` sets it: group commit by default, ``--audit-sync``.

Each CLI test goes through the real entry point (``hookline._cli.main.main``) in this process,
with a scripted model whose two Read calls make two write-ahead flushes.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import hookline
from hookline import Agent, AgentOptions, ScriptedModel
from hookline._cli import run_cmd
from hookline._cli.main import main
from hookline.audit import AuditError

CALLS = 2


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder with a note and a script of ``CALLS`` Read calls; stdin says nothing."""
    (tmp_path / "note.txt").write_text("one line\n")
    turns = [
        {"tool_calls": [{"id": f"r{n}", "name": "Read", "input": {"file_path": "note.txt"}}]}
        for n in range(1, CALLS + 1)
    ]
    (tmp_path / "script.json").write_text(json.dumps({"turns": [*turns, {"text": "ok"}]}))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    return tmp_path


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> list[Agent]:
    """The agents ``hookline run`` builds, as it builds them."""
    agents: list[Agent] = []
    real = run_cmd.build_agent

    def build(launch: Any) -> Agent:
        agents.append(real(launch))
        return agents[-1]

    monkeypatch.setattr(run_cmd, "build_agent", build)
    return agents


@pytest.fixture
def synced(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[int, int]]]:
    """Every file ``os.fsync`` is called on, as (device, inode); the real fsync still runs."""
    files: list[tuple[int, int]] = []
    real = os.fsync

    def fsync(fd: Any) -> None:
        stat = os.fstat(fd)
        files.append((stat.st_dev, stat.st_ino))
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    yield files


def hookline_run(*flags: str) -> None:
    main(["run", "--model", "scripted:script.json", "--output-format", "json", *flags, "go"])


def audit_kinds(project: Path) -> list[str]:
    text = (project / ".hookline" / "state" / "audit.jsonl").read_text()
    return [json.loads(line)["kind"] for line in text.splitlines()]


def audit_file(project: Path) -> tuple[int, int]:
    stat = (project / ".hookline" / "state" / "audit.jsonl").stat()
    return stat.st_dev, stat.st_ino


def test_the_cli_groups_results_by_default_and_the_library_does_not(project, built):
    hookline_run()
    assert built[0].options.audit_delay == 0.05
    assert built[0].options.audit_sync is False
    library = Agent(ScriptedModel([]), cwd=project)
    assert (library.options.audit_delay, library.options.audit_sync) == (0.0, False)
    assert (AgentOptions().audit_delay, AgentOptions().audit_sync) == (0.0, False)


def test_a_run_with_the_default_delay_ends_with_every_result_on_file(project):
    hookline_run()  # returned: the agent closed, whatever waited was written
    assert audit_kinds(project) == ["tool_started", "tool"] * CALLS


@pytest.mark.parametrize(("flags", "syncs"), [((), 0), (("--audit-sync",), CALLS)])
def test_audit_sync_fsyncs_the_file_once_per_write_ahead(project, synced, flags, syncs):
    hookline_run(*flags)
    assert audit_kinds(project).count("tool_started") == CALLS
    assert synced.count(audit_file(project)) == syncs


def test_the_audit_sync_setting_turns_it_on(project, built, synced):
    (project / "durable.json").write_text(json.dumps({"hookline": {"auditSync": True}}))
    hookline_run("--settings", "durable.json")
    assert built[0].options.audit_sync is True
    assert synced.count(audit_file(project)) == CALLS


def test_a_bad_audit_sync_setting_stops_the_run_naming_file_and_key(project, capsys):
    (project / "durable.json").write_text(json.dumps({"hookline": {"auditSync": "yes"}}))
    with pytest.raises(SystemExit) as stopped:
        hookline_run("--settings", "durable.json")
    assert stopped.value.code == 2
    said = capsys.readouterr().err
    assert str(project / "durable.json") in said and "hookline.auditSync" in said
    assert "true or false" in said
    assert not (project / ".hookline" / "state" / "audit.jsonl").exists()  # nothing ran


def test_a_failed_fsync_stops_the_call_before_its_body(tmp_path, monkeypatch):
    ran: list[str] = []

    @hookline.tool
    def wipe(path: str) -> str:
        """Delete a folder."""
        ran.append(path)  # the sentinel: must stay empty
        return "wiped"

    def fsync(fd: Any) -> None:  # the disk fails just as the call is to start
        raise OSError(5, "Input/output error")

    script = [{"tool_calls": [{"id": "t1", "name": "wipe", "input": {"path": "/x"}}]}]
    agent = Agent(ScriptedModel([*script, {"text": "ok"}]), tools=[wipe], cwd=tmp_path,
                  audit=True, audit_sync=True)  # fmt: skip
    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(AuditError, match="Input/output error"):
        agent.run_sync("go")
    assert ran == []
