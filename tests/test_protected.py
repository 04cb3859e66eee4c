"""The protected set: what it holds, what it lists for the sandbox, the code files settings name."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from hookline._decisions import Decision
from hookline._project import load_project
from hookline.permissions import _paths as paths
from hookline.permissions import evaluate
from hookline.permissions._protected import protected_set


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    for folder in (".git/hooks", ".git/objects/ab", ".git/refs/heads", ".git/modules/lib/hooks",
                   ".git/worktrees/wt", ".claude", "src"):  # fmt: skip
        (root / folder).mkdir(parents=True)
    (root / ".git" / "config").write_text("[core]\n")
    (root / "src" / "a.py").write_text("x = 1\n")
    return root


def test_covers_names_the_protected_entry_and_leaves_gits_own_work(
    ws: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    found = protected_set([str(ws)], home=str(home), code_files=[str(ws / "src" / "a.py")])
    at = str(ws)

    def covers(rel: str) -> str | None:
        entry = found.covers(os.path.join(at, rel))
        return entry and entry.replace(f"{at}/", "")

    assert covers(".git/hooks/pre-commit") == ".git/hooks"
    assert covers(".git/config") == ".git/config"
    assert covers(".git/commondir") == ".git/commondir"
    assert covers(".git/info/attributes") == ".git/info"
    assert covers(".git/modules/lib/hooks/post-checkout") == ".git/modules/lib/hooks"
    assert covers(".git/modules/lib/config") == ".git/modules/lib/config"
    assert covers(".git/worktrees/wt/config") == ".git/worktrees/wt/config"
    assert covers(".git/worktrees/wt/gitdir") == ".git/worktrees/wt/gitdir"
    assert covers(".git") == ".git"  # renamed, replaced or deleted whole
    assert covers("sub/.claude/settings.json") == "sub/.claude"
    assert covers(".mcp.json") == ".mcp.json"
    assert covers(".hookline/state/x") == ".hookline"
    assert covers("src/a.py") == "src/a.py"
    assert found.covers(str(home / ".hookline" / "keys" / "state.key")) == str(home / ".hookline")
    assert found.covers(str(home / ".claude" / "settings.json")) == str(home / ".claude")
    for normal in (".git/objects/ab/cd", ".git/refs/heads/main", ".git/index", ".git/HEAD",
                   "src/b.py", "notes/.gitignore"):  # fmt: skip
        assert covers(normal) is None, normal


def test_a_link_into_the_set_is_covered_on_its_real_path(ws: Path, tmp_path: Path) -> None:
    (ws / "g").symlink_to(ws / ".git")
    (ws / "hook").symlink_to(ws / ".git" / "hooks" / "pre-commit")
    found = protected_set([str(ws)], home=str(tmp_path / "home"))

    assert found.covers(str(ws / "g" / "config")) == str(ws / ".git" / "config")
    assert found.covers(str(ws / "hook")) == str(ws / ".git" / "hooks")
    assert found.covers(str(ws / "g" / "config"), resolve=False) is None


def test_the_key_file_the_environment_names_is_protected(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = tmp_path / "keys" / "k"
    monkeypatch.setenv("HOOKLINE_STATE_KEY_FILE", str(key))
    found = protected_set([str(ws)], home=str(tmp_path / "home"))

    assert found.covers(str(key)) == str(key)
    assert str(key) in found.paths()


def test_paths_lists_what_the_sandbox_keeps_read_only(ws: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    found = protected_set([str(ws)], home=str(home), code_files=[str(ws / "src" / "a.py")])
    listed = set(found.paths())

    expected = {".claude", ".hookline", ".mcp.json", ".git/hooks", ".git/config", ".git/info",
                ".git/commondir", ".git/modules/lib/hooks", ".git/modules/lib/config",
                ".git/worktrees/wt/config", "src/a.py"}  # fmt: skip
    assert {str(ws / e) for e in expected} <= listed
    assert {str(home / ".claude"), str(home / ".hookline")} <= listed
    assert str(ws / ".git") not in listed and found.git_dirs() == (str(ws / ".git"),)
    assert not any("objects" in p or "refs" in p for p in listed)
    assert found.holds(str(ws)) is not None and found.holds(str(ws / "src" / "x")) is None


def _project(ws: Path) -> Path:
    (ws / "hooks").mkdir()
    (ws / "hooks" / "helper.py").write_text("def ok():\n    return None\n")
    (ws / "hooks" / "guard.py").write_text(
        "from helper import ok\n\ndef check(event):\n    return ok()\n"
    )
    (ws / "scripts").mkdir()
    (ws / "scripts" / "gate.sh").write_text("#!/bin/sh\nexit 0\n")
    (ws / "scripts" / "gate.sh").chmod(0o755)
    hooks = {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [
                    {"type": "python", "callable": "hooks/guard.py:check"},
                    {
                        "type": "command",
                        "command": '"$CLAUDE_PROJECT_DIR"/scripts/gate.sh --strict',
                    },
                ],
            }
        ]
    }
    (ws / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    return ws


def test_the_code_files_settings_name_are_protected_when_they_load(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    project = load_project(_project(ws), mode="bypassPermissions")
    files = set(project.permissions.code_files)

    assert str(ws / "hooks" / "guard.py") in files
    assert str(ws / "hooks" / "helper.py") in files  # the project module it imports
    assert str(ws / "scripts" / "gate.sh") in files
    assert str(ws / "src" / "a.py") not in files

    def verdict(tool: str, **given: str) -> str:
        home = str(tmp_path / "home")
        found = evaluate(project.permissions, tool_name=tool, tool_input=given, read_only=False,
                         hook=Decision(), cwd=str(ws), home=home)  # fmt: skip
        return found.permission

    assert verdict("Bash", command="echo 'def check(e): pass' > hooks/helper.py") == "ask"
    assert verdict("Bash", command="cp /dev/null scripts/gate.sh") == "ask"
    assert verdict("Write", file_path="hooks/guard.py", content="") == "ask"
    assert verdict("Bash", command="echo x > src/b.py") == "allow"


@pytest.mark.parametrize(
    ("command", "asks"),
    [
        ('docker run --rm -v "$PWD":/app -w /app node npm test', True),
        ("docker run --rm -v .:/app alpine ls", True),
        ("docker run -v ./.claude:/c alpine touch /c/settings.json", True),
        ("docker run --mount type=bind,source=.,target=/w alpine ls", True),
        ("podman run --rm -v .:/w:rw alpine ls", True),
        ("docker cp c:/settings.json .claude/settings.json", True),
        ('docker run --rm -v "$PWD":/app:ro -w /app node npm test', False),
        ("docker run --mount type=bind,source=.,target=/w,readonly alpine ls", False),
        ("docker run --rm -v cache:/root/.cache alpine ls", False),
        ("docker run --rm -v ./src:/src alpine ls", False),
        ("docker run --rm alpine ls", False),
        ("docker exec c touch /x", False),
    ],
)
def test_a_container_that_mounts_a_protected_folder_writable_asks_in_bypass(
    ws: Path, command: str, asks: bool
) -> None:
    """The container may write anything below a writable mount: the workspace root holds
    ``.git/hooks`` and ``.claude``."""
    from hookline.permissions import PermissionPolicy

    policy = PermissionPolicy(mode="bypassPermissions", workspace=(str(ws),))
    found = evaluate(policy, tool_name="Bash", tool_input={"command": command}, read_only=False,
                     hook=Decision(), cwd=str(ws), home=str(ws.parent / "home"))  # fmt: skip
    assert (found.permission, found.source) == (
        ("ask", "tier:protected") if asks else ("allow", "mode:bypassPermissions")
    ), found.reason


def test_one_decision_resolves_each_link_once_and_the_next_one_afresh(tmp_path: Path) -> None:
    """Within ``snapshot()`` a link repointed midway still leads where it first led, so no
    two checks of one decision see two different files; outside it, and in the next
    decision, the link is followed as it is now."""
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "a")
    with paths.snapshot():
        assert paths.real(str(link)) == str(tmp_path / "a")
        link.unlink()
        link.symlink_to(tmp_path / "b")
        assert paths.real(str(link)) == str(tmp_path / "a")
        assert os.path.realpath(link) == str(tmp_path / "b")
    assert paths.real(str(link)) == str(tmp_path / "b")
    with paths.snapshot():
        assert paths.real(str(link)) == str(tmp_path / "b")


@pytest.mark.parametrize("home", ["/home/ann", "/home/ann/", "/", "//", None])
def test_the_users_home_is_what_expanduser_says(home, monkeypatch):
    """``user_home`` reads ``$HOME`` once where ``expanduser`` reads it twice; the answer is
    the same, with ``$HOME`` unset too (the password database)."""
    import posixpath

    from hookline.permissions._paths import user_home

    if home is None:
        monkeypatch.delenv("HOME", raising=False)
    else:
        monkeypatch.setenv("HOME", home)
    assert user_home() == posixpath.expanduser("~")
