"""Claude Agent SDK permission programs (``can_use_tool``, allowed and disallowed tools, the
permission modes), run on hookline unchanged but for the import.

The first program is the SDK's own end-to-end permission test; the others hold it to what the
SDK documents for each answer. Every refusal is shown by the tool not running: the file its
call would create stays absent, the file it would delete stays."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from hookline import (
    ClaudeSDKClient,
    HookMatcher,
    PermissionResultAllow,
    PermissionResultDeny,
    ToolPermissionContext,
)
from sdk_program import bash, converse, options, outcome, results, shown, use


class Ask:
    """A ``can_use_tool`` callback that keeps each question and answers ``answer``."""

    def __init__(self, answer: Any = None) -> None:
        self.answer = PermissionResultAllow() if answer is None else answer
        self.asked: list[tuple[str, dict[str, Any], ToolPermissionContext]] = []

    async def __call__(
        self, tool_name: str, input_data: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResultAllow | PermissionResultDeny:
        self.asked.append((tool_name, input_data, context))
        return self.answer

    @property
    def tools(self) -> list[str]:
        return [name for name, _, _ in self.asked]


def write(call_id: str, path: Path, content: str = "hello world") -> dict[str, Any]:
    return use(call_id, "Write", file_path=str(path), content=content)


# -- the SDK's program ----------------------------------------------------------------------------


def test_can_use_tool_is_asked_for_a_write_the_rules_leave_open(tmp_path: Path) -> None:
    target = tmp_path / "greeting.txt"
    ask = Ask()
    opts, _ = options(tmp_path, [write("w1", target), {"text": "created"}], can_use_tool=ask)

    messages = converse(opts, f"Put 'hello world' in {target}")

    [(name, input_data, context)] = ask.asked
    assert name == "Write"
    assert input_data == {"file_path": str(target), "content": "hello world"}
    assert isinstance(context, ToolPermissionContext) and context.tool_use_id == "w1"
    assert target.read_text() == "hello world"
    assert results(messages)["w1"].is_error is False


# -- what each answer does ------------------------------------------------------------------------


def test_allow_with_updated_input_runs_the_edited_input(tmp_path: Path) -> None:
    ask = Ask(PermissionResultAllow(updated_input={"command": "touch edited.txt"}))
    opts, _ = options(tmp_path, [bash("t1", "touch asked.txt"), {"text": "done"}], can_use_tool=ask)

    converse(opts, "Touch a file")

    assert ask.tools == ["Bash"]
    assert (tmp_path / "edited.txt").exists()
    assert not (tmp_path / "asked.txt").exists()


def test_an_edited_input_that_a_deny_rule_forbids_is_still_refused(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("precious")
    ask = Ask(PermissionResultAllow(updated_input={"command": "rm -f keep.txt"}))
    opts, model = options(
        tmp_path,
        [bash("t1", "touch asked.txt"), use("r2", "Read", file_path=str(tmp_path / "keep.txt"))],
        disallowed_tools=["Bash(rm:*)"],
        can_use_tool=ask,
    )

    messages = converse(opts, "Touch a file")

    assert (tmp_path / "keep.txt").read_text() == "precious"
    assert not (tmp_path / "asked.txt").exists()
    assert "Bash(rm:*)" in shown(model, "t1").content
    assert "precious" in shown(model, "r2").content  # the run went on
    assert outcome(messages).subtype == "success"


def test_deny_refuses_the_call_and_the_model_reads_the_message(tmp_path: Path) -> None:
    ask = Ask(PermissionResultDeny(message="Writing there is not allowed"))
    target = tmp_path / "denied.txt"
    opts, model = options(tmp_path, [write("w1", target), {"text": "ok"}], can_use_tool=ask)

    messages = converse(opts, "Write a file")

    assert not target.exists()
    read = shown(model, "w1")
    assert read.is_error and "Writing there is not allowed" in read.content
    result = outcome(messages)
    assert [d["tool_use_id"] for d in result.permission_denials or []] == ["w1"]
    assert (result.subtype, result.result) == ("success", "ok")


def test_deny_with_interrupt_ends_the_response_and_the_session_goes_on(tmp_path: Path) -> None:
    ask = Ask(PermissionResultDeny(message="Stop right there", interrupt=True))
    opts, model = options(
        tmp_path,
        [bash("t1", "touch first.txt"), bash("t2", "touch second.txt"), {"text": "next"}],
        can_use_tool=ask,
    )

    async def program() -> tuple[list[Any], list[Any]]:
        async with ClaudeSDKClient(options=opts) as client:
            await client.query("Touch two files")
            interrupted = [m async for m in client.receive_response()]
            assert len(model.seen) == 1  # no model request after the interrupt
            ask.answer = PermissionResultAllow()
            await client.query("Carry on")
            resumed = [m async for m in client.receive_response()]
        return interrupted, resumed

    interrupted, resumed = asyncio.run(program())

    assert not (tmp_path / "first.txt").exists()
    result = outcome(interrupted)
    assert result.is_error and result.subtype == "error_during_execution"
    # The next prompt is answered in the same session, the cut-off call marked as interrupted.
    assert outcome(resumed).session_id == result.session_id
    assert "interrupted" in shown(model, "t1").content
    assert (tmp_path / "second.txt").exists()


def _raises(tool_name: str, input_data: dict[str, Any], context: Any) -> Any:
    raise RuntimeError("the permission service is down")


async def _says_dict(tool_name: str, input_data: dict[str, Any], context: Any) -> Any:
    return {"behavior": "allow"}


async def _says_none(tool_name: str, input_data: dict[str, Any], context: Any) -> Any:
    return None


async def _says_true(tool_name: str, input_data: dict[str, Any], context: Any) -> Any:
    return True


@pytest.mark.parametrize(
    ("callback", "said"),
    [
        (_raises, "RuntimeError: the permission service is down"),
        (_says_dict, "returned dict"),
        (_says_none, "returned NoneType"),
        (_says_true, "returned bool"),
    ],
)
def test_a_callback_that_fails_or_answers_wrongly_refuses_and_the_run_goes_on(
    tmp_path: Path, callback: Any, said: str
) -> None:
    opts, model = options(
        tmp_path,
        [bash("t1", "touch refused.txt"), use("t2", "Read", file_path=str(tmp_path / "x.txt"))],
        can_use_tool=callback,
    )
    (tmp_path / "x.txt").write_text("still readable")

    messages = converse(opts, "Touch a file, then read one")

    assert not (tmp_path / "refused.txt").exists()
    read = shown(model, "t1")
    assert read.is_error and said in read.content
    assert "still readable" in shown(model, "t2").content
    assert outcome(messages).subtype == "success"


# -- when can_use_tool is not asked ---------------------------------------------------------------


def test_can_use_tool_is_not_asked_for_allowed_tools(tmp_path: Path) -> None:
    ask = Ask(PermissionResultDeny(message="would refuse"))
    opts, _ = options(
        tmp_path,
        [bash("t1", "touch allowed.txt"), {"text": "done"}],
        allowed_tools=["Bash"],
        can_use_tool=ask,
    )

    converse(opts, "Touch a file")

    assert ask.asked == []
    assert (tmp_path / "allowed.txt").exists()


def test_can_use_tool_is_not_asked_for_a_call_a_deny_rule_refuses(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("precious")
    ask = Ask(PermissionResultAllow())
    opts, model = options(
        tmp_path,
        [bash("t1", "rm -f keep.txt"), {"text": "done"}],
        disallowed_tools=["Bash(rm:*)"],
        can_use_tool=ask,
    )

    messages = converse(opts, "Delete a file")

    assert ask.asked == []
    assert (tmp_path / "keep.txt").read_text() == "precious"
    assert shown(model, "t1").is_error
    assert [d["tool_use_id"] for d in outcome(messages).permission_denials or []] == ["t1"]


def test_disallowed_tools_deny_even_in_bypass_permissions_mode(tmp_path: Path) -> None:
    target = tmp_path / "never.txt"
    opts, model = options(
        tmp_path,
        [write("w1", target), {"text": "done"}],
        disallowed_tools=["Write"],
        permission_mode="bypassPermissions",
    )

    converse(opts, "Write a file")

    assert not target.exists()
    assert shown(model, "w1").is_error


# -- the permission modes -------------------------------------------------------------------------


def test_accept_edits_runs_writes_inside_cwd_and_asks_for_the_rest(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("elsewhere") / "outside.txt"
    ask = Ask(PermissionResultDeny(message="not outside the project"))
    opts, _ = options(
        tmp_path,
        [write("w1", tmp_path / "inside.txt"), write("w2", outside), {"text": "done"}],
        permission_mode="acceptEdits",
        can_use_tool=ask,
    )

    converse(opts, "Write two files")

    assert (tmp_path / "inside.txt").read_text() == "hello world"
    assert [(name, data["file_path"]) for name, data, _ in ask.asked] == [("Write", str(outside))]
    assert not outside.exists()


def test_plan_mode_refuses_writes_and_commands_but_reads(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("the plan so far")
    ask = Ask(PermissionResultAllow())
    opts, model = options(
        tmp_path,
        [
            write("w1", tmp_path / "planned.txt"),
            bash("t2", "touch ran.txt"),
            use("r3", "Read", file_path=str(tmp_path / "notes.txt")),
            {"text": "here is my plan"},
        ],
        permission_mode="plan",
        can_use_tool=ask,
    )

    converse(opts, "Plan the work")

    assert not (tmp_path / "planned.txt").exists()
    assert not (tmp_path / "ran.txt").exists()
    assert shown(model, "w1").is_error and "plan mode" in shown(model, "w1").content
    assert "the plan so far" in shown(model, "r3").content
    assert ask.asked == []  # plan mode refuses; it does not ask


def test_bypass_permissions_runs_calls_without_asking(tmp_path: Path) -> None:
    ask = Ask(PermissionResultDeny(message="would refuse"))
    opts, _ = options(
        tmp_path,
        [bash("t1", "touch ran.txt"), write("w2", tmp_path / "written.txt"), {"text": "done"}],
        permission_mode="bypassPermissions",
        can_use_tool=ask,
    )

    converse(opts, "Touch and write")

    assert ask.asked == []
    assert (tmp_path / "ran.txt").exists()
    assert (tmp_path / "written.txt").exists()


def test_bypass_permissions_does_not_lift_hooklines_dangerous_tier(tmp_path: Path) -> None:
    """hookline's policy: a recursive delete of the workspace is refused in every mode."""
    (tmp_path / "keep.txt").write_text("precious")
    ask = Ask(PermissionResultAllow())
    opts, model = options(
        tmp_path,
        [bash("t1", f"rm -rf {tmp_path}"), {"text": "done"}],
        permission_mode="bypassPermissions",
        can_use_tool=ask,
    )

    converse(opts, "Clean up")

    assert (tmp_path / "keep.txt").read_text() == "precious"
    assert shown(model, "t1").is_error
    assert ask.asked == []


