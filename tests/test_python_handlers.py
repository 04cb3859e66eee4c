"""Settings ``python`` handlers: ``f(event)`` or an Agent SDK callback, told apart by signature.

A handler of any other signature does not load: one line naming the file, the key and the fix,
in a run and in ``hooks validate``, and the tool it would have guarded never runs unchecked.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cli_runner import hookline
from hookline import Agent, ScriptedModel
from hookline._agent.messages import Message
from hookline._hooks.runners import PythonHook, SdkCallbackHook, call_shape, takes
from hookline._project import load_hooks

GUARDS = '''
from hookline import Decision

async def sdk_deny(input_data, tool_use_id, context):
    """An Agent SDK callback, as written for the SDK's hooks= option."""
    assert input_data["hook_event_name"] == "PreToolUse" and tool_use_id == "toolu_1"
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": f"sdk says no to {input_data['tool_input']['command']}"}}

def sdk_sync_deny(input_data, tool_use_id, context):
    return {"decision": "block", "reason": "sync sdk says no"}

def event_deny(event):
    return Decision.deny(f"event hook says no to {event.tool_name}")

def two_args(event, extra):
    return Decision.deny("never called")
'''


def project(tmp_path: Path, callable_: str, **handler: Any) -> Path:
    """A project with the guards above and a PreToolUse Bash ``python`` handler ``callable_``."""
    (tmp_path / "guards.py").write_text(GUARDS)
    entry = {"type": "python", "callable": callable_, **handler}
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [entry]}]}}
    (tmp_path / ".hookline").mkdir()
    (tmp_path / ".hookline" / "settings.json").write_text(json.dumps(settings))
    return tmp_path


def run_touching(cwd: Path) -> tuple[Any, ScriptedModel, Path]:
    sentinel = cwd / "sentinel"
    call = {"id": "toolu_1", "name": "Bash", "input": {"command": f"touch {sentinel}"}}
    model = ScriptedModel([{"tool_calls": [call]}, {"text": "done"}])
    registry, found = load_hooks(cwd)
    assert not found.warnings
    result = Agent(model, hooks=registry, cwd=cwd, permission_mode="bypassPermissions").run_sync(
        "make the file"
    )
    return result, model, sentinel


def tool_result_text(messages: list[Message]) -> str:
    return json.dumps([m.to_dict() for m in messages])


@pytest.mark.parametrize(
    ("target", "runner", "reason"),
    [
        ("guards.py:sdk_deny", SdkCallbackHook, "sdk says no to touch"),
        ("guards.py:sdk_sync_deny", SdkCallbackHook, "sync sdk says no"),
        ("guards.py:event_deny", PythonHook, "event hook says no to Bash"),
    ],
)
def test_a_python_handler_of_either_shape_denies_and_the_model_reads_why(
    tmp_path, target, runner, reason
):
    cwd = project(tmp_path, target)
    registry, _ = load_hooks(cwd)
    (spec,) = registry.specs("PreToolUse")
    assert type(spec.runner) is runner
    result, model, sentinel = run_touching(cwd)
    assert not sentinel.exists()
    (call,) = result.tool_calls
    assert call.status == "blocked"
    assert reason in call.reason
    assert reason in tool_result_text(model.shown(1))  # the model's next request carries it


def test_a_sync_sdk_callback_with_a_timeout_runs_in_a_thread(tmp_path):
    cwd = project(tmp_path, "guards.py:sdk_sync_deny", timeout=5)
    (spec,) = load_hooks(cwd)[0].specs("PreToolUse")
    assert isinstance(spec.runner, SdkCallbackHook) and spec.runner.threaded


def test_a_two_argument_handler_does_not_load_and_says_why(tmp_path):
    cwd = project(tmp_path, "guards.py:two_args")
    registry, found = load_hooks(cwd)
    assert registry.specs("PreToolUse") == ()
    (problem,) = found.warnings
    text = str(problem)
    assert str(cwd / ".hookline" / "settings.json") in text
    assert "hooks.PreToolUse[0].hooks[0].callable" in text
    assert "guards.py:two_args takes neither one positional argument" in text
    assert "async def check(input_data, tool_use_id, context)" in text


def test_hooks_validate_reports_a_two_argument_handler(tmp_path):
    cwd = project(tmp_path, "guards.py:two_args")
    done = hookline("hooks", "validate", "--json", "--cwd", str(cwd))
    assert done.returncode != 0
    (finding,) = [f for f in json.loads(done.stdout)["findings"] if f["severity"] == "error"]
    assert finding["hook"] == "hooks.PreToolUse[0].hooks[0].callable"
    assert "takes neither one positional argument" in finding["message"]


def test_hookline_run_refuses_a_two_argument_handler_before_any_tool_runs(tmp_path):
    cwd = project(tmp_path, "guards.py:two_args")
    sentinel = cwd / "sentinel"
    call = {"name": "Bash", "input": {"command": f"touch {sentinel}"}}
    script = {"turns": [{"tool_calls": [call]}]}
    (cwd / "script.json").write_text(json.dumps(script))
    done = hookline("run", "go", "--model", "scripted:script.json", cwd=cwd)
    assert done.returncode == 2
    assert not sentinel.exists()
    (line,) = done.stderr.strip().splitlines()
    assert "takes neither one positional argument" in line


HOOKS_FILE = """
from hookline import HookMatcher

def one_arg(input_data):
    return {}

def two_args(event, extra):
    return None

HOOKS = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[one_arg])]}

def register(registry):
    registry.add("PostToolUse", two_args, name="two_args")
"""


def test_hooks_validate_checks_the_signatures_of_hook_file_functions(tmp_path):
    (tmp_path / "hooks.py").write_text(HOOKS_FILE)
    done = hookline("hooks", "validate", "--json", "--hooks", "hooks.py", cwd=tmp_path)
    assert done.returncode != 0
    findings = json.loads(done.stdout)["findings"]
    errors = {f["hook"]: f["message"] for f in findings if f["severity"] == "error"}
    assert sorted(errors) == ["one_arg", "two_args"]
    assert "is called as an Agent SDK callback" in errors["one_arg"]
    assert "(input_data)" in errors["one_arg"]
    assert "is called as f(event)" in errors["two_args"]


def event_hook(event):
    return None


async def sdk_callback(input_data, tool_use_id, context):
    return {}


def with_defaults(event, tool_use_id=None, context=None):
    return None


def two(a, b):
    return None


def keyword_only(*, event):
    return None


class Callable:
    async def __call__(self, input_data, tool_use_id, context):
        return {}


@pytest.mark.parametrize(
    ("fn", "shape"),
    [
        (event_hook, "event"),
        (sdk_callback, "sdk"),
        (with_defaults, "event"),  # as every python handler was called before: it still is
        (Callable(), "sdk"),
        (two, None),
        (keyword_only, None),
    ],
)
def test_call_shape_by_signature(fn, shape):
    assert call_shape(fn) == shape


def test_takes_gives_a_callable_without_a_signature_the_benefit_of_the_doubt():
    assert takes(print, 1) and takes(print, 3)
