"""The OS sandbox for Bash: settings, containment proven by files on disk, network, lifecycle.

Tests that run bwrap skip where it is missing; the others use ``/bin/true`` as a bwrap that
always "works" (the probe passes) or a path that does not exist.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import pytest

from cli_runner import hookline, src_env
from hookline import Agent, HookEngine, HookRegistry, PreToolUse, ScriptedModel
from hookline._claude.settings import load_settings
from hookline._errors import ConfigError, ToolError
from hookline._events import Scope
from hookline._settings_layers import Layer
from hookline._tools.base import ToolContext, Workspace
from hookline._tools.builtin import Bash
from hookline.permissions._sandbox.config import SandboxConfig, domain_allowed
from hookline.permissions._sandbox.mounts import Placeholders
from hookline.permissions._sandbox.run import Sandbox, bwrap_argv

INSTALL = (
    "command -v bwrap >/dev/null || { apt-get update -qq && apt-get install -y -qq bubblewrap; }"
)
#: Only a missing bwrap skips: without libseccomp the sandbox refuses to start, and says so.
WHY_NOT = SandboxConfig(allow_all_unix_sockets=True).unavailable()
needs_bwrap = pytest.mark.skipif(
    WHY_NOT is not None, reason=f"the sandbox cannot start here ({WHY_NOT}); install: {INSTALL}"
)
TRUE = shutil.which("true") or "/bin/true"  # a "bwrap" whose probe always passes


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """The workspace; ``tmp_path / "outside"`` is a folder next to it."""
    (tmp_path / "outside").mkdir()
    (tmp_path / "ws").mkdir()
    return tmp_path / "ws"


def context(ws: Path, **config: Any) -> ToolContext:
    own = Placeholders(str(ws.parent / "placeholders.lock"))  # apart from other test processes
    sandbox = Sandbox(SandboxConfig(enabled=True, **config), roots=[ws], placeholders=own)
    return ToolContext(cwd=ws, workspace=Workspace.of(ws), sandbox=sandbox)


def bash(ctx: ToolContext, command: str, **extra: Any) -> tuple[int, str]:
    """Exit code and output of a Bash call."""
    tool = Bash()
    try:
        output = asyncio.run(tool.execute(tool.prepare({"command": command, **extra}, ctx), ctx))
    except ToolError as exc:
        code, _, detail = str(exc).removeprefix("Exit code ").partition("\n")
        return int(code) if code.isdigit() else -1, detail or str(exc)
    return 0, tool.render(output)


# -- containment: files on disk -------------------------------------------------------------


@needs_bwrap
def test_touch_outside_the_workspace_fails_and_creates_nothing(ws: Path) -> None:
    sentinel = ws.parent / "outside" / "sentinel"
    code, output = bash(context(ws), f"touch {sentinel}")
    assert code != 0 and "Read-only file system" in output
    assert not sentinel.exists()


@needs_bwrap
def test_python_cannot_open_a_file_outside_for_writing(ws: Path) -> None:
    sentinel = ws.parent / "outside" / "x"
    code, output = bash(context(ws), f"python3 -c \"open('{sentinel}', 'w')\"")
    assert code != 0 and "Read-only file system" in output
    assert not sentinel.exists()


@needs_bwrap
@pytest.mark.parametrize("exists", [True, False], ids=["existing", "missing"])
@pytest.mark.parametrize(
    "target", [".claude/settings.local.json", ".hookline/x", ".git/hooks/pre-commit", ".git/config"]
)
def test_the_protected_paths_in_the_workspace_cannot_be_written(
    ws: Path, target: str, exists: bool
) -> None:
    if exists:
        for folder in (".claude", ".hookline", ".git/hooks"):
            (ws / folder).mkdir(parents=True)
        (ws / ".git" / "config").write_text("[core]\n")
    before = (ws / target).read_text() if (ws / target).is_file() else None
    ctx = context(ws)
    code, _ = bash(ctx, f"mkdir -p $(dirname {target}); echo evil > {target}")
    assert code != 0
    assert ctx.sandbox is not None
    ctx.sandbox.close()  # its placeholders go with it
    after = (ws / target).read_text() if (ws / target).is_file() else None
    assert after == before


@needs_bwrap
@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_git_commit_works_inside_while_its_hooks_stay_read_only(ws: Path) -> None:
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    who = "git -c user.name=t -c user.email=t@example.com"
    code, output = bash(context(ws), f"echo hi > a && git add a && {who} commit -qm one")
    assert code == 0, output
    assert subprocess.run(["git", "-C", str(ws), "log", "--oneline"], capture_output=True).stdout
    assert bash(context(ws), "echo x > .git/hooks/post-commit")[0] != 0
    assert not (ws / ".git" / "hooks" / "post-commit").exists()


@needs_bwrap
def test_writes_in_the_workspace_and_the_session_temp_folder_work(ws: Path) -> None:
    ctx = context(ws)
    code, output = bash(ctx, 'touch inside && touch "$TMPDIR/t" && echo "$TMPDIR"')
    assert code == 0, output
    assert (ws / "inside").exists()
    assert ctx.sandbox is not None and output == ctx.sandbox.temp
    assert (Path(ctx.sandbox.temp) / "t").exists()


@needs_bwrap
def test_a_symlink_out_of_the_workspace_lets_no_write_through(ws: Path) -> None:
    (ws / "link").symlink_to(ws.parent / "outside")
    code, _ = bash(context(ws), "touch link/escaped")
    assert code != 0
    assert not (ws.parent / "outside" / "escaped").exists()


@needs_bwrap
def test_deny_read_hides_a_file_and_a_folder(ws: Path) -> None:
    (ws / "secret.txt").write_text("s3cret")
    (ws / "keys").mkdir()
    (ws / "keys" / "id").write_text("k3y")
    ctx = context(ws, deny_read=(str(ws / "secret.txt"), str(ws / "keys")))
    code, output = bash(ctx, "cat secret.txt keys/id")
    assert code != 0 and "s3cret" not in output and "k3y" not in output
    assert bash(context(ws), "cat secret.txt")[1] == "s3cret"  # the control


@needs_bwrap
def test_deny_write_makes_part_of_the_workspace_read_only(ws: Path) -> None:
    (ws / "vendor").mkdir()
    code, _ = bash(context(ws, deny_write=(str(ws / "vendor"),)), "touch vendor/x")
    assert code != 0 and not (ws / "vendor" / "x").exists()


@needs_bwrap
def test_allow_write_opens_a_folder_outside(ws: Path) -> None:
    outside = ws.parent / "outside"
    code, output = bash(context(ws, allow_write=(str(outside),)), f"touch {outside}/made")
    assert code == 0, output
    assert (outside / "made").exists()


# -- which calls run inside -----------------------------------------------------------------


@needs_bwrap
def test_excluded_commands_run_outside_and_only_when_every_part_is_excluded(ws: Path) -> None:
    outside = ws.parent / "outside"
    ctx = context(ws, excluded_commands=("touch",))
    assert bash(ctx, f"touch {outside}/a")[0] == 0
    assert (outside / "a").exists()
    assert bash(ctx, f"touch {outside}/b && echo done")[0] != 0
    assert not (outside / "b").exists()


@needs_bwrap
@pytest.mark.parametrize("allowed", [True, False])
def test_dangerously_disable_sandbox_leaves_only_when_the_settings_allow_it(
    ws: Path, allowed: bool
) -> None:
    sentinel = ws.parent / "outside" / "s"
    ctx = context(ws, allow_unsandboxed=allowed)
    code, _ = bash(ctx, f"touch {sentinel}", dangerouslyDisableSandbox=True)
    assert sentinel.exists() is allowed
    assert (code == 0) is allowed


@pytest.mark.parametrize(
    ("config", "command", "tool_input", "expected"),
    [
        ({}, "ls", {}, True),
        ({"enabled": False}, "ls", {}, False),
        ({"auto_allow_bash": False}, "ls", {}, False),
        ({"excluded_commands": ("docker",)}, "docker ps", {}, False),
        ({"excluded_commands": ("docker",)}, "docker ps && rm x", {}, True),
        ({}, "ls", {"dangerouslyDisableSandbox": True}, False),
        ({"allow_unsandboxed": False}, "ls", {"dangerouslyDisableSandbox": True}, False),
        ({"bwrap": "/nonexistent/bwrap"}, "ls", {}, False),
    ],
)
def test_auto_allows_only_a_call_that_runs_sandboxed(
    config: dict[str, Any], command: str, tool_input: dict[str, Any], expected: bool
) -> None:
    sandbox = SandboxConfig(**{"enabled": True, "bwrap": TRUE, **config})
    assert sandbox.auto_allows(command, {"command": command, **tool_input}) is expected


def test_a_missing_or_failing_bwrap_is_named_with_the_fix() -> None:
    missing = SandboxConfig(enabled=True, bwrap="/nonexistent/bwrap").unavailable()
    assert missing is not None and "apt-get install bubblewrap" in missing
    failing = SandboxConfig(enabled=True, bwrap=shutil.which("false")).unavailable()
    assert failing is not None and "namespaces" in failing and "bubblewrap" in failing


def test_with_fail_if_unavailable_bash_refuses_instead_of_running_unsandboxed(ws: Path) -> None:
    ctx = context(ws, bwrap="/nonexistent/bwrap", fail_if_unavailable=True)
    code, output = bash(ctx, "touch x")
    assert code == -1 and "apt-get install bubblewrap" in output
    assert not (ws / "x").exists()
    assert bash(context(ws, bwrap="/nonexistent/bwrap"), "touch x")[0] == 0  # warned, runs


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("example.com", True),
        ("EXAMPLE.com.", True),
        ("api.example.com", False),
        ("pypi.org", True),
        ("files.pypi.org", True),
        ("pypi.org.evil.com", False),
        ("evilpypi.org", False),
    ],
)
def test_domains_match_exactly_or_under_a_wildcard(host: str, expected: bool) -> None:
    assert domain_allowed(host, ("example.com", "*.pypi.org", "pypi.org")) is expected


def test_the_bwrap_line_has_the_namespaces_pins_git_and_binds_only_what_may_be_written(
    ws: Path,
) -> None:
    (ws / ".git" / "hooks").mkdir(parents=True)
    config = SandboxConfig(enabled=True, bwrap="bwrap")
    argv = bwrap_argv(["true"], config, roots=[str(ws)], temp=str(ws.parent), cwd=str(ws))
    flags = {"--die-with-parent", "--new-session", "--unshare-net", "--unshare-pid"}
    assert flags <= set(argv) and argv[:4] == ["bwrap", "--ro-bind", "/", "/"]
    triples = {tuple(argv[i : i + 3]) for i in range(len(argv) - 2)}
    assert {
        ("--bind", str(ws), str(ws)),
        ("--bind", str(ws.parent), str(ws.parent)),
        ("--bind", str(ws / ".git"), str(ws / ".git")),  # pinned: a mount point
        ("--ro-bind", str(ws / ".git/hooks"), str(ws / ".git/hooks")),
    } <= triples
    assert [a for a in argv if a == "--bind"] == ["--bind"] * 3
    assert argv[-2:] == ["--", "true"]


# -- network --------------------------------------------------------------------------------


class _Hello(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = f"hello from {self.headers['Host']}".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[int]:
    """A real HTTP server on the host's 127.0.0.1; its port. Stops at teardown."""
    httpd = HTTPServer(("127.0.0.1", 0), _Hello)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd.server_address[1]
    httpd.shutdown()
    httpd.server_close()