def test_a_pre_tool_use_hook_deny_wins_over_bypass_permissions(tmp_path: Path) -> None:
    async def no_touching(input_data: Any, tool_use_id: str | None, context: Any) -> Any:
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "No touching, whatever the mode",
            }
        }

    opts, model = options(
        tmp_path,
        [bash("t1", "touch bypassed.txt"), {"text": "done"}],
        permission_mode="bypassPermissions",
        hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[no_touching])]},
    )

    converse(opts, "Touch a file")

    assert not (tmp_path / "bypassed.txt").exists()
    assert "No touching, whatever the mode" in shown(model, "t1").content


def test_set_permission_mode_changes_how_later_calls_are_judged(tmp_path: Path) -> None:
    ask = Ask(PermissionResultDeny(message="not yet"))
    opts, _ = options(
        tmp_path,
        [
            write("w1", tmp_path / "first.txt"),
            {"text": "refused"},
            write("w2", tmp_path / "second.txt"),
            {"text": "written"},
        ],
        can_use_tool=ask,
    )

    async def program() -> None:
        async with ClaudeSDKClient(options=opts) as client:
            await client.query("Write the first file")
            async for _ in client.receive_response():
                pass
            await client.set_permission_mode("acceptEdits")
            await client.query("Write the second file")
            async for _ in client.receive_response():
                pass

    asyncio.run(program())

    assert ask.tools == ["Write"]
    assert not (tmp_path / "first.txt").exists()
    assert (tmp_path / "second.txt").exists()
