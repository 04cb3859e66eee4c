"""Payload conformance: a command hook run by hookline reads what it reads under Claude Code.

Each case takes one payload the real CLI (2.1.332) sent to a command hook
(``tests/reaction_hooks/payloads/``, kept as the CLI wrote them; docs/compatibility.md says how
they were recorded), runs the matching scenario in hookline with real command hooks from a
settings file, and compares what the hook received on stdin: the same fields, recursively,
with the same JSON types. Values are compared only where they are fixed by the scenario (the
CLI's are real ids and placeholders such as ``<cwd>``). The fields hookline leaves out on
purpose are listed once, in ``DELIBERATE``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cc_scenarios import Outcome, bash, calls, group, recorder, run_scenario, say
from hookline import Agent, ScriptedModel

PAYLOADS = Path(__file__).parent / "reaction_hooks" / "payloads"

#: Fields of Claude Code's payloads that hookline leaves out on purpose, and why.
DELIBERATE: dict[str, str] = {
    "effort": (
        "hookline has no effort setting (no model it drives takes one), so there is no "
        "{level} to report; hooks that read it must treat it as optional, as they already do "
        "for models without effort support"
    ),
    **dict.fromkeys(
        ("prompt_cache_warm", "cache_ttl", "estimated_cache_write_usd", "pricing"),
        "a model switch in hookline knows no provider's prompt cache or price list (any "
        "ModelClient may be behind the agent), so it does not guess them",
    ),
}

#: Top-level fields whose values the scenario fixes, so they must be equal, not only typed.
FIXED = (
    *("hook_event_name", "tool_name", "source", "reason", "stop_hook_active", "permission_mode"),
    *("event", "to_model", "requested_model"),
)


# -- the scenarios the CLI was run with (experiments cap_bash, cap_files, cap_fail, ...) --------


def _read(path: Path) -> dict[str, Any]:
    return {"id": f"toolu_read_{path.name}", "name": "Read", "input": {"file_path": str(path)}}


def _bash_echo(root: Path) -> Outcome:
    return run_scenario(root, {}, [calls(bash("echo hello")), say("Printed hello.")])


def _files(root: Path) -> Outcome:
    file = root / "project" / "a.txt"
    write = {
        "id": "toolu_w",
        "name": "Write",
        "input": {"file_path": str(file), "content": "one\ntwo\n"},
    }
    edit = {
        "id": "toolu_e",
        "name": "Edit",
        "input": {"file_path": str(file), "old_string": "two", "new_string": "three"},
    }
    return run_scenario(root, {}, [calls(write), calls(_read(file)), calls(edit), say("Edited.")])


def _failures(root: Path) -> Outcome:
    # The CLI read /nonexistent/file.txt; hookline refuses a path outside the workspace before
    # any hook runs, so the missing file is inside the project here (docs/compatibility.md).
    failing = bash("echo oops >&2; exit 3", description="Fail")
    missing = _read(root / "project" / "missing.txt")
    return run_scenario(root, {}, [calls(failing), calls(missing), say("It failed.")])


def _batch(root: Path) -> Outcome:
    one = bash("echo one", call_id="toolu_one", description="one")
    two = bash("echo two", call_id="toolu_two", description="two")
    return run_scenario(root, {}, [calls(one, two), say("Both ran.")])


def _asks(root: Path) -> Outcome:
    # The CLI asked about this call by its default rules (cap_perm); here a PreToolUse hook asks.
    # Either way PermissionRequest fires; with nobody to approve it, the call is then refused.
    hooks = {"PreToolUse": [group("ask", matcher="Bash")]}
    asking = bash("touch x.txt", description="touch")
    return run_scenario(root, hooks, [calls(asking), say("It was refused.")])


def _stop_again(root: Path) -> Outcome:
    hooks = {"Stop": [group("stopblock-once", recorder())]}
    return run_scenario(root, hooks, [calls(bash("echo hello")), say(), say("FINAL-2")])


def _cd(root: Path) -> Outcome:
    hooks = {"CwdChanged": [group(recorder())]}
    return run_scenario(root, hooks, [calls(bash("mkdir -p sub && cd sub")), say()])


def _file_changed(root: Path) -> Outcome:
    (root / "project").mkdir()
    (root / "project" / ".envrc").write_text("export A=1\n")
    hooks = {"FileChanged": [group(recorder(), matcher=".envrc")]}
    return run_scenario(root, hooks, [calls(bash("echo export B=2 >> .envrc")), say()])


def _config_changed(root: Path) -> Outcome:
    local = root / "project" / ".claude" / "settings.local.json"
    hooks = {"ConfigChange": [group(recorder())]}
    write = bash("echo {} > .claude/settings.local.json")
    options = {"settings_files": [("local_settings", local)]}
    return run_scenario(root, hooks, [calls(write), say()], options=options)


def _model_switch(root: Path) -> Outcome:
    hooks = {"PreModelSwitch": [group(recorder())], "PostModelSwitch": [group(recorder())]}
    other = ScriptedModel([])
    other.name = "claude-sonnet-4-5"

    async def switch(agent: Agent) -> None:
        assert (await agent.switch_model(other)).switched

    return run_scenario(root, hooks, [say()], then=switch)


SCENARIOS: dict[str, Callable[[Path], Outcome]] = {
    "bash_echo": _bash_echo,
    "files": _files,
    "failures": _failures,
    "batch": _batch,
    "asks": _asks,
    "stop_again": _stop_again,
    "cd": _cd,
    "file_changed": _file_changed,
    "config_changed": _config_changed,
    "model_switch": _model_switch,
}

#: payload file -> (scenario, event, tool name or None, which of those payloads).
CASES: dict[str, tuple[str, str, str | None, int]] = {
    "SessionStart.json": ("bash_echo", "SessionStart", None, 0),
    "UserPromptSubmit.json": ("bash_echo", "UserPromptSubmit", None, 0),
    "PreToolUse.json": ("bash_echo", "PreToolUse", "Bash", 0),
    "PostToolUse.json": ("bash_echo", "PostToolUse", "Bash", 0),
    "Stop.json": ("bash_echo", "Stop", None, 0),
    "SessionEnd.json": ("bash_echo", "SessionEnd", None, 0),
    "PreToolUse.Write.json": ("files", "PreToolUse", "Write", 0),
    "PreToolUse.Read.json": ("files", "PreToolUse", "Read", 0),
    "PreToolUse.Edit.json": ("files", "PreToolUse", "Edit", 0),
    "PostToolUse.Write.json": ("files", "PostToolUse", "Write", 0),
    "PostToolUse.Read.json": ("files", "PostToolUse", "Read", 0),
    "PostToolUse.Edit.json": ("files", "PostToolUse", "Edit", 0),
    "PostToolUseFailure.json": ("failures", "PostToolUseFailure", "Bash", 0),
    "PostToolUseFailure.Read.json": ("failures", "PostToolUseFailure", "Read", 0),
    "PostToolBatch.json": ("batch", "PostToolBatch", None, 0),
    "PermissionRequest.json": ("asks", "PermissionRequest", "Bash", 0),
    "Stop.stop_hook_active.json": ("stop_again", "Stop", None, 1),
    "CwdChanged.json": ("cd", "CwdChanged", None, 0),
    "FileChanged.json": ("file_changed", "FileChanged", None, 0),
    "ConfigChange.json": ("config_changed", "ConfigChange", None, 0),
    "PreModelSwitch.json": ("model_switch", "PreModelSwitch", None, 0),
    "PostModelSwitch.json": ("model_switch", "PostModelSwitch", None, 0),
}


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Outcome]:
    """``scenario(name)``: that scenario's outcome, run once for the whole module."""
    done: dict[str, Outcome] = {}

    def get(name: str) -> Outcome:
        if name not in done:
            done[name] = SCENARIOS[name](tmp_path_factory.mktemp(name))
        return done[name]

    return get


