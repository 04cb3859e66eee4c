"""The active policy as a fact: one digest of every input that decides, and the policy in
words (``hookline._policy``)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from hookline._policy.digest import HOOK_CODE, SHORT, PolicyDigest, policy_digest, watched
from hookline._policy.view import described
from hookline._policy.words import in_words
from hookline._project import load_project

GUARD = '''
from hookline import Decision

def no_writes(event):
    """Writes go through review."""
    return Decision.deny("no writes here")
'''

SETTINGS: dict[str, Any] = {
    "permissions": {"deny": ["Bash(rm *)"], "allow": ["Bash(git status)"]},
    "hooks": {
        "PreToolUse": [
            {"matcher": "Write", "hooks": [{"type": "python", "callable": "guard.py:no_writes"}]}
        ]
    },
}


def write(path: Path, text: str) -> None:
    """Write ``text`` with a modification time later than the file had (a rewrite within the
    clock's tick would otherwise look unchanged)."""
    before = path.stat().st_mtime_ns if path.exists() else 0
    path.write_text(text)
    later = max(path.stat().st_mtime_ns, before + 1_000_000_000)
    os.utime(path, ns=(later, later))


def make_folder(root: Path, settings: dict[str, Any] = SETTINGS) -> Path:
    folder = root / "policy"
    (folder / ".claude").mkdir(parents=True)
    write(folder / ".claude" / "settings.json", json.dumps(settings))
    write(folder / "guard.py", GUARD)
    return folder


def digest_of(folder: Path) -> PolicyDigest:
    return policy_digest(load_project(folder, trust=True))


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # no user settings of the machine's
    monkeypatch.setenv("HOOKLINE_MANAGED_SETTINGS_DIR", str(tmp_path / "managed"))
    return make_folder(tmp_path)


def test_the_same_inputs_give_the_same_digest(folder: Path) -> None:
    first, second = digest_of(folder), digest_of(folder)
    assert first == second
    assert len(first.sha256) == 64
    assert first.short == first.sha256[:SHORT]


def test_a_changed_rule_in_a_settings_file_changes_the_digest(folder: Path) -> None:
    before = digest_of(folder)
    changed = {**SETTINGS, "permissions": {"deny": ["Bash(rm *)", "Bash(curl *)"]}}
    write(folder / ".claude" / "settings.json", json.dumps(changed))
    assert digest_of(folder).sha256 != before.sha256


def test_a_changed_hook_module_changes_the_digest(folder: Path) -> None:
    before = digest_of(folder)
    write(folder / "guard.py", GUARD.replace("no writes here", "no writes at all"))
    after = digest_of(folder)
    assert after.sha256 != before.sha256
    guard = str(folder / "guard.py")
    assert [f.role for f in after.files if f.path == guard] == [HOOK_CODE]


def test_a_new_settings_layer_changes_the_digest(folder: Path) -> None:
    before = digest_of(folder)
    local = {"permissions": {"ask": ["Edit"]}}
    write(folder / ".claude" / "settings.local.json", json.dumps(local))
    assert digest_of(folder).sha256 != before.sha256


def test_a_file_nothing_reads_leaves_the_digest_as_it_was(folder: Path) -> None:
    before = digest_of(folder)
    write(folder / "notes.md", "not policy")
    write(folder / ".claude" / "README.md", "not read either")
    assert digest_of(folder) == before


def test_the_digest_lists_each_input_with_its_own_sha256(folder: Path) -> None:
    import hashlib

    files = {file.path: file for file in digest_of(folder).files}
    settings = folder / ".claude" / "settings.json"
    assert files[str(settings)].role == "settings (project)"
    assert files[str(settings)].sha256 == hashlib.sha256(settings.read_bytes()).hexdigest()
    assert str(folder / "guard.py") in files


def test_an_inline_settings_value_is_an_input_by_its_json(folder: Path) -> None:
    project = load_project(folder, settings=['{"permissions": {"deny": ["Read"]}}'], trust=True)
    inline = [file for file in policy_digest(project).files if file.path == "--settings[0]"]
    assert [file.role for file in inline] == ["settings (cli)"]
    assert policy_digest(project).sha256 != digest_of(folder).sha256


def test_the_watched_files_include_settings_files_that_do_not_exist_yet(folder: Path) -> None:
    project = load_project(folder, trust=True)
    listed = watched(project, policy_digest(project))
    assert str(folder / ".claude" / "settings.local.json") in listed
    assert str(folder / "guard.py") in listed


def test_the_view_names_the_rules_and_hooks_with_where_they_come_from(folder: Path) -> None:
    project = load_project(folder, trust=True)
    digest = policy_digest(project)
    view = described(project, digest, loaded_at=0.0)
    assert view["policy"] == digest.sha256
    assert view["loaded_at"] == "1970-01-01T00:00:00+00:00"
    assert view["permissions"]["deny"] == [{"rule": "Bash(rm *)", "source": "project settings"}]
    assert view["permissions"]["dangerous_tier"] == {"built_in": True, "added": []}
    assert view["permissions"]["protected_set"]["on"] is True
    [hook] = view["hooks"]
    assert (hook["event"], hook["matcher"], hook["handler"]) == ("PreToolUse", "Write", "python")
    assert hook["when_it_fails"] == "deny (fail closed)"
    assert hook["source"] == f"project:{folder / '.claude' / 'settings.json'}"
    json.dumps(view)  # JSON as it is


def test_the_policy_in_words_says_its_digest_rules_hooks_and_files(folder: Path) -> None:
    project = load_project(folder, trust=True)
    digest = policy_digest(project)
    text = in_words(described(project, digest, loaded_at=0.0))
    assert text.startswith(f"policy {digest.short} (sha256 {digest.sha256})\n")
    assert "deny rules:\n  Bash(rm *)  from project settings\n" in text
    assert "ask rules: none\n" in text
    assert "dangerous tier: on, built-in entries\n" in text
    hook = "    Write  python no_writes  (gate; on failure: deny (fail closed))\n"
    assert f"  PreToolUse\n{hook}" in text
    settings = folder / ".claude" / "settings.json"
    assert f"settings (project)  {settings}\n" in text
