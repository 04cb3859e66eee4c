"""Claude Agent SDK hook callbacks run unchanged: seed 002's refund example, and the SDK's rules."""

# The seed's lines are kept as written, long ones included.
# ruff: noqa: E501

from __future__ import annotations

import asyncio
import json

import pytest

import hookline
from hookline import ClaudeAgentOptions, HookMatcher

# -- seed 002, verbatim but for the import line ---------------------------------------------------
# fmt: off


async def require_approval_for_refund(input_data, tool_use_id, context):
    args = input_data["tool_input"]
    if args.get("status") == "已退款" and not args.get("approval_id"):
        return {
            "hookSpecificOutput": {
                "hookEventName": input_data["hook_event_name"],
                "permissionDecision": "deny",
                "permissionDecisionReason": "改为已退款必须提供退款审批单号 approval_id，请先调用查询退款审批的工具",
            }
        }
    return {}  # 放行，继续走正常的权限流程


async def audit_log(input_data, tool_use_id, context):
    record = {
        "session_id": input_data["session_id"],
        "tool": input_data["tool_name"],
        "input": input_data["tool_input"],
        "tool_use_id": tool_use_id,
    }
    with open("audit.jsonl", "a", encoding="utf-8") as f:
        f.write(json.dumps(record, ensure_ascii=False) + "\n")
    return {}


options = ClaudeAgentOptions(
    hooks={
        "PreToolUse": [
            HookMatcher(matcher="mcp__orders__update_order_status", hooks=[require_approval_for_refund])
        ],
        "PostToolUse": [HookMatcher(hooks=[audit_log])],  # 不写 matcher：对所有工具生效
    }
)

# fmt: on
# -------------------------------------------------------------------------------------------------

REFUND_REASON = "改为已退款必须提供退款审批单号 approval_id，请先调用查询退款审批的工具"


@pytest.fixture
def orders():
    """The orders MCP tool, recording every call that reached its body."""
    calls = []

    @hookline.tool
    def mcp__orders__update_order_status(
        order_id: str, status: str, approval_id: str | None = None
    ) -> dict:
        calls.append({"order_id": order_id, "status": status, "approval_id": approval_id})
        return {"order_id": order_id, "status": status}

    mcp__orders__update_order_status.calls = calls
    return mcp__orders__update_order_status


def update(call_id, **tool_input):
    name = "mcp__orders__update_order_status"
    return {"tool_calls": [{"id": call_id, "name": name, "input": tool_input}]}


