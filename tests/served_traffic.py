"""Traffic of several teams through ``hookline serve``, in process (Starlette's test client, no
socket): three tokens in two tenants, calls from Claude Code and Gemini CLI, each ruling on
record with its caller (agent, tenant, user, host). For the evidence commands' caller filters
and the server's traces."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

from starlette.testclient import TestClient

from hookline._hosts.claude_code import CLAUDE_CODE_PATH
from hookline._hosts.gemini import GEMINI_PATH
from hookline._project import load_project
from hookline._serve.app import create_app
from hookline._serve.gate import Gate
from hookline._serve.judge import Judge
from hookline._serve.rate import Limits
from hookline._serve.tokens import TokenFile, add, tokens_path
from hookline.audit._redact import Redactor
from hookline.audit._writer import AuditWriter

#: A key the redactor knows by its shape: it must reach no record and no span in clear.
SECRET: Final = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789"
GUARD = f"""
from hookline import Decision

def no_writes(event):
    return Decision.deny("writes go through review, not {SECRET}")

def looks(event):
    return None
"""
SETTINGS = {
    "hooks": {
        "PreToolUse": [
            {"matcher": "Write", "hooks": [{"type": "python", "callable": "guard.py:no_writes"}]},
            {"matcher": "Read", "hooks": [{"type": "python", "callable": "guard.py:looks"}]},
        ]
    }
}
#: Each token: its name (the agent), tenant and user; the host it calls from; its session.
CALLERS: Final = (
    ("ci-bot", "payments", "alice", "claude-code", "aaaa1111-0000-4000-8000-000000000001"),
    ("laptop", "payments", "bob", "gemini", "bbbb2222-0000-4000-8000-000000000002"),
    ("search-bot", "search", "carol", "claude-code", "cccc3333-0000-4000-8000-000000000003"),
)


def policy_folder(root: Path) -> Path:
    folder = root / "policy"
    (folder / ".claude").mkdir(parents=True)
    (folder / ".claude" / "settings.json").write_text(json.dumps(SETTINGS))
    (folder / "guard.py").write_text(GUARD)
    return folder


def claude_call(cwd: Path, session: str, tool: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return {
        "session_id": session,
        "transcript_path": f"/home/u/.claude/projects/p/{session}.jsonl",
        "cwd": str(cwd),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": f"toolu_{tool}_{session[:4]}",
    }


def gemini_call(cwd: Path, session: str, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "session_id": session,
        "transcript_path": f"/home/u/.gemini/tmp/p/chats/session-{session[:4]}.json",
        "cwd": str(cwd),
        "hook_event_name": "BeforeTool",
        "timestamp": "2026-12-07T06:20:00.000Z",
        "tool_name": tool,
        "tool_input": args,
    }


def serve_traffic(folder: Path, **app_options: Any) -> dict[str, str]:
    """Each caller writes a file (its hook denies it, quoting a key) and reads one, through an
    app made with ``app_options``; the session of each agent. The audit is in ``folder``'s
    state."""
    state = folder / ".hookline" / "state"
    state.mkdir(parents=True, exist_ok=True)
    secrets = {
        name: add(tokens_path(state), name, tenant=tenant, user=user)
        for name, tenant, user, _, _ in CALLERS
    }
    gate = Gate(TokenFile(tokens_path(state)), limits=Limits(0, 1))
    judge = Judge(load_project(folder, trust=True))
    with AuditWriter.open(state, redactor=Redactor(())) as audit:
        app = create_app(judge, audit, gate=gate, **app_options)
        with TestClient(app) as client:
            for name, _, _, host, session in CALLERS:
                headers = {"Authorization": f"Bearer {secrets[name]}"}
                for body, path in _calls(folder, host, session):
                    answer = client.post(path, json=body, headers=headers)
                    assert answer.status_code == 200, answer.text
    return {name: session for name, *_, session in CALLERS}


def _calls(folder: Path, host: str, session: str) -> list[tuple[dict[str, Any], str]]:
    target = str(folder / "notes.txt")
    if host == "gemini":
        return [
            (
                gemini_call(folder, session, "write_file", {"file_path": target, "content": "x"}),
                GEMINI_PATH,
            ),
            (gemini_call(folder, session, "read_file", {"file_path": target}), GEMINI_PATH),
        ]
    return [
        (
            claude_call(folder, session, "Write", {"file_path": target, "content": "x"}),
            CLAUDE_CODE_PATH,
        ),
        (claude_call(folder, session, "Read", {"file_path": target}), CLAUDE_CODE_PATH),
    ]
