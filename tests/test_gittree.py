"""What a git command rewrites in the work tree (``gittree.rewrite``), and what the index of a
real repository tracks, read without git (``gitindex``): every index format git writes, each
compared with ``git ls-files`` on the same repository."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

import hookline.permissions._gitindex as gitindex
import hookline.permissions._gittree as gittree
from hookline.permissions.bash._words import literal

_ENV = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}

WHOLE, NOTHING = "whole", "nothing"
# (the words after `git`, what it rewrites: WHOLE, NOTHING, the pathspecs, or "patch:...")
# fmt: off
ROWS = [
    ("checkout main", WHOLE), ("checkout -b topic", NOTHING), ("checkout -b topic main", WHOLE),
    ("checkout -- a b", "a b"), ("checkout HEAD~1 -- src", "src"), ("checkout -f", WHOLE),
    ("checkout --frob -- a", "a"), ("checkout --frob", WHOLE),
    ("switch -c topic", NOTHING), ("switch main", WHOLE), ("switch --orphan x", WHOLE),
    ("restore a", "a"), ("restore --staged a", NOTHING), ("restore -S -W a", "a"),
    ("restore --source HEAD~1 a", "a"), ("restore -s HEAD~1 -- a", "a"),
    ("restore --frob a", WHOLE), ("restore --pathspec-from-file=list", WHOLE),
    ("reset", NOTHING), ("reset HEAD~1 -- a", NOTHING), ("reset --hard", WHOLE),
    ("reset --keep HEAD~1", WHOLE), ("reset --merge", WHOLE),
    ("stash list", NOTHING), ("stash show -p", NOTHING), ("stash drop", NOTHING),
    ("stash", WHOLE), ("stash -u", "untracked"), ("stash push -m msg -- a", "a"),
    ("stash push -m a b", "b"), ("stash pop", WHOLE), ("stash apply stash@{1}", WHOLE),
    ("rm a", "a"), ("rm -r --cached .", NOTHING), ("mv a b", "a b"),
    ("clean -n", NOTHING), ("clean -fdn", NOTHING), ("clean -fd", "untracked"),
    ("clean -fd -e keep", "untracked"), ("clean -f sub", "untracked:sub"),
    ("apply p.diff", "patch:p.diff"), ("apply --check p.diff", NOTHING),
    ("apply --cached p.diff", NOTHING), ("apply --stat --apply p.diff", "patch:p.diff"),
    ("apply", "patch:stdin"), ("apply --directory=x p.diff", "patch:stdin"),
    ("am", "patch:stdin"), ("am mbox", "patch:mbox"), ("am --abort", WHOLE),
    ("am --continue", "patch:stdin"),
    ("checkout-index -a -f", WHOLE), ("checkout-index -f -- a", "a"),
    ("read-tree HEAD", NOTHING), ("read-tree -u -m HEAD", WHOLE),
    ("bisect log", NOTHING), ("bisect start", WHOLE),
    ("merge topic", WHOLE), ("pull", WHOLE), ("cherry-pick x", WHOLE), ("revert x", WHOLE),
    ("rebase main", WHOLE), ("sparse-checkout set src", WHOLE),
    ("status", NOTHING), ("commit -am x", NOTHING), ("add .", NOTHING),
]
# fmt: on


def _shown(found: gittree.Rewrite | None) -> str:
    if found is None:
        return NOTHING
    if found.patch != ():
        return "patch:" + (
            " ".join(w.value or "?" for w in found.patch) if found.patch else "stdin"
        )
    if found.untracked:
        return "untracked" + (":" + " ".join(w.value or "?" for w in found.paths)
                              if found.paths else "")  # fmt: skip
    return WHOLE if found.paths is None else " ".join(w.value or "?" for w in found.paths)


@pytest.mark.parametrize(("words", "expected"), ROWS)
def test_what_a_git_command_rewrites(words: str, expected: str) -> None:
    _, found = gittree.rewrite([literal(w) for w in words.split()])
    assert _shown(found) == expected


def _repo(path: Path, *init: str) -> Path:
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", *init, str(path)], env=_ENV, check=True)
    (path / ".claude").mkdir()
    (path / ".claude" / "settings.json").write_text("{}")
    (path / "deep" / "er").mkdir(parents=True)
    for index in range(40):
        (path / "deep" / "er" / f"f{index}-{'x' * index}.txt").write_text(str(index))
    (path / "ü name.txt").write_text("u")
    subprocess.run(["git", "-C", str(path), "add", "-A"], env=_ENV, check=True)
    return path


def _ls_files(path: Path) -> list[str]:
    done = subprocess.run(["git", "-C", str(path), "-c", "core.quotepath=off", "ls-files", "-z"],
                          env=_ENV, capture_output=True, check=True)  # fmt: skip
    return sorted(p for p in done.stdout.decode().split("\0") if p)


@pytest.mark.parametrize(
    ("init", "after"),
    [((), ()), ((), ("update-index", "--index-version", "4")),
     (("--object-format=sha256",), ()), ((), ("update-index", "--index-version", "3"))],
    ids=["v2", "v4", "sha256", "v3"],
)  # fmt: skip
def test_the_index_reads_as_git_ls_files_does(
    tmp_path: Path, init: tuple[str, ...], after: tuple[str, ...]
) -> None:
    repo = _repo(tmp_path / "r", *init)
    if after:
        subprocess.run(["git", "-C", str(repo), *after], env=_ENV, check=True)
    found = gitindex.repository(str(repo / "deep" / "er"))
    assert found is not None and found.top == str(repo)
    paths = gitindex.tracked(found.index)
    assert paths is not None and sorted(paths) == _ls_files(repo)


def test_a_split_index_or_a_broken_one_cannot_be_read(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "r")
    subprocess.run(["git", "-C", str(repo), "update-index", "--split-index"], env=_ENV, check=True)
    assert gitindex.tracked(str(repo / ".git" / "index")) is None
    broken = tmp_path / "broken"
    broken.write_bytes(b"DIRC\0\0\0\2\0\0\0\5" + b"\0" * 30)
    assert gitindex.tracked(str(broken)) is None
    assert gitindex.tracked(str(tmp_path / "none")) == ()


def test_a_linked_worktree_has_an_index_of_its_own(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "r")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "commit", "-qm", "x"], env=_ENV, check=True)
    subprocess.run([*git, "worktree", "add", "-q", str(tmp_path / "wt")], env=_ENV, check=True)
    found = gitindex.repository(str(tmp_path / "wt"))
    assert found is not None and found.top == str(tmp_path / "wt")
    assert found.index.endswith("/worktrees/wt/index")
    paths = gitindex.tracked(found.index)
    assert paths is not None and ".claude/settings.json" in paths
