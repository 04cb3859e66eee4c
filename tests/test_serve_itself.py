"""A server whose own settings hold the hooks ``hookline install`` wrote (the user's settings,
read by every run) leaves out those posting to itself: it answers at once instead of posting
each event to itself until the host's timeout blocks every call."""

from __future__ import annotations

import signal
import socket
import subprocess
from pathlib import Path

import httpx
import pytest

from cli_runner import HOOKLINE, hookline, src_env
from hookline._serve.itself import posts_to
from test_serve import decided, policy_folder, tool_call, work_folder


def test_the_installed_hooks_in_the_servers_own_settings_are_left_out_and_it_answers(
    tmp_path: Path,
) -> None:
    policy, workspace = policy_folder(tmp_path), work_folder(tmp_path)
    port = _free_port()
    url = f"http://127.0.0.1:{port}/claude-code"
    installed = hookline("install", "claude-code", "--url", url)  # the user's settings
    assert installed.returncode == 0, installed.stderr
    args = [*HOOKLINE, "serve", "--cwd", str(policy), "--port", str(port),
            "--state-dir", str(tmp_path / "state")]  # fmt: skip
    process = subprocess.Popen(
        args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=src_env()
    )
    try:
        assert process.stdout is not None
        assert url in process.stdout.readline()  # it listens (the test's timeout bounds it)
        read = tool_call(workspace, "Read", {"file_path": str(workspace / "notes.txt")})
        said = decided(httpx.post(url, json=read, timeout=20))
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
    assert said["permissionDecision"] == "allow"  # not a deny after timing out on itself
    assert f"left out PreToolUse -> {url}" in err


@pytest.mark.parametrize(
    ("url", "itself"),
    [
        ("http://127.0.0.1:8377/claude-code", True),
        ("http://localhost:8377/anything", True),
        ("http://[::1]:8377/claude-code", True),
        ("http://127.0.0.2:8377/claude-code", True),  # all of 127/8 is loopback
        ("http://127.0.0.1:8378/claude-code", False),
        ("http://10.0.0.5:8377/claude-code", False),  # another machine's server: kept
        ("https://127.0.0.1/claude-code", False),  # port 443
        ("ftp://127.0.0.1:8377/", False),
        ("http://[bad/claude-code", False),
    ],
)
def test_a_hook_posts_to_the_server_itself_on_its_port_over_loopback(
    url: str, itself: bool
) -> None:
    assert posts_to(url, "127.0.0.1", 8377) is itself


def test_a_hook_posting_to_the_address_the_server_listens_on_is_itself() -> None:
    assert posts_to("http://10.0.0.5:8377/h", "10.0.0.5", 8377)
    assert not posts_to("http://10.0.0.6:8377/h", "10.0.0.5", 8377)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
