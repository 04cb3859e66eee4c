"""Attacks on the OS sandbox, end to end: real bwrap, real git, real sockets, judged on the host.

Each test plants what an escaping command would plant, from inside the sandbox, and then does
on the host what would set it off (``git status``, ``git commit``, a connection count, a file
read): a sentinel file the planted code would create stays absent, or a canary stays untouched.
Where it helps to show the attack is real, the same steps are run once outside the sandbox as a
control, and the sentinel appears there.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hookline._errors import ToolError
from hookline._settings_layers import Layer
from hookline._tools.base import ToolContext, Workspace
from hookline._tools.builtin import Bash
from hookline.permissions._sandbox.config import SandboxConfig
from hookline.permissions._sandbox.mounts import Placeholders
from hookline.permissions._sandbox.run import Sandbox

INSTALL = "apt-get install bubblewrap libseccomp2"
#: Only a missing bwrap skips: without libseccomp the sandbox refuses to start, and says so.
WHY_NOT = SandboxConfig(allow_all_unix_sockets=True).unavailable()
pytestmark = [
    pytest.mark.skipif(WHY_NOT is not None, reason=f"no sandbox here ({WHY_NOT}); {INSTALL}"),
    pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed"),
]
WHO = ["-c", "user.name=t", "-c", "user.email=t@example.com"]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A git repository with one commit; ``tmp_path / "outside"`` is a folder next to it."""
    (tmp_path / "outside").mkdir()
    ws = tmp_path / "ws"
    ws.mkdir()
    git(ws, "init", "-q")
    (ws / "a").write_text("a\n")
    git(ws, "add", "a")
    git(ws, *WHO, "commit", "-qm", "one")
    return ws


