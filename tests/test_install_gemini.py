"""``hookline install gemini`` and ``uninstall gemini``, run for real: the command hooks that land
in Gemini CLI's settings (its ``hooks`` object, as ``packages/cli/src/config/settingsSchema.ts``
and ``HookDefinition`` / ``CommandHookConfig`` in ``packages/core/src/hooks/types.ts`` define
it: matcher groups of ``{"type": "command", "command", "name", "timeout"}``), what of the user's
stays, the backup, and one-line errors that write nothing."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from cli_runner import hookline
from hookline._hosts.gemini_settings import (
    DEFAULT_URL,
    EVENTS,
    NAME,
    TIMEOUT_MS,
    command,
    entry,
)

USERS_OWN: dict[str, Any] = {
    "general": {"vimMode": True},
    "hooks": {
        "BeforeTool": [
            {"matcher": "write_file", "hooks": [{"type": "command", "command": "./guard.sh"}]}
        ]
    },
}


def _settings(root: Path) -> Path:
    return root / ".gemini" / "settings.json"


def _installed_events(settings: dict[str, Any], url: str = DEFAULT_URL) -> list[str]:
    ours = {"type": "command", "name": NAME, "command": command(url), "timeout": TIMEOUT_MS}
    return [
        event
        for event, groups in settings["hooks"].items()
        for group in groups
        for handler in group["hooks"]
        if handler == ours and group["matcher"] == "*"
    ]


def test_an_install_adds_a_curl_command_per_event_and_again_changes_nothing(
    tmp_path: Path,
) -> None:
    home = Path(os.environ["HOME"])
    done = hookline("install", "gemini", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    written = _settings(home).read_bytes()
    assert _installed_events(json.loads(written)) == list(EVENTS)
    again = hookline("install", "gemini", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "already" in again.stdout
    assert _settings(home).read_bytes() == written
    gone = hookline("uninstall", "gemini", cwd=tmp_path)
    assert gone.returncode == 0, gone.stderr
    assert not _settings(home).exists()  # hookline made it; nothing else was in it


def test_the_users_own_settings_stay_a_backup_is_kept_and_uninstall_gives_back_the_same_bytes(
    tmp_path: Path,
) -> None:
    path = _settings(Path(os.environ["HOME"]))
    path.parent.mkdir(parents=True)
    original = json.dumps(USERS_OWN, indent=4).encode()
    path.write_bytes(original)
    assert hookline("install", "gemini", cwd=tmp_path).returncode == 0
    settings = json.loads(path.read_text())
    assert settings["general"] == {"vimMode": True}
    assert settings["hooks"]["BeforeTool"][0] == USERS_OWN["hooks"]["BeforeTool"][0]
    assert _installed_events(settings) == list(EVENTS)
    backup = path.with_name("settings.json.hookline-backup")
    assert backup.read_bytes() == original
    gone = hookline("uninstall", "gemini", cwd=tmp_path)
    assert gone.returncode == 0, gone.stderr
    assert path.read_bytes() == original
    assert not backup.exists()


def test_uninstall_takes_out_an_older_line_posting_to_the_same_url_and_nothing_else(
    tmp_path: Path,
) -> None:
    path = _settings(Path(os.environ["HOME"]))
    path.parent.mkdir(parents=True)
    older = {"type": "command", "name": NAME, "command": f"curl -s {DEFAULT_URL} || exit 2"}
    given = {"hooks": {"BeforeTool": [{"hooks": [older, {"type": "command", "command": "x"}]}]}}
    path.write_text(json.dumps(given))
    gone = hookline("uninstall", "gemini", cwd=tmp_path)
    assert gone.returncode == 0, gone.stderr
    assert json.loads(path.read_text()) == {
        "hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": "x"}]}]}
    }


def test_a_project_scope_writes_the_projects_file(tmp_path: Path) -> None:
    url = "http://127.0.0.1:9/gemini"
    done = hookline("install", "gemini", "--scope", "project", "--url", url,
                    "--events", "BeforeTool", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert _installed_events(json.loads(_settings(tmp_path).read_text()), url) == ["BeforeTool"]


def test_hooks_turned_off_in_the_file_are_said_at_install(tmp_path: Path) -> None:
    path = _settings(Path(os.environ["HOME"]))
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"hooksConfig": {"enabled": False}}))
    done = hookline("install", "gemini", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "hooksConfig.enabled is false" in done.stderr


def test_without_curl_on_path_the_install_says_every_call_will_be_blocked(
    tmp_path: Path,
) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    done = hookline("install", "gemini", cwd=tmp_path, env={"PATH": str(empty)})
    assert done.returncode == 0, done.stderr
    assert "curl is not on PATH" in done.stderr


@pytest.mark.parametrize(
    ("content", "args", "said"),
    [
        ('{"hooks": []}', (), "hooks: should be an object of events"),
        ('{"hooks": {"AfterTool": {}}}', (), "hooks.AfterTool: should be a list"),
        ("{}", ("--events", "BeforeTool,PreToolUse"), "PreToolUse: not an event of Gemini"),
        ("{}", ("--scope", "local"), "gemini has no local scope"),
    ],
)
def test_a_file_or_an_option_hookline_cannot_use_is_one_line_and_nothing_is_written(
    tmp_path: Path, content: str, args: tuple[str, ...], said: str
) -> None:
    path = _settings(Path(os.environ["HOME"]))
    path.parent.mkdir(parents=True)
    path.write_text(content)
    done = hookline("install", "gemini", *args, cwd=tmp_path)
    assert done.returncode == 2
    assert said in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert path.read_text() == content
    assert sorted(p.name for p in path.parent.iterdir()) == ["settings.json"]


def test_the_entry_docs_serve_shows_is_the_one_installed() -> None:
    page = (Path(__file__).resolve().parent.parent / "docs" / "serve.md").read_text()
    start = page.index("```json\n", page.index("## Gemini CLI")) + len("```json\n")
    shown = json.loads(page[start : page.index("```", start)])
    assert shown == entry(DEFAULT_URL)


def test_a_token_env_puts_the_variable_in_the_line_and_warns_of_geminis_redaction(
    tmp_path: Path,
) -> None:
    path = tmp_path / "settings.json"
    done = hookline("install", "gemini", "--file", str(path), "--token-env", "HOOKLINE_TOKEN")
    assert done.returncode == 0, done.stderr
    assert "GEMINI_CLI_" in done.stderr  # HOOKLINE_TOKEN may be taken out of hooks' environment
    lines = {
        h["command"]
        for groups in json.loads(path.read_text())["hooks"].values()
        for g in groups
        for h in g["hooks"]
    }
    assert lines == {command(DEFAULT_URL, "HOOKLINE_TOKEN")}
    assert '-H "Authorization: Bearer $HOOKLINE_TOKEN"' in command(DEFAULT_URL, "HOOKLINE_TOKEN")
    kept = hookline("install", "gemini", "--file", str(path), "--token-env", "GEMINI_CLI_HL")
    assert kept.returncode == 0, kept.stderr
    assert "GEMINI_CLI_" not in kept.stderr
    gone = hookline("uninstall", "gemini", "--file", str(path))
    assert gone.returncode == 0, gone.stderr
    assert "took 3 hook(s) out" in gone.stdout