def test_the_refund_hooks_deny_without_approval_and_audit_what_ran(
    agent_with, orders, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    refund = {"order_id": "A-1", "status": "已退款"}
    agent = agent_with(
        [update("t1", **refund), update("t2", **refund, approval_id="RA-7"), {"text": "已处理"}],
        [orders],
        options=options,
    )

    result = agent.run_sync("把订单 A-1 改为已退款")

    assert orders.calls == [{"order_id": "A-1", "status": "已退款", "approval_id": "RA-7"}]
    assert [r.status for r in result.tool_calls] == ["blocked", "executed"]
    denied = agent.session.messages[2].content[0]
    assert denied.is_error
    assert denied.content == f"PreToolUse:{orders.name} hook error: {REFUND_REASON}"
    lines = (tmp_path / "audit.jsonl").read_text("utf-8").splitlines()
    audit = [json.loads(line) for line in lines]
    assert audit == [
        {
            "session_id": agent.session.id,
            "tool": "mcp__orders__update_order_status",
            "input": {**refund, "approval_id": "RA-7"},
            "tool_use_id": "t2",
        }
    ]


def test_other_statuses_need_no_approval(agent_with, orders, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    agent = agent_with([update("t1", order_id="A-2", status="已发货")], [orders], options=options)
    agent.run_sync("发货")
    assert orders.calls == [{"order_id": "A-2", "status": "已发货", "approval_id": None}]


def call_with(agent_with, orders, **matcher):
    """The result of one order update under a single PreToolUse ``HookMatcher(**matcher)``."""
    hooks = {"PreToolUse": [HookMatcher(**matcher)]}
    agent = agent_with([], [orders], options=ClaudeAgentOptions(hooks=hooks))
    tool_input = {"order_id": "A-3", "status": "已发货"}
    return asyncio.run(agent.call_tool(orders.name, tool_input, tool_use_id="toolu_9"))


def test_callbacks_get_the_protocol_payload_and_the_tool_use_id(agent_with, orders, tmp_path):
    seen = []

    async def record(input_data, tool_use_id, context):
        seen.append((input_data, tool_use_id, context))
        return {}

    call_with(agent_with, orders, hooks=[record])

    [(payload, tool_use_id, context)] = seen
    assert isinstance(payload, dict) and json.loads(json.dumps(payload)) == payload
    assert {
        "session_id", "transcript_path", "cwd", "hook_event_name", "tool_name", "tool_input",
        "tool_use_id",
    } <= payload.keys()  # fmt: skip
    assert payload["hook_event_name"] == "PreToolUse"
    assert payload["tool_name"] == "mcp__orders__update_order_status"
    assert payload["tool_input"] == {"order_id": "A-3", "status": "已发货"}
    assert payload["cwd"] == str(tmp_path.resolve())
    assert tool_use_id == payload["tool_use_id"] == "toolu_9"
    assert context == {"signal": None}


def test_a_callback_that_changes_its_input_data_changes_nothing_the_next_one_sees(
    agent_with, orders
):
    """Each callback gets its own payload (the event is dumped once, then copied): one that
    edits its ``input_data`` in place, at any depth, changes neither what the callbacks after
    it are given nor what the tool runs with."""
    seen = []

    async def meddle(input_data, tool_use_id, context):
        seen.append(json.loads(json.dumps(input_data)))
        input_data["tool_input"]["status"] = "已退款"
        input_data["tool_input"]["approval_id"] = "FORGED"
        input_data["tool_name"] = "something_else"
        del input_data["session_id"]
        context["signal"] = "changed"
        return {}

    result = call_with(agent_with, orders, hooks=[meddle, meddle, meddle])

    assert len(seen) == 3 and seen[0] == seen[1] == seen[2]
    assert seen[0]["tool_input"] == {"order_id": "A-3", "status": "已发货"}
    assert seen[0]["tool_name"] == "mcp__orders__update_order_status" and "session_id" in seen[0]
    assert result.status == "executed"
    assert orders.calls == [{"order_id": "A-3", "status": "已发货", "approval_id": None}]


def test_callbacks_share_no_container_of_their_payload_even_while_they_wait(agent_with, tmp_path):
    """The payload's strings and numbers are shared, its dicts and lists are each callback's
    own: a PostToolUse callback that keeps its ``input_data`` and changes it, at every depth,
    after a wait (while the callbacks after it run), and one that changes it at once, reach
    neither the callbacks that read theirs later, nor the tool's output, nor the audit."""
    seen: list[dict] = []

    @hookline.tool
    def tag(items: list[str], meta: dict) -> dict:
        return {"items": items, "meta": meta, "nested": [{"n": len(items)}]}

    async def later(input_data, tool_use_id, context):
        await asyncio.sleep(0.01)  # the callbacks after it start meanwhile
        response = input_data["tool_response"]
        response["items"].append("FORGED")
        response["meta"]["owner"] = "FORGED"
        response["nested"][0]["n"] = -1
        input_data["tool_input"]["items"].clear()
        return {}

    def at_once(input_data, tool_use_id, context):
        input_data["tool_response"]["nested"].append({"n": "FORGED"})
        input_data["tool_input"]["meta"].update(owner="FORGED")
        return {}

    async def reader(input_data, tool_use_id, context):
        await asyncio.sleep(0.03)  # after ``later`` changed its own
        seen.append(json.loads(json.dumps(input_data)))
        return {}

    hooks = {"PostToolUse": [HookMatcher(matcher="tag", hooks=[later, at_once, reader, reader])]}
    call = {"id": "t1", "name": "tag", "input": {"items": ["a", "b"], "meta": {"k": "v"}}}
    agent = agent_with(
        [{"tool_calls": [call]}, {"text": "done"}],
        [tag],
        options=ClaudeAgentOptions(hooks=hooks),
        audit=True,
    )
    result = agent.run_sync("tag")

    output = {"items": ["a", "b"], "meta": {"k": "v"}, "nested": [{"n": 2}]}
    assert len(seen) == 2 and seen[0] == seen[1]
    assert seen[0]["tool_input"] == {"items": ["a", "b"], "meta": {"k": "v"}}
    assert seen[0]["tool_response"] == output
    [executed] = result.tool_calls
    assert executed.status == "executed" and executed.output == output
    assert executed.input == {"items": ["a", "b"], "meta": {"k": "v"}}
    audit = (tmp_path / ".hookline" / "state" / "audit.jsonl").read_text()
    assert "FORGED" not in audit and '"tool"' in audit


def test_a_callback_returning_an_empty_dict_has_no_opinion(agent_with, orders):
    async def nothing(input_data, tool_use_id, context):
        return {}

    result = call_with(agent_with, orders, hooks=[nothing], on_failure="block")
    assert result.status == "executed" and len(orders.calls) == 1


def fails(input_data, tool_use_id, context):
    raise ConnectionError("approval service down")


async def says_nothing(input_data, tool_use_id, context):
    return None


@pytest.mark.parametrize(
    ("callback", "on_failure", "status"),
    [
        (fails, "block", "blocked"),
        (says_nothing, "block", "blocked"),
        (says_nothing, None, "executed"),
        (fails, "continue", "executed"),
    ],
)
def test_on_failure_block_turns_a_failing_or_silent_callback_into_a_deny(
    callback, on_failure, status, agent_with, orders
):
    result = call_with(agent_with, orders, hooks=[callback], on_failure=on_failure)
    assert result.status == status
    assert len(orders.calls) == (status == "executed")
    if status == "blocked":
        assert "fails closed" in result.reason


def test_the_hook_matcher_timeout_is_honoured(agent_with, orders):
    async def slow(input_data, tool_use_id, context):
        await asyncio.sleep(5)
        return {}

    # Waited for, the callback would answer {} after 5 s and the call would run.
    result = call_with(agent_with, orders, hooks=[slow], timeout=0.1)
    assert result.status == "blocked" and orders.calls == []
    assert "did not answer in time" in result.reason
