"""Shared test doubles: a recording hook, a recording tool, event and agent factories."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from hookline import Agent, FunctionTool, PreToolUse, ScriptedModel, tool
from hookline._events import Scope
from hookline.models._providers import PROVIDERS
from hookline.testing import RecordingHook

#: Marks each test unit or e2e and checks the mark as the test runs (tests/kinds.py says how).
pytest_plugins = ["kinds"]


class ToolSpy:
    """A typed custom tool ``name(text: str)`` that records each input it runs with."""

    def __init__(self, name: str = "echo", *, timeout: float | None = 120.0) -> None:
        self.inputs: list[dict[str, Any]] = []

        def body(text: str) -> str:
            self.inputs.append({"text": text})
            return f"echo: {text}"

        self.tool: FunctionTool = tool(body, name=name, timeout=timeout)


@pytest.fixture(autouse=True)
def _no_settings_from_this_machine(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every test (and every process it starts) gets an empty home, managed-settings folder
    and machine root for the other hosts' managed files, so the developer's or CI's own
    ~/.claude, /etc/claude-code and /etc/codex never leak in, nor are written."""
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("home")))
    monkeypatch.setenv("HOOKLINE_MANAGED_SETTINGS_DIR", str(tmp_path_factory.mktemp("managed")))
    monkeypatch.setenv("HOOKLINE_MANAGED_ROOT", str(tmp_path_factory.mktemp("machine")))
    monkeypatch.delenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH", raising=False)
    for provider in PROVIDERS:  # nor a model key: `hookline run` must never reach a paid API
        for name in (provider.key_var, provider.url_var, provider.model_var):
            monkeypatch.delenv(name, raising=False)


#: The machine's own hook files ``hookline install --scope managed`` writes (on Linux).
MACHINE_FILES = tuple(
    Path(path)
    for path in (
        "/etc/claude-code/managed-settings.json",
        "/etc/codex/hooks.json",
        "/etc/gemini-cli/settings.json",
        "/etc/cursor/hooks.json",
    )
)


@pytest.fixture(autouse=True, scope="session")
def _the_machines_files_stay_as_they_were() -> Iterator[None]:
    """No test writes the machine's managed files (a test or a docs example run without
    ``$HOOKLINE_MANAGED_ROOT`` would, as root, and every later run of the real hosts here
    would then post to a server that is not there)."""
    before = {path: _stamp(path) for path in MACHINE_FILES}
    yield
    changed = [str(path) for path in MACHINE_FILES if _stamp(path) != before[path]]
    assert not changed, f"the suite wrote the machine's own hook files: {changed}"


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size


@pytest.fixture
def recorder() -> type[RecordingHook]:
    """``recorder(answer)`` makes a recording hook."""
    return RecordingHook


@pytest.fixture
def spy() -> type[ToolSpy]:
    """``spy(name)`` makes a recording tool; pass ``spy(...).tool`` to the agent."""
    return ToolSpy


@pytest.fixture
def scope(tmp_path: Path) -> Scope:
    return Scope("sess-1", str(tmp_path / "transcript.jsonl"), str(tmp_path))


@pytest.fixture
def pre_tool_use(scope: Scope) -> Callable[..., PreToolUse]:
    """``pre_tool_use("Bash", command="ls")``: a PreToolUse event for that call."""

    def make(tool_name: str, **tool_input: Any) -> PreToolUse:
        return scope.event(PreToolUse, tool_name=tool_name, tool_input=tool_input, tool_use_id="t1")

    return make


@pytest.fixture
def use() -> Callable[..., dict[str, Any]]:
    """``use("echo", text="hi")``: a script turn that calls that tool (id ``toolu_echo``)."""

    def turn(tool_name: str, **tool_input: Any) -> dict[str, Any]:
        call = {"id": f"toolu_{tool_name}", "name": tool_name, "input": tool_input}
        return {"tool_calls": [call]}

    return turn


@pytest.fixture
def agent_with(tmp_path: Path) -> Callable[..., Agent]:
    """``agent_with(script, tools, **options)``: an agent on a ScriptedModel, working in tmp_path.

    ``agent.run_sync(prompt)`` runs it and closes the session (SessionEnd).
    """

    def make(script: list[dict[str, Any]], tools: list[Any], **options: Any) -> Agent:
        return Agent(ScriptedModel(script), tools=tools, cwd=tmp_path, **options)

    return make
