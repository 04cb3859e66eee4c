"""Codex CLI's hooks without a server: ``apply_patch`` read as the calls that make its changes
(``hookline._hosts.codex_patch``), and hookline's decisions worded as answers Codex reads
(``hookline._hosts.codex``).

Codex reads an answer strictly: an unknown field, or a decision it does not support for the
event, makes the hook "failed" and the tool runs. ``codex_reads`` below is that reading, from
Codex's hook output schemas and its output parser (``codex-rs/hooks``: a PreToolUse allow
needs an ``updatedInput``, ``ask`` is unsupported, a deny needs a reason, ``continue: false``
is unsupported before a tool; a PermissionRequest decision is ``behavior`` allow or deny with
an optional ``message`` and no ``updatedInput``). Every answer hookline gives must be read as
meant; none may be "failed".
"""

from __future__ import annotations

from typing import Any

import pytest

from hookline import Decision
from hookline._errors import ConfigError
from hookline._hosts import codex, codex_patch

_UNIVERSAL = {"continue", "stopReason", "suppressOutput", "systemMessage"}
_TOP = {
    "PreToolUse": _UNIVERSAL | {"decision", "reason", "hookSpecificOutput"},
    "PermissionRequest": _UNIVERSAL | {"hookSpecificOutput"},
    "PostToolUse": _UNIVERSAL | {"decision", "reason", "hookSpecificOutput"},
    "UserPromptSubmit": _UNIVERSAL | {"decision", "reason", "hookSpecificOutput"},
    "Stop": _UNIVERSAL | {"decision", "reason"},
    "SessionStart": _UNIVERSAL | {"hookSpecificOutput"},
}
_SPECIFIC = {
    "PreToolUse": {
        "hookEventName", "additionalContext", "permissionDecision", "permissionDecisionReason",
        "updatedInput",
    },
    "PermissionRequest": {"hookEventName", "decision"},
    "PostToolUse": {
        "hookEventName", "additionalContext", "updatedMCPToolOutput", "updatedToolOutput"
    },
    "UserPromptSubmit": {"hookEventName", "additionalContext"},
    "SessionStart": {"hookEventName", "additionalContext"},
}  # fmt: skip


def codex_reads(event: str, answer: dict[str, Any]) -> str:
    """What Codex does with ``answer`` to a hook of ``event``: "block", "rewrite", "allow"
    (PermissionRequest), "stop" or "pass"; "failed" when it cannot read it (the tool runs)."""
    specific = answer.get("hookSpecificOutput") or {}
    if set(answer) - _TOP[event] or set(specific) - _SPECIFIC.get(event, set()):
        return "failed"
    if specific and specific.get("hookEventName") != event:
        return "failed"
    if event in ("PreToolUse", "PermissionRequest") and (
        answer.get("continue") is False or "stopReason" in answer or answer.get("suppressOutput")
    ):
        return "failed"
    if event == "PreToolUse":
        return _pre_tool_use(specific)
    if event == "PermissionRequest":
        decision = specific.get("decision")
        if decision is None:
            return "pass"
        if set(decision) - {"behavior", "message"} or decision["behavior"] not in ("allow", "deny"):
            return "failed"
        return "allow" if decision["behavior"] == "allow" else "block"
    if answer.get("decision") == "block":
        return "block" if str(answer.get("reason", "")).strip() else "failed"
    return "stop" if answer.get("continue") is False else "pass"


def _pre_tool_use(specific: dict[str, Any]) -> str:
    permission = specific.get("permissionDecision")
    if permission == "deny":
        return "block" if str(specific.get("permissionDecisionReason", "")).strip() else "failed"
    if permission == "allow":
        return "rewrite" if specific.get("updatedInput") is not None else "failed"
    if permission is not None or "updatedInput" in specific:
        return "failed"
    return "failed" if "permissionDecisionReason" in specific else "pass"


DECISIONS = {
    "deny": Decision.deny("not here"),
    "deny without reason": Decision("deny"),
    "allow": Decision.allow("a rule allows it"),
    "ask": Decision.ask("a person decides"),
    "defer": Decision.defer("later"),
    "rewrite": Decision.rewrite({"command": "ls -a"}),
    "allow and rewrite": Decision.allow(updated_input={"command": "ls -a"}),
    "context": Decision.context("mind the tests"),
    "message": Decision.message("seen by the user"),
    "stop": Decision.stop("enough"),
    "new output": Decision.replace_output("[redacted]"),
}
#: What Codex must do with each decision before a tool runs.
BEFORE_A_TOOL = {
    "deny": "block",
    "deny without reason": "block",
    "allow": "pass",
    "ask": "block",
    "defer": "block",
    "rewrite": "rewrite",
    "allow and rewrite": "rewrite",
    "context": "pass",
    "message": "pass",
    "stop": "block",
    "new output": "pass",
}