def received(outcome: Outcome, event: str, tool: str | None, index: int) -> dict[str, Any]:
    """The payload a command hook received on stdin for that event (and tool)."""
    matching = [p for p in outcome.observed(event) if tool is None or p.get("tool_name") == tool]
    assert len(matching) > index, f"{event} {tool or ''} fired {len(matching)} times"
    return matching[index]


def observed(name: str) -> dict[str, Any]:
    return json.loads((PAYLOADS / name).read_text(encoding="utf-8"))


# -- comparing --------------------------------------------------------------------------------


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return {str: "string", list: "array", dict: "object"}[type(value)]


def differences(theirs: Any, ours: Any, path: str = "$") -> list[str]:
    """Where ``ours`` differs from ``theirs`` in fields or JSON types (objects recursively; an
    array's items against the first item of theirs), deliberate differences left out."""
    if json_type(theirs) != json_type(ours):
        return [f"{path}: Claude Code sends {json_type(theirs)}, hookline {json_type(ours)}"]
    found: list[str] = []
    if isinstance(theirs, dict):
        missing = [key for key in theirs if key not in ours and key not in DELIBERATE]
        found += [f"{path}.{key}: missing in hookline's payload" for key in missing]
        found += [
            f"{path}.{key}: not in Claude Code's payload" for key in ours if key not in theirs
        ]
        for key in [key for key in theirs if key in ours]:
            found += differences(theirs[key], ours[key], f"{path}.{key}")
    elif isinstance(theirs, list) and theirs:
        for index, item in enumerate(ours):
            found += differences(theirs[0], item, f"{path}[{index}]")
    return found


def fixed_values(payload: dict[str, Any]) -> dict[str, Any]:
    return {key: payload[key] for key in FIXED if key in payload}


# -- the tests --------------------------------------------------------------------------------


@pytest.mark.parametrize("payload_file", list(CASES))
def test_command_hook_payload_matches_claude_code(
    payload_file: str, scenario: Callable[[str], Outcome]
) -> None:
    name, event, tool, index = CASES[payload_file]
    theirs = observed(payload_file)
    ours = received(scenario(name), event, tool, index)
    assert differences(theirs, ours) == []
    assert fixed_values(ours) == fixed_values(theirs)


@pytest.mark.parametrize("field", list(DELIBERATE))
def test_each_deliberate_difference_is_still_a_difference(
    field: str, scenario: Callable[[str], Outcome]
) -> None:
    """A field listed in DELIBERATE that hookline now sends must leave the list (and the doc)."""
    lacking = []
    for payload_file, (name, event, tool, index) in CASES.items():
        theirs = observed(payload_file)
        if field in theirs and field not in received(scenario(name), event, tool, index):
            lacking.append(payload_file)
    assert lacking, f"hookline sends {field!r} everywhere Claude Code does: drop it from DELIBERATE"


def test_the_comparison_sees_a_missing_field_and_a_changed_type() -> None:
    theirs = {"a": 1, "b": {"c": "x", "d": [{"e": True}]}, "effort": {"level": "medium"}}
    ours = {"a": "1", "b": {"d": [{"e": True}, {"f": 0}]}, "extra": None}
    assert sorted(differences(theirs, ours)) == [
        "$.a: Claude Code sends number, hookline string",
        "$.b.c: missing in hookline's payload",
        "$.b.d[1].e: missing in hookline's payload",
        "$.b.d[1].f: not in Claude Code's payload",
        "$.extra: not in Claude Code's payload",
    ]
