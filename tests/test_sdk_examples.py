"""The Claude Agent SDK's own hooks example runs on hookline with only its imports changed.

The example (``hooks.py`` in the examples folder of the claude-agent-sdk sdist) is third-party
code, so it is not kept here: the test reads it out of the sdist (tests/sdk_sdist.py fetches
and checks it; without network the tests skip, except in CI), rewrites ``claude_agent_sdk`` to
``hookline`` in its two import lines and nothing else, and runs it as a program in a fresh
folder against tests/fake_claude_api.py.

What each example must show is what the real SDK shows: the same example, unchanged, run on
claude-agent-sdk 0.2.189 (its bundled Claude Code CLI 2.1.332) against the same fake API.
"""

from __future__ import annotations

import difflib
import os
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

import sdk_sdist
from fake_claude_api import ClaudeApi, fake_claude_api

#: The example, inside the sdist.
EXAMPLE = "examples/hooks.py"
#: The example's import lines and what they become.
IMPORTS = re.compile(r"^from claude_agent_sdk(\.types)? import", re.MULTILINE)
#: What a script ./foo.sh in the example's folder would create if it ran.
FOO_RAN = "foo-ran"


@pytest.fixture(scope="module")
def original() -> str:
    """The example as the SDK ships it."""
    return sdk_sdist.read(EXAMPLE)


def on_hookline(source: str) -> str:
    """The example with its imports from hookline: the one change a user makes."""
    return IMPORTS.sub(lambda found: f"from hookline{found[1] or ''} import", source)


@dataclass
class Ran:
    """One run of the example: its output and what the fake API was sent."""

    out: str
    err: str
    api: ClaudeApi

    def asked(self, text: str) -> list[str]:
        """The main-loop requests (those offering tools) whose last user turn holds ``text``."""
        return [prompt for prompt in self.api.prompts() if text in prompt]

    def refusals(self, text: str) -> list[str]:
        return [r.text for r in self.api.tool_results() if r.is_error and text in r.text]


@pytest.fixture
def run_example(original: str, tmp_path: Path) -> Callable[[str], Ran]:
    """``run_example(NAME)`` runs ``python hooks.py NAME`` in ``tmp_path`` on hookline."""
    (tmp_path / "hooks.py").write_text(on_hookline(original))
    foo = tmp_path / "foo.sh"
    foo.write_text(f'#!/bin/sh\ntouch "$(dirname "$0")/{FOO_RAN}"\n')
    foo.chmod(0o755)

    def run(name: str) -> Ran:
        with fake_claude_api() as api:
            env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
            env.update(
                HOME=str(tmp_path), ANTHROPIC_BASE_URL=api.url(""), ANTHROPIC_API_KEY="sk-fake"
            )
            done = subprocess.run(
                [sys.executable, "hooks.py", name],
                cwd=tmp_path,
                env=env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=300,
            )
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in done.stderr, done.stderr
        return Ran(done.stdout, done.stderr, api)

    return run


def test_only_the_import_lines_change(original: str) -> None:
    diff = list(difflib.unified_diff(original.splitlines(), on_hookline(original).splitlines()))
    removed = [line for line in diff[2:] if line.startswith("-")]
    added = [line for line in diff[2:] if line.startswith("+")]
    assert removed == [
        "-from claude_agent_sdk import ClaudeAgentOptions, ClaudeSDKClient",
        "-from claude_agent_sdk.types import (",
    ]
    assert added == [
        "+from hookline import ClaudeAgentOptions, ClaudeSDKClient",
        "+from hookline.types import (",
    ]
    assert "claude_agent_sdk" not in on_hookline(original)


def test_pretooluse_blocks_foo_sh_and_lets_the_echo_run(
    run_example: Callable[[str], Ran], tmp_path: Path
) -> None:
    ran = run_example("PreToolUse")
    assert ran.refusals("Command contains invalid pattern: foo.sh")
    assert not (tmp_path / FOO_RAN).exists()
    results = [r.text.strip() for r in ran.api.tool_results() if not r.is_error]
    assert results == ["Hello from hooks example!"]
    assert "Claude: Tool result: Hello from hooks example!" in ran.out
    assert "Blocked command: ./foo.sh --help" in ran.err


def test_userpromptsubmit_answer_for_another_event_stops_the_prompt(
    run_example: Callable[[str], Ran],
) -> None:
    """The hook answers ``hookEventName: "SessionStart"`` to a UserPromptSubmit event. Claude
    Code rejects that answer as an error of the session: the prompt never reaches the model,
    the result is an error naming the wrong event, and the example prints no reply."""
    ran = run_example("UserPromptSubmit")
    assert ran.asked("What's my favorite color?") == []
    assert "hot pink" not in str(ran.api.bodies())
    assert "Claude:" not in ran.out
    assert "Result ended" in ran.out


def test_posttooluse_is_not_called_for_a_failed_command(
    run_example: Callable[[str], Ran],
) -> None:
    """``ls /nonexistent_directory`` fails, so Claude Code fires PostToolUseFailure, not
    PostToolUse: the example's review never runs, and the model sees only the error."""
    ran = run_example("PostToolUse")
    assert ran.refusals("No such file or directory")
    assert "Claude: Tool result:" in ran.out
    sent = str(ran.api.bodies())
    assert "The command encountered an error" not in sent
    assert "Tool execution failed" not in sent


def test_decision_fields_refuse_the_important_file_and_write_the_other(
    run_example: Callable[[str], Ran], tmp_path: Path
) -> None:
    ran = run_example("DecisionFields")
    assert ran.refusals("Security policy blocks writes to important files")
    assert not (tmp_path / "important_config.txt").exists()
    assert (tmp_path / "regular_file.txt").read_text() == "test data"
    assert "Blocked Write to:" in ran.err


def test_continue_false_stops_the_run_after_the_echo(run_example: Callable[[str], Ran]) -> None:
    """The echo runs (the hook saw its output), then the run stops: the model is not asked
    again, so its output never reaches it."""
    ran = run_example("ContinueControl")
    assert "Critical error detected - stopping execution" in ran.err
    assert len(ran.asked("echo 'CRITICAL ERROR: system failure'")) == 1
    assert ran.api.tool_results() == []
    assert "Claude:" not in ran.out
    assert "Result ended" in ran.out


def test_all_examples_run_in_one_program(run_example: Callable[[str], Ran], tmp_path: Path) -> None:
    ran = run_example("all")
    headings = re.findall(r"^=== (.+) ===$", ran.out, re.MULTILINE)
    assert headings == [
        "PreToolUse Example",
        "UserPromptSubmit Example",
        "PostToolUse Example",
        "Permission Decision Example",
        "Continue/Stop Control Example",
    ]
    assert ran.refusals("foo.sh") and not (tmp_path / FOO_RAN).exists()
    assert ran.asked("What's my favorite color?") == []
    assert not (tmp_path / "important_config.txt").exists()
    assert (tmp_path / "regular_file.txt").read_text() == "test data"
    assert ran.out.count("Result ended") == 7
