"""``hookline install HOST --scope managed`` for Gemini CLI, Codex and Cursor, run for real: the
machine's own hook files (``hookline._hosts.managed``), under ``$HOOKLINE_MANAGED_ROOT`` (the
suite's stand-in for ``/``), what each host's path is on each system, and ``hookline doctor``
reading them."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from cli_runner import hookline
from hookline._hosts import codex_settings, cursor_settings, gemini_settings
from hookline._hosts.managed import managed_path
from test_doctor_hosts import doctor

#: Each host's managed file on Linux, from the machine's root, and the events it installs.
LINUX = {
    "codex": ("etc/codex/hooks.json", codex_settings.EVENTS),
    "gemini": ("etc/gemini-cli/settings.json", gemini_settings.EVENTS),
    "cursor": ("etc/cursor/hooks.json", cursor_settings.EVENTS),
}


def machine() -> Path:
    return Path(os.environ["HOOKLINE_MANAGED_ROOT"])


def hook_events(path: Path) -> set[str]:
    """The events ``path`` has hooks for."""
    return set(json.loads(path.read_text())["hooks"])


@pytest.mark.parametrize("host", sorted(LINUX))
def test_the_machines_file_gets_the_hooks_and_uninstall_takes_them_out(
    host: str, tmp_path: Path
) -> None:
    where, events = LINUX[host]
    path = machine() / where
    done = hookline("install", host, "--scope", "managed", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert str(path) in " ".join(done.stdout.split())
    assert hook_events(path) == set(events)
    assert not (Path(os.environ["HOME"]) / f".{host}").exists()  # the user's files untouched
    again = hookline("install", host, "--scope", "managed", cwd=tmp_path)
    assert (again.returncode, "already" in again.stdout) == (0, True)
    gone = hookline("uninstall", host, "--scope", "managed", cwd=tmp_path)
    assert gone.returncode == 0, gone.stderr
    assert not path.exists()  # hookline made it; nothing else was in it


def test_codex_asks_no_review_of_the_machines_hooks_and_does_of_the_users(tmp_path: Path) -> None:
    managed = hookline("install", "codex", "--scope", "managed", cwd=tmp_path)
    user = hookline("install", "codex", cwd=tmp_path)
    assert managed.returncode == user.returncode == 0
    note = " ".join(codex_settings.TRUST_NOTE.split())
    assert note not in " ".join(managed.stderr.split())
    assert note in " ".join(user.stderr.split())


def test_gemini_writes_the_system_settings_file_its_variable_names(tmp_path: Path) -> None:
    named = tmp_path / "fleet" / "gemini-system.json"
    named.parent.mkdir()
    named.write_text('{"ui": {"theme": "Default"}}')
    env = {"GEMINI_CLI_SYSTEM_SETTINGS_PATH": str(named)}
    done = hookline("install", "gemini", "--scope", "managed", cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    settings = json.loads(named.read_text())
    assert settings["ui"] == {"theme": "Default"}
    assert set(settings["hooks"]) == set(gemini_settings.EVENTS)
    assert not (machine() / "etc" / "gemini-cli").exists()


@pytest.mark.parametrize(
    ("platform", "env", "expected"),
    [
        (
            "linux",
            {},
            {
                "codex": "/etc/codex/hooks.json",
                "gemini": "/etc/gemini-cli/settings.json",
                "cursor": "/etc/cursor/hooks.json",
            },
        ),
        (
            "darwin",
            {},
            {
                "codex": "/etc/codex/hooks.json",
                "gemini": "/Library/Application Support/GeminiCli/settings.json",
                "cursor": "/Library/Application Support/Cursor/hooks.json",
            },
        ),
        (
            "win32",
            {"PROGRAMDATA": "D:\\Data"},
            {
                "codex": "/Data/OpenAI/Codex/hooks.json",
                "gemini": "/Data/gemini-cli/settings.json",
                "cursor": "/Data/Cursor/hooks.json",
            },
        ),
    ],
)
def test_each_host_has_its_machine_file_on_each_system(
    platform: str, env: dict[str, str], expected: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under the stand-in root, a path's own root (``/``, or the drive) is the stand-in."""
    monkeypatch.setattr("sys.platform", platform)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    for host, path in expected.items():
        assert managed_path(host) == machine() / path.lstrip("/")


def test_without_a_stand_in_root_the_paths_are_the_machines_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("sys.platform", "linux")
    monkeypatch.delenv("HOOKLINE_MANAGED_ROOT")
    assert managed_path("codex") == Path("/etc/codex/hooks.json")
    assert managed_path("gemini") == Path("/etc/gemini-cli/settings.json")


def test_doctor_reports_hooks_installed_for_the_machine(tmp_path: Path) -> None:
    url = "http://127.0.0.1:9/cursor"  # the discard port: nothing answers there
    project = tmp_path / "project"
    project.mkdir()
    done = hookline("install", "cursor", "--scope", "managed", "--url", url, cwd=project)
    assert done.returncode == 0, done.stderr
    code, report = doctor(project, "--host", "cursor", "--url", url)
    scopes = {scope["scope"]: scope for scope in report["installed"]}
    assert scopes["managed"]["events"] and scopes["managed"]["gating"] is True
    assert not scopes["user"]["events"]
    assert code == 1 and any("does not answer" in p for p in report["problems"])
