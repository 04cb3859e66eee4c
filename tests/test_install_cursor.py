"""``hookline install cursor`` and ``uninstall cursor``, run for real: the hooks that land in
Cursor's ``hooks.json`` (``{"version": 1, "hooks": {event: [{"command": ...}]}}``, a flat list
per event), marked ``failClosed``; what of the user's stays, the backup, and one-line errors
that write nothing."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from cli_runner import hookline
from hookline._hosts.cursor_settings import DEFAULT_URL, EVENTS, entry

USERS_OWN: dict[str, Any] = {
    "version": 1,
    "hooks": {"beforeShellExecution": [{"command": "./hooks/audit.sh"}]},
}


def _hooks_file(root: Path) -> Path:
    return root / ".cursor" / "hooks.json"


def _installed_events(
    settings: dict[str, Any], url: str = DEFAULT_URL, token_env: str | None = None
) -> list[str]:
    return [
        event
        for event, handlers in settings["hooks"].items()
        for handler in handlers
        if handler == entry(url, token_env)
    ]


def test_an_install_adds_a_fail_closed_curl_command_per_event_and_again_changes_nothing(
    tmp_path: Path,
) -> None:
    home = Path(os.environ["HOME"])
    done = hookline("install", "cursor", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    written = json.loads(_hooks_file(home).read_text())
    assert written["version"] == 1
    assert _installed_events(written) == list(EVENTS)
    assert entry(DEFAULT_URL)["failClosed"] is True
    again = hookline("install", "cursor", cwd=tmp_path)
    assert (again.returncode, "already" in again.stdout) == (0, True)
    gone = hookline("uninstall", "cursor", cwd=tmp_path)
    assert gone.returncode == 0, gone.stderr
    assert not _hooks_file(home).exists()  # hookline made it; nothing else was in it


def test_the_users_own_hooks_stay_and_uninstall_gives_back_the_same_bytes(tmp_path: Path) -> None:
    path = _hooks_file(Path(os.environ["HOME"]))
    path.parent.mkdir(parents=True)
    original = json.dumps(USERS_OWN, indent=2).encode()
    path.write_bytes(original)
    assert hookline("install", "cursor", "--events", "beforeShellExecution,stop",
                    cwd=tmp_path).returncode == 0  # fmt: skip
    settings = json.loads(path.read_text())
    assert settings["hooks"]["beforeShellExecution"][0] == {"command": "./hooks/audit.sh"}
    assert _installed_events(settings) == ["beforeShellExecution", "stop"]
    assert hookline("uninstall", "cursor", cwd=tmp_path).returncode == 0
    assert path.read_bytes() == original


def test_the_project_scope_writes_the_projects_file(tmp_path: Path) -> None:
    url = "http://127.0.0.1:9/cursor"
    done = hookline("install", "cursor", "--scope", "project", "--url", url, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert _installed_events(json.loads(_hooks_file(tmp_path).read_text()), url) == list(EVENTS)


@pytest.mark.parametrize(
    ("content", "args", "said"),
    [
        ('{"version": 1, "hooks": []}', (), "hooks: should be an object of events"),
        ('{"hooks": {"beforeReadFile": {}}}', (), "hooks.beforeReadFile: should be a list"),
        ("{}", ("--events", "PreToolUse"), "PreToolUse: not an event of Cursor"),
        ("{}", ("--scope", "local"), "cursor has no local scope"),
    ],
)
def test_a_file_or_an_option_hookline_cannot_use_is_one_line_and_nothing_is_written(
    tmp_path: Path, content: str, args: tuple[str, ...], said: str
) -> None:
    path = _hooks_file(Path(os.environ["HOME"]))
    path.parent.mkdir(parents=True)
    path.write_text(content)
    done = hookline("install", "cursor", *args, cwd=tmp_path)
    assert done.returncode == 2
    assert said in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert path.read_text() == content
    assert sorted(p.name for p in path.parent.iterdir()) == ["hooks.json"]


def test_the_entry_docs_serve_shows_is_the_one_installed() -> None:
    page = (Path(__file__).resolve().parent.parent / "docs" / "serve.md").read_text()
    start = page.index("```json\n", page.index("## Cursor")) + len("```json\n")
    shown = json.loads(page[start : page.index("```", start)])
    assert shown == entry(DEFAULT_URL)


def test_a_token_variable_is_sent_by_the_line_and_installing_again_changes_only_that(
    tmp_path: Path,
) -> None:
    path = _hooks_file(Path(os.environ["HOME"]))
    done = hookline("install", "cursor", "--token-env", "HOOKLINE_TOKEN", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert _installed_events(json.loads(path.read_text()), token_env="HOOKLINE_TOKEN") == list(
        EVENTS
    )
    assert '"Authorization: Bearer $HOOKLINE_TOKEN"' in path.read_text().replace('\\"', '"')
    plain = hookline("install", "cursor", cwd=tmp_path)
    assert plain.returncode == 0, plain.stderr
    assert _installed_events(json.loads(path.read_text())) == list(EVENTS)
    assert "HOOKLINE_TOKEN" not in path.read_text()