@pytest.mark.parametrize("event", sorted(codex.EVENTS))
@pytest.mark.parametrize("name", sorted(DECISIONS))
def test_every_answer_is_one_codex_reads_none_makes_the_hook_fail(event: str, name: str) -> None:
    decision = codex.effective(event, DECISIONS[name])
    assert codex_reads(event, codex.answer(event, "Bash", decision)) != "failed"


@pytest.mark.parametrize(("name", "done"), sorted(BEFORE_A_TOOL.items()))
def test_before_a_tool_what_hookline_cannot_let_codex_ask_or_stop_is_refused(
    name: str, done: str
) -> None:
    decision = codex.effective("PreToolUse", DECISIONS[name])
    assert codex_reads("PreToolUse", codex.answer("PreToolUse", "Bash", decision)) == done


def test_an_ask_before_a_tool_is_refused_saying_how_to_let_it_through() -> None:
    decision = codex.effective("PreToolUse", Decision.ask("git push needs a person"))
    answer = codex.answer("PreToolUse", "Bash", decision)["hookSpecificOutput"]
    assert answer["permissionDecision"] == "deny"
    assert "git push needs a person" in answer["permissionDecisionReason"]
    assert "Codex cannot ask" in answer["permissionDecisionReason"]
    assert "break-glass" in answer["permissionDecisionReason"]


@pytest.mark.parametrize(
    ("decision", "done"),
    [
        (Decision.allow("touch is fine"), "allow"),
        (Decision.deny("no"), "block"),
        (Decision.ask("a person"), "pass"),  # Codex's own prompt asks
        (Decision.allow(updated_input={"command": "ls"}), "pass"),  # it cannot take a rewrite
        (Decision.stop("enough"), "block"),
    ],
)
def test_codexs_own_approval_prompt_is_answered_or_left_to_ask(
    decision: Decision, done: str
) -> None:
    effective = codex.effective("PermissionRequest", decision)
    assert (
        codex_reads("PermissionRequest", codex.answer("PermissionRequest", "Bash", effective))
        == done
    )


def test_a_new_output_goes_where_codex_reads_it_for_mcp_tools_and_its_own() -> None:
    new = Decision.replace_output("[redacted]")
    mcp = codex.answer("PostToolUse", "mcp__db__query", new)["hookSpecificOutput"]
    own = codex.answer("PostToolUse", "Bash", new)["hookSpecificOutput"]
    assert mcp["updatedMCPToolOutput"] == own["updatedToolOutput"] == "[redacted]"


def test_a_block_after_a_tool_or_on_a_prompt_or_stop_carries_its_reason() -> None:
    for event in ("PostToolUse", "UserPromptSubmit", "Stop"):
        answer = codex.answer(event, None, Decision.block("the tests have not run"))
        assert answer == {"decision": "block", "reason": "the tests have not run"}


def test_events_not_judged_are_left_alone_and_a_body_without_a_name_is_refused() -> None:
    assert codex.event_payload({"hook_event_name": "PostCompact", "cwd": "/w"}) is None
    with pytest.raises(ConfigError, match="hook_event_name"):
        codex.event_payload({"cwd": "/w"})


PATCH = """*** Begin Patch
*** Add File: docs/new.md
+# New
+text
*** Update File: src/app.py
*** Move to: src/main.py
@@ def main():
-    return 1
+    return 0
@@
 keep
+added
*** Delete File: /w/old.txt
*** End Patch
"""


def test_a_patch_is_judged_as_the_calls_that_make_its_changes() -> None:
    assert codex_patch.calls(PATCH, "/w") == [
        ("Write", {"file_path": "/w/docs/new.md", "content": "# New\ntext\n"}),
        (
            "Edit",
            {"file_path": "/w/src/app.py", "old_string": "    return 1\n",
             "new_string": "    return 0\n"},
        ),
        ("Edit", {"file_path": "/w/src/app.py", "old_string": "keep\n",
                  "new_string": "keep\nadded\n"}),
        ("Bash", {"command": "mv -- /w/src/app.py /w/src/main.py"}),
        ("Bash", {"command": "rm -- /w/old.txt"}),
    ]  # fmt: skip


