"""hookline's own credentials stay its own: Bash and command hooks run without the approver's
token, the providers' keys and every other ``HOOKLINE_*`` variable, unless the user's settings
pass one on by name (``{"hookline": {"env": {"passthrough": [...]}}}``); a project's cannot."""

from __future__ import annotations

import json
from pathlib import Path

from cli_runner import hookline
from hookline._support.credentials import PROVIDER_KEYS, is_own, without_credentials
from hookline.models._providers import PROVIDERS

TOKEN, KEY = "tokPLANTEDapprover41", "sk-ant-PLANTEDprovider42"
PLANTED = {"HOOKLINE_APPROVER_TOKEN": TOKEN, "ANTHROPIC_API_KEY": KEY, "LANG_TEST_VAR": "kept"}
#: The model runs printenv; a PreToolUse command hook writes its whole environment to a file.
PRINTENV = "printenv HOOKLINE_APPROVER_TOKEN ANTHROPIC_API_KEY LANG_TEST_VAR > seen.txt"
HOOK = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
    {"type": "command", "command": 'env > "$CLAUDE_PROJECT_DIR/hook_env.txt"'}]}]}}  # fmt: skip


def run(project: Path, settings: dict[str, object] | None = None) -> tuple[str, str, str]:
    """``hookline run`` in ``project`` with the planted variables; the terminal's output, what
    printenv printed and the hook's environment."""
    call = {"id": "t1", "name": "Bash", "input": {"command": PRINTENV}}
    script = {"turns": [{"tool_calls": [call]}, {"text": "done"}]}
    (project / "script.json").write_text(json.dumps(script))
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / "settings.json").write_text(json.dumps({**HOOK, **(settings or {})}))
    done = hookline("run", "go", "--model", "scripted:script.json", "--audit",
                    "--permission-mode", "bypassPermissions", cwd=project,
                    env=PLANTED)  # fmt: skip
    assert done.returncode == 0, done.stderr
    seen = (project / "seen.txt").read_text()
    return done.stdout + done.stderr, seen, (project / "hook_env.txt").read_text()


def test_printenv_by_the_model_and_a_command_hook_see_no_credential(tmp_path):
    terminal, seen, hook_env = run(tmp_path)
    assert seen == "kept\n"  # printenv found the ordinary variable only
    for secret in (TOKEN, KEY):
        assert secret not in terminal and secret not in hook_env
        assert secret.encode() not in _state_bytes(tmp_path)
    assert "LANG_TEST_VAR=kept" in hook_env and "HOOKLINE=1" in hook_env.splitlines()


def test_the_user_settings_pass_a_credential_on_by_name(tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / ".hookline").mkdir(parents=True)
    passing = {"hookline": {"env": {"passthrough": ["ANTHROPIC_API_KEY"]}}}
    (home / ".hookline" / "settings.json").write_text(json.dumps(passing))
    monkeypatch.setenv("HOME", str(home))
    project = tmp_path / "project"
    project.mkdir()
    _, seen, hook_env = run(project)
    assert seen == f"{KEY}\nkept\n"  # passed on; the approver's token still not
    assert f"ANTHROPIC_API_KEY={KEY}" in hook_env and TOKEN not in hook_env


def test_a_project_cannot_pass_the_keys_on_to_its_own_hooks(tmp_path):
    names = ["ANTHROPIC_API_KEY", "HOOKLINE_APPROVER_TOKEN"]
    passing = {"hookline": {"env": {"passthrough": names}}}
    terminal, seen, hook_env = run(tmp_path, passing)
    assert seen == "kept\n" and KEY not in hook_env and TOKEN not in hook_env
    assert "hookline.env.passthrough" in terminal and "ignored in project settings" in terminal


def test_every_provider_key_hookline_reads_is_its_own():
    assert {provider.key_var for provider in PROVIDERS} <= PROVIDER_KEYS
    assert is_own("HOOKLINE_STATE_KEY_FILE") and not is_own("HOOKLINE")
    kept = without_credentials({"HOOKLINE_X": "1", "OPENAI_API_KEY": "2", "PATH": "/bin"})
    assert kept == {"PATH": "/bin"}


def _state_bytes(project: Path) -> bytes:
    state = project / ".hookline" / "state"
    return b"".join(p.read_bytes() for p in state.rglob("*") if p.is_file())
