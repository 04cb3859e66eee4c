"""The server's answer tightened by a project's (``hookline._serve.floor``), which part of a
project each host gets, and where a project's folder is (``hookline._serve.projects``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookline._claude.settings import Settings
from hookline._decisions import Decision, Origin, Permission
from hookline._serve.floor import floored, tightening
from hookline._serve.projects import (
    FOUND_FOR,
    HOOKLINE_ONLY,
    WHOLE,
    Projects,
    narrowed,
    project_folder,
)
from hookline._settings_layers import Layer
from hookline._trust import TrustStore
from hookline.audit._writer import AuditWriter

N = None


def said(permission: Permission | None, origin: Origin = "hook") -> Decision:
    return Decision(permission, f"{permission} by {origin}" if permission else None, origin=origin)


@pytest.mark.parametrize(
    ("server", "project", "origin", "merged"),
    [
        ("allow", "allow", "hook", "allow"),
        (N, "allow", "hook", N),  # the host's own flow decides, as without the project
        (N, "allow", "rule", N),
        ("ask", "allow", "rule", "ask"),
        ("deny", "allow", "hook", "deny"),
        ("allow", "ask", "hook", "ask"),
        (N, "ask", "rule", "ask"),
        ("allow", "defer", "hook", "defer"),
        ("ask", "deny", "hook", "deny"),
        ("allow", "deny", "hook_failure", "deny"),
        ("allow", "ask", "tier", "allow"),  # the tiers are the server's to apply
        ("allow", "deny", "tier", "deny"),  # a project's dangerous entries hold
        ("allow", "deny", "mode", "allow"),  # so is the mode
        ("allow", N, "hook", "allow"),
    ],
)
def test_a_project_only_tightens_the_servers_answer(
    server: Permission | None, project: Permission | None, origin: Origin, merged: str | None
) -> None:
    assert floored(said(server), said(project, origin), rewritten=None).permission == merged


def test_contexts_add_up_and_a_stop_from_the_project_stops() -> None:
    ours = Decision("allow", additional_context=("from the server",))
    theirs = Decision(additional_context=("from the project",), continue_=False, stop_reason="no")
    merged = floored(ours, theirs, rewritten=None)
    assert merged.additional_context == ("from the server", "from the project")
    assert (merged.permission, merged.continue_, merged.stop_reason) == ("allow", False, "no")


def test_the_projects_rewrite_goes_on_unless_refused_or_rewritten_again() -> None:
    rewritten = {"command": "ls -l"}
    theirs = Decision.rewrite(rewritten)
    assert floored(Decision.allow(), theirs, rewritten=rewritten).updated_input == rewritten
    assert floored(Decision.deny("no"), theirs, rewritten=rewritten).updated_input is None
    again = Decision.allow(updated_input={"command": "ls -la"})
    assert floored(again, theirs, rewritten=rewritten).updated_input == {"command": "ls -la"}


def test_the_projects_rewrite_itself_is_never_merged() -> None:
    assert tightening(Decision.ask("look", updated_input={"x": 1})).updated_input is None


def _settings(root: Path) -> Settings:
    hooks = {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "python", "callable": "g.py:f"}]},
            {"matcher": "Read", "hooks": [{"type": "command", "command": "true"}]},
        ]
    }
    claude = {"hooks": hooks, "permissions": {"deny": ["Read"]}, "hookline": {"auditSync": True}}
    return Settings(
        (
            Layer("user", str(root / "home/.claude/settings.json"), {"hooks": hooks, "x": 1}),
            Layer("project", str(root / "p/.claude/settings.json"), claude),
            Layer("project", str(root / "p/.hookline/settings.json"), {"hooks": hooks}),
        )
    )


def test_claude_code_gets_only_what_it_cannot_run_itself(tmp_path: Path) -> None:
    user, claude, own = narrowed(_settings(tmp_path), part=HOOKLINE_ONLY).layers
    assert user.data == {"x": 1}  # the server's policy runs the person's hooks already
    assert claude.data == {
        "hookline": {"auditSync": True},
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "python", "callable": "g.py:f"}]}]
        },
    }
    assert own.data == _settings(tmp_path).layers[2].data


def test_other_hosts_get_the_whole_project(tmp_path: Path) -> None:
    user, claude, own = narrowed(_settings(tmp_path), part=WHOLE).layers
    assert user.data == {"x": 1}
    assert (claude.data, own.data) == tuple(layer.data for layer in _settings(tmp_path).layers[1:])


def test_the_project_folder_is_the_nearest_with_settings_below_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text("{}")
    monkeypatch.setenv("HOME", str(home))
    repo = home / "repo"
    (repo / ".hookline").mkdir(parents=True)
    (repo / ".hookline" / "settings.json").write_text("{}")
    (repo / "src" / "deep").mkdir(parents=True)
    assert project_folder(str(repo / "src" / "deep")) == str(repo)
    (home / "elsewhere").mkdir()
    assert project_folder(str(home / "elsewhere")) is None  # home's settings are the user's


def test_a_cwds_project_folder_is_kept_for_a_while_and_its_trust_is_asked_each_time(
    tmp_path: Path,
) -> None:
    now = [100.0]
    with AuditWriter.open(tmp_path / "state") as audit:
        trust = TrustStore(tmp_path / "trust.json")
        projects = Projects(audit, store=trust, clock=lambda: now[0])
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    cwd = str(repo / "src")
    assert projects.folder(cwd) == (None, "no project settings at or above the cwd")
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.local.json").write_text("{}")
    now[0] += FOUND_FOR / 2
    assert projects.folder(cwd)[0] is None  # kept
    now[0] += FOUND_FOR
    folder, why = projects.folder(cwd)
    assert folder == str(repo)
    assert why is not None and "hookline trust add" in why  # found, and nobody trusts it yet
    trust.set(repo, True)
    assert projects.folder(cwd) == (str(repo), None)  # the store is asked on every event
    trust.set(repo, False)
    assert projects.folder(cwd) == (str(repo), "not trusted")  # taken back: at once