FETCH = """python3 -c "
import sys, urllib.request, urllib.error
try:
    print(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())
except urllib.error.HTTPError as e:
    print(e.code, e.read().decode()); sys.exit(3)
" """


@needs_bwrap
def test_with_no_allowed_domains_there_is_no_network(ws: Path, server: int) -> None:
    probe = f"python3 -c \"import socket; socket.create_connection(('127.0.0.1', {server}), 5)\""
    code, output = bash(context(ws), probe)
    assert code != 0 and "Connection refused" in output
    assert bash(context(ws), "env | grep -i _proxy; true")[1] == "(no output)"


@needs_bwrap
def test_an_allowed_domain_is_reached_through_the_proxy_and_another_refused(
    ws: Path, server: int
) -> None:
    ctx = context(ws, allowed_domains=("localhost",))
    code, output = bash(ctx, f"{FETCH} http://localhost:{server}/")
    assert (code, output) == (0, f"hello from localhost:{server}")
    code, output = bash(ctx, f"{FETCH} http://127.0.0.1:{server}/")
    assert code == 3
    assert output.startswith("403 hookline sandbox: 127.0.0.1 is not in")
    assert "sandbox.network.allowedDomains" in output


CONNECT = """python3 -c "
import socket, sys
s = socket.create_connection(('127.0.0.1', 3128), 10)
s.sendall(b'CONNECT ' + sys.argv[1].encode() + b' HTTP/1.1\\r\\n\\r\\n')
head = s.recv(4096)
print(head.split(b'\\r\\n')[0].decode())
if b' 200 ' in head:
    s.sendall(b'GET / HTTP/1.0\\r\\nHost: tunnel\\r\\n\\r\\n')
    print(b''.join(iter(lambda: s.recv(4096), b'')).split(b'\\r\\n\\r\\n')[-1].decode())
" """


