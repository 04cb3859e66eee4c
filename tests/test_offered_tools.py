"""A tool a deny rule names whole is not offered to the model (as Claude Code leaves it out of
the model's context), and a call to it anyway is still refused by the rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookline import Agent, PermissionPolicy, tool
from hookline.permissions._rules import PermissionRule
from recording_model import RecordingModel


def denying(*rules: str) -> PermissionPolicy:
    return PermissionPolicy(deny=tuple((PermissionRule.parse(r), "test") for r in rules))


@pytest.mark.parametrize(
    ("rule", "hidden"),
    [
        ("Bash", {"Bash"}),
        ("Bash(*)", {"Bash"}),
        ("mcp__orders", {"mcp__orders__refund", "mcp__orders__lookup"}),
        ("mcp__orders__*", {"mcp__orders__refund", "mcp__orders__lookup"}),
        ("mcp__orders__refund", {"mcp__orders__refund"}),
        ("Read", {"Read"}),  # Read's rules cover Grep and Glob calls, but name only Read
        ("Bash(rm:*)", set()),  # some calls: the tool stays, the rule refuses those calls
        ("Edit(./secret/**)", set()),
        ("bash", set()),  # tool names are case-sensitive, as the rules match them
    ],
)
def test_a_whole_tool_deny_rule_hides_that_tool_only(rule: str, hidden: set[str]) -> None:
    names = ["Bash", "Read", "Grep", "Glob", "mcp__orders__refund", "mcp__orders__lookup"]
    assert {name for name in names if denying(rule).hides(name)} == hidden


def test_the_model_is_not_offered_a_denied_tool_and_a_call_to_it_is_refused(
    tmp_path: Path,
) -> None:
    ran: list[str] = []

    @tool(name="mcp__orders__refund")
    def refund(order_id: str) -> str:
        """Refund an order."""
        ran.append(order_id)
        return "refunded"

    @tool(name="mcp__orders__lookup")
    def lookup(order_id: str) -> str:
        """Look an order up."""
        return "paid"

    model = RecordingModel(
        [
            {"tool_calls": [{"name": "mcp__orders__refund", "input": {"order_id": "A-1"}}]},
            {"text": "done"},
        ]
    )
    agent = Agent(
        model, tools=[refund, lookup], cwd=tmp_path, permissions=denying("mcp__orders__refund")
    )
    result = agent.run_sync("refund A-1")
    assert model.tools[0] == ["mcp__orders__lookup"]
    assert result.tool_calls[0].permission == "deny" and ran == []
