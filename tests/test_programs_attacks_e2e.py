"""Read-only programs with options that run code or write, and programs that run other programs,
attacked end to end: the real CLI in the bubblewrap jail of ``test_bash_attacks_e2e``, over a real
git repository, judged by a sentinel file each spelling would create.

Each row runs twice. First through ``hookline run`` in the jail: the call must be blocked (not
auto-allowed in default mode; refused by the deny rule in bypassPermissions) and the sentinel
absent. Then the same line with real Bash in the same workspace, no hookline: the sentinel must
now exist, so the spelling is known to do what the row says it does.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from test_bash_attacks_e2e import BWRAP, SETTINGS, Jail, jail  # noqa: F401 (the fixture)

pytestmark = pytest.mark.skipif(BWRAP is None, reason="bwrap is missing")

RUNNERS = ["Bash(git:*)", "Bash(flock:*)", "Bash(xargs:*)", "Bash(python3:*)", "Bash(awk:*)",
           "Bash(sed:*)"]  # fmt: skip
SETTINGS.update(
    {
        "programs-deny-push": {"permissions": {"deny": ["Bash(git push:*)"]}},
        "programs-allow-runners": {"permissions": {"allow": RUNNERS}},
    }
)
PUSHED = "@WS@/remote.git/refs/heads/main"

# (mode, settings, command, the file it would create)
# fmt: off
ATTACKS = [
    # read-only programs with options that run code or write (default mode, no rules)
    ("default", "none", "git ls-remote --upload-pack='touch @S@' .", "@S@"),
    ("default", "none", "git ls-remote --upload-p='touch @S@' .", "@S@"),
    ("default", "none", "git diff-tree --output=@S@ HEAD", "@S@"),
    ("default", "none", "git diff-tree -p HEAD~1 HEAD --output @S@", "@S@"),
    ("default", "none", "git log --output=@S@ -1 --oneline", "@S@"),
    ("default", "none", "git rev-list --output=@S@ HEAD", "@S@"),
    ("default", "none", "git diff-index --output=@S@ HEAD", "@S@"),
    ("default", "none", "git diff-files --output=@S@", "@S@"),
    ("default", "none", "git blame --output=@S@ a.txt", "@S@"),
    ("default", "none", "git reflog --output=@S@", "@S@"),
    ("default", "none", "git --no-pager show --output=@S@", "@S@"),
    ("default", "none", "git --no-pager -c core.fsmonitor='touch @S@' status", "@S@"),
    ("default", "none", "git -C . -c core.fsmonitor='touch @S@' status", "@S@"),
    ("default", "none", "git -c alias.hi='!touch @S@' hi", "@S@"),
    ("default", "none", "git grep --open-files-in-pager='touch @S@' a", "@S@"),
    ("default", "none", "git grep -O'touch @S@' a", "@S@"),
    ("default", "none", "find . -maxdepth 0 -fprint @S@", "@S@"),
    ("default", "none", "find . -maxdepth 0 -fls @S@ | cat", "@S@"),
    ("default", "none", "sort -o @S@ a.txt", "@S@"),
    ("default", "none", "sort --out=@S@ a.txt", "@S@"),
    ("default", "none", "LC_ALL=C GIT_TRACE=@S@ git status", "@S@"),
    # programs that run other programs
    ("default", "none", "flock @WS@/lock touch @S@", "@S@"),
    ("default", "none", "flock @WS@/lock -c 'touch @S@'", "@S@"),
    ("default", "none", "script -qc 'touch @S@' /dev/null", "@S@"),
    ("default", "none", "echo @S@ | xargs -I{} touch {}", "@S@"),
    ("default", "none", "python3 -c \"open('@S@','w')\"", "@S@"),
    ("default", "none", "perl -e 'open(F,\">@S@\")'", "@S@"),
    ("default", "none", "awk 'BEGIN{system(\"touch @S@\")}'", "@S@"),
    ("default", "none", "awk 'BEGIN{print \"\" > \"@S@\"}'", "@S@"),
    ("default", "none", "sed -n '1w @S@' a.txt", "@S@"),
    ("default", "none", "git rebase --root -x 'touch @S@'", "@S@"),
    ("default", "none", "make --eval='$(shell touch @S@)' -f /dev/null", "@S@"),
    ("default", "none", "node -e \"require('fs').writeFileSync('@S@','')\"", "@S@"),
    ("default", "none", "strace -o /dev/null touch @S@", "@S@"),
    ("default", "none", "git difftool --extcmd='touch @S@' --no-prompt HEAD~1", "@S@"),
    # an allow rule on the runner is no proof for what it runs
    ("default", "programs-allow-runners", "git ls-remote --upload-pack='touch @S@' .", "@S@"),
    ("default", "programs-allow-runners", "flock @WS@/lock touch @S@", "@S@"),
    ("default", "programs-allow-runners", "echo @S@ | xargs -I{} touch {}", "@S@"),
    ("default", "programs-allow-runners", "python3 -c \"open('@S@','w')\"", "@S@"),
    ("default", "programs-allow-runners", "awk 'BEGIN{system(\"touch @S@\")}'", "@S@"),
    ("default", "programs-allow-runners", "sed -n '1w @S@' a.txt", "@S@"),
    # deny rules hold behind git's global options and inside runners, in bypassPermissions
    ("bypassPermissions", "programs-deny-push", "git -C . push remote.git main", PUSHED),
    ("bypassPermissions", "programs-deny-push", "git --no-pager push remote.git main", PUSHED),
    ("bypassPermissions", "programs-deny-push", "git -c color.ui=never push remote.git main",
     PUSHED),
    ("bypassPermissions", "programs-deny-push", "git --git-dir=.git push remote.git main",
     PUSHED),
    ("bypassPermissions", "deny-touch", "flock @WS@/lock touch @S@", "@S@"),
    ("bypassPermissions", "deny-touch", "git ls-remote --upload-pack='touch @S@' .", "@S@"),
    ("bypassPermissions", "deny-touch", "git rebase --root -x 'touch @S@'", "@S@"),
    ("bypassPermissions", "deny-touch", "script -qc 'touch @S@' /dev/null", "@S@"),
    ("bypassPermissions", "deny-touch", "git -c alias.hi='!touch @S@' hi", "@S@"),
    ("bypassPermissions", "deny-touch", "python3 -c \"open('@S@','w')\"", "@S@"),
    # runners read with their real option syntax: the word after an option is not its value
    # when the option takes none, or takes it attached only
    ("bypassPermissions", "deny-touch", "prlimit --nofile touch @S@", "@S@"),
    ("bypassPermissions", "deny-touch", "strace -A -o /dev/null touch @S@", "@S@"),
    ("bypassPermissions", "deny-touch", "script -qec'touch @S@' /dev/null", "@S@"),
    ("bypassPermissions", "deny-touch", "script --comm='touch @S@' -q /dev/null", "@S@"),
    ("bypassPermissions", "deny-touch", "script /dev/null -qc 'touch @S@'", "@S@"),
    ("bypassPermissions", "deny-touch", "setarch -R touch @S@", "@S@"),
    ("bypassPermissions", "deny-touch", "setarch x86_64 -R touch @S@", "@S@"),
    ("bypassPermissions", "deny-touch", "chrt --other 0 touch @S@", "@S@"),
    ("bypassPermissions", "deny-touch", "ionice -c 3 -t touch @S@", "@S@"),
    ("bypassPermissions", "deny-touch", "stdbuf --output=L touch @S@", "@S@"),
    ("bypassPermissions", "deny-touch", "setsid -w touch @S@", "@S@"),
    ("bypassPermissions", "deny-touch", "time -p touch @S@", "@S@"),
    ("default", "none", "prlimit --nofile touch @S@", "@S@"),
]
# fmt: on


@pytest.fixture
def repo(jail: Jail) -> Jail:  # noqa: F811 (the imported fixture)
    """The jail's workspace as a real git repository (two commits of a.txt) with a bare remote."""
    ws = jail.ws
    subprocess.run(["rm", "-rf", str(ws / ".git")], check=True)
    env = {**os.environ, "HOME": str(jail.home), "GIT_CONFIG_NOSYSTEM": "1"}
    for argv in (
        ["git", "init", "-q", "-b", "main", "."],
        ["git", "config", "user.email", "a@example.com"],
        ["git", "config", "user.name", "a"],
        ["git", "add", "a.txt"],
        ["git", "commit", "-qm", "one"],
        ["git", "init", "-q", "--bare", "remote.git"],
    ):
        subprocess.run(argv, cwd=ws, env=env, check=True)
    (ws / "a.txt").write_text("a\nb\n")
    subprocess.run(["git", "commit", "-qam", "two"], cwd=ws, env=env, check=True)
    return jail