@needs_bwrap
def test_connect_tunnels_reach_allowed_domains_only(ws: Path, server: int) -> None:
    ctx = context(ws, allowed_domains=("localhost",))
    code, output = bash(ctx, f"{CONNECT} localhost:{server}")
    assert (code, output) == (0, "HTTP/1.1 200 Connection Established\nhello from tunnel")
    assert bash(ctx, f"{CONNECT} 127.0.0.1:{server}")[1] == "HTTP/1.1 403 Forbidden"


# -- lifecycle ------------------------------------------------------------------------------

HARNESS = """
import asyncio, sys
from hookline.permissions._sandbox import SandboxConfig
from hookline.permissions._sandbox.run import Sandbox
from hookline._tools.base import ToolContext, Workspace
from hookline._tools.builtin import Bash
ws = sys.argv[1]
ctx = ToolContext(cwd=ws, workspace=Workspace.of(ws),
                  sandbox=Sandbox(SandboxConfig(enabled=True), roots=[ws]))
asyncio.run(Bash().execute({"command": "sleep " + sys.argv[2]}, ctx))
"""


def _pids_running(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if argv[:2] == [b"sleep", marker.encode()]:
            found.append(int(entry.name))
    return found


def _wait_for(condition: Any, seconds: float = 15.0) -> bool:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)
    return bool(condition())


