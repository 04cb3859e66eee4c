"""git commands that write where the rules must prove first, end to end: an Agent with a
ScriptedModel makes one Bash call, with no approver (an ask is refused), and real git runs
whatever the permission layer lets through, in a throwaway repository.

- ``git remote VERB`` after ``-v``: git runs the verb (``set-url``, ``add``, ``rename``,
  ``remove`` rewrite ``.git/config``), so the line is not read-only, and in bypassPermissions
  it is a write into the protected set.
- a push whose destination may be a protected branch asks in bypassPermissions, forced or not.
- a git command that rewrites tracked files asks in bypassPermissions when the repository's
  index tracks a protected path within its reach (``.claude/settings.json``), a patch when it
  names one, ``clean`` when a protected entry is within its reach.

Each attack is shown twice: through hookline it is blocked and changes nothing (the work tree,
the config, the remote's ``main``); run straight by bash on the same repository it does change
it, so the row is a real attack. Controls show the same commands running where nothing
protected is within reach.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from hookline import Agent, ScriptedModel
from hookline._tools.builtin import Bash
from hookline.permissions import PermissionPolicy

_ENV = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t"}  # fmt: skip


def git(*args: str, cwd: Path) -> str:
    done = subprocess.run(["git", "-c", "init.defaultBranch=main", *args], cwd=cwd,
                          env={**os.environ, **_ENV}, capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.fixture(autouse=True)
def _git_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for key, value in _ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def run(ws: Path, mode: str, command: str) -> tuple[str, str]:
    """The status and output of one Bash call of ``command`` by a scripted model in ``mode``."""
    script = [{"tool_calls": [{"id": "b", "name": "Bash", "input": {"command": command}}]},
              {"text": "done"}]  # fmt: skip
    agent = Agent(ScriptedModel(script), tools=[Bash()], cwd=ws,
                  permissions=PermissionPolicy(mode=mode),  # type: ignore[arg-type]
                  state_dir=ws.parent / "state", audit=False)  # fmt: skip
    (result,) = agent.run_sync("go").tool_calls
    return result.status, str(result.output or "")


def bash(ws: Path, command: str) -> None:
    subprocess.run(["bash", "-c", command], cwd=ws, capture_output=True, timeout=60,
                   stdin=subprocess.DEVNULL, check=False)  # fmt: skip


def files(ws: Path) -> dict[str, str]:
    """Every file of the work tree (``.git`` left out) and ``.git/config``, with its text."""
    found = {
        str(p.relative_to(ws)): p.read_text(errors="replace")
        for p in ws.rglob("*")
        if p.is_file() and ".git" not in p.relative_to(ws).parts
    }
    return found | {".git/config": (ws / ".git" / "config").read_text()}  # fmt: skip


# -- git remote -----------------------------------------------------------------------------


@pytest.fixture
def remote_repo(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    git("init", "-q", cwd=ws)
    git("remote", "add", "origin", str(tmp_path / "origin.git"), cwd=ws)
    return ws


REMOTE_ATTACKS = [
    "git remote -v set-url origin /elsewhere.git",
    "git remote --verbose add evil /evil.git",
    "git remote -vv rename origin upstream",
    "git remote -v remove origin",
    "git remote -v set-branches origin main",
]


@pytest.mark.parametrize("mode", ["default", "bypassPermissions"])
@pytest.mark.parametrize("command", REMOTE_ATTACKS)
def test_a_remote_verb_after_an_option_is_no_read_and_changes_nothing(
    remote_repo: Path, mode: str, command: str
) -> None:
    before = files(remote_repo)
    status, _ = run(remote_repo, mode, command)
    assert status == "blocked", command
    assert files(remote_repo) == before
    bash(remote_repo, command)
    assert files(remote_repo) != before, f"git did not change its config: {command}"


@pytest.mark.parametrize(
    "command", ["git remote -v", "git remote show -n origin", "git remote get-url origin"]
)
def test_reading_the_remotes_runs_unasked(remote_repo: Path, command: str) -> None:
    before = files(remote_repo)
    status, output = run(remote_repo, "default", command)
    assert status == "executed" and "origin" in output, output
    assert files(remote_repo) == before


# -- pushes ---------------------------------------------------------------------------------


@pytest.fixture
def pushing(tmp_path: Path) -> Path:
    """A clone whose ``main`` is one commit ahead of its remote's (a push fast-forwards it),
    with ``feature-x`` one further, tracking ``origin/main``."""
    remote, ws = tmp_path / "remote.git", tmp_path / "ws"
    git("init", "-q", "--bare", str(remote), cwd=tmp_path)
    git("clone", "-q", str(remote), str(ws), cwd=tmp_path)
    git("commit", "-q", "--allow-empty", "-m", "first", cwd=ws)
    git("push", "-q", "-u", "origin", "main", cwd=ws)
    git("commit", "-q", "--allow-empty", "-m", "second", cwd=ws)
    git("branch", "feature-x", cwd=ws)
    git("tag", "v1", cwd=ws)
    return ws


def _remote_main(ws: Path) -> str:
    return git("rev-parse", "main", cwd=ws.parent / "remote.git")


PUSHES = [
    "git push origin main",
    "git push origin heads/main",
    "git push origin refs/heads/main",
    "git push origin HEAD:main",
    "git push origin feature-x:main",
    "git push origin HEAD",
    "git push origin",
    "git push",
    "git push --all origin",
    "git -C . push origin main",
]


@pytest.mark.parametrize("command", PUSHES)
def test_a_push_that_may_reach_main_asks_in_bypass_and_main_stays(
    pushing: Path, command: str
) -> None:
    main = _remote_main(pushing)
    status, _ = run(pushing, "bypassPermissions", command)
    assert status == "blocked", command
    assert _remote_main(pushing) == main
    bash(pushing, command)
    assert _remote_main(pushing) != main, f"the push did not move main: {command}"


@pytest.mark.parametrize(
    ("command", "ref"),
    [("git push origin feature-x", "refs/heads/feature-x"),
     ("git push -u origin feature-x:topic", "refs/heads/topic"),
     ("git push --tags", "refs/tags/v1")],
)  # fmt: skip
def test_a_push_to_a_literal_branch_that_is_not_protected_runs_in_bypass(
    pushing: Path, command: str, ref: str
) -> None:
    main = _remote_main(pushing)
    status, _ = run(pushing, "bypassPermissions", command)
    assert status == "executed", command
    assert git("show-ref", ref, cwd=pushing.parent / "remote.git")
    assert _remote_main(pushing) == main


# -- rewrites of tracked files --------------------------------------------------------------

PATCH = """\
diff --git a/.mcp.json b/.mcp.json
--- a/.mcp.json
+++ b/.mcp.json
@@ -1 +1 @@
-ORIGINAL
+PATCHED
"""


@pytest.fixture
def tracking(tmp_path: Path) -> Path:
    """A repository that tracks ``.claude/settings.json`` and ``.mcp.json``, both edited in
    the work tree since (``EDITED``); a branch ``other`` where the settings differ; an
    untracked ``.claude/settings.local.json``; a patch that rewrites ``.mcp.json``."""
    ws = tmp_path / "ws"
    (ws / ".claude").mkdir(parents=True)
    (ws / "src").mkdir()
    for name, text in ((".claude/settings.json", "ORIGINAL\n"), (".mcp.json", "ORIGINAL\n"),
                       ("a.txt", "one\n"), ("src/s.txt", "one\n")):  # fmt: skip
        (ws / name).write_text(text)
    git("init", "-q", cwd=ws)
    git("add", "-A", cwd=ws)
    git("commit", "-qm", "one", cwd=ws)
    git("checkout", "-qb", "other", cwd=ws)
    (ws / ".claude/settings.json").write_text("OTHER\n")
    git("commit", "-qam", "other", cwd=ws)
    git("checkout", "-q", "main", cwd=ws)
    (ws / "a.txt").write_text("two\n")
    (ws / "src/s.txt").write_text("two\n")
    git("commit", "-qam", "two", cwd=ws)
    (ws / ".claude/settings.json").write_text("EDITED\n")
    (ws / ".mcp.json").write_text("EDITED\n")
    (ws / ".claude/settings.local.json").write_text("LOCAL\n")
    (ws.parent / "mcp.patch").write_text(PATCH.replace("ORIGINAL", "EDITED"))
    return ws


REWRITES = [
    "git checkout -- .",
    "git checkout HEAD -- .claude",
    "git checkout HEAD~1 -- '*.json'",
    "git checkout -f other",
    "git switch -f other",
    "git restore .",
    "git restore --source=HEAD~1 -- .",
    "git reset --hard",
    "git -C . reset --hard HEAD~1",
    "git stash",
    "git stash push -- .claude",
    "git checkout-index -a -f",
    "git apply ../mcp.patch",
    "git clean -fdx",
    "git clean -f .claude",
]


@pytest.mark.parametrize("command", REWRITES)
def test_a_rewrite_that_may_reach_a_tracked_protected_file_asks_in_bypass(
    tracking: Path, command: str
) -> None:
    before = files(tracking)
    status, _ = run(tracking, "bypassPermissions", command)
    assert status == "blocked", command
    assert files(tracking) == before
    bash(tracking, command)
    after = files(tracking)
    changed = {k for k in {*before, *after} if before.get(k) != after.get(k)}
    assert changed & {".claude/settings.json", ".claude/settings.local.json", ".mcp.json"}, (
        f"the command did not reach a protected file: {command} changed {changed}"
    )


@pytest.mark.parametrize(
    ("command", "changed"),
    [("git checkout HEAD~1 -- a.txt src", {"a.txt", "src/s.txt"}),
     ("git restore --source=HEAD~1 src", {"src/s.txt"}), ("git checkout -b topic", set()),
     ("git reset HEAD~1", set()), ("git stash list", set()), ("git clean -n", set())],
)  # fmt: skip
def test_a_rewrite_whose_pathspec_misses_the_protected_set_runs_in_bypass(
    tracking: Path, command: str, changed: set[str]
) -> None:
    before = files(tracking)
    status, _ = run(tracking, "bypassPermissions", command)
    assert status == "executed", command
    after = files(tracking)
    assert {k for k in after if before.get(k) != after.get(k)} == changed


@pytest.fixture
def untracking(tmp_path: Path) -> Path:
    """A repository that tracks nothing protected: a branch ``other`` where ``a.txt`` differs,
    ``a.txt`` edited in the work tree since."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("one\n")
    git("init", "-q", cwd=ws)
    git("add", "-A", cwd=ws)
    git("commit", "-qm", "one", cwd=ws)
    git("checkout", "-qb", "other", cwd=ws)
    (ws / "a.txt").write_text("other\n")
    git("commit", "-qam", "other", cwd=ws)
    git("checkout", "-q", "main", cwd=ws)
    (ws / "a.txt").write_text("edited\n")
    return ws


@pytest.mark.parametrize(
    ("command", "text"),
    [("git checkout -f other", "other\n"), ("git reset --hard", "one\n"), ("git stash", "one\n"),
     ("git checkout -- .", "one\n")],
)  # fmt: skip
def test_a_rewrite_runs_in_bypass_when_the_index_tracks_nothing_protected(
    untracking: Path, command: str, text: str
) -> None:
    status, _ = run(untracking, "bypassPermissions", command)
    assert status == "executed", command
    assert (untracking / "a.txt").read_text() == text
