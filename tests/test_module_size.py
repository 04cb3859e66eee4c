"""No source module runs past 400 lines: a module that grows past it holds more than one idea."""

from __future__ import annotations

from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "hookline"
LIMIT = 400


def lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def too_long(root: Path, *, limit: int = LIMIT, allowed: frozenset[str] = frozenset()) -> list[str]:
    """The modules under ``root`` longer than ``limit`` lines, but for ``allowed``."""
    return sorted(
        f"{path.relative_to(root).as_posix()}: {count} lines"
        for path in root.rglob("*.py")
        if path.relative_to(root).as_posix() not in allowed and (count := lines(path)) > limit
    )


def test_no_module_is_over_400_lines() -> None:
    assert too_long(SRC) == []


@pytest.mark.parametrize(("count", "over"), [(LIMIT, False), (LIMIT + 1, True)])
def test_the_check_names_a_module_one_line_over(tmp_path: Path, count: int, over: bool) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "long.py").write_text("x = 1\n" * count)
    (tmp_path / "pkg" / "allowed.py").write_text("x = 1\n" * (LIMIT + 50))
    found = too_long(tmp_path, allowed=frozenset({"pkg/allowed.py"}))
    assert found == ([f"pkg/long.py: {LIMIT + 1} lines"] if over else [])