@needs_bwrap
def test_sandboxed_children_die_when_the_harness_is_killed(ws: Path) -> None:
    marker = f"{4000 + uuid.uuid4().int % 1000}.{uuid.uuid4().int % 10**6:06d}"
    temp = ws.parent / "tmp"  # the killed harness cannot delete its temp folder: keep it here
    temp.mkdir()
    argv = [sys.executable, "-c", HARNESS, str(ws), marker]
    harness = subprocess.Popen(argv, env=src_env({"TMPDIR": str(temp)}))
    try:
        assert _wait_for(lambda: _pids_running(marker)), "the sandboxed sleep never started"
    finally:
        harness.send_signal(signal.SIGKILL)
        harness.wait()
    assert _wait_for(lambda: not _pids_running(marker)), "the sandboxed sleep outlived it"


@needs_bwrap
def test_a_timeout_ends_every_process_of_the_sandbox(ws: Path) -> None:
    marker = f"{5000 + uuid.uuid4().int % 1000}.{uuid.uuid4().int % 10**6:06d}"
    code, output = bash(context(ws), f"sleep {marker} & sleep {marker}", timeout=1500)
    assert (code, output) == (-1, "Command timed out after 1.5s")
    assert _wait_for(lambda: not _pids_running(marker)), "a sandboxed sleep outlived the timeout"


# -- hookline run and agents ----------------------------------------------------------------


