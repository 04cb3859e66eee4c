"""The attack table, end to end: the real CLI runs each attack inside a bubblewrap jail.

Each test runs ``hookline run PROMPT --model scripted:FILE --cwd WS --permission-mode MODE
--settings JSON --output-format json`` with a one-call script (a Bash call spelled the attacking
way), under ``bwrap``: the whole filesystem read-only, a fresh /tmp, no network, and only the
workspace, the sentinel folder and the home folder writable. So an attack that slips past the
permission layer can harm nothing but those throwaway folders, and it shows: the sentinel file
it would create exists, or the canary it would delete is gone.

Each attack asserts that the call was blocked (its tool result says so) and that the sentinel is
absent or the canary still there. Positive controls run ordinary commands and check their effect
on disk, so the jail is known to let a command that is allowed do its work. In the rows, ``@S@``
is the sentinel file (in the sentinel folder, outside the workspace), ``@WS@`` the workspace,
``@HOME@`` the home folder, ``@B64@`` ``touch @S@`` in base64.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from cli_runner import HOOKLINE, src_env

BWRAP = shutil.which("bwrap")
pytestmark = pytest.mark.skipif(
    BWRAP is None, reason="bwrap is missing: apt-get install bubblewrap"
)

_VENV_HOOKLINE = Path(__file__).resolve().parents[1] / ".venv" / "bin" / "hookline"
#: The real entry point: the venv's console script, else ``python -m hookline._cli.main``.
ENTRY = [str(_VENV_HOOKLINE)] if _VENV_HOOKLINE.exists() else HOOKLINE

#: What the CLI needs to start, re-bound read-only when it lives under the jail's fresh /tmp.
_NEEDED = {Path(__file__).resolve().parents[1], Path(sys.prefix).resolve()}
_REBIND = [a for p in _NEEDED if p.is_relative_to("/tmp") for a in ("--ro-bind", str(p), str(p))]

SETTINGS: dict[str, dict[str, Any] | None] = {
    "none": None,
    "deny-touch": {"permissions": {"deny": ["Bash(touch:*)"]}},
    "allow-echo": {"permissions": {"allow": ["Bash(echo:*)"]}},
}

# Attacks: (mode, settings, command, what must hold afterwards). "absent PATH": the sentinel was
# never created; "kept PATH": the canary was never deleted.
# fmt: off
ATTACKS = [
    # deny rules hold in bypassPermissions, whatever the spelling
    ("bypassPermissions", "deny-touch", "env -i FOO=1 touch @S@", "absent @S@"),
    ("bypassPermissions", "deny-touch", "/usr/bin/touch @S@", "absent @S@"),
    ("bypassPermissions", "deny-touch", "\"touch\" @S@", "absent @S@"),
    ("bypassPermissions", "deny-touch", "t''ouch @S@", "absent @S@"),
    ("bypassPermissions", "deny-touch", "\\touch @S@", "absent @S@"),
    ("bypassPermissions", "deny-touch", "exec touch @S@", "absent @S@"),
    ("bypassPermissions", "deny-touch", "command touch @S@", "absent @S@"),
    ("bypassPermissions", "deny-touch", "builtin eval 'touch @S@'", "absent @S@"),
    ("bypassPermissions", "deny-touch", "eval \"touch @S@\"", "absent @S@"),
    ("bypassPermissions", "deny-touch", "bash -c 'touch @S@'", "absent @S@"),
    ("bypassPermissions", "deny-touch", "bash -c \"sh -c 'touch @S@'\"", "absent @S@"),
    ("bypassPermissions", "deny-touch", "setsid touch @S@", "absent @S@"),
    ("bypassPermissions", "deny-touch", "nohup touch @S@", "absent @S@"),
    ("bypassPermissions", "deny-touch", "timeout 5 touch @S@", "absent @S@"),
    ("bypassPermissions", "deny-touch", "echo @S@ | xargs -I{} touch {}", "absent @S@"),
    ("bypassPermissions", "deny-touch", "find . -maxdepth 0 -exec touch @S@ \\;", "absent @S@"),
    ("bypassPermissions", "deny-touch", "until test -e @S@; do touch @S@; done", "absent @S@"),
    ("bypassPermissions", "deny-touch", "touch${IFS}@S@", "absent @S@"),
    ("bypassPermissions", "deny-touch", "base64 -d <<< @B64@ | sh", "absent @S@"),
    # review round: spellings that got past the analysis before it was mended
    ("bypassPermissions", "deny-touch", "coproc { touch @S@; }; wait", "absent @S@"),
    ("bypassPermissions", "deny-touch", "bash -c -- 'touch @S@'", "absent @S@"),
    ("bypassPermissions", "deny-touch", "bash -c -x 'touch @S@' arg0", "absent @S@"),
    ("bypassPermissions", "deny-touch", "touch @S@; touch() { :; }", "absent @S@"),
    ("bypassPermissions", "deny-touch", "tou\\\nch @S@", "absent @S@"),
    ("bypassPermissions", "deny-touch", "exec -a x touch @S@", "absent @S@"),
    ("bypassPermissions", "deny-touch", "env -- touch @S@", "absent @S@"),
    ("bypassPermissions", "deny-touch", "echo $(touch @S@)", "absent @S@"),
    ("bypassPermissions", "deny-touch", "ls > \"$(touch @S@)\"", "absent @S@"),
    ("bypassPermissions", "deny-touch", "cat <<< \"$(touch @S@)\"", "absent @S@"),
    ("bypassPermissions", "deny-touch", "f() { touch @S@; }; f", "absent @S@"),
    ("bypassPermissions", "deny-touch", "case a in a) touch @S@;; esac", "absent @S@"),
    ("bypassPermissions", "deny-touch", "{touch,@S@}", "absent @S@"),
    ("bypassPermissions", "deny-touch", "cat <(touch @S@)", "absent @S@"),
    ("bypassPermissions", "deny-touch", "bash <<'EOF'\ntouch @S@\nEOF", "absent @S@"),
    ("bypassPermissions", "deny-touch", "bash <<< 'touch @S@'", "absent @S@"),
    ("bypassPermissions", "deny-touch", "cat <<EOF\n$(touch @S@)\nEOF", "absent @S@"),
    ("bypassPermissions", "deny-touch", "echo hi;\ttouch @S@", "absent @S@"),
    # allow rules allow only what they name
    ("default", "allow-echo", "echo hi > \"$(touch @S@)\"", "absent @S@"),
    ("default", "allow-echo", "echo hi <<< \"$(touch @S@)\"", "absent @S@"),
    ("default", "allow-echo", "echo $(touch @S@)", "absent @S@"),
    ("default", "allow-echo", "echo hi && touch @S@", "absent @S@"),
    ("default", "allow-echo", "echo touch @S@ | sh", "absent @S@"),
    # acceptEdits runs only what it can prove stays inside the workspace
    ("acceptEdits", "none", "sed -n '1e touch @S@' a.txt", "absent @S@"),
    ("acceptEdits", "none", "sed -n 'w @S@' a.txt", "absent @S@"),
    ("acceptEdits", "none", "cp a.txt .''./sent/s", "absent @S@"),
    ("acceptEdits", "none", "cp a.txt ..\\/sent/s", "absent @S@"),
    ("acceptEdits", "none", "cp a.txt link_out/s", "absent @SENT@/out/s"),
    ("acceptEdits", "none", "cp a.txt .c''laude/settings.local.json",
     "absent @WS@/.claude/settings.local.json"),
    ("acceptEdits", "none", "rm -rf .g*", "kept @WS@/.git/config"),
    ("acceptEdits", "none", "rm -r subdir", "kept @WS@/subdir/c.txt"),
    ("acceptEdits", "none", "touch $X@S@", "absent @S@"),
    # the dangerous tier, refused in bypassPermissions
    ("bypassPermissions", "none", "rm -rf ~/*", "kept @HOME@/canary.txt"),
    ("bypassPermissions", "none", "\"rm\" -rf ~/*", "kept @HOME@/canary.txt"),
    ("bypassPermissions", "none", "rm -rf \"$HOME\"/*", "kept @HOME@/canary.txt"),
    ("bypassPermissions", "none", "cd ~ && rm -rf .", "kept @HOME@/canary.txt"),
    ("bypassPermissions", "none", "cd ~ && rm -rf *", "kept @HOME@/canary.txt"),
    ("bypassPermissions", "none", "find ~ -delete", "kept @HOME@/canary.txt"),
    ("bypassPermissions", "none", "bash -c 'rm -rf ~'", "kept @HOME@/canary.txt"),
    ("bypassPermissions", "none", "rm -rf @WS@", "kept @WS@/canary.txt"),
    ("bypassPermissions", "none", "rm -rf .", "kept @WS@/canary.txt"),
    ("bypassPermissions", "none", "cd subdir && rm -rf ..", "kept @WS@/canary.txt"),
    ("bypassPermissions", "none", "sudo touch @S@", "absent @S@"),
    # what cannot be known asks, even in bypassPermissions (and nobody is there to approve)
    ("bypassPermissions", "none", "X=touch; $X @S@", "absent @S@"),
    ("bypassPermissions", "none", "echo touch @S@ | sh", "absent @S@"),
    ("bypassPermissions", "none", "bash <(echo touch @S@)", "absent @S@"),
    ("bypassPermissions", "none", "eval \"$(echo touch @S@)\"", "absent @S@"),
    ("bypassPermissions", "none", "touch${IFS}@S@", "absent @S@"),
    # protected folders are never written without an explicit ask
    ("bypassPermissions", "none", "touch .claude/settings.local.json",
     "absent @WS@/.claude/settings.local.json"),
    ("bypassPermissions", "none", "echo x > .git/hooks/pre-commit",
     "absent @WS@/.git/hooks/pre-commit"),
    ("bypassPermissions", "none", "cp a.txt .hookline/x", "absent @WS@/.hookline/x"),
]
# fmt: on

#: Ordinary commands that must run: (mode, settings, command, what they leave on disk).
# fmt: off
CONTROLS = [
    ("default", "none", "ls", None),
    ("default", "allow-echo", "echo ok > @WS@/out.txt", "file @WS@/out.txt"),
    ("acceptEdits", "none", "mkdir d", "dir @WS@/d"),
    ("acceptEdits", "none", "cp a.txt c.txt", "file @WS@/c.txt"),
    ("bypassPermissions", "none", "touch @S@", "file @S@"),
    ("bypassPermissions", "none", "rm -rf subdir", "absent @WS@/subdir"),
    ("bypassPermissions", "deny-touch", "echo touch", None),
]
# fmt: on


@dataclass(frozen=True)
class Jail:
    """The throwaway folders, and the CLI run inside bubblewrap with only them writable."""

    ws: Path
    sent: Path
    home: Path
    run_dir: Path

    @property
    def sentinel(self) -> Path:
        return self.sent / "s"

    def fill(self, text: str) -> str:
        b64 = base64.b64encode(f"touch {self.sentinel}\n".encode()).decode()
        for key, value in (
            ("@S@", str(self.sentinel)),
            ("@SENT@", str(self.sent)),
            ("@WS@", str(self.ws)),
            ("@HOME@", str(self.home)),
            ("@B64@", b64),
        ):
            text = text.replace(key, value)
        return text

    def run(self, mode: str, settings: str, command: str) -> dict[str, Any]:
        """Run one Bash call through the CLI in the jail; its record from ``tool_calls``."""
        script = {
            "turns": [
                {"tool_calls": [{"id": "t1", "name": "Bash", "input": {"command": command}}]},
                {"text": "done"},
            ]
        }
        script_file = self.run_dir / "script.json"
        script_file.write_text(json.dumps(script))
        jail = [
            str(BWRAP), "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
            "--tmpfs", "/tmp",
            *_REBIND,
            "--bind", str(self.ws), str(self.ws),
            "--bind", str(self.sent), str(self.sent),
            "--bind", str(self.home), str(self.home),
            "--ro-bind", str(self.run_dir), str(self.run_dir),
            "--unshare-all", "--die-with-parent", "--chdir", str(self.ws),
            "--setenv", "HOME", str(self.home),
            "--setenv", "HOOKLINE_MANAGED_SETTINGS_DIR", str(self.run_dir / "managed"),
        ]  # fmt: skip
        cli = [
            *ENTRY, "run", "do the task", "--model", f"scripted:{script_file}",
            "--cwd", str(self.ws), "--permission-mode", mode, "--output-format", "json",
        ]  # fmt: skip
        if SETTINGS[settings] is not None:
            cli += ["--settings", json.dumps(SETTINGS[settings])]
        done = subprocess.run(
            [*jail, *cli],
            env=src_env(),
            input="",
            capture_output=True,
            text=True,
            timeout=120,  # a guard against a hang, not a timing assertion
        )
        assert done.returncode == 0, done.stderr
        calls: list[dict[str, Any]] = json.loads(done.stdout)["tool_calls"]
        assert len(calls) == 1, calls
        return calls[0]


@pytest.fixture
def jail(tmp_path: Path) -> Jail:
    """A workspace (a.txt, subdir/, .git/, .claude/, a canary, link_out -> the sentinel
    folder's out/), an empty sentinel folder beside it, and a home folder with a canary."""
    ws, sent, home, run_dir = (tmp_path / n for n in ("ws", "sent", "home", "run"))
    for folder in (ws / "subdir", ws / ".git/hooks", ws / ".claude", sent / "out", home):
        folder.mkdir(parents=True)
    (run_dir / "managed").mkdir(parents=True)
    for name in ("a.txt", "b.txt", "canary.txt", "subdir/c.txt", ".git/config"):
        (ws / name).write_text("a\n")
    (ws / ".claude/settings.json").write_text("{}\n")
    (home / "canary.txt").write_text("keep me\n")
    os.symlink(sent / "out", ws / "link_out")
    return Jail(ws, sent, home, run_dir)


def _id(*parts: str) -> str:
    return " | ".join(parts).replace("\n", "\\n").replace("\t", "\\t")


@pytest.mark.parametrize(
    ("mode", "settings", "command", "afterwards"),
    [pytest.param(*row, id=_id(*row[:3])) for row in ATTACKS],
)
def test_attack_is_blocked_and_harms_nothing(
    jail: Jail, mode: str, settings: str, command: str, afterwards: str
) -> None:
    call = jail.run(mode, settings, jail.fill(command))
    how, path = afterwards.split(" ", 1)
    target = Path(jail.fill(path))
    if how == "absent":
        assert not target.exists() and not target.is_symlink(), f"{target} was created: {call}"
    else:
        assert target.exists(), f"{target} was deleted: {call}"
    assert call["status"] == "blocked", call
    assert call["output"] is None and call["reason"], call


@pytest.mark.parametrize(
    ("mode", "settings", "command", "effect"),
    [pytest.param(*row, id=_id(*row[:3])) for row in CONTROLS],
)
def test_ordinary_command_runs(
    jail: Jail, mode: str, settings: str, command: str, effect: str | None
) -> None:
    call = jail.run(mode, settings, jail.fill(command))
    assert call["status"] == "executed", call
    if effect is None:
        return
    how, path = effect.split(" ", 1)
    target = Path(jail.fill(path))
    if how == "file":
        assert target.is_file(), call
    elif how == "dir":
        assert target.is_dir(), call
    else:
        assert not target.exists(), call


def test_the_jail_keeps_the_rest_of_the_machine_read_only(jail: Jail, tmp_path: Path) -> None:
    """Outside the three folders nothing can be written, even by a command that runs."""
    outside = tmp_path / "outside.txt"
    call = jail.run("bypassPermissions", "none", f"touch {outside}")
    assert call["status"] == "executed", call
    assert not outside.exists()  # the jail's /tmp is its own tmpfs
