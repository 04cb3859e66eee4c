"""Bash lines acceptEdits can prove only edit the workspace, and protected folders a line writes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hookline.permissions._edits import protected_write, why_not_provable_edit
from hookline.permissions.bash import analyze


@pytest.fixture
def where(tmp_path: Path) -> dict[str, object]:
    """A workspace with files, `.git/`, `.claude/`, a symlink out, a symlink loop; a fake home."""
    root, home, outside = tmp_path / "ws", tmp_path / "home", tmp_path / "outside"
    for folder in (root / "src" / "pkg", root / ".git", root / ".claude", home, outside):
        folder.mkdir(parents=True)
    for name in ("a.txt", "src/b.py", "src/c.py", ".git/config", "src/pkg/d.py"):
        (root / name).write_text("x")
    (outside / "secret").write_text("x")
    (root / "out").symlink_to(outside)
    (root / "loop1").symlink_to(root / "loop2")
    (root / "loop2").symlink_to(root / "loop1")
    return {"cwd": str(root), "roots": (str(root),), "home": str(home)}


PROVABLE = [
    "mkdir -p build && touch build/x", "touch a.txt", "touch 'new file.txt'", "cp a.txt src/",
    "cp -r src lib", "cp -a src/b.py src/pkg/", "mv a.txt b.txt", "mv -f src/b.py src/pkg/",
    "rm src/*.py", "rm -f missing.txt", "rm -fv a.txt", "rmdir src/pkg", "chmod +x a.txt",
    "chmod -x a.txt", "chmod 644 src/*.py", "chmod u+rw,go-w a.txt", "mkdir -m 755 d",
    "mkdir -p new/deep/er", "cd src && touch e.py", "cd src && mv b.py ../b.py", "touch x && ls",
    "timeout 5 touch a.txt", "mkdir d 2>/dev/null", "touch -d yesterday a.txt", "cp -- a.txt b",
    "touch $HOME/../ws/z", "rm src/[bc].py", "touch src/nothing*",
]  # fmt: skip

NOT_PROVABLE = [
    ("npm test", "`npm` is not a file-editing program"),
    ("ln -s a.txt l", "`ln` is not a file-editing program"),
    ("install a.txt b", "`install` is not a file-editing program"),
    ("sed -i s/a/b/ a.txt", "`sed` is never provable: its `e` and `w` commands and `-i` can run "
                            "code or write anywhere"),
    ("sort -o out a.txt", "`sort -o` writes a file"),
    ("echo x > a.txt", "a redirect writes `a.txt`, which is not a file edit"),
    ("touch a > /tmp/motd", "a redirect writes `/tmp/motd`, which is not a file edit"),
    ("cp -t src a.txt", "`cp -t` takes a folder hookline cannot check"),
    ("cp --target-directory=src a.txt",
     "`cp --target-directory` takes a folder hookline cannot check"),
    ("mv -S .bak a b", "`mv -S` names backups by a suffix hookline cannot check"),
    ("cp -s a.txt l", "`cp -s` makes symlinks, which can point anywhere"),
    ("cp --sparse=always a b", "`cp --sparse` is an option hookline does not know"),
    ("touch -Z a", "`touch -Z` is an option hookline does not know"),
    ("rm -r src", "`rm -r` deletes recursively"),
    ("rm -Rf src", "`rm -R` deletes recursively"),
    ("rm --recursive src", "`rm --recursive` deletes recursively"),
    ("rmdir -p src/pkg", "`rmdir -p` removes the folders above it too"),
    ("chmod -R +x src", "`chmod -R` changes a whole tree"),
    ("chmod --reference=a.txt b", "`chmod --reference` reads a file hookline does not check"),
    ("touch ../x", "`../x` is outside the workspace"),
    ("touch /etc/x", "`/etc/x` is outside the workspace"),
    ("cp /etc/passwd a", "`/etc/passwd` is outside the workspace"),
    ("touch ~/x", "`~/x` is outside the workspace"),
    ("touch out/x", "`out/x` is outside the workspace"),
    ("rm out", "`out` is outside the workspace"),
    ("touch .", "`.` is the workspace root itself"),
    ("chmod 700 .", "`.` is the workspace root itself"),
    ("touch .git/x", "`.git/x` lies in .git, git's own folder, which holds no file edits"),
    ("cp a.txt .claude/settings.json",
     "`.claude/settings.json` lies in .claude, which is protected"),
    ("mv .git g", "`.git` lies in .git, which is protected"),
    ("touch src/.hookline/x", "`src/.hookline/x` lies in src/.hookline, which is protected"),
    ("rm *", "`*` lies in .claude, which is protected"),
    ("cp x ~+/../.bashrc", "`~+/../.bashrc` is outside the workspace"),
    ("touch ~-/x", "`~-/x` is only known at run time"),
    ("cd nope 2>/dev/null; cp a.txt ../.bashrc",
     "`cp` runs after a `cd` to a folder only known at run time"),
    ("touch $X", "`$X` is only known at run time"),
    ("touch \"$X/a\"", "`\"$X/a\"` is only known at run time"),
    ("touch $(date)", "`$(...)` runs another command"),
    ("cd $X && touch a", "`touch` runs after a `cd` to a folder only known at run time"),
    ("sudo touch a", "`sudo` runs another command"),
    ("xargs rm", "`rm` gets more arguments at run time (`xargs`, `find -exec +`)"),
    ("find . -exec rm {} +", "`find -exec` runs another command"),
    ("cd src; mv b.py ../b.py", "`mv` runs after a `cd` to a folder only known at run time"),
    ("$CMD a", "what runs cannot be known: the command name is a variable or substitution (`$CMD`):"
               " what runs is unknown"),
]  # fmt: skip


@pytest.mark.parametrize("line", PROVABLE)
def test_edits_inside_the_workspace_are_provable(line: str, where: dict[str, object]) -> None:
    assert why_not_provable_edit(analyze(line), **where) is None  # type: ignore[arg-type]


@pytest.mark.parametrize(("line", "reason"), NOT_PROVABLE)
def test_what_cannot_be_proven_is_named(line: str, reason: str, where: dict[str, object]) -> None:
    why = why_not_provable_edit(analyze(line), **where)  # type: ignore[arg-type]

    assert why is not None and why.replace(f"{where['cwd']}/", "") == reason


def test_a_symlink_loop_gives_a_reason_not_an_exception(where: dict[str, object]) -> None:
    why = why_not_provable_edit(analyze("touch loop1/x"), **where)  # type: ignore[arg-type]

    assert why is not None and why.endswith("loop1/x` goes through a symlink loop")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every folder")
def test_an_unreadable_folder_gives_a_reason(where: dict[str, object]) -> None:
    locked = Path(str(where["cwd"])) / "locked"
    (locked / "in").mkdir(parents=True)
    locked.chmod(0)
    try:
        why = why_not_provable_edit(analyze("touch locked/in/x"), **where)  # type: ignore[arg-type]
    finally:
        locked.chmod(0o755)
    assert why is not None and "cannot" in why


def test_a_glob_with_too_many_matches_is_not_provable(
    where: dict[str, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("hookline.permissions.targets.MAX_MATCHES", 1)

    why = why_not_provable_edit(analyze("rm src/*.py"), **where)  # type: ignore[arg-type]

    assert why == "`src/*.py` has too many matches (more than 1)"


PROTECTED = [
    ("echo x > .git/config", ".git/config"), ("git add .git/config", ".git/config"),
    ("sed -i s/a/b/ .claude/settings.json", ".claude"), ("dd if=x of=.git/hooks/y", ".git/hooks"),
    ("cp a.txt src/.hookline/x", "src/.hookline"), ("rm .g?t/config", ".git/config"),
    ("rm -rf *", ".claude"), ("cd src && touch ../.git/info/x", ".git/info"),
    ("cp x ~/.claude/", "~/.claude"), ("sudo tee .git/hooks/pre-commit", ".git/hooks"),
    ("cd $X && rm .git/x", "only run time knows"), ("echo > .mcp.json", ".mcp.json"),
    ("mv .git old", ".git"), ("> ~/.hookline/keys/state.key", "~/.hookline"),
    ("tee $F", "only run time knows"), ("cp x ~-/y", "only run time knows"),
    ('curl -o "$PWD/.git/config" u', "only run time knows"),
    ("wget -O.git/config u", ".git/config"), ("echo x > /proc/self/cwd/x", "through /proc"),
    ('scp h:x "$PWD/.claude/s"', "only run time knows"), ('git commit -m "$MSG"', None),
    ("cat <<EOF > .mcp.json\nx\nEOF", ".mcp.json"), ("cp --target-dir=.git/hooks x", ".git/hooks"),
    ("echo x > .git/HEAD", None), ("git commit -m msg", None), ("git status", None),
    ("cat .git/HEAD", None), ("ls .claude", None), ("grep -r x .git", None),
    ("touch a.txt", None), ("echo .git > notes", None), ("git log > /dev/null", None),
    ("cp a.txt src/", None), ("echo $X > out.txt", None), ("grep -o x a.txt", None),
    ("curl -o page.html u", None), ('docker run -v "$PWD:/app:ro" img', None),
    ('docker run -v "$PWD:/app" img', "only run time knows"),  # it may write .git/hooks
    ("docker run -v .:/app img", "changes `.` whole"), ("docker run -v ./src:/s img", None),
]  # fmt: skip


@pytest.mark.parametrize(("line", "expected"), PROTECTED)
def test_protected_write_names_what_a_line_may_write_into_the_protected_set(
    line: str, expected: str | None, where: dict[str, object]
) -> None:
    root, home = str(where["cwd"]), str(where["home"])

    found = protected_write(analyze(line), **where)  # type: ignore[arg-type]

    if expected is None:
        assert found is None
    else:
        assert found is not None
        assert expected in found.replace(f"{root}/", "").replace(home, "~")