def git(ws: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Git on the host, as the user would run it after the session."""
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(ws.parent)}
    return subprocess.run(["git", *args], cwd=ws, capture_output=True, text=True, env=env)


def bash(ws: Path, command: str, **config: Any) -> tuple[int, str]:
    """Exit code and output of a Bash call in a sandbox over ``ws``."""
    own = Placeholders(str(ws.parent / "placeholders.lock"))  # no other process counts here
    sandbox = Sandbox(SandboxConfig(enabled=True, **config), roots=[ws], placeholders=own)
    ctx = ToolContext(cwd=ws, workspace=Workspace.of(ws), sandbox=sandbox)
    tool = Bash()
    try:
        output = asyncio.run(tool.execute(tool.prepare({"command": command}, ctx), ctx))
    except ToolError as exc:
        code, _, detail = str(exc).removeprefix("Exit code ").partition("\n")
        return int(code) if code.isdigit() else -1, detail or str(exc)
    finally:
        sandbox.close()
    return 0, tool.render(output)


def outside(ws: Path, command: str) -> None:
    """The same command with no sandbox: the control that shows the attack is real."""
    subprocess.run(["bash", "-c", command], cwd=ws, capture_output=True, check=False)


def fsmonitor(sentinel: Path) -> str:
    return f"[core]\n\trepositoryformatversion = 0\n\tfsmonitor = touch {sentinel}\n"


# -- git: redirected, renamed, replaced, reconfigured ---------------------------------------


@pytest.mark.parametrize("control", [False, True], ids=["sandboxed", "control"])
def test_a_planted_commondir_with_an_fsmonitor_never_runs_on_the_host(
    ws: Path, control: bool
) -> None:
    sentinel = ws.parent / "outside" / "fsmonitor-ran"
    (ws / "evil").mkdir()
    (ws / "evil" / "config").write_text(fsmonitor(sentinel))
    attack = "cp -r .git/objects .git/refs evil/ && echo ../evil > .git/commondir"
    if control:
        outside(ws, attack)
    else:
        assert bash(ws, attack)[0] != 0
        assert not (ws / ".git" / "commondir").exists()  # the placeholder is gone again
    git(ws, "status")
    assert sentinel.exists() is control


COPY = (
    "cp -r .git {d} && printf '#!/bin/sh\\ntouch {s}\\n' > {d}/hooks/pre-commit; "
    "chmod +x {d}/hooks/*"
)


@pytest.mark.parametrize(
    "attack",
    [
        COPY.replace("{d}", "../outside/c") + " && mv .git .git-old && mv ../outside/c .git",
        COPY.replace("{d}", "c") + " && rm -rf .git; mv c .git",
        COPY.replace("{d}", "c") + " && mv .git/hooks .git/h && mv c/hooks .git/hooks",
        COPY.replace("{d}", "c") + " && rm -rf .git/hooks; cp -r c/hooks .git/hooks",
        COPY.replace("{d}", "c") + " && printf 'gitdir: c\\n' > g && mv -T g .git",
        COPY.replace("{d}", "c") + " && git init -q --template=c .",
        COPY.replace("{d}", "c") + " && ln -s ../../c/hooks/pre-commit .git/hooks/pre-commit",
        COPY.replace("{d}", "c") + " && cd .. && mv ws ws-old && mv ws-old/c ws",
    ],
    ids=[
        "renamed",
        "deleted",
        "hooks-moved",
        "hooks-deleted",
        "gitdir-file",
        "template",
        "link",
        "root-renamed",
    ],
)
def test_git_cannot_be_replaced_by_a_copy_whose_hooks_the_host_runs(ws: Path, attack: str) -> None:
    sentinel = ws.parent / "outside" / "hook-ran"
    (ws / ".git" / "hooks").mkdir(exist_ok=True)
    bash(ws, attack.replace("{s}", str(sentinel)))  # "deleted" may empty .git: its own work
    assert os.path.ismount(ws / ".git") is False and (ws / ".git").is_dir()
    (ws / "b").write_text("b\n")
    git(ws, "add", "b")
    git(ws, *WHO, "commit", "-qm", "two")
    assert not sentinel.exists()


def test_the_copy_attack_is_real_outside_the_sandbox(ws: Path) -> None:
    sentinel = ws.parent / "outside" / "hook-ran"
    outside(
        ws, COPY.replace("{d}", "c").replace("{s}", str(sentinel)) + " && rm -rf .git && mv c .git"
    )
    (ws / "b").write_text("b\n")
    git(ws, "add", "b")
    git(ws, *WHO, "commit", "-qm", "two")
    assert sentinel.exists()  # the control: unsandboxed, the planted hook runs


def test_git_add_and_commit_still_work_inside(ws: Path) -> None:
    code, output = bash(ws, f"echo c > c && git add c && git {' '.join(WHO)} commit -qm inside")
    assert code == 0, output
    assert git(ws, "log", "--format=%s", "-1").stdout.strip() == "inside"
    assert git(ws, "status", "--porcelain").stdout == ""


@pytest.mark.parametrize(
    "attack",
    [
        "git config core.fsmonitor 'touch {s}'",
        "git config --file .git/config.worktree core.fsmonitor 'touch {s}'",
        "ln .git/config cfg && printf '\\tfsmonitor = touch {s}\\n' >> cfg",
        "printf '[core]\\n\\tfsmonitor = touch {s}\\n' > .git/info/x "
        "&& git config include.path info/x",
        "unshare -rm sh -c 'umount .git/config; "
        'printf "[core]\\n\\tfsmonitor = touch {s}\\n" >> .git/config\'',
        "unshare -rm sh -c 'mount -t tmpfs t .git/hooks' && echo mounted",
    ],
    ids=["config", "config-worktree", "hard-link", "include", "unmount", "mount"],
)
def test_git_config_cannot_be_turned_into_code(ws: Path, attack: str) -> None:
    sentinel = ws.parent / "outside" / "config-ran"
    before = (ws / ".git" / "config").read_text()
    code, output = bash(ws, attack.format(s=sentinel))
    assert code != 0, output
    assert (ws / ".git" / "config").read_text() == before
    git(ws, "status")
    assert not sentinel.exists()


def test_a_workspace_without_git_cannot_be_given_one(tmp_path: Path) -> None:
    ws = tmp_path / "plain"
    ws.mkdir()
    sentinel = tmp_path / "hook-ran"
    hook = f"#!/bin/sh\\ntouch {sentinel}\\n"
    code, _ = bash(ws, f"git init -q . && printf '{hook}' > .git/hooks/pre-commit")
    assert code != 0
    assert not (ws / ".git").exists()  # neither a repository nor the placeholder is left
    assert not sentinel.exists()


# -- the rest of the protected set ----------------------------------------------------------


@pytest.mark.parametrize(
    "attack",
    [
        "echo '{server}' > .mcp.json",
        "echo '{server}' > x && mv x .mcp.json",
        "mkdir -p .claude && echo '{{}}' > .claude/settings.local.json",
        "ln -s .claude c && mkdir -p c && echo '{{}}' > c/settings.json",
        "mkdir -p .hookline && echo x > .hookline/x",
        "cd /proc/self/cwd && echo '{server}' > .mcp.json",
    ],
    ids=["mcp", "mcp-rename", "claude", "claude-link", "hookline", "proc-cwd"],
)
def test_files_started_on_the_next_run_cannot_be_made(ws: Path, attack: str) -> None:
    server = json.dumps({"mcpServers": {"x": {"command": "touch", "args": ["/tmp/s"]}}})
    code, output = bash(ws, attack.format(server=server))
    assert code != 0, output
    assert not (ws / ".mcp.json").exists()
    assert not (ws / ".claude" / "settings.local.json").exists()
    assert not (ws / ".claude" / "settings.json").exists()
    assert not (ws / ".hookline" / "x").exists()


def test_the_home_folders_state_stays_read_only_even_under_allow_write(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = ws.parent / "home"
    (home / ".claude").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    command = "touch ~/ok && { echo '{}' > ~/.claude/settings.json; touch ~/.hookline/key; }"
    code, _ = bash(ws, command, allow_write=(str(home),))
    assert code != 0
    assert (home / "ok").exists()  # allowWrite holds for the rest of the home folder
    assert not (home / ".claude" / "settings.json").exists()
    assert not (home / ".hookline" / "key").exists()


# -- Unix sockets ---------------------------------------------------------------------------


@pytest.fixture(params=["outside", "inside"])
def listener(request: pytest.FixtureRequest, ws: Path) -> Iterator[tuple[socket.socket, Path]]:
    """A real Unix socket server on the host (docker.sock's stand-in), in the folder next to the
    workspace or in the workspace itself; non-blocking, so a queued connection can be counted."""
    path = (ws.parent / "outside" if request.param == "outside" else ws) / "host.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(8)
    server.setblocking(False)
    with server:
        yield server, path


def connections(server: socket.socket) -> int:
    """How many connections reached the server (a completed connect is queued already)."""
    count = 0
    while True:
        try:
            client, _ = server.accept()
        except BlockingIOError:
            return count
        client.close()
        count += 1


CONNECT = "python3 -c \"import socket; socket.socket(socket.AF_UNIX).connect('{path}')\""


SOCKET_ATTACKS = {
    "python": CONNECT,
    "curl": "curl -s -m 5 --unix-socket {path} http://x/",
    # the domain with high bits set: the kernel reads only the low 32 (AF_UNIX)
    "high-bits": 'python3 -c "import ctypes,socket; l=ctypes.CDLL(None, use_errno=True); '
    "fd=l.syscall(41, ctypes.c_long(0x100000001), 1, 0); assert fd >= 0, 'refused'; "
    "socket.socket(fileno=fd).connect('{path}')\"",
    # io_uring can make and connect sockets without socket(): its setup is refused
    "io-uring": 'python3 -c "import ctypes; l=ctypes.CDLL(None, use_errno=True); '
    "fd=l.syscall(425, 8, ctypes.create_string_buffer(120)); assert fd >= 0, 'refused'\"",
}
#: Spellings that fail here whatever the filter (no x32 in the kernel, no nested user
#: namespace under bwrap): kept, with no control, for machines where they would not.
SOCKET_ATTACKS_NO_CONTROL = {
    "x32": 'python3 -c "import ctypes,socket; l=ctypes.CDLL(None, use_errno=True); '
    "fd=l.syscall(0x40000029, 1, 1, 0); assert fd >= 0, 'refused'; "
    "socket.socket(fileno=fd).connect('{path}')\"",
    "nested-namespace": "unshare -rn " + CONNECT,
}


@pytest.mark.parametrize("attack", SOCKET_ATTACKS.values(), ids=SOCKET_ATTACKS.keys())
@pytest.mark.parametrize("control", [False, True], ids=["filtered", "control"])
def test_no_host_unix_socket_can_be_reached(
    ws: Path, listener: tuple[socket.socket, Path], attack: str, control: bool
) -> None:
    server, path = listener
    if attack.startswith("curl") and shutil.which("curl") is None:
        pytest.skip("curl is not installed")
    code, output = bash(ws, attack.format(path=path), allow_all_unix_sockets=control)
    if "425" in attack:  # io_uring: no connection to count, only whether one was set up
        assert (code == 0) is control, output
    # the control (allowAllUnixSockets): the same spelling reaches the server
    assert connections(server) == (control and "425" not in attack), output


@pytest.mark.parametrize(
    "attack", SOCKET_ATTACKS_NO_CONTROL.values(), ids=SOCKET_ATTACKS_NO_CONTROL.keys()
)
def test_no_host_unix_socket_can_be_reached_by_odd_spellings(
    ws: Path, listener: tuple[socket.socket, Path], attack: str
) -> None:
    server, path = listener
    code, output = bash(ws, attack.format(path=path))
    assert code != 0, output
    assert connections(server) == 0


def test_allow_all_unix_sockets_lets_them_through(ws: Path) -> None:
    path = ws.parent / "outside" / "host.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(str(path))
        server.listen(8)
        server.setblocking(False)
        code, output = bash(ws, CONNECT.format(path=path), allow_all_unix_sockets=True)
        assert code == 0, output
        assert connections(server) == 1  # the control: the canary counts a real connection


def test_socketpair_still_works_and_the_proxy_channel_is_not_the_commands(ws: Path) -> None:
    probe = (
        "python3 -c \"import os, socket; a, b = socket.socketpair(); d = '/proc/self/fd/'; "
        "print(sum(os.path.exists(d + f) and os.readlink(d + f).startswith('socket:') "
        'for f in os.listdir(d)))"'
    )
    code, output = bash(ws, probe, allowed_domains=("localhost",))
    assert (code, output) == (0, "2")  # the pair it made; no channel to the host's proxy


# -- denyRead patterns ----------------------------------------------------------------------


@pytest.mark.parametrize("denied", [True, False], ids=["denied", "control"])
def test_deny_read_patterns_hide_every_match(ws: Path, denied: bool) -> None:
    (ws / "secrets" / "deep").mkdir(parents=True)
    (ws / "secrets" / "deep" / "k").write_text("SECRET-1")
    (ws / "certs").mkdir()
    (ws / "certs" / "site.pem").write_text("SECRET-2")
    (ws / "top.pem").write_text("SECRET-3")
    (ws / ".env").write_text("SECRET-4")
    (ws / "plain.txt").write_text("visible")
    patterns = ["secrets/**", "*.pem", ".en?"] if denied else []
    data = {"sandbox": {"enabled": True, "filesystem": {"denyRead": patterns}}}
    config, _ = SandboxConfig.from_settings([Layer("project", "p.json", data)], project_dir=ws)
    spellings = (
        "cat secrets/deep/k certs/site.pem ./cert*/*.pem top.pem .env .en? 2>&1; cat plain.txt"
    )
    sandbox = Sandbox(config, roots=[ws])
    ctx = ToolContext(cwd=ws, workspace=Workspace.of(ws), sandbox=sandbox)
    tool = Bash()
    output = asyncio.run(tool.execute({"command": spellings}, ctx))["stdout"]
    sandbox.close()
    assert ("SECRET" in output) is not denied
    assert output.endswith("visible")


@pytest.mark.parametrize(
    "attack",
    [
        "cat secrets/k",
        "ln secrets/k x 2>/dev/null; cat x",
        "mv secrets moved && cat moved/k",
        "cat /proc/self/root$PWD/secrets/k",
        "cd secrets && tar cf - . | tar xOf -",
        "cp -r secrets ../outside/copy 2>/dev/null; cat ../outside/copy/k; cat $TMPDIR/k",
        "python3 -c \"print(open('sec' + 'rets/k').read())\"",
        "mount --bind / /mnt 2>/dev/null; cat /mnt$PWD/secrets/k",
    ],
    ids=["cat", "hard-link", "moved", "proc-root", "tar", "copy", "python", "bind-mount"],
)
def test_deny_read_holds_against_other_ways_to_the_file(ws: Path, attack: str) -> None:
    (ws / "secrets").mkdir()
    (ws / "secrets" / "k").write_text("SECRET-K")
    data = {"sandbox": {"enabled": True, "filesystem": {"denyRead": ["secrets/**"]}}}
    config, _ = SandboxConfig.from_settings([Layer("project", "p.json", data)], project_dir=ws)
    _, output = bash(ws, attack + "; echo end", deny_read=config.deny_read)
    assert "SECRET" not in output and "end" in output.splitlines()  # it ran to the end
    assert (ws / "secrets" / "k").read_text() == "SECRET-K"  # the host's file, untouched


def test_allow_unix_sockets_by_path_is_a_warning_and_they_stay_blocked(ws: Path) -> None:
    data = {"sandbox": {"enabled": True, "network": {"allowUnixSockets": ["/var/run/x.sock"]}}}
    config, warnings = SandboxConfig.from_settings([Layer("user", "u.json", data)], project_dir=ws)
    assert config.allow_all_unix_sockets is False
    (warning,) = warnings
    assert warning.key == "sandbox.network.allowUnixSockets" and "allowAllUnixSockets" in str(
        warning
    )
    assert bash(ws, CONNECT.format(path="/var/run/x.sock"))[0] != 0