def _settings(ws: Path, sandbox: dict[str, Any], **more: Any) -> None:
    (ws / ".claude").mkdir(exist_ok=True)
    data = {"sandbox": sandbox, **more}
    (ws / ".claude" / "settings.json").write_text(json.dumps(data))


def test_hookline_run_exits_2_when_the_sandbox_is_required_and_cannot_start(ws: Path) -> None:
    _settings(ws, {"enabled": True, "failIfUnavailable": True})
    done = hookline("run", "run true", "--cwd", str(ws), env={"HOOKLINE_BWRAP": "/nope/bwrap"})
    assert done.returncode == 2
    assert "the sandbox cannot start" in done.stderr
    assert "apt-get install bubblewrap" in done.stderr


def test_hookline_run_warns_in_one_line_and_goes_on_when_it_may(ws: Path) -> None:
    _settings(ws, {"enabled": True})
    done = hookline("run", "hello", "--cwd", str(ws), env={"HOOKLINE_BWRAP": "/nope/bwrap"})
    assert done.returncode == 0, done.stderr
    (line,) = [line for line in done.stderr.splitlines() if "sandbox" in line]
    assert "apt-get install bubblewrap" in line and "run unsandboxed and ask" in line


@needs_bwrap
def test_an_agent_with_a_sandbox_runs_its_bash_calls_inside(ws: Path) -> None:
    sentinel = ws.parent / "outside" / "agent"
    call = {"id": "t1", "name": "Bash", "input": {"command": f"touch {sentinel}"}}
    script = [{"tool_calls": [call]}, {"text": "done"}]
    agent = Agent(ScriptedModel(script), cwd=ws, sandbox=SandboxConfig(enabled=True))
    result = agent.run_sync("go")
    assert [call.status for call in result.tool_calls] == ["failed"]
    assert not sentinel.exists()


# -- settings -------------------------------------------------------------------------------


def test_bad_sandbox_entries_are_warnings_naming_the_file_and_key(ws: Path) -> None:
    user = Path.home() / ".claude" / "settings.json"  # a project may not widen the sandbox
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(json.dumps({"sandbox": {
        "enabled": "yes",
        "excludedCommands": "docker",
        "filesystem": {"allowWrite": ["ok"]},
        "network": {"allowedDomains": ["not a domain", "*.fine.org"]},
    }}))  # fmt: skip
    settings = load_settings(ws)
    config, warnings = SandboxConfig.from_settings(settings, project_dir=ws)
    assert (config.enabled, config.allowed_domains) == (False, ("*.fine.org",))
    assert config.allow_write == (str(ws / "ok"),)
    keys = {w.key for w in warnings}
    assert keys == {
        "sandbox.enabled",
        "sandbox.excludedCommands",
        "sandbox.network.allowedDomains[0]",
    }
    assert {w.file for w in warnings} == {str(user)}


@pytest.mark.parametrize(
    ("filesystem", "key", "says"),
    [
        ({"denyRead": "x"}, "sandbox.filesystem.denyRead", "must be a list"),
        ({"denyWrite": [1, "ok"]}, "sandbox.filesystem.denyWrite[0]", "non-empty path"),
        ({"denyWrite": ["*.pem"]}, "sandbox.filesystem.denyWrite[0]", "a new file matching"),
        ({"denyRead": ["ok", "a[b"]}, "sandbox.filesystem.denyRead[1]", "not a valid pattern"),
        ("x", "sandbox.filesystem", "must be an object"),
    ],
)
def test_a_filesystem_entry_that_cannot_be_applied_stops_the_load(
    ws: Path, filesystem: Any, key: str, says: str
) -> None:
    _settings(ws, {"enabled": True, "filesystem": filesystem})
    with pytest.raises(ConfigError) as caught:
        SandboxConfig.from_settings(load_settings(ws), project_dir=ws)
    assert caught.value.key == key and says in caught.value.message
    assert caught.value.file == str(ws / ".claude" / "settings.json")
    assert "\n" not in str(caught.value)


