"""An outsider's pass over the default mode with a ``Read(./.env)`` deny rule: code in what
looks like data, programs that write or run through options, runners, a failed ``cd``, and reads
of the secret by other spellings. Each line is refused: no file it would create appears, and the
secret's canary never reaches the model."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import pytest

from hookline import Agent, ScriptedModel
from hookline.permissions import PermissionPolicy
from hookline.permissions._rules import PermissionRule

CANARY = "SECRETCANARY"
LINES = [
    "x='a[$(touch S1)]'; echo $((x))",
    "printf -v 'a[$(touch S2)]' x",
    "x='$(touch S3)'; echo ${x@P}",
    "git diff-tree --output=S4 HEAD",
    "find . -newer f.txt -fprint S5",
    "sort -o S6 f.txt",
    "awk 'BEGIN{system(\"touch S7\")}'",
    "sed -n '1w S8' f.txt",
    "rg --pre 'touch' S9 .",
    "git -c diff.external='touch S10' diff",
    "git grep --open-files-in-pager='touch S11' x",
    "man -P 'touch S12' ls",
    "env -S 'touch S13'",
    "tar -tf t.tar --to-command='touch S14'",
    "cat .en?",
    "du --files0-from=.env",
    "wc --files0-from=.env",
    "diff --to-file=.env f.txt",
    "head -c 100 -- .e*",
    "grep -f .env f.txt",
    "sort --files0-from=.env",
    "cut -f1 < .e''nv",
    "ls $(touch S15)",
    "test -v 'a[$(touch S16)]'",
    "[[ a -eq 'a[$(touch S17)]' ]]",
    "declare -n r='a[$(touch S18)]'; echo $r",
    "read -r 'a[$(touch S19)]' < f.txt",
    "cd nope 2>/dev/null; git status --porcelain > /dev/null",
    "git ls-remote --upload-pack='touch S20' .",
    "git log --output=S21",
    "true && : > S22",
    "echo hi | xargs -I{} touch S23",
    "find . -exec touch S24 \\;",
    "timeout 5 touch S25",
    "nice -n 1 touch S26",
    "command touch S27",
    "builtin eval 'touch S28'",
    "exec 3>S29",
    "echo > >(touch S30)",
    "cat <(touch S31)",
]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    setup = (
        f"git init -q . && echo hi > f.txt && echo {CANARY} > .env && git add f.txt && "
        "git -c user.email=a@b -c user.name=a commit -qm x && tar -cf t.tar f.txt"
    )
    subprocess.run(setup, shell=True, check=True, cwd=tmp_path)
    return tmp_path


@pytest.mark.parametrize("line", LINES)
def test_an_outsiders_line_is_refused_and_leaves_nothing(workspace: Path, line: str) -> None:
    before = {p.name for p in workspace.iterdir()}
    deny = ((PermissionRule.parse("Read(./.env)"), "test"),)
    agent = Agent(ScriptedModel([]), cwd=workspace, permissions=PermissionPolicy(deny=deny))
    result = asyncio.run(agent.call_tool("Bash", {"command": line}))
    made = {p.name for p in workspace.iterdir()} - before - {".hookline"}
    assert made == set(), (line, result.status)  # the sentinel it would write is absent
    assert CANARY not in (result.content or "")
    assert result.status == "blocked", result.content
