"""The outcomes table of docs/permissions.md, cell by cell, against the real policy: what deny,
ask and allow rules, the tiers, the modes and the sandbox do with a line that runs a file, one
with inline code hookline cannot read, and one whose code it reads. The doc cannot drift."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hookline._decisions import NO_DECISION
from hookline.permissions import PermissionPolicy, evaluate
from hookline.permissions._rules import PermissionRule
from hookline.permissions._sandbox.config import SandboxConfig

DOC = Path(__file__).resolve().parents[1] / "docs" / "permissions.md"
LINES = ["make test", 'python3 -c "$CODE"', "bash -c 'touch x'"]
NAMED = ["Bash(make:*)", "Bash(python3:*)", "Bash(touch:*)"]
PROGRAM = ["Bash(make:*)", "Bash(python3:*)", "Bash(bash:*)"]
WORDS = {"runs": "allow", "asks": "ask", "denied": "deny"}
SANDBOX = SandboxConfig(enabled=True, auto_allow_bash=True)


def _policy(mode: Any = "default", *, allow: tuple[str, ...] = (), ask: tuple[str, ...] = (),
            deny: tuple[str, ...] = (), **tiers: Any) -> PermissionPolicy:  # fmt: skip
    def sourced(texts: tuple[str, ...]) -> tuple[tuple[PermissionRule, str], ...]:
        return tuple((PermissionRule.parse(text), "project settings") for text in texts)

    return PermissionPolicy(sourced(allow), sourced(ask), sourced(deny), mode, **tiers)


#: Each row of the table, by its first cell: the policy for the line in column ``i``.
ROWS: dict[str, Callable[[int], PermissionPolicy]] = {
    "no rule: the tiers": lambda i: _policy(),
    "a deny rule on another program, `Bash(rm:*)`": lambda i: _policy(deny=("Bash(rm:*)",)),
    "a deny rule on what runs: `Bash(make:*)`, `Bash(python3:*)`, `Bash(touch:*)`": (
        lambda i: _policy(deny=(NAMED[i],))
    ),
    "an ask rule on another program, `Bash(rm:*)`": lambda i: _policy(ask=("Bash(rm:*)",)),
    "an allow rule on the program: `Bash(make:*)`, `Bash(python3:*)`, `Bash(bash:*)`": (
        lambda i: _policy(allow=(PROGRAM[i],))
    ),
    "allow rules on every command: the same, and `Bash(touch:*)` for the third": (
        lambda i: _policy(allow=(PROGRAM[i], *(("Bash(touch:*)",) if i == 2 else ())))
    ),
    'hookline\'s `"mutating": "allow"`': lambda i: _policy(mutating="allow"),
    "acceptEdits": lambda i: _policy("acceptEdits"),
    "plan": lambda i: _policy("plan"),
    "dontAsk": lambda i: _policy("dontAsk"),
    "bypassPermissions": lambda i: _policy("bypassPermissions"),
    "bypassPermissions and a deny rule `Bash(rm:*)`": (
        lambda i: _policy("bypassPermissions", deny=("Bash(rm:*)",))
    ),
    "the sandbox, `autoAllowBashIfSandboxed`": lambda i: _policy(sandbox=SANDBOX),
    "the sandbox and a deny rule `Bash(rm:*)`": (
        lambda i: _policy(deny=("Bash(rm:*)",), sandbox=SANDBOX)
    ),
    "the sandbox and an ask rule `Bash(rm:*)`": (
        lambda i: _policy(ask=("Bash(rm:*)",), sandbox=SANDBOX)
    ),
}


def table() -> list[list[str]]:
    text = DOC.read_text(encoding="utf-8")
    body = text.split("<!-- outcomes table -->", 1)[1].strip().split("\n\n", 1)[0]
    rows = [re.split(r"\s*\|\s*", line.strip().strip("|").strip()) for line in body.splitlines()]
    return rows[2:]


def test_the_table_has_every_row_once_and_three_columns() -> None:
    rows = table()
    assert [row[0] for row in rows] == list(ROWS)
    assert all(len(row) == 4 for row in rows)


@pytest.mark.parametrize(("label", "column"), [(r, c) for r in ROWS for c in range(3)])
def test_each_cell_is_what_the_policy_does(label: str, column: int) -> None:
    if "sandbox" in label and SandboxConfig(enabled=True).unavailable():
        pytest.skip("the sandbox cannot start here")
    cell = next(row for row in table() if row[0] == label)[column + 1]
    word, origin = re.fullmatch(r"(\w+) \((\w+)\)", cell).groups()  # type: ignore[union-attr]
    verdict = evaluate(
        ROWS[label](column),
        tool_name="Bash",
        tool_input={"command": LINES[column]},
        read_only=False,
        hook=NO_DECISION,
        cwd="/work/project",
        home="/home/dev",
    )
    assert (verdict.permission, verdict.origin) == (WORDS[word], origin), verdict
