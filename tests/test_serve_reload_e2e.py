"""``hookline serve`` in a real process: SIGHUP reloads its policy, a changed settings file is
picked up while it serves, and each served record names the policy that decided it."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import httpx

from cli_runner import HOOKLINE, src_env
from hookline._serve.reload import KIND
from hookline.audit._writer import JSONL_NAME
from test_policy_digest import make_folder, write
from test_serve_policy import curl, with_curl_denied

#: How long the server has to pick a change up (it looks every second).
DEADLINE = 60.0


def permission(where: str, cwd: Path) -> str:
    answer = httpx.post(where, json=curl(cwd), timeout=30)
    return str(answer.json()["hookSpecificOutput"]["permissionDecision"])


def test_sighup_and_a_changed_file_reload_the_policy_of_a_running_server(tmp_path: Path) -> None:
    folder, state = make_folder(tmp_path), tmp_path / "state"
    env = src_env({"HOME": str(tmp_path / "home")})
    env["HOOKLINE_MANAGED_SETTINGS_DIR"] = str(tmp_path / "managed")
    args = [*HOOKLINE, "serve", "--cwd", str(folder), "--port", "0", "--state-dir", str(state)]
    process = subprocess.Popen(
        args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    try:
        assert process.stdout is not None and process.stderr is not None
        where = process.stdout.readline().split(" on ", 1)[1].strip()  # it listens
        base = where.rsplit("/", 1)[0]
        first = httpx.get(base + "/policy", timeout=30).json()["policy"]
        assert process.stderr.readline().startswith(f"hookline serve: policy {first[:12]} (GET ")
        process.send_signal(signal.SIGHUP)
        said = process.stderr.readline()  # blocks until it has reloaded (the test's timeout)
        assert said == f"hookline serve: policy {first[:12]} unchanged (SIGHUP)\n"
        assert permission(where, tmp_path) == "ask"
        write(folder / ".claude" / "settings.json", with_curl_denied())
        deadline = time.monotonic() + DEADLINE
        while permission(where, tmp_path) != "deny":  # the server looks every second
            assert time.monotonic() < deadline, "the changed settings were not picked up"
            time.sleep(0.2)
        second = httpx.get(base + "/policy", timeout=30).json()["policy"]
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert second != first
    assert f"hookline serve: policy {second[:12]} replaces {first[:12]} (changed: " in err
    records = [json.loads(line) for line in (state / JSONL_NAME).read_text().splitlines()]
    reloads = [(r["decision"], r["data"]["why"][:7]) for r in records if r["kind"] == KIND]
    assert reloads == [("unchanged", "SIGHUP"), ("reloaded", "changed")]
    served = [(r["permission"], r["data"]["policy"]) for r in records if r["kind"] == "served"]
    assert served[0] == ("ask", first) and served[-1] == ("deny", second)
    assert {policy for _, policy in served} == {first, second}
