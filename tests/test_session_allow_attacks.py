"""An allow for the rest of the session never lifts a deny rule, the dangerous tier or the
protected set: shown for real, in a bubblewrap jail where only a throwaway workspace, its home
and a sentinel folder are writable (``session_attack_program.py`` runs the agent in there).

Each scenario gets the session grant from a person's answer (``Bash(git push *)``,
``Bash(npm test *)``, acceptEdits) or, widest of all, a grant of every call of every tool, and
then tries what that grant must not reach. ``git`` and ``npm`` are stand-ins that log their
arguments to the sentinel folder; a home canary, the workspace's ``.git`` and ``.claude`` files
and the log tell what ran. Each control call shows the grant itself works.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cli_runner import src_env
from test_bash_attacks_e2e import _REBIND, BWRAP

pytestmark = pytest.mark.skipif(
    BWRAP is None, reason="bwrap is missing: apt-get install bubblewrap"
)

PROGRAM = Path(__file__).with_name("session_attack_program.py")
STAND_IN = '#!/bin/sh\nprintf "%s %s\\n" "$(basename "$0")" "$*" >> "{log}"\n'
CANARY = "keep me\n"


class World:
    """The jail's folders: a workspace (with .git and .claude), a home with a canary, and a
    sentinel folder holding the stand-ins' log."""

    def __init__(self, root: Path) -> None:
        self.ws, self.home, self.sent, self.bin = (root / n for n in ("ws", "home", "sent", "bin"))
        for folder in (self.ws / ".git" / "hooks", self.ws / ".claude", self.home, self.sent,
                       self.bin):  # fmt: skip
            folder.mkdir(parents=True)
        (self.ws / ".git" / "config").write_text("[core]\n")
        (self.ws / ".claude" / "settings.json").write_text("{}\n")
        (self.ws / "keep.txt").write_text(CANARY)
        (self.home / "canary.txt").write_text(CANARY)
        for name in ("git", "npm"):
            (self.bin / name).write_text(STAND_IN.format(log=self.sent / "ran.log"))
            (self.bin / name).chmod(0o755)

    def run(self, scenario: str) -> dict[str, Any]:
        jail = [
            str(BWRAP), "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
            "--tmpfs", "/tmp", *_REBIND,
            "--bind", str(self.ws), str(self.ws),
            "--bind", str(self.home), str(self.home),
            "--bind", str(self.sent), str(self.sent),
            "--ro-bind", str(self.bin), str(self.bin),
            "--unshare-all", "--die-with-parent", "--chdir", str(self.ws),
            "--setenv", "HOME", str(self.home),
            "--setenv", "PATH", f"{self.bin}{os.pathsep}{os.environ['PATH']}",
            "--setenv", "HOOKLINE_MANAGED_SETTINGS_DIR", str(self.sent / "managed"),
        ]  # fmt: skip
        tests = str(Path(__file__).parent)
        env = src_env({"PYTHONPATH": tests})
        done = subprocess.run(
            [*jail, sys.executable, str(PROGRAM), scenario, str(self.ws)],
            env={**env, "PYTHONPATH": f"{env['PYTHONPATH']}{os.pathsep}{tests}"},
            capture_output=True, text=True, timeout=120,  # a guard against a hang only
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        out: dict[str, Any] = json.loads(done.stdout)
        return out

    def ran(self) -> list[str]:
        log = self.sent / "ran.log"
        return log.read_text().splitlines() if log.exists() else []

    def said(self, tool_input: dict[str, Any]) -> str:
        """A call the approver was asked about: its command, or its path in the workspace."""
        if "command" in tool_input:
            return str(tool_input["command"])
        return str(Path(tool_input["file_path"]).relative_to(self.ws))

    def untouched(self) -> None:
        """The canaries outside the grant's reach are as they were."""
        assert (self.home / "canary.txt").read_text() == CANARY
        assert (self.ws / "keep.txt").read_text() == CANARY
        assert (self.ws / ".git" / "config").read_text() == "[core]\n"
        assert (self.ws / ".claude" / "settings.json").read_text() == "{}\n"
        assert not (self.ws / ".git" / "hooks" / "pre-commit").exists()


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


def statuses(out: dict[str, Any]) -> list[str]:
    return [status for _, status, _ in out["calls"]]


def test_a_push_allowed_for_the_session_does_not_let_a_force_push_through(world: World) -> None:
    out = world.run("rules-vs-dangerous")
    assert statuses(out) == ["executed", "blocked", "blocked", "blocked"]
    assert world.ran() == ["git push origin feature"]
    onto_main, plus_main, bare = (reason for _, _, reason in out["calls"][1:])
    assert "dangerous tier, force-push-main" in onto_main and "which no" in onto_main
    assert "dangerous tier, force-push-main" in plus_main
    assert bare == "no"  # what the approver said, asked again
    # the force pushes onto main were refused unasked; the bare -f (whose branch it cannot
    # prove) was asked again, and denied: the grant answered for none of them
    assert [asked["command"] for asked in out["asked"][1:]] == ["git push -f"]


def test_a_grant_never_lifts_a_deny_rule(world: World) -> None:
    out = world.run("rules-vs-deny")
    assert statuses(out) == ["executed", "blocked", "blocked"]
    assert world.ran() == ["npm test"]
    assert len(out["asked"]) == 1  # the deny rule refused them: nobody was asked
    assert all("denied by the jail settings rule" in reason for _, _, reason in out["calls"][1:])


def test_edits_allowed_for_the_session_never_reach_the_protected_set_or_home(
    world: World,
) -> None:
    out = world.run("edits-vs-protected")
    assert statuses(out) == ["executed", "blocked", "blocked", "blocked", "blocked", "executed"]
    assert (world.ws / "notes.txt").read_text() == "fine\n"
    assert (world.ws / "made.txt").exists()  # acceptEdits, granted, ran it
    world.untouched()
    asked = [world.said(a) for a in out["asked"][1:]]
    assert asked == [".git/hooks/pre-commit", "echo evil > .claude/settings.json"]
    rm_home, rm_all = (reason for _, _, reason in out["calls"][3:5])
    assert "dangerous tier" in rm_home and "dangerous tier" in rm_all


def test_even_a_grant_of_every_tool_never_lifts_a_refusal_or_a_must_ask(world: World) -> None:
    out = world.run("everything-vs-all")
    assert statuses(out) == ["blocked"] * 7 + ["executed"]
    assert (world.ws / "made.txt").exists()
    world.untouched()
    assert world.ran() == []
    asked = [world.said(a) for a in out["asked"][1:]]
    assert asked == [
        ".git/config",
        "echo evil >> .claude/settings.json",
        "git push -f",
    ]  # the deny rule and the dangerous tier's denies refused theirs unasked
    piped = out["calls"][6][2]  # a line that cannot be known meets every deny rule
    assert "is denied by the jail settings rule" in piped and "cannot be known" in piped
