"""One call, one value: ``evaluate`` with keywords and ``evaluate_call`` with a CallContext
decide the same, and the context carries every fact of the call the keywords gave."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookline import Decision
from hookline.permissions import (
    CallContext,
    PermissionPolicy,
    PermissionRule,
    evaluate,
    evaluate_call,
)

CALLS = {
    "a read": ("Bash", {"command": "ls"}),
    "a delete of a denied folder": ("Bash", {"command": "rm -r secrets"}),
    "an edit": ("Write", {"file_path": "notes.txt", "content": "x"}),
    "a push": ("Bash", {"command": "git push --force origin main"}),
}


def policy() -> PermissionPolicy:
    deny = ((PermissionRule.parse("Bash(rm -r secrets)"), "project settings"),)
    return PermissionPolicy(mode="acceptEdits", deny=deny)


@pytest.mark.parametrize(("tool", "given"), CALLS.values(), ids=CALLS.keys())
def test_the_keyword_and_the_context_forms_decide_alike(
    tmp_path: Path, tool: str, given: dict[str, str]
) -> None:
    cwd = str(tmp_path)
    keywords = evaluate(
        policy(), tool_name=tool, tool_input=given, read_only=False, hook=Decision(), cwd=cwd
    )
    context = evaluate_call(policy(), CallContext(tool, given, cwd), Decision())
    assert context == keywords


def test_the_denied_delete_is_denied_by_its_rule(tmp_path: Path) -> None:
    asked = CallContext("Bash", {"command": "rm -r secrets"}, str(tmp_path))
    verdict = evaluate_call(policy(), asked, Decision())
    assert (verdict.permission, verdict.source) == (
        "deny",
        "rule:deny:Bash(rm -r secrets) (project settings)",
    )


def test_with_input_changes_the_input_only(tmp_path: Path) -> None:
    asked = CallContext("Bash", {"command": "ls"}, str(tmp_path), project_dir="/p", home="/h")
    again = asked.with_input({"command": "pwd"})
    assert again == CallContext("Bash", {"command": "pwd"}, str(tmp_path), False, "/p", "/h")
