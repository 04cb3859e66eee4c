"""A test MCP server that speaks JSON-RPC over stdio by hand and answers tools/call out of the
protocol's schema (``content`` is not a list): the client must refuse the answer."""

from __future__ import annotations

import json
import sys

TOOL = {"name": "weird", "description": "Answers out of schema.", "inputSchema": {"type": "object"}}


def answer(request: dict) -> dict | None:
    method = request.get("method")
    if method == "initialize":
        result = {
            "protocolVersion": request["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "raw", "version": "0"},
        }
    elif method == "tools/list":
        result = {"tools": [TOOL]}
    elif method == "tools/call":
        result = {"content": "this should have been a list of blocks"}
    elif "id" not in request:
        return None  # a notification
    else:
        result = {}
    return {"jsonrpc": "2.0", "id": request["id"], "result": result}


for line in sys.stdin:
    reply = answer(json.loads(line))
    if reply is not None:
        print(json.dumps(reply), flush=True)
