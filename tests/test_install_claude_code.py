"""``hookline install claude-code`` and ``uninstall``, run for real: what lands in Claude Code's
settings, what of the user's stays, the backup, and one-line errors that write nothing."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from cli_runner import hookline
from hookline._hosts.claude_code import DEFAULT_URL, EVENTS

USERS_OWN: dict[str, Any] = {
    "permissions": {"deny": ["Bash(curl *)"]},
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}]
    },
    "model": "opus",
}


def _settings(home: Path) -> Path:
    return home / ".claude" / "settings.json"


def _installed_events(settings: dict[str, Any], url: str = DEFAULT_URL) -> list[str]:
    return [
        event
        for event, groups in settings["hooks"].items()
        for group in groups
        for handler in group["hooks"]
        if handler == {"type": "http", "url": url, "timeout": 30, "onFailure": "block"}
    ]


def test_an_install_points_every_event_at_the_server_failing_closed_and_again_changes_nothing(
    tmp_path: Path,
) -> None:
    home = Path(os.environ["HOME"])
    done = hookline("install", "claude-code", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    written = _settings(home).read_bytes()
    settings = json.loads(written)
    assert _installed_events(settings) == list(EVENTS)
    assert all("matcher" not in g for groups in settings["hooks"].values() for g in groups)
    again = hookline("install", "claude-code", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "already" in again.stdout
    assert _settings(home).read_bytes() == written
    gone = hookline("uninstall", "claude-code", cwd=tmp_path)
    assert gone.returncode == 0, gone.stderr
    assert not _settings(home).exists()  # hookline made it; nothing else was in it


def test_the_users_own_settings_stay_a_backup_is_kept_and_uninstall_gives_back_the_same_bytes(
    tmp_path: Path,
) -> None:
    home = Path(os.environ["HOME"])
    path = _settings(home)
    path.parent.mkdir(parents=True)
    original = json.dumps(USERS_OWN, indent=4).encode()  # not the indent hookline writes
    path.write_bytes(original)
    path.chmod(0o600)
    done = hookline("install", "claude-code", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    settings = json.loads(path.read_text())
    assert settings["permissions"] == USERS_OWN["permissions"]
    assert settings["model"] == "opus"
    assert settings["hooks"]["PreToolUse"][0] == USERS_OWN["hooks"]["PreToolUse"][0]
    assert sorted(_installed_events(settings)) == sorted(EVENTS)
    backup = path.with_name("settings.json.hookline-backup")
    assert backup.read_bytes() == original
    assert path.stat().st_mode & 0o777 == 0o600
    gone = hookline("uninstall", "claude-code", cwd=tmp_path)
    assert gone.returncode == 0, gone.stderr
    assert path.read_bytes() == original
    assert not backup.exists()


def test_uninstall_after_other_edits_takes_out_only_hooklines_entries_and_keeps_the_backup(
    tmp_path: Path,
) -> None:
    home = Path(os.environ["HOME"])
    path = _settings(home)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(USERS_OWN))
    assert hookline("install", "claude-code", cwd=tmp_path).returncode == 0
    edited = json.loads(path.read_text())
    edited["env"] = {"FOO": "1"}  # the user changes something else meanwhile
    path.write_text(json.dumps(edited))
    gone = hookline("uninstall", "claude-code", cwd=tmp_path)
    assert gone.returncode == 0, gone.stderr
    assert json.loads(path.read_text()) == {**USERS_OWN, "env": {"FOO": "1"}}
    assert path.with_name("settings.json.hookline-backup").exists()
    assert "kept at" in gone.stdout


@pytest.mark.parametrize(
    ("allowed", "after"),
    [
        (["https://hooks.example.com/*"], ["https://hooks.example.com/*", DEFAULT_URL]),
        (["http://127.0.0.1:*"], ["http://127.0.0.1:*"]),  # a pattern lets it through already
        ([], [DEFAULT_URL]),  # an empty list blocks every HTTP hook
        (None, None),  # no list: every URL may be posted to; making one would block the others
    ],
)
def test_the_allowed_hook_urls_let_the_server_through_where_the_file_has_that_list(
    tmp_path: Path, allowed: list[str] | None, after: list[str] | None
) -> None:
    home = Path(os.environ["HOME"])
    path = _settings(home)
    path.parent.mkdir(parents=True)
    given = {} if allowed is None else {"allowedHttpHookUrls": allowed}
    path.write_text(json.dumps(given))
    assert hookline("install", "claude-code", cwd=tmp_path).returncode == 0
    assert json.loads(path.read_text()).get("allowedHttpHookUrls") == after
    assert hookline("uninstall", "claude-code", cwd=tmp_path).returncode == 0
    assert json.loads(path.read_text()) == given


@pytest.mark.parametrize(
    ("scope", "where"),
    [("project", ".claude/settings.json"), ("local", ".claude/settings.local.json")],
)
def test_a_project_scope_writes_the_projects_file_and_hookline_reads_it_as_a_failing_closed_gate(
    tmp_path: Path, scope: str, where: str
) -> None:
    done = hookline("install", "claude-code", "--scope", scope, "--url", "http://127.0.0.1:9/h",
                    "--events", "PreToolUse", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert _installed_events(
        json.loads((tmp_path / where).read_text()), "http://127.0.0.1:9/h"
    ) == ["PreToolUse"]
    listed = hookline("hooks", "list", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    (row,) = [line for line in listed.stdout.splitlines() if "127.0.0.1:9/h" in line]
    assert row.split()[:5] == ["PreToolUse", "*", "gate", "http", "closed"]


def test_a_settings_file_that_is_a_link_stays_a_link(tmp_path: Path) -> None:
    home = Path(os.environ["HOME"])
    dotfiles = tmp_path / "dotfiles" / "claude.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text("{}")
    _settings(home).parent.mkdir(parents=True)
    _settings(home).symlink_to(dotfiles)
    assert hookline("install", "claude-code", cwd=tmp_path).returncode == 0
    assert _settings(home).is_symlink()
    assert _installed_events(json.loads(dotfiles.read_text())) == list(EVENTS)


@pytest.mark.parametrize(
    ("content", "args", "said"),
    [
        ('{"hooks": {', (), "not valid JSON (line 1"),
        ("[1, 2]", (), "is not a JSON object"),
        ('{"hooks": []}', (), "hooks: should be an object of events"),
        ('{"hooks": {"Stop": {}}}', (), "hooks.Stop: should be a list of matcher groups"),
        ("{}", ("--events", "PreToolUse,SessionStart"), "SessionStart: not an event Claude Code"),
        ('{"allowedHttpHookUrls": "x"}', (), "allowedHttpHookUrls: should be a list"),
    ],
)
def test_a_file_or_an_option_hookline_cannot_use_is_one_line_and_nothing_is_written(
    tmp_path: Path, content: str, args: tuple[str, ...], said: str
) -> None:
    home = Path(os.environ["HOME"])
    path = _settings(home)
    path.parent.mkdir(parents=True)
    path.write_text(content)
    done = hookline("install", "claude-code", *args, cwd=tmp_path)
    assert done.returncode == 2
    assert said in done.stderr
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert path.read_text() == content
    assert sorted(p.name for p in path.parent.iterdir()) == ["settings.json"]


def test_a_token_env_sends_the_variable_as_bearer_and_never_a_token(tmp_path: Path) -> None:
    """``--token-env VAR``: each entry sends ``Authorization: Bearer ${VAR}`` and lists VAR
    in ``allowedEnvVars`` (and in ``httpHookAllowedEnvVars``, which the file has); installing
    again without it takes the header out and leaves the rest."""
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"httpHookAllowedEnvVars": ["OTHER"]}))
    done = hookline("install", "claude-code", "--file", str(path), "--token-env", "HOOKLINE_TOKEN")
    assert done.returncode == 0, done.stderr
    settings = json.loads(path.read_text())
    assert settings["httpHookAllowedEnvVars"] == ["OTHER", "HOOKLINE_TOKEN"]
    handlers = [h for groups in settings["hooks"].values() for g in groups for h in g["hooks"]]
    assert len(handlers) == len(EVENTS)
    for handler in handlers:
        assert handler["headers"] == {"Authorization": "Bearer ${HOOKLINE_TOKEN}"}
        assert handler["allowedEnvVars"] == ["HOOKLINE_TOKEN"]
        assert handler["onFailure"] == "block"
    assert "hl_" not in path.read_text()
    plain = hookline("install", "claude-code", "--file", str(path))
    assert plain.returncode == 0, plain.stderr
    assert _installed_events(json.loads(path.read_text())) == list(EVENTS)


def test_a_token_env_that_cannot_name_a_variable_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    done = hookline("install", "claude-code", "--file", str(path), "--token-env", "$(id)")
    assert done.returncode == 2
    assert "is not the name of an environment variable" in done.stderr
    assert not path.exists()
