"""Workspace trust: a folder's own hooks, the Python files they name and its MCP servers run
only in a trusted folder. The first run at a terminal asks once (a real pseudo-terminal here);
``hookline trust`` lists, adds, revokes and forgets; a run nobody watches trusts a folder with
no answer, unless the person's settings require trust."""

from __future__ import annotations

import json
import os
import pty
import select
import stat
import subprocess
import time
from pathlib import Path

import pytest

from cli_runner import HOOKLINE, hookline, src_env
from hookline import load_project
from hookline._trust import TrustStore

SCRIPT = {"turns": [
    {"tool_calls": [{"id": "t1", "name": "Bash", "input": {"command": "true"}}]},
    {"text": "done"},
]}  # fmt: skip
RUN = ("run", "go", "--model", "scripted:s.json", "--permission-mode", "bypassPermissions")
HOOK_MODULE = (
    "from pathlib import Path\nPath('imported').touch()\n\ndef gate(event):\n    return None\n"
)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A folder whose project settings hold a hook that leaves ``hook-ran`` behind."""
    (tmp_path / "s.json").write_text(json.dumps(SCRIPT))
    (tmp_path / ".claude").mkdir()
    hook = {"type": "command", "command": "touch hook-ran"}
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}}
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps(settings))
    return tmp_path


def home() -> Path:
    return Path(os.environ["HOME"])


def require_trust() -> None:
    path = home() / ".claude" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"hookline": {"requireTrust": True}}))


# -- the store -----------------------------------------------------------------------------------


def test_answers_are_kept_per_folder_in_a_private_file(tmp_path: Path) -> None:
    store = TrustStore()
    store.set(tmp_path, True)
    store.set(tmp_path / "..", False)

    assert (store.get(tmp_path), store.get(tmp_path.parent), store.get("/nowhere")) == (
        True, False, None,
    )  # fmt: skip
    assert stat.S_IMODE(store.file.stat().st_mode) == 0o600
    assert stat.S_IMODE(store.file.parent.stat().st_mode) == 0o700
    assert store.file == home() / ".hookline" / "trust.json"
    assert store.forget(tmp_path) and not store.forget(tmp_path)
    assert store.get(tmp_path) is None


def test_a_broken_trust_file_is_one_line_naming_it(folder: Path) -> None:
    TrustStore().file.parent.mkdir(parents=True, exist_ok=True)
    TrustStore().file.write_text("{nope")
    done = hookline(*RUN, cwd=folder)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"{TrustStore().file}: not valid JSON" in done.stderr
    assert not (folder / "hook-ran").exists()


# -- runs nobody watches -------------------------------------------------------------------------


def test_without_a_terminal_an_unanswered_folder_is_trusted_as_claude_p_does(folder: Path) -> None:
    done = hookline(*RUN, cwd=folder)
    assert done.returncode == 0, done.stderr
    assert (folder / "hook-ran").exists()
    assert TrustStore().get(folder) is None  # nobody was asked, nothing remembered


def test_require_trust_in_user_settings_holds_the_folders_hooks_back(folder: Path) -> None:
    require_trust()

    held = hookline(*RUN, cwd=folder)
    added = hookline("trust", "add", str(folder))
    trusted = hookline(*RUN, cwd=folder)

    assert held.returncode == 0, held.stderr
    (line,) = [line for line in held.stderr.splitlines() if "not trusted" in line]
    assert line == (
        f"hookline: warning: {folder}: this folder is not trusted: its own 1 hook do not run "
        f"(fix: hookline trust add {folder})"
    )
    assert added.returncode == 0 and TrustStore().get(folder) is True
    assert trusted.returncode == 0 and "not trusted" not in trusted.stderr
    assert (folder / "hook-ran").exists()


def test_require_trust_in_the_projects_own_settings_is_not_read(folder: Path) -> None:
    settings = json.loads((folder / ".claude" / "settings.json").read_text())
    settings["hookline"] = {"requireTrust": False}
    (folder / ".claude" / "settings.json").write_text(json.dumps(settings))
    require_trust()

    project = load_project(folder)

    assert len(project.hooks) == 0
    assert any(w.key == "hookline.requireTrust" for w in project.warnings)


def test_a_revoked_folder_runs_none_of_its_own_code_in_any_run(folder: Path) -> None:
    (folder / "gates.py").write_text(HOOK_MODULE)
    python_hook = {"type": "python", "callable": "gates:gate"}
    local = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [python_hook]}]},
             "enabledMcpjsonServers": ["x"]}  # fmt: skip
    (folder / ".claude" / "settings.local.json").write_text(json.dumps(local))
    server = {"command": "sh", "args": ["-c", "touch mcp-started"]}
    (folder / ".mcp.json").write_text(json.dumps({"mcpServers": {"x": server}}))
    user_hook = {"type": "command", "command": f"touch {folder}/user-hook-ran"}
    user = home() / ".claude" / "settings.json"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(json.dumps({"hooks": {"PreToolUse": [{"hooks": [user_hook]}]}}))

    revoked = hookline("trust", "revoke", str(folder))
    done = hookline(*RUN, cwd=folder)
    project = load_project(folder)

    assert revoked.returncode == 0 and TrustStore().get(folder) is False
    assert done.returncode == 0, done.stderr
    assert "its own 2 hooks and MCP servers do not run" in done.stderr
    assert (folder / "user-hook-ran").exists()  # the person's own hooks still run
    for left_out in ("hook-ran", "imported", "mcp-started"):
        assert not (folder / left_out).exists(), left_out
    assert (len(project.hooks), project.mcp_servers) == (1, ())


def test_trust_list_shows_every_answer(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    hookline("trust", "add", str(tmp_path / "a"))
    hookline("trust", "revoke", str(tmp_path / "b"))

    listed = hookline("trust", "list")
    forgot = hookline("trust", "forget", str(tmp_path / "a"))

    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert [line.split()[0] for line in lines] == ["trusted", "not"]
    assert lines[0].endswith(str(tmp_path / "a")) and lines[1].endswith(str(tmp_path / "b"))
    assert forgot.returncode == 0 and TrustStore().get(tmp_path / "a") is None


# -- at a terminal -------------------------------------------------------------------------------


def read_until(fd: int, text: str, seconds: float = 30.0) -> str:
    seen, deadline = b"", time.monotonic() + seconds
    while text.encode() not in seen:
        assert time.monotonic() < deadline, f"never saw {text!r} in {seen.decode(errors='replace')}"
        if select.select([fd], [], [], 0.1)[0]:
            try:
                seen += os.read(fd, 4096)
            except OSError:
                break
    return seen.decode(errors="replace")


def at_a_terminal(folder: Path, answer: str | None) -> str:
    """``hookline run`` at a pseudo-terminal; ``answer`` the trust question when it is asked
    (None: it must not be asked). What the terminal showed."""
    main, follower = pty.openpty()
    env = src_env({"TERM": "dumb"}, keep_pythonpath=False)
    proc = subprocess.Popen(
        [*HOOKLINE, *RUN], cwd=folder, env=env, stdin=follower, stdout=follower, stderr=follower
    )
    os.close(follower)
    try:
        shown = ""
        if answer is not None:
            shown += read_until(main, "[y/N] ")
            os.write(main, answer.encode())
        shown += read_until(main, "end_turn")
        assert proc.wait(timeout=30) == 0
    finally:
        proc.kill()
        proc.wait()
        os.close(main)
    return shown.replace("\r", "")


def test_the_first_run_at_a_terminal_asks_and_a_yes_is_remembered(folder: Path) -> None:
    first = at_a_terminal(folder, "y\n")
    ran_first = (folder / "hook-ran").exists()
    (folder / "hook-ran").unlink()
    second = at_a_terminal(folder, None)

    assert f"hookline: {folder} has its own 1 hook: code from its repository" in first
    assert ran_first and (folder / "hook-ran").exists()
    assert "[y/N]" not in second
    assert TrustStore().get(folder) is True


@pytest.mark.parametrize("answer", ["n\n", "\n", "yes please\n"])
def test_anything_but_yes_leaves_the_folder_untrusted_and_is_remembered(
    folder: Path, answer: str
) -> None:
    first = at_a_terminal(folder, answer)
    second = at_a_terminal(folder, None)

    assert "not trusted" in first and "its own 1 hook do not run" in first
    assert "[y/N]" not in second and "its own 1 hook do not run" in second
    assert not (folder / "hook-ran").exists()
    assert TrustStore().get(folder) is False


def test_a_folder_with_nothing_of_its_own_to_run_is_not_asked_about(folder: Path) -> None:
    (folder / ".claude" / "settings.json").write_text(json.dumps({"permissions": {}}))
    shown = at_a_terminal(folder, None)
    assert "[y/N]" not in shown and TrustStore().get(folder) is None
