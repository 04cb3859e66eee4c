"""An agent imports what it uses: with its own tools and Python hooks, a run loads neither the
permission layer, the sandbox, the built-in tools, the settings handlers nor MCP; an agent with
the built-in tools does load them (and the Agent tool). Each check is a fresh interpreter."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

#: What an agent with its own tools, Python hooks and no permission layer never needs.
UNUSED = (
    "hookline.permissions",
    "hookline._tools.builtin",
    "hookline._claude.handlers",
    "hookline._claude.command",
    "hookline.mcp",
    "hookline._agent.subagents",
    "hookline.telemetry._spans",  # no OTEL_* variable asks for traces: OpenTelemetry is not loaded
    "opentelemetry",
)

RUN = """
import json, sys
from hookline import Agent, Decision, HookRegistry, ScriptedModel
from hookline._tools.function import tool

@tool
def noop(x: int) -> str:
    '''Do nothing.'''
    return "ok"

hooks = HookRegistry()
hooks.add("PreToolUse", lambda e: Decision.allow(), matcher="noop")
call = {{"id": "t1", "name": "noop", "input": {{"x": 1}}}}
script = [{{"tool_calls": [call]}}, {{"text": "done"}}]
agent = Agent(ScriptedModel(script), tools={tools}, hooks=hooks, cwd={cwd!r})
result = agent.run_sync("go")
assert result.final_text == "done" and len(result.tool_calls) == 1, result
print(json.dumps(sorted(sys.modules)))
"""


def loaded_by_run(cwd: Path, *, tools: str) -> list[str]:
    """The modules a fresh interpreter has loaded after one checked run of one call."""
    script = RUN.format(tools=tools, cwd=str(cwd))
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.splitlines()[-1])


def test_a_run_with_its_own_tools_loads_no_permission_layer_builtins_or_mcp(tmp_path):
    modules = loaded_by_run(tmp_path, tools="[noop]")
    assert "hookline._agent.loop" in modules
    assert [m for m in modules if m.startswith(UNUSED)] == []


def test_an_agent_with_the_builtin_tools_loads_them_and_the_agent_tool(tmp_path):
    modules = loaded_by_run(tmp_path, tools="None")
    assert "hookline._tools.builtin.bash" in modules
    assert "hookline._agent.subagents" in modules
