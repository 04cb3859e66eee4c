"""``hookline install codex`` and ``uninstall codex``, run for real: the command hooks that land
in Codex's ``hooks.json`` (its ``HooksFile``: ``{"hooks": {Event: [{"matcher"?, "hooks":
[{"type": "command", "command", "timeout"}]}]}}``, the timeout in seconds), what of the user's
stays, the backup, what keeps Codex from running them, and one-line errors that write nothing."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cli_runner import hookline
from hookline._hosts.codex_settings import (
    DEFAULT_URL,
    EVENTS,
    TIMEOUT_SECONDS,
    TRUST_NOTE,
    command,
    entry,
)

USERS_OWN: dict[str, Any] = {
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}]
    }
}


@pytest.fixture(autouse=True)
def no_codex_home(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The user's hooks.json is ~/.codex's unless CODEX_HOME says otherwise."""
    monkeypatch.delenv("CODEX_HOME", raising=False)
    yield


def _hooks_file(root: Path) -> Path:
    return root / ".codex" / "hooks.json"


def _installed_events(settings: dict[str, Any], url: str = DEFAULT_URL) -> list[str]:
    ours = {"type": "command", "command": command(url), "timeout": TIMEOUT_SECONDS}
    return [
        event
        for event, groups in settings["hooks"].items()
        for group in groups
        for handler in group["hooks"]
        if handler == ours and "matcher" not in group
    ]


def test_an_install_adds_a_curl_command_per_event_says_to_trust_them_and_again_changes_nothing(
    tmp_path: Path,
) -> None:
    home = Path(os.environ["HOME"])
    done = hookline("install", "codex", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert TRUST_NOTE in " ".join(done.stderr.split())
    written = _hooks_file(home).read_bytes()
    assert _installed_events(json.loads(written)) == list(EVENTS)
    again = hookline("install", "codex", cwd=tmp_path)
    assert (again.returncode, "already" in again.stdout) == (0, True)
    assert _hooks_file(home).read_bytes() == written
    gone = hookline("uninstall", "codex", cwd=tmp_path)
    assert gone.returncode == 0, gone.stderr
    assert not _hooks_file(home).exists()  # hookline made it; nothing else was in it


def test_the_users_own_hooks_stay_and_uninstall_gives_back_the_same_bytes(tmp_path: Path) -> None:
    path = _hooks_file(Path(os.environ["HOME"]))
    path.parent.mkdir(parents=True)
    original = json.dumps(USERS_OWN, indent=2).encode()
    path.write_bytes(original)
    assert hookline("install", "codex", cwd=tmp_path).returncode == 0
    settings = json.loads(path.read_text())
    assert settings["hooks"]["PreToolUse"][0] == USERS_OWN["hooks"]["PreToolUse"][0]
    assert _installed_events(settings) == list(EVENTS)
    assert path.with_name("hooks.json.hookline-backup").read_bytes() == original
    assert hookline("uninstall", "codex", cwd=tmp_path).returncode == 0
    assert path.read_bytes() == original


def test_codex_home_and_the_project_scope_choose_the_file(tmp_path: Path) -> None:
    elsewhere = tmp_path / "codex-home"
    done = hookline("install", "codex", cwd=tmp_path, env={"CODEX_HOME": str(elsewhere)})
    assert done.returncode == 0, done.stderr
    assert _installed_events(json.loads((elsewhere / "hooks.json").read_text())) == list(EVENTS)
    url = "http://127.0.0.1:9/codex"
    project = hookline("install", "codex", "--scope", "project", "--url", url,
                       "--events", "PreToolUse,Stop", cwd=tmp_path)  # fmt: skip
    assert project.returncode == 0, project.stderr
    assert _installed_events(json.loads(_hooks_file(tmp_path).read_text()), url) == [
        "PreToolUse",
        "Stop",
    ]


@pytest.mark.parametrize("key", ["hooks", "codex_hooks"])
def test_hooks_turned_off_in_config_toml_are_said_at_install(tmp_path: Path, key: str) -> None:
    folder = Path(os.environ["HOME"]) / ".codex"
    folder.mkdir()
    (folder / "config.toml").write_text(f'model = "gpt-5-codex"\n\n[features]\n{key} = false\n')
    done = hookline("install", "codex", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"features.{key} is false" in done.stderr


@pytest.mark.parametrize(
    ("content", "args", "said"),
    [
        ('{"hooks": []}', (), "hooks: should be an object of events"),
        ("{}", ("--events", "PreToolUse,BeforeTool"), "BeforeTool: not an event of Codex"),
        ("{}", ("--scope", "local"), "codex has no local scope"),
    ],
)
def test_a_file_or_an_option_hookline_cannot_use_is_one_line_and_nothing_is_written(
    tmp_path: Path, content: str, args: tuple[str, ...], said: str
) -> None:
    path = _hooks_file(Path(os.environ["HOME"]))
    path.parent.mkdir(parents=True)
    path.write_text(content)
    done = hookline("install", "codex", *args, cwd=tmp_path)
    assert done.returncode == 2
    assert said in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert path.read_text() == content
    assert sorted(p.name for p in path.parent.iterdir()) == ["hooks.json"]


def test_the_entry_docs_serve_shows_is_the_one_installed() -> None:
    page = (Path(__file__).resolve().parent.parent / "docs" / "serve.md").read_text()
    start = page.index("```json\n", page.index("## Codex")) + len("```json\n")
    shown = json.loads(page[start : page.index("```", start)])
    assert shown == entry(DEFAULT_URL)
