"""The sandbox's protected set: placeholders while commands run, links it refuses, linked
worktrees, and a sandbox that will not start without its seccomp filter.

Real bwrap, real git; concurrency is shown with FIFOs the sandboxed command opens (a barrier),
never with sleeps.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from cli_runner import hookline
from hookline import Agent, ScriptedModel
from hookline._errors import ToolError
from hookline._tools.base import ToolContext, Workspace
from hookline._tools.builtin import Bash
from hookline.permissions import PermissionPolicy
from hookline.permissions._sandbox.config import SandboxConfig
from hookline.permissions._sandbox.mounts import Placeholders
from hookline.permissions._sandbox.run import Sandbox

WHY_NOT = SandboxConfig(allow_all_unix_sockets=True).unavailable()
needs_bwrap = pytest.mark.skipif(
    WHY_NOT is not None, reason=f"no sandbox here ({WHY_NOT}); apt-get install bubblewrap"
)
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
WHO = ["-c", "user.name=t", "-c", "user.email=t@example.com"]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "outside").mkdir()
    (tmp_path / "ws").mkdir()
    return tmp_path / "ws"


def run(sandbox: Sandbox, ws: Path, command: str) -> tuple[int, str]:
    ctx = ToolContext(cwd=ws, workspace=Workspace.of(ws), sandbox=sandbox)
    tool = Bash()
    try:
        output = asyncio.run(tool.execute(tool.prepare({"command": command}, ctx), ctx))
    except ToolError as exc:
        code, _, detail = str(exc).removeprefix("Exit code ").partition("\n")
        return int(code) if code.isdigit() else -1, detail or str(exc)
    return 0, tool.render(output)


def sandbox(ws: Path, **config: Any) -> Sandbox:
    """A sandbox whose placeholders are counted apart from other processes (tests run at once)."""
    own = Placeholders(str(ws.parent / "placeholders.lock"))
    return Sandbox(SandboxConfig(enabled=True, **config), roots=[ws], placeholders=own)


def init(ws: Path) -> None:
    for args in (["init", "-q"], ["commit", "-q", "--allow-empty", "-m", "one"]):
        subprocess.run(["git", *WHO, *args], cwd=ws, check=True, capture_output=True)


@needs_bwrap
@needs_git
def test_placeholders_live_while_a_command_runs_and_are_shared_by_commands_at_once(
    ws: Path,
) -> None:
    init(ws)
    started, go = ws.parent / "outside" / "started", ws.parent / "outside" / "go"
    os.mkfifo(started)
    os.mkfifo(go)
    box = sandbox(ws)
    results: list[tuple[int, str]] = []
    first = threading.Thread(
        target=lambda: results.append(run(box, ws, f"echo up > {started}; cat {go}"))
    )
    first.start()
    with open(started) as fifo:  # the first command is running: its sandbox is up
        assert fifo.read() == "up\n"
    placeholders = [ws / ".mcp.json", ws / ".git" / "commondir", ws / ".git" / "gitdir"]
    assert all(path.exists() for path in placeholders)
    assert (ws / ".git" / "commondir").read_text() == ".\n"  # git: "this very folder"
    assert subprocess.run(["git", "status"], cwd=ws, capture_output=True).returncode == 0
    second = run(box, ws, "echo '{}' > .mcp.json")  # a second command while the first runs
    assert second[0] != 0
    assert all(path.exists() for path in placeholders)  # still held by the first
    with open(go, "w") as fifo:
        fifo.write("done\n")
    first.join()
    box.close()
    assert results == [(0, "done")]
    assert not any(path.exists() for path in placeholders)  # the last holder removed them
    assert list((ws / ".claude").iterdir()) == []  # an empty folder is kept: nothing reads it


@needs_bwrap
def test_placeholders_stay_while_another_process_may_have_them_mounted(ws: Path) -> None:
    lock = ws.parent / "placeholders.lock"
    box = sandbox(ws)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(lock)], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert holder.stdout is not None and holder.stdin is not None
    try:
        assert holder.stdout.readline() == b"held\n"  # the other process's sandbox is up
        assert run(box, ws, "true")[0] == 0
        box.close()
        assert (ws / ".mcp.json").exists()  # kept: it may be mounted over there
    finally:
        holder.stdin.close()
        holder.wait()
        holder.stdout.close()
    again = Sandbox(SandboxConfig(enabled=True), roots=[ws], placeholders=box.placeholders)
    assert run(again, ws, "true")[0] == 0
    again.close()  # the next last holder, alone now, removes it
    assert not (ws / ".mcp.json").exists()


HOLDER = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
fcntl.flock(fd, fcntl.LOCK_SH)
print("held", flush=True)
sys.stdin.read()
"""


