"""The ``hookline`` program tunes the garbage collector for its run and puts it back; the
library never touches it."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from hookline import Agent, Decision, HookRegistry
from hookline._cli import program_gc
from hookline._cli.main import main
from hookline.testing import ScriptedModel

HOOKS = """
import gc, json
from collections.abc import Iterator
from pathlib import Path

def register(registry):
    def seen(event):
        Path({out!r}).write_text(json.dumps([gc.get_threshold(), gc.get_freeze_count()]))
    registry.add("UserPromptSubmit", seen, name="gc_seen")
"""


@pytest.fixture
def untuned() -> Iterator[tuple[int, int, int]]:
    """The interpreter's settings as a test starts, restored whatever the test does."""
    before = gc.get_threshold()
    yield before
    gc.set_threshold(*before)
    gc.unfreeze()


def test_a_run_of_the_program_is_tuned_and_its_caller_gets_its_settings_back(
    tmp_path: Path, untuned: tuple[int, int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    out = tmp_path / "seen.json"
    (tmp_path / "hooks.py").write_text(HOOKS.format(out=str(out)))
    (tmp_path / "script.json").write_text(json.dumps({"turns": [{"text": "done"}]}))
    argv = ["run", "--cwd", str(tmp_path), "--model", f"scripted:{tmp_path / 'script.json'}",
            "--hooks", str(tmp_path / "hooks.py"), "--output-format", "json", "go"]  # fmt: skip
    with contextlib.redirect_stdout(io.StringIO()):
        main(argv)
    (young, *older), frozen = json.loads(out.read_text())
    assert young == program_gc.YOUNG and older == list(untuned[1:])
    assert frozen > 1000  # the start-up heap: modules, classes, the agent
    assert gc.get_threshold() == untuned and gc.get_freeze_count() == 0


def test_the_library_leaves_the_collector_as_it_found_it(
    tmp_path: Path, untuned: tuple[int, int, int]
) -> None:
    seen: list[tuple[tuple[int, int, int], int]] = []
    registry = HookRegistry()

    def record(event: object) -> Decision | None:
        seen.append((gc.get_threshold(), gc.get_freeze_count()))
        return None

    registry.add("UserPromptSubmit", record)
    agent = Agent(ScriptedModel([{"text": "done"}]), hooks=registry, cwd=tmp_path)

    async def run() -> None:
        try:
            await agent.run("go")
        finally:
            await agent.close()

    asyncio.run(run())
    assert seen == [(untuned, 0)]