def test_paths_are_joined_to_the_folder_as_codex_joins_them_not_normalised() -> None:
    """``..`` stays for the permission layer to resolve (through a link it is not the
    lexical parent); a name with spaces and a semicolon is one quoted word in the shell."""
    patch = "*** Begin Patch\n*** Add File: ../../etc/cron.d/x\n+* * * * * root id\n*** End Patch"
    assert codex_patch.calls(patch, "/home/u/work") == [
        (
            "Write",
            {"file_path": "/home/u/work/../../etc/cron.d/x", "content": "* * * * * root id\n"},
        )
    ]
    spaced = "*** Begin Patch\n*** Delete File: a b;rm -rf ~\n*** End Patch"
    assert codex_patch.calls(spaced, "/w") == [("Bash", {"command": "rm -- '/w/a b;rm -rf ~'"})]


def test_a_patch_is_read_line_by_line_as_codex_reads_it() -> None:
    """A context line that looks like a header is context; a line break Python knows and Rust's
    ``lines`` does not (U+2028) stays inside its line; a heredoc wrapper is taken off."""
    looks_like_a_header = (
        "*** Begin Patch\n*** Update File: config.py\n@@\n-DEBUG = False\n"
        " *** Add File: /etc/x\n+DEBUG = True\n*** End Patch"
    )
    assert codex_patch.calls(looks_like_a_header, "/w") == [
        ("Edit", {"file_path": "/w/config.py",
                  "old_string": "DEBUG = False\n*** Add File: /etc/x\n",
                  "new_string": "*** Add File: /etc/x\nDEBUG = True\n"}),
    ]  # fmt: skip
    one_line = "*** Begin Patch\n*** Add File: a\n+x\u2028*** Delete File: b\n*** End Patch"
    assert codex_patch.calls(one_line, "/w") == [
        ("Write", {"file_path": "/w/a", "content": "x\u2028*** Delete File: b\n"})
    ]
    wrapped = "<<'EOF'\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nEOF"
    assert codex_patch.calls(wrapped, "/w") == [("Bash", {"command": "rm -- /w/a"})]


def test_a_hunk_with_nothing_old_is_a_write_of_what_it_adds() -> None:
    patch = (
        "*** Begin Patch\n*** Update File: log.txt\n@@\n+one more\n*** End of File\n*** End Patch"
    )
    assert codex_patch.calls(patch, "/w") == [
        ("Write", {"file_path": "/w/log.txt", "content": "one more\n"})
    ]


@pytest.mark.parametrize(
    ("patch", "says"),
    [
        (None, "not text"),
        ("echo hi", "not a patch"),
        ("*** Begin Patch", "not a patch"),
        ("*** Begin Patch\n*** End Patch", "changes no file"),
        ("*** Begin Patch\n+stray\n*** End Patch", "line 2 is not a file's header"),
        ("*** Begin Patch\n*** Add File: a\nno plus\n*** End Patch", "line 3 is not a file"),
        ("*** Begin Patch\n*** Delete File: a\n-x\n*** End Patch", "line 3 is not a file"),
        ("*** Begin Patch\n*** Add File:   \n*** End Patch", "line 2 is not a file"),
        ("*** Begin Patch\n*** Update File: a\n*** Move to: \n@@\n-x\n*** End Patch", "no path"),
        ("*** Begin Patch\n*** Update File: a\n@@\n x\n*** Move to: b\n*** End Patch", "line 5"),
        ("*** Begin Patch\n*** Update File: a\n@@\n same\n*** End Patch", "changes nothing"),
        ("*** Begin Patch\n*** Update File: a\n*** End Patch", "is empty"),
        ("*** Begin Patch\n*** Update File: a\n@@\n*** End of File\n*** End Patch", "no lines"),
        ("*** Begin Patch\n*** Update File: a\n-x\nzz\n*** End Patch", "should start a hunk"),
        ("*** Begin Patch\n*** Frobnicate File: a\n*** End Patch", "line 2"),
    ],
)
def test_what_is_not_a_patch_codex_applies_is_an_error_so_the_call_is_refused(
    patch: object, says: str
) -> None:
    with pytest.raises(ConfigError, match=says):
        codex_patch.calls(patch, "/w")
