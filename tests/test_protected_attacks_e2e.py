"""Attacks on the protected set and on acceptEdits, end to end: an Agent with a ScriptedModel
makes one Bash call spelled the attacking way, in bypassPermissions or acceptEdits mode, with no
approver (an ask is refused), and real Bash runs whatever the permission layer lets through.

Everything lives in a temporary folder: the workspace (a real git repository with a hook, a
config, ``.claude/settings.json``, ``.mcp.json``, ``.hookline/``), a home folder (``HOME`` points
there: ``~/.hookline/keys/state.key``, ``~/.claude``) and a ``.bashrc`` beside the workspace. The
whole tree is read before and after the call, contents and links: a refused attack changed
nothing at all. Positive controls show that Bash does run what is allowed, git's own writes
into ``.git`` included.
"""

from __future__ import annotations

import os
import subprocess
import tarfile
from pathlib import Path

import pytest

from hookline import Agent, ScriptedModel
from hookline._tools.builtin import Bash
from hookline.permissions import PermissionPolicy, PermissionRule

ORIG = "ORIGINAL\n"


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``tmp_path`` laid out as described in the module docstring; returns the workspace."""
    home, ws = tmp_path / "home", tmp_path / "ws"
    ws.mkdir()
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    files = {
        "ws/.git/hooks/pre-commit": ORIG, "ws/.claude/settings.json": ORIG,
        "ws/.mcp.json": ORIG, "ws/.hookline/notes": ORIG, "ws/a.txt": "a\n",
        "ws/evil.sh": "#!/bin/sh\necho pwned\n", "ws/secrets/key.txt": "SECRET\n",
        "ws/locked.txt": ORIG, "ws/sub/s.txt": "s\n", "ws/lockdir/l.txt": ORIG,
        "ws/payload/.claude/settings.json": "evil",
        "home/.hookline/keys/state.key": ORIG, "home/.claude/settings.json": ORIG,
        ".bashrc": ORIG, "outside/o.txt": ORIG,
    }  # fmt: skip
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    (ws / "g").symlink_to(ws / ".git")
    (ws / "c").symlink_to(ws / ".claude")
    (ws / "secret-link").symlink_to(ws / "secrets" / "key.txt")
    (ws / "out-link").symlink_to(tmp_path / "outside")
    with tarfile.open(ws / "evil.tar", "w") as tar:
        tar.add(ws / "payload" / ".claude", arcname=".claude")
    monkeypatch.setenv("HOME", str(home))
    for name in ("GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"):
        monkeypatch.setenv(name, "test")
    for name in ("GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"):
        monkeypatch.setenv(name, "test@example.com")
    return ws


def tree(top: Path) -> dict[str, str]:
    """Every path below ``top`` with its content (a link: where it points; a folder: "/")."""
    found: dict[str, str] = {}
    for folder, dirs, files in os.walk(top):
        for name in [*dirs, *files]:
            path = Path(folder, name)
            if path.is_symlink():
                found[str(path)] = "-> " + os.readlink(path)
            elif path.is_dir():
                found[str(path)] = "/"
            else:
                found[str(path)] = path.read_bytes().hex()
    return found


DENY = ("Read(./secrets/**)", "Edit(./locked.txt)", "Edit(./lockdir/**)")


def run(ws: Path, mode: str, command: str) -> str:
    """The status of one Bash call of ``command`` made by a scripted model in ``mode``."""
    rules = tuple((PermissionRule.parse(rule), "project settings") for rule in DENY)
    policy = PermissionPolicy(deny=rules, mode=mode)  # type: ignore[arg-type]
    script = [{"tool_calls": [{"id": "b", "name": "Bash", "input": {"command": command}}]},
              {"text": "done"}]  # fmt: skip
    agent = Agent(ScriptedModel(script), tools=[Bash()], cwd=ws, permissions=policy,
                  state_dir=ws.parent / "state", audit=False)  # fmt: skip
    (result,) = agent.run_sync("go").tool_calls
    return result.status


# Class 1: the protected set reached by a spelling the checker does not resolve. Each runs in
# bypassPermissions and acceptEdits; none may change anything.
PROTECTED = [
    '> "$PWD/.git/hooks/pre-commit"',
    "(cd /tmp); echo x > .git/hooks/pre-commit",
    'cd "$PWD/.claude" && echo x > settings.json',
    "echo x > g/hooks/pre-commit",
    "find . -name settings.json -delete",
    'tee "$PWD/.claude/settings.json" < a.txt',
    "echo x > ~+/.git/config",
    "cp evil.sh .git/hooks/post-checkout",
    "echo '{}' > ./.mcp.json",
    "printf x > .g''it/con\\fig",
    "cd .git && echo x > hooks/pre-commit",
    "cd sub/.. && echo x > .claude/settings.json",
    "echo x | dd of=.git/config",
    "ln -sf evil.sh .git/hooks/pre-commit",
    "mv .git .git-old",
    "touch c/new.json",
    "sed -i s/ORIGINAL/PWNED/ .claude/settings.json",
    "cp a.txt ~/.hookline/keys/state.key",
    'd=.git; echo x > "$d/config"',
    'D=.git; cp evil.sh "$D/config"',
    'D=.claude; cp evil.sh "$D/settings.json"',
    'D=.git/hooks && mv evil.sh "$D/pre-commit"',
    "echo x >> .git/info/exclude",
    "tar xf evil.tar",
    "git config core.hooksPath /tmp",
    "echo .claude/settings.json | xargs rm",
    "find . -path ./.git/hooks/pre-commit -delete",
    "echo x > ./sub/../.claude/settings.json",
    "for f in .claude/settings.json; do echo x > $f; done",
    "echo x > ~/.claude/settings.json",
    "cp -r payload/. .",
    "echo x > .hookline/notes",
    "truncate -s 0 .mcp.json",
    'echo x > "$OLDPWD/.mcp.json"',
    "echo x > ~-/.mcp.json",
    "cat <<EOF > .git/config\nx\nEOF",
    "cp --target-directory=.git/hooks evil.sh",
    "cp -t.git/hooks evil.sh",
    "sort -o .mcp.json a.txt",
    "install -m 755 evil.sh .git/hooks/pre-commit",
    "git checkout -- .claude/settings.json",
    "[ -e a.txt ] > .git/config",
    "[[ -e a.txt ]] > .git/hooks/pre-commit",
    "declare x=1 > .mcp.json",
    "unset x >> .claude/settings.json",
    "echo x > /proc/self/cwd/.git/config",
]

# Class 2: acceptEdits auto-allowed what it had not proven (acceptEdits mode).
ACCEPT_EDITS = [
    "cd nope 2>/dev/null; cp evil.sh ../.bashrc",
    "cp evil.sh ~+/../.bashrc",
    "cp evil.sh $HOME/../.bashrc",
    "cd sub && cp ../evil.sh ../../.bashrc",
    "cp evil.sh out-link/o.txt",
    "cp evil.sh locked.txt",
    "cp -f evil.sh ./locked.txt",
    "cp evil.sh sub/../locked.txt",
    "cp evil.sh l*ed.txt",
    "touch locked.txt",
    "cp secrets/key.txt notes.txt",
    "mv secrets/key.txt notes.txt",
    "cp ./secrets/../secrets/key.txt notes.txt",
    "cp secret-link notes.txt",
    "cp s*s/key.txt notes.txt",
    "cp evil.sh ~-/../.bashrc",
    "cp evil.sh .claude/settings.json",
    "mv a.txt .mcp.json",
    'cd "$PWD/sub" && cp ../evil.sh ../../.bashrc',
    "cp evil.sh .git/hooks/pre-push",
    "cp -r secrets copy",
    "mv secrets sub/",
    "cp -a secrets/. copy",
    "cp a.txt lockdir/",
    "cp -r sub lockdir",
    "mv sub lockdir/",
    "cp -r payload/. sub",
]


@pytest.mark.parametrize("mode", ["bypassPermissions", "acceptEdits"])
@pytest.mark.parametrize("command", PROTECTED)
def test_a_write_into_the_protected_set_is_refused_and_changes_nothing(
    place: Path, mode: str, command: str
) -> None:
    before = tree(place.parent / "ws") | tree(place.parent / "home")
    outside = (place.parent / ".bashrc").read_text()

    status = run(place, mode, command)

    assert status != "executed", command
    after = tree(place.parent / "ws") | tree(place.parent / "home")
    assert after == before, sorted(set(after.items()) ^ set(before.items()))[:4]
    assert (place.parent / ".bashrc").read_text() == outside


@pytest.mark.parametrize("command", ACCEPT_EDITS)
def test_accept_edits_refuses_what_it_cannot_prove_and_changes_nothing(
    place: Path, command: str
) -> None:
    before = tree(place.parent)

    status = run(place, "acceptEdits", command)

    assert status != "executed", command
    state = str(place.parent / "state")  # the agent's own transcripts
    after = {k: v for k, v in tree(place.parent).items() if not k.startswith(state)}
    assert after == before, sorted(set(after.items()) ^ set(before.items()))[:4]


@pytest.mark.parametrize(
    ("mode", "command", "made"),
    [
        ("bypassPermissions", "echo hi > notes.txt", "ws/notes.txt"),
        ("acceptEdits", "cp a.txt notes.txt", "ws/notes.txt"),
        ("acceptEdits", "cd sub && cp s.txt ../notes.txt", "ws/notes.txt"),
        ("acceptEdits", "cp -r sub sub2", "ws/sub2/s.txt"),
        ("bypassPermissions", "cp evil.sh ~+/../.bashrc.new", ".bashrc.new"),
        ("bypassPermissions", "find . -name '*.pyc' -delete", ""),
        ("bypassPermissions", "find sub -name '*.txt' -delete", ""),
    ],
)
def test_the_controls_run_for_real(place: Path, mode: str, command: str, made: str) -> None:
    status = run(place, mode, command)

    assert status == "executed", command
    if made:
        assert (place.parent / made).exists()


def test_gits_own_writes_into_git_stay_normal_work(place: Path) -> None:
    status = run(place, "bypassPermissions", "git add a.txt && git commit -q -m first")

    assert status == "executed"
    log = subprocess.run(["git", "-C", str(place), "log", "--oneline"], capture_output=True)
    assert b"first" in log.stdout
    assert (place / ".git" / "hooks" / "pre-commit").read_text() == ORIG


# The file tools' own path check (the body) uses the same set: a Write, Edit or NotebookEdit
# into it asks in every mode, and one that only reaches it through a link is refused.
FILE_TOOLS = [
    ("Write", ".mcp.json"), ("Write", "g/hooks/pre-commit"), ("Write", "c/settings.json"),
    ("Write", ".git/info/attributes"), ("Write", "~/.hookline/keys/state.key"),
    ("Write", "sub/../.git/config"), ("Edit", ".claude/settings.json"), ("Edit", "g/config"),
]  # fmt: skip


@pytest.mark.parametrize("mode", ["bypassPermissions", "acceptEdits"])
@pytest.mark.parametrize(("tool", "path"), FILE_TOOLS)
def test_the_file_tools_keep_out_of_the_protected_set(
    place: Path, mode: str, tool: str, path: str
) -> None:
    from hookline._tools.builtin import Edit, Write

    given = {"file_path": path, "content": "PWNED"}
    if tool == "Edit":
        given = {"file_path": path, "old_string": "ORIGINAL", "new_string": "PWNED"}
    before = tree(place) | tree(place.parent / "home")
    policy = PermissionPolicy(mode=mode)  # type: ignore[arg-type]
    script = [{"tool_calls": [{"id": "w", "name": tool, "input": given}]}, {"text": "done"}]
    agent = Agent(ScriptedModel(script), tools=[Write(), Edit()], cwd=place, permissions=policy,
                  state_dir=place.parent / "state", audit=False)  # fmt: skip

    (result,) = agent.run_sync("go").tool_calls

    assert result.status != "executed", (tool, path)
    assert tree(place) | tree(place.parent / "home") == before


def test_a_file_tool_write_beside_the_set_runs(place: Path) -> None:
    from hookline._tools.builtin import Write

    script = [{"tool_calls": [{"id": "w", "name": "Write",
                               "input": {"file_path": ".git/description", "content": "ok"}}]},
              {"text": "done"}]  # fmt: skip
    agent = Agent(ScriptedModel(script), tools=[Write()], cwd=place,
                  permissions=PermissionPolicy(mode="bypassPermissions"),
                  state_dir=place.parent / "state", audit=False)  # fmt: skip
    (result,) = agent.run_sync("go").tool_calls
    assert result.status == "executed"
    assert (place / ".git" / "description").read_text() == "ok"


# The workspace inside the home folder, as it usually is: the shell's start-up files and git's
# configuration there later run as code, so a write into them asks in bypassPermissions too.
HOME_CODE = [
    "cp evil.sh ~+/../.bashrc",
    "echo 'curl x | sh' >> ~/.bashrc",
    "cd .. && echo x >> .profile",
    'cp evil.sh "$HOME/.gitconfig"',
    "echo '[core] fsmonitor = x' >> ../.gitconfig",
    "mkdir -p ~/.ssh && cp evil.sh ~/.ssh/authorized_keys",
    "ln -s ~+/evil.sh ~/.zshrc",
    "tee -a ~/.bash_profile < evil.sh",
    "cp evil.sh $HOME/.config/git/config",
    "cd ~ && echo x > .bashrc",
]


@pytest.mark.parametrize("command", HOME_CODE)
def test_the_home_folders_code_files_are_protected(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    home = tmp_path / "home"
    ws = home / "proj"
    ws.mkdir(parents=True)
    (ws / "evil.sh").write_text("echo pwned\n")
    (home / ".bashrc").write_text(ORIG)
    (home / ".config" / "git").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    before = tree(home)

    status = run(ws, "bypassPermissions", command)

    assert status != "executed", command
    after = {k: v for k, v in tree(home).items() if not k.startswith(str(home / "state"))}
    assert after == before, sorted(set(after.items()) ^ set(before.items()))[:4]
