"""hookline's private state: every file under .hookline is 0600 and every folder 0700, whatever
the umask, from the first byte; a .gitignore of ``*`` keeps it out of git."""

from __future__ import annotations

import asyncio
import os
import shutil
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

import hookline
from hookline import Agent, ScriptedModel
from hookline._claude.session_env import env_file_for
from hookline._events import SessionStart
from hookline._support.private import GITIGNORE, open_private, private_dir
from hookline.storage import SqliteStore


@hookline.tool
def echo(text: str) -> str:
    """Say the text back."""
    return text


@pytest.fixture
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    old = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(old)


def modes(root: Path) -> dict[str, int]:
    """Every file and folder under ``root`` (and itself), relative, with its permission bits."""
    found = {".": stat.S_IMODE(root.stat().st_mode)}
    for path in root.rglob("*"):
        found[str(path.relative_to(root))] = stat.S_IMODE(path.lstat().st_mode)
    return found


def wrong(root: Path) -> dict[str, str]:
    """What under ``root`` is not 0700 (a folder) or 0600 (a file)."""
    found = {}
    for name, mode in modes(root).items():
        want = 0o700 if (root / name).is_dir() else 0o600
        if mode != want:
            found[name] = oct(mode)
    return found


def run_agent(work: Path, *, close: bool = True) -> Agent:
    """A real run: a scripted model, a tool call, the audit and the SQLite store on."""
    script = [{"tool_calls": [{"id": "t1", "name": "echo", "input": {"text": "hi"}}]},
              {"text": "done"}]  # fmt: skip
    agent = Agent(ScriptedModel(script), tools=[echo], cwd=work, audit=True, checkpoint=True)
    agent.run_sync("go")
    if close:
        asyncio.run(agent.close())
    return agent


@pytest.mark.parametrize("umask", [0o000, 0o022, 0o077, 0o277], indirect=True)
def test_after_a_run_every_file_is_0600_and_every_folder_0700(tmp_path, umask):
    agent = run_agent(tmp_path, close=False)
    state = tmp_path / ".hookline" / "state"
    with SqliteStore(state / "hookline.db"):  # open: its -wal and -shm are there too
        open_now = {p.name for p in state.iterdir()}
        assert {"audit.jsonl", "hookline.db", "hookline.db-wal", "hookline.db-shm"} <= open_now
        assert any((state / "transcripts").iterdir())
        assert wrong(tmp_path / ".hookline") == {}
    asyncio.run(agent.close())
    assert wrong(tmp_path / ".hookline") == {}
    assert (tmp_path / ".hookline" / ".gitignore").read_text() == GITIGNORE
    assert "*" in GITIGNORE.splitlines()


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_git_status_shows_nothing_of_the_state_but_the_project_settings(tmp_path):
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, env=env)
    (tmp_path / "app.py").write_text("print('hi')\n")
    run_agent(tmp_path)
    (tmp_path / ".hookline" / "settings.json").write_text("{}")
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=tmp_path, env=env, capture_output=True, text=True, check=True,
    ).stdout.splitlines()  # fmt: skip
    assert any((tmp_path / ".hookline" / "state").rglob("*.jsonl"))
    assert sorted(status) == ["?? .hookline/settings.json", "?? app.py"]


def test_state_left_readable_by_an_older_version_is_narrowed(tmp_path):
    state = tmp_path / ".hookline" / "state"
    state.mkdir(parents=True, mode=0o755)
    os.chmod(tmp_path / ".hookline", 0o755)
    for name in ("audit.jsonl", "hookline.db"):
        (state / name).touch()
        os.chmod(state / name, 0o644)
    run_agent(tmp_path)
    assert wrong(tmp_path / ".hookline") == {}


def test_a_gitignore_is_written_once_and_never_over_a_teams_own(tmp_path):
    ignore = tmp_path / ".hookline" / ".gitignore"
    private_dir(tmp_path / ".hookline" / "state")
    assert ignore.read_text() == GITIGNORE
    ignore.write_text("*\n!settings.json\n!hooks/\n")
    private_dir(tmp_path / ".hookline" / "state" / "transcripts")
    assert ignore.read_text() == "*\n!settings.json\n!hooks/\n"


def test_a_state_folder_elsewhere_is_private_and_gets_no_gitignore(tmp_path):
    before = stat.S_IMODE(tmp_path.stat().st_mode)
    folder = private_dir(tmp_path / "var" / "state")
    os.close(open_private(folder / "x.jsonl", os.O_WRONLY | os.O_APPEND))
    assert wrong(tmp_path / "var") == {}
    assert not (tmp_path / "var" / ".gitignore").exists()
    assert stat.S_IMODE(tmp_path.stat().st_mode) == before  # a folder it did not make: as it was


def test_a_file_outside_hookline_keeps_the_mode_its_owner_gave_it(tmp_path):
    shared = tmp_path / "shared.db"
    shared.write_text("data")
    os.chmod(shared, 0o640)
    os.close(open_private(shared, os.O_RDONLY))
    assert stat.S_IMODE(shared.stat().st_mode) == 0o640


def test_an_env_file_for_a_session_start_hook_is_private_before_the_hook_writes(tmp_path):
    transcript = tmp_path / ".hookline" / "state" / "transcripts" / "s1.jsonl"
    event = SessionStart(session_id="s1", transcript_path=str(transcript), cwd=str(tmp_path),
                         permission_mode="default", source="startup")  # fmt: skip
    path = Path(env_file_for(event) or "")
    assert path.is_file() and path.read_text() == ""
    assert wrong(tmp_path / ".hookline") == {}
