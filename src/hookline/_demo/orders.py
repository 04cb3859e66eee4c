"""``hookline demo orders``: the refund agent, run for real on a copy of ``examples/orders``.

An MCP server (``orders``, over SQLite) started from the example's ``.mcp.json``; the hooks of
its ``.claude/settings.json`` (a refund needs an approval; an audit line per call) and
``.hookline/settings.json`` (refused calls audited too); a model: the example's script by
default, so it runs offline with no key, or any model given (``--model``). The run shows the
model trying the refund, being refused with a reason that says what to do, looking the
approval up and refunding under it; then the order as the database holds it and the audit.

The example is copied to a temporary folder, so every run starts from the same database; the
copy's ``.mcp.json`` starts the server with the Python running hookline (it has the SDK).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import sys
import tempfile
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from hookline import Agent, Message, ScriptedModel, ToolResult
from hookline._errors import ConfigError
from hookline._project import load_project
from hookline.mcp._mcp_client import require_sdk

if TYPE_CHECKING:
    from hookline._agent.model import ModelClient
    from hookline._agent.result import RunResult

Say = Callable[[str, str], None]
PROMPT: Final = "The customer of order A-1001 sent the coat back. Please refund the order."
SYSTEM: Final = (
    "You are a support agent of a small shop. Work through the orders tools; follow what a "
    "refusal tells you to do."
)
USER: Final = "lin@shop"
ORDER: Final = "A-1001"
_LEFT_BEHIND = shutil.ignore_patterns("orders.db", "audit.jsonl", "state", "__pycache__")


@dataclass(frozen=True, slots=True)
class OrdersRun:
    """What the demo shows at the end: the run, the order's row, the audit lines."""

    result: RunResult
    order: dict[str, Any]
    audit: list[dict[str, Any]]


async def run_orders_demo(
    say: Say, *, model: ModelClient | None = None, folder: Path | None = None
) -> OrdersRun:
    """Run the refund agent in a copy of the example (in ``folder``, else a temporary one)."""
    require_sdk()
    if folder is not None:
        return await _run(prepare(folder), say, model)
    with tempfile.TemporaryDirectory(prefix="hookline-orders-") as temporary:
        return await _run(prepare(Path(temporary)), say, model)


def example_dir() -> Path:
    """The example's files: installed beside this module, or in the source checkout."""
    for candidate in (
        Path(__file__).with_name("orders_example"),
        Path(__file__).resolve().parents[3] / "examples" / "orders",
    ):
        if (candidate / ".mcp.json").is_file():
            return candidate
    raise ConfigError(
        "the orders example is not installed with this copy of hookline",
        key="demo orders",
        fix="run it from a source checkout: pip install -e '.[mcp]'",
    )


def prepare(folder: Path) -> Path:
    """A fresh copy of the example in ``folder/orders``, its server started by this Python."""
    workspace = folder / "orders"
    shutil.copytree(example_dir(), workspace, ignore=_LEFT_BEHIND)
    config_file = workspace / ".mcp.json"
    config = json.loads(config_file.read_text(encoding="utf-8"))
    config["mcpServers"]["orders"]["command"] = sys.executable
    config_file.write_text(json.dumps(config, indent=2), encoding="utf-8")
    return workspace


async def _run(workspace: Path, say: Say, model: ModelClient | None) -> OrdersRun:
    project = load_project(workspace)
    for warning in project.warnings:
        say("note", f"warning: {warning}")
    model = model or ScriptedModel.from_file(workspace / "script.json")
    options = project.agent_options()
    agent = Agent(model, **options, tools=[], user=USER, system_prompt=SYSTEM)
    agent.watch(lambda item: _narrate(item, say))
    say("title", f"The refund agent: the orders MCP server, model {model.name}")
    say("user", f"[{USER}] {PROMPT}")
    async with agent:
        result = await agent.run(PROMPT)
    say("assistant", f"[assistant] {result.final_text}")
    outcome = OrdersRun(result, _order(workspace), _audit(workspace))
    _evidence(outcome, say)
    return outcome


def _narrate(item: object, say: Say) -> None:
    if isinstance(item, Message) and item.role == "assistant" and item.tool_calls:
        if item.text:
            say("model", f"[model] {item.text}")
        for call in item.tool_calls:
            say("model", f"[model] calls {call.name} {json.dumps(call.input, ensure_ascii=False)}")
    elif isinstance(item, ToolResult):
        if item.status == "executed":
            say("tool", f"[{item.call.name}] ok")
        else:
            say("blocked", f"[{item.call.name}] {item.status.upper()}: {item.reason}")


def _order(workspace: Path) -> dict[str, Any]:
    with closing(sqlite3.connect(workspace / "orders.db")) as db:
        db.row_factory = sqlite3.Row
        row = db.execute("SELECT * FROM orders WHERE id = ?", (ORDER,)).fetchone()
    return dict(row) if row is not None else {}


def _audit(workspace: Path) -> list[dict[str, Any]]:
    path = workspace / "audit.jsonl"
    if not path.is_file():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _evidence(outcome: OrdersRun, say: Say) -> None:
    order = outcome.order
    say("title", "The evidence")
    approval = order.get("approval_id")
    say("ledger", f"orders.db: {ORDER} is {order.get('status')} (approval {approval})")
    say("ledger", "audit.jsonl (written by the audit hook):")
    for line in outcome.audit:
        call = f"{line['tool']} {json.dumps(line.get('input'), ensure_ascii=False)}"
        say("ledger", f"  {line['user']} {line['tool_use_id']} {call} -> {line['outcome']}")
