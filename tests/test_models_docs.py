"""Every Python example in docs/models.md runs as it is written, and its own asserts hold."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parent.parent / "docs" / "models.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```", DOC.read_text(), flags=re.MULTILINE | re.DOTALL)


def test_the_page_has_its_examples() -> None:
    assert len(BLOCKS) == 4
    assert any("class LookThenAnswer" in block for block in BLOCKS)  # the ten-line client


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i + 1}" for i in range(len(BLOCKS))])
def test_an_example_runs(code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # an example's agent writes its state where it runs
    exec(compile(code, str(DOC), "exec"), {"__name__": "models_doc_example"})