@needs_bwrap
def test_a_placeholder_someone_changed_is_kept(ws: Path) -> None:
    started, go = ws.parent / "outside" / "started", ws.parent / "outside" / "go"
    os.mkfifo(started)
    os.mkfifo(go)
    box = sandbox(ws)
    first = threading.Thread(target=run, args=(box, ws, f"echo up > {started}; cat {go}"))
    first.start()
    with open(started) as fifo:
        fifo.read()
    (ws / ".mcp.json").write_text('{"mcpServers": {"mine": {"command": "true"}}}\n')
    with open(go, "w") as fifo:
        fifo.write("\n")
    first.join()
    box.close()
    assert "mine" in (ws / ".mcp.json").read_text()  # the user's file, written meanwhile


@needs_bwrap
@pytest.mark.parametrize("link", [".claude", ".git", ".git/hooks"])
def test_a_protected_link_in_a_writable_folder_stops_the_sandbox(ws: Path, link: str) -> None:
    real = ws / "real"
    (real / "hooks").mkdir(parents=True)
    (ws / ".git").mkdir(exist_ok=True) if link == ".git/hooks" else None
    (ws / link).symlink_to(real / "hooks" if link == ".git/hooks" else real)
    sentinel = ws / "ran"
    code, output = run(sandbox(ws), ws, f"touch {sentinel}")
    assert code == -1 and "symbolic link" in output and str(ws / link) in output
    assert not sentinel.exists()  # the command never ran


@needs_bwrap
@needs_git
def test_a_linked_worktrees_git_file_cannot_be_redirected(ws: Path) -> None:
    main = ws.parent / "outside" / "main"
    main.mkdir()
    init(main)
    tree = ws / "tree"
    subprocess.run(["git", "worktree", "add", "-q", str(tree)], cwd=main, check=True)
    before = (tree / ".git").read_text()
    box = Sandbox(SandboxConfig(enabled=True), roots=[tree], placeholders=Placeholders(str(main)))
    for attack in ("echo 'gitdir: /tmp/evil' > .git", "rm -f .git", "mv .git g"):
        assert run(box, tree, attack)[0] != 0
    assert (tree / ".git").read_text() == before


@needs_bwrap
def test_without_libseccomp_the_sandbox_refuses_to_start(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOOKLINE_LIBSECCOMP", "/nonexistent/libseccomp.so.2")
    sentinel = ws / "ran"
    config = SandboxConfig(enabled=True, fail_if_unavailable=True)
    why = config.unavailable()
    assert why is not None and "libseccomp" in why and "apt-get install libseccomp2" in why
    code, output = run(Sandbox(config, roots=[ws]), ws, f"touch {sentinel}")  # fails first
    assert code == -1 and "libseccomp" in output
    assert not sentinel.exists()
    open_config = SandboxConfig(enabled=True, allow_all_unix_sockets=True)
    assert open_config.unavailable() is None  # no filter asked for: none needed


@needs_bwrap
def test_hookline_run_exits_2_without_libseccomp_when_the_sandbox_is_required(ws: Path) -> None:
    (ws / ".claude").mkdir()
    settings = '{"sandbox": {"enabled": true, "failIfUnavailable": true}}'
    (ws / ".claude" / "settings.json").write_text(settings)
    env = {"HOOKLINE_LIBSECCOMP": "/nonexistent/libseccomp.so.2"}
    done = hookline("run", "hello", "--cwd", str(ws), env=env)
    assert done.returncode == 2
    assert "libseccomp" in done.stderr and "apt-get install libseccomp2" in done.stderr


@needs_bwrap
@pytest.mark.parametrize("exists", [True, False], ids=["existing", "missing"])
def test_an_agents_sandbox_keeps_the_code_files_its_settings_name_read_only(
    ws: Path, exists: bool
) -> None:
    guard = ws / "hooks" / "guard.py"
    guard.parent.mkdir()
    if exists:
        guard.write_text("ALLOW = False\n")
    (ws / "tool.sh").write_text(f"echo 'ALLOW = True' >> {guard}\n")
    command = "sh tool.sh"  # runs a file: no proof possible, the sandbox is the boundary
    call = {"id": "t1", "name": "Bash", "input": {"command": command}}
    script = [{"tool_calls": [call]}, {"text": "done"}]
    policy = PermissionPolicy(code_files=(str(guard),))
    agent = Agent(
        ScriptedModel(script), cwd=ws, permissions=policy, sandbox=SandboxConfig(enabled=True)
    )
    result = agent.run_sync("go")
    assert [call.status for call in result.tool_calls] == ["failed"]
    after = guard.read_text() if guard.exists() else ""  # a placeholder may outlive the run
    assert after == ("ALLOW = False\n" if exists else "")
