"""``autoAllowBashIfSandboxed`` runs, inside the sandbox, a line hookline cannot read: no proof
is needed, because the sandbox is the boundary. Deny and ask rules still fail closed on such a
line, and the protected set and the dangerous tier still stop what they stop.

Each line is run for real by an agent whose scripted model makes one Bash call, with no one to
approve it; what came of it is judged by files on disk: a sentinel the line writes inside the
workspace (it ran) and one it tries to write in a folder next to it (the sandbox held).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hookline import Agent, ScriptedModel
from hookline.permissions import PermissionPolicy, PermissionRule
from hookline.permissions._sandbox.config import SandboxConfig

WHY_NOT = SandboxConfig(enabled=True).unavailable()
pytestmark = pytest.mark.skipif(WHY_NOT is not None, reason=f"no sandbox here: {WHY_NOT}")
#: Code hookline cannot read (a variable's value run by an interpreter, and by `eval`): it
#: writes `inside` in the workspace, then tries `outside`, next to it.
PYTHON = (
    'CODE=\'import sys\nopen("inside", "w").write("ran")\nopen(sys.argv[1], "w")\'; '
    'python3 -c "$CODE" {outside}'
)
EVAL = 'X="touch inside; touch {outside}"; eval "$X"'


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "outside").mkdir()
    (tmp_path / "ws").mkdir()
    return tmp_path / "ws"


def run(ws: Path, command: str, *, sandbox: bool = True, **rules: str) -> Any:
    """The one Bash call's result, the agent run with ``rules`` (deny=..., ask=...)."""
    parsed = {k: ((PermissionRule.parse(v), "project settings"),) for k, v in rules.items()}
    policy = PermissionPolicy(workspace=(str(ws),), **parsed)  # type: ignore[arg-type]
    call = {"id": "t1", "name": "Bash", "input": {"command": command}}
    config = SandboxConfig(enabled=True, auto_allow_bash=True) if sandbox else None
    agent = Agent(
        ScriptedModel([{"tool_calls": [call]}, {"text": "done"}]),
        cwd=ws,
        permissions=policy,
        sandbox=config,
    )
    (result,) = agent.run_sync("go").tool_calls
    return result


@pytest.mark.parametrize("line", [PYTHON, EVAL], ids=["python3 -c", "eval"])
def test_a_line_it_cannot_read_runs_inside_and_writes_nothing_outside(ws: Path, line: str) -> None:
    outside = ws.parent / "outside" / "sentinel"
    result = run(ws, line.format(outside=outside))
    assert (result.permission, result.origin) == ("allow", "sandbox"), result.reason
    assert (ws / "inside").exists()  # it ran
    assert not outside.exists()  # and the sandbox held
    assert result.status == "failed"  # the write outside failed, and said so


@pytest.mark.parametrize("line", [PYTHON, EVAL], ids=["python3 -c", "eval"])
@pytest.mark.parametrize("kind", ["deny", "ask"])
def test_deny_and_ask_rules_still_stop_it(ws: Path, line: str, kind: str) -> None:
    outside = ws.parent / "outside" / "sentinel"
    result = run(ws, line.format(outside=outside), **{kind: "Bash(rm:*)"})
    assert result.permission == "deny" and result.status == "blocked"
    assert "Bash(rm:*)" in (result.reason or "")
    assert not (ws / "inside").exists() and not outside.exists()


def test_without_the_sandbox_the_same_line_asks_and_nobody_answers(ws: Path) -> None:
    result = run(ws, EVAL.format(outside=ws.parent / "outside" / "x"), sandbox=False)
    assert result.status == "blocked" and "cannot be known" in (result.reason or "")
    assert not (ws / "inside").exists()


@pytest.mark.parametrize(
    ("line", "phrase"),
    [
        ('eval "$X"; rm -rf ~', "dangerous tier"),  # refused whatever runs it
        ('eval "$X"; rm -rf "$D"', "cannot be proven harmless"),  # asks: nobody answers
        ('eval "$X" > .claude/settings.json', "protected"),
    ],
)
def test_the_protected_set_and_the_dangerous_tier_still_stop_it(
    ws: Path, line: str, phrase: str
) -> None:
    (ws / ".claude").mkdir()
    result = run(ws, f"touch inside; {line}")
    assert result.status == "blocked" and phrase in (result.reason or ""), result.reason
    assert not (ws / "inside").exists()
