"""Four scenarios, run for real on a temporary workspace."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Final

from hookline import Agent, HookRun, Message, RuleModel, ToolContext, ToolResult, tool
from hookline._demo.hooks import Ledgers, Say, install
from hookline._tools.builtin import builtin_tools

PACKAGE: Final = {"name": "first-agent", "version": "0.1.0", "private": True}


@tool
def read_file(path: str, ctx: ToolContext) -> str:
    """Read a text file of the workspace, by a path relative to it (the demo's own tool)."""
    return ctx.workspace.check(str(ctx.cwd / path)).read_text(encoding="utf-8")


async def run_demo(say: Say) -> Ledgers:
    """Run the four scenarios, telling ``say`` what happens; returns the two ledgers."""
    with tempfile.TemporaryDirectory(prefix="hookline-demo-") as folder:
        workspace = Path(folder)
        (workspace / "package.json").write_text(json.dumps(PACKAGE, indent=2), encoding="utf-8")
        ledgers = Ledgers(say)
        agent = Agent(RuleModel(), tools=[*builtin_tools(), read_file], cwd=workspace)
        install(agent.registry, ledgers)
        agent.watch(lambda item: _narrate(item, say))
        async with agent:
            await _scenarios(agent, say)
        _print_ledgers(ledgers, say)
        return ledgers


async def _scenarios(agent: Agent, say: Say) -> None:
    say("title", "Scenario 1 - allowed: Read runs, the post hook records it")
    await _prompt(agent, "read package.json", say)
    say("title", "Scenario 2 - blocked: the safety gate refuses Bash; the loop goes on")
    await _prompt(agent, "run whoami", say)
    say("title", "Scenario 3 - blocked by pattern, calling the pipeline directly")
    result = await agent.call_tool("Bash", {"command": "rm -rf /"})
    say("note", f"direct Bash(rm -rf /) -> {result.status}: {result.reason}")
    say("title", "Scenario 4 - rewritten: a transformer normalises ./package.json")
    result = await agent.call_tool("read_file", {"path": "./package.json"})
    say("note", f"direct read_file(./package.json) -> {result.status}, ran with {result.input}")


async def _prompt(agent: Agent, prompt: str, say: Say) -> None:
    say("user", f"[user] {prompt}")
    result = await agent.run(prompt)
    say("assistant", f"[assistant] {result.final_text}")


def _narrate(item: object, say: Say) -> None:
    if isinstance(item, HookRun) and item.decision == "rewrite":
        say("hook", f"[pre-hook] {item.hook} rewrote the input to {item.answer.updated_input}")
    elif isinstance(item, ToolResult):
        status = "ok" if item.status == "executed" else item.status.upper()
        say("tool", f"[tool:{item.call.name}] {status}")
    elif isinstance(item, Message) and item.role == "assistant" and item.tool_calls:
        for call in item.tool_calls:
            say("model", f"[model] calls {call.name} {json.dumps(call.input)}")


def _print_ledgers(ledgers: Ledgers, say: Say) -> None:
    say("title", "The evidence: two ledgers")
    say("ledger", "executed (recorded by the PostToolUse observer):")
    for entry in ledgers.executed:
        say("ledger", f"  - {entry['name']} {json.dumps(entry['input'])} -> ok")
    say("ledger", "blocked (recorded by the ToolBlocked observer):")
    for entry in ledgers.blocked:
        say("ledger", f"  - {entry['name']} {json.dumps(entry['input'])} -> {entry['reason']}")