@pytest.mark.parametrize(
    ("mode", "settings", "command", "created"),
    [pytest.param(*row, id=" | ".join(row[:3])) for row in ATTACKS],
)
def test_the_spelling_is_blocked_and_would_have_written(
    repo: Jail, mode: str, settings: str, command: str, created: str
) -> None:
    line, target = repo.fill(command), Path(repo.fill(created))
    call = repo.run(mode, settings, line)
    assert call["status"] == "blocked", call
    assert not target.exists(), f"{target} was created: {call}"
    env = {**os.environ, "HOME": str(repo.home), "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["bash", "-c", line], cwd=repo.ws, env=env, stdin=subprocess.DEVNULL,
                   capture_output=True, timeout=60, check=False)  # fmt: skip
    assert target.exists(), f"the spelling did not create {target}: the row proves nothing"


@pytest.mark.parametrize(
    "command",
    ["git status", "git log --oneline -5", "git diff HEAD~1 --stat", "git show HEAD:a.txt",
     "ls -la | grep a", "cat a.txt | sort | uniq -c", "find . -name '*.txt' -not -path './.git/*'",
     "git -C . --no-pager log -1", "grep -n a *.txt"],
)  # fmt: skip
def test_everyday_reads_run_unasked_in_default_mode(repo: Jail, command: str) -> None:
    call = repo.run("default", "none", command)
    assert call["status"] == "executed", call
    assert call["output"], call


def test_a_repository_named_by_hand_is_not_read_only(repo: Jail) -> None:
    """A folder written as a git directory (no `.git` in its name, so not protected) whose
    settings name an fsmonitor: `git --git-dir=it --work-tree=. status` would run it."""
    fake = repo.ws / "notgit"
    for folder in ("objects", "refs"):
        (fake / folder).mkdir(parents=True)
    (fake / "HEAD").write_text("ref: refs/heads/main\n")
    (fake / "config").write_text(f"[core]\n\tfsmonitor = touch {repo.sentinel}\n")
    line = "git --git-dir=notgit --work-tree=. status"
    call = repo.run("default", "none", line)
    assert call["status"] == "blocked", call
    assert not repo.sentinel.exists()
    env = {**os.environ, "HOME": str(repo.home), "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["bash", "-c", line], cwd=repo.ws, env=env, capture_output=True, check=False)
    assert repo.sentinel.exists(), "the spelling did not run the fsmonitor: the test proves nothing"
