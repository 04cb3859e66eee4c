"""A test MCP server, ``probe``: tools that echo, report its environment, write a file, crash,
hang, or answer a hook (at once, or once a test lets it go: ``held``).

Run over stdio (``python probe.py``) or streamable HTTP (``python probe.py --http PORT``).
With ``PROBE_PID_FILE`` set it writes its process id there first, so a test can check that the
process is gone after the run; ``PROBE_SENTINEL`` is the file ``touch`` creates.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

app = MCPServer("probe", log_level="WARNING")


@app.tool()
def echo(text: str) -> str:
    """Answer with the text."""
    return f"echo: {text}"


@app.tool()
def environ(names: list[str]) -> str:
    """The variables of ``names`` this server's environment sets, as a JSON object."""
    return json.dumps({name: os.environ[name] for name in names if name in os.environ})


@app.tool()
def touch(name: str) -> str:
    """Create the file PROBE_SENTINEL names, with ``name`` in it: the call's visible effect."""
    Path(os.environ["PROBE_SENTINEL"]).write_text(name, encoding="utf-8")
    return f"touched {name}"


@app.tool()
def fail(why: str) -> str:
    """Report an error (isError)."""
    raise ToolError(why)


@app.tool()
def crash() -> str:
    """Exit at once, in the middle of the call."""
    print("probe: crashing on purpose", file=sys.stderr, flush=True)
    os._exit(3)


@app.tool()
async def hang() -> str:
    """Never answer."""
    await asyncio.Event().wait()
    return "never"


@app.tool()
def verdict(tool_name: str, command: str = "") -> str:
    """A hook's answer as text: deny when the command mentions 'prod', else plain text."""
    if "prod" in command:
        reason = f"policy server: {tool_name} may not touch prod"
        return json.dumps(
            {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": reason,
                }
            }
        )
    return f"policy server: {tool_name} looks fine"


@app.tool()
async def held(port: int, tool_name: str) -> str:
    """A hook's deny, given only once the test lets it go: it says so to the test's barrier on
    127.0.0.1:``port`` ("entered"), waits for a line back, then answers."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"entered\n")
    await writer.drain()
    await reader.readline()
    writer.close()
    reason = f"policy server: {tool_name} refused after the hold"
    return json.dumps(
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": reason,
            }
        }
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int, metavar="PORT")
    args = parser.parse_args()
    if pid_file := os.environ.get("PROBE_PID_FILE"):
        Path(pid_file).write_text(str(os.getpid()), encoding="utf-8")
    if args.http:
        app.run("streamable-http", host="127.0.0.1", port=args.http)
    else:
        app.run()


if __name__ == "__main__":
    main()