def test_hookline_run_stops_on_a_filesystem_entry_it_cannot_apply(ws: Path) -> None:
    _settings(ws, {"enabled": True, "filesystem": {"denyWrite": ["secrets/*.key"]}})
    done = hookline("run", "hello", "--cwd", str(ws))
    assert done.returncode == 2
    (line,) = [line for line in done.stderr.splitlines() if "denyWrite" in line]
    assert "settings.json" in line and "sandbox.filesystem.denyWrite[0]" in line


def test_lists_merge_across_layers_and_the_highest_layer_sets_each_flag(ws: Path) -> None:
    user = {"sandbox": {"enabled": True, "excludedCommands": ["git"], "failIfUnavailable": True}}
    local = {"sandbox": {"enabled": False, "excludedCommands": ["docker *"]}}
    layers = [Layer("user", "u.json", user), Layer("local", "l.json", local)]
    config, warnings = SandboxConfig.from_settings(layers, project_dir=ws)
    assert warnings == []
    assert (config.enabled, config.fail_if_unavailable) == (False, True)
    assert set(config.excluded_commands) == {"git", "docker *"}
    assert (config.auto_allow_bash, config.allow_unsandboxed) == (True, True)  # the defaults


def test_paths_expand_home_and_are_relative_to_the_project(ws: Path) -> None:
    data = {"sandbox": {"filesystem": {"denyRead": ["~/.ssh", "//etc/shadow", "build/../out"]}}}
    config, _ = SandboxConfig.from_settings([Layer("project", "p", data)], project_dir=ws)
    home = os.path.expanduser("~")
    assert config.deny_read == (f"{home}/.ssh", "/etc/shadow", str(ws / "out"))


# -- command hooks --------------------------------------------------------------------------


def _hook_settings(ws: Path, sandbox: bool) -> HookRegistry:
    command = 'touch "$CLAUDE_PROJECT_DIR/hook-was-here" && touch "$TMPDIR/t"'
    hooks = {
        "PreToolUse": [{"hooks": [{"type": "command", "command": command, "sandbox": sandbox}]}]
    }
    _settings(ws, {}, hooks=hooks)
    settings = load_settings(ws)
    registry = HookRegistry()
    assert settings.register(registry, project_dir=ws) == 1 and settings.warnings == []
    return registry


@needs_bwrap
@pytest.mark.parametrize("sandboxed", [True, False])
def test_a_command_hook_may_opt_in_to_the_sandbox(ws: Path, sandboxed: bool) -> None:
    event = Scope("s", str(ws / "t.jsonl"), str(ws)).event(
        PreToolUse, tool_name="Bash", tool_input={"command": "ls"}, tool_use_id="t1"
    )
    (run,) = asyncio.run(HookEngine(_hook_settings(ws, sandboxed)).dispatch(event)).runs
    assert (ws / "hook-was-here").exists() is not sandboxed
    assert (run.error is not None) is sandboxed


def test_a_hook_whose_sandbox_flag_is_not_a_boolean_is_a_warning(ws: Path) -> None:
    hooks = {"PreToolUse": [{"hooks": [{"type": "command", "command": "true", "sandbox": "on"}]}]}
    _settings(ws, {}, hooks=hooks)
    settings = load_settings(ws)
    assert settings.register(HookRegistry(), project_dir=ws) == 0
    assert [w.key for w in settings.warnings] == ["hooks.PreToolUse[0].hooks[0].sandbox"]


FORWARDER = Path(__file__).parents[1] / "src/hookline/permissions/_sandbox/forward.py"


@pytest.mark.parametrize(("script", "code"), [("exit 7", 7), ("kill -TERM $$", 128 + 15)])
def test_the_forwarder_runs_without_hookline_and_exits_as_its_command(
    script: str, code: int
) -> None:
    mine, theirs = socket.socketpair()
    with mine, theirs:
        argv = [sys.executable, "-I", "-S", str(FORWARDER), str(theirs.fileno()), "0", "--"]
        done = subprocess.run(
            [*argv, "sh", "-c", script], env={}, capture_output=True, timeout=60,
            pass_fds=[theirs.fileno()],
        )  # fmt: skip
    assert (done.returncode, done.stderr) == (code, b"")
