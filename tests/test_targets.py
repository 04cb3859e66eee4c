"""Where the words of a parsed Bash command point: folders, patterns, globs, real paths."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from hookline.permissions import targets
from hookline.permissions.bash import analyze


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("rm x", "/w/x"), ("rm ~/x", "/h/x"), ('rm "$HOME"/x', "/h/x"), ("rm '~/x'", "/w/~/x"),
        ("rm ../x", "/x"), ("cd / && rm x", "/x"), ("cd sub && rm ../x", "/w/x"),
        ("cd ~ && rm x", "/h/x"), ("rm /a/./b/", "/a/b"), ("rm '*'", "/w/[*]"), ("rm *", "/w/*"),
    ],
)  # fmt: skip
def test_a_word_becomes_an_absolute_pattern_with_quoted_globs_escaped(
    line: str, expected: str
) -> None:
    command = analyze(line).commands[-1]
    where = targets.folder(command, "/w", "/h")
    assert where is not None

    assert targets.pattern(command.args[-1], where, "/h") == expected


def test_an_unknowable_cd_or_word_has_no_folder_or_pattern() -> None:
    command = analyze("cd $X && rm $Y").commands[-1]

    assert targets.folder(command, "/w", "/h") is None
    assert targets.pattern(command.args[0], "/w", "/h") is None


def test_globs_expand_against_the_file_system_and_stay_literal_without_matches(
    tmp_path: Path,
) -> None:
    for name in ("a.py", "b.py", ".hidden.py"):
        (tmp_path / name).write_text("")
    star, none = analyze("rm *.py nothing*").commands[0].args

    assert targets.expand(star, str(tmp_path), "/h") == sorted(
        str(tmp_path / n) for n in (".hidden.py", "a.py", "b.py")
    )
    assert targets.expand(none, str(tmp_path), "/h") == [str(tmp_path / "nothing*")]
    with pytest.raises(targets.TooManyMatches):
        targets.expand(star, str(tmp_path), "/h", limit=2)


def test_located_resolves_symlinks_and_paths_that_do_not_exist_yet(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    base = os.path.realpath(tmp_path)

    assert targets.located(str(tmp_path / "link" / "new" / "x")) == f"{base}/real/new/x"
    assert targets.itself(str(tmp_path / "link")) == f"{base}/link"


def test_located_says_why_for_a_loop_or_an_unreadable_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    loop = targets.located(str(tmp_path / "a" / "x"))
    assert isinstance(loop, targets.Unresolved) and "symlink loop" in loop.reason

    def refuse(path: str, strict: bool = False) -> str:
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(os.path, "realpath", refuse)
    locked = targets.located("/x/y")
    assert locked == targets.Unresolved("`/x/y` is in a folder hookline cannot read")
