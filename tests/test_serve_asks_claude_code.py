"""The real Claude Code CLI, offline, whose own permission prompt waits in hookline's inbox.

``claude -p`` runs in a temporary project and HOME against a scripted model on 127.0.0.1 whose
one call is the Bash line ``touch x.txt``, which Claude Code's own rules ask about: in ``-p``
it sends its PermissionRequest hook (there is nobody at its dialog). The project's settings
send that hook, and only that one, to a ``hookline serve --asks inbox --inbox`` on 127.0.0.1
(``hookline install claude-code --events PermissionRequest``): Claude Code's rules decide what
is asked, a person in the inbox answers. The file ``x.txt`` is the sentinel: it exists only
when the call ran.

Needs Claude Code's CLI (``$CLAUDE_CLI``, ``claude`` on PATH, or the one the
``claude-agent-sdk`` wheel bundles); without one the tests skip, saying so (CI requires it).
"""

from __future__ import annotations

import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from asks_server import answer_ask, asked, policy, pool, records, serving, users
from cli_runner import hookline
from hookline._cli.serve_asks import INBOX_PATH
from hookline._serve import canary
from hookline._serve.app import CLAUDE_CODE_PATH
from hookline.models._scripted import Script, ScriptTurn
from hookline.models._serve import ScriptServer
from hookline.storage import open_store
from host_cli import needs
from inbox_server import People

__all__ = ["policy", "pool", "users"]  # the fixtures, for the tests that ask for them

CLI = canary.find_cli()
needs_cli = needs(
    CLI,
    "CLAUDE",
    "set CLAUDE_CLI, or pip install claude-agent-sdk (its wheel bundles it; CI installs it)",
)
CALL = {"id": "toolu_touch", "name": "Bash", "input": {"command": "touch x.txt",
                                                        "description": "Make x.txt"}}  # fmt: skip
QUIET = {
    "ANTHROPIC_API_KEY": "sk-hookline-test",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
}


def _claude(project: Path, home: Path, model: str) -> subprocess.CompletedProcess[str]:
    """``claude -p`` in ``project`` with ``home``, its model at ``model``, offline."""
    assert CLI is not None
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), **QUIET,
           "ANTHROPIC_BASE_URL": model}  # fmt: skip
    argv = [CLI, "-p", "Make the file.", "--output-format", "stream-json", "--verbose"]
    return subprocess.run(argv, cwd=project, env=env, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=180, check=False)  # fmt: skip


def _told(requests: list[Any]) -> str:
    """What Claude Code told the model of the call (its tool result), as text."""
    for request in requests:
        for message in request.get("messages", []):
            content = message.get("content")
            for block in content if isinstance(content, list) else ():
                if block.get("type") == "tool_result" and block.get("tool_use_id") == CALL["id"]:
                    said = block.get("content")
                    if isinstance(said, list):
                        said = "".join(part.get("text", "") for part in said)
                    return str(said)
    raise AssertionError(f"the model was never told of the call: {requests}")


def _waits_then(
    tmp_path: Path, policy: Path, users: Path, pool: ThreadPoolExecutor, action: str, **form: str
) -> tuple[Path, str, dict[str, Any]]:
    """Claude Code's ``touch x.txt`` waits in the inbox until ann answers it with ``action``:
    the project, what the model was told, and the server's record of the PermissionRequest."""
    project, home, state = tmp_path / "project", tmp_path / "home", tmp_path / "state"
    project.mkdir()
    home.mkdir()
    script = Script(turns=[ScriptTurn(tool_calls=[CALL])], final_text="done")
    with serving(policy, state, users) as where, ScriptServer(script, keep=True) as model:
        url = where + CLAUDE_CODE_PATH
        done = hookline("install", "claude-code", "--scope", "project", "--cwd", str(project),
                        "--url", url, "--events", "PermissionRequest")  # fmt: skip
        assert done.returncode == 0, done.stderr
        running = pool.submit(_claude, project, home, model.url)
        store = open_store(None, state_dir=state)
        [ask] = asked(store)
        assert (ask.ask["tool"], ask.ask["input"]["command"]) == ("Bash", "touch x.txt")
        assert ask.ask["origin"] == "host_permission"
        assert not (project / "x.txt").exists()  # it waits: nothing ran yet
        people = People(where + INBOX_PATH)
        ann = people.sign_in("ann")
        assert "Claude Code&#x27;s permission rules" in ann.get("/").text
        answered = answer_ask(ann, ask.id, action, **form)
        assert answered.status_code == 200, answered.text
        ran = running.result()
        assert ran.returncode == 0, ran.stderr
        people.close()
        store.close()
        told = _told(model.requests or [])
    [served] = [r for r in records(state, "served") if r["event"] == "PermissionRequest"]
    assert served["data"]["live_ask"]["id"] == ask.id
    return project, told, served


@needs_cli
def test_claude_codes_own_prompt_approved_in_the_inbox_runs_the_call(
    tmp_path: Path, policy: Path, users: Path, pool: ThreadPoolExecutor
) -> None:
    project, _, served = _waits_then(tmp_path, policy, users, pool, "approve")
    assert (project / "x.txt").exists()
    assert (served["permission"], served["data"]["live_ask"]["by"]) == ("allow", "ann")


@needs_cli
def test_claude_codes_own_prompt_denied_in_the_inbox_does_not_run_and_the_model_is_told_why(
    tmp_path: Path, policy: Path, users: Path, pool: ThreadPoolExecutor
) -> None:
    message = "not in this repository, please"
    project, told, served = _waits_then(tmp_path, policy, users, pool, "deny", message=message)
    assert not (project / "x.txt").exists()
    assert message in told
    assert (served["permission"], served["data"]["live_ask"]["message"]) == ("deny", message)
