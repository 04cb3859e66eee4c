"""``hookline demo orders``: the refund agent on the real ``orders`` MCP server (SQLite), with
the example's own hooks, run end to end by its script."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

from cli_runner import hookline
from hookline import Agent, ScriptedModel
from hookline._demo.orders import ORDER, USER, prepare, run_orders_demo
from hookline._project import load_project

NO_SETTINGS_HOOKS = json.dumps({"disableAllHooks": True})
REFUND = {"order_id": ORDER, "status": "refunded"}


def row(workspace: Path) -> dict[str, Any]:
    with closing(sqlite3.connect(workspace / "orders.db")) as db:
        db.row_factory = sqlite3.Row
        return dict(db.execute("SELECT * FROM orders WHERE id = ?", (ORDER,)).fetchone())


def refund_without_approval(workspace: Path, **load: Any) -> tuple[str, dict[str, Any]]:
    """Ask for the refund with no approval_id; the call's status and the order's row after."""
    project = load_project(workspace, **load)
    turns = [{"tool_calls": [{"id": "t1", "name": "mcp__orders__update_order_status",
                              "input": REFUND}]}, {"text": "ok"}]  # fmt: skip
    agent = Agent(ScriptedModel(turns), **project.agent_options(), tools=[])
    (refund,) = agent.run_sync("refund A-1001").tool_calls
    return refund.status, row(workspace)


def test_the_agent_is_refused_looks_up_the_approval_and_then_refunds(tmp_path):
    said: list[tuple[str, str]] = []

    def say(kind: str, text: str) -> None:
        said.append((kind, text))

    run = asyncio.run(run_orders_demo(say, folder=tmp_path))
    calls = [(r.call.name.removeprefix("mcp__orders__"), r.status) for r in run.result.tool_calls]
    assert calls == [
        ("get_order", "executed"),
        ("update_order_status", "blocked"),
        ("find_refund_approval", "executed"),
        ("update_order_status", "executed"),
    ]
    refused = run.result.tool_calls[1]
    assert "needs an approval" in refused.content and "find_refund_approval" in refused.content
    assert run.order["status"] == "refunded" and run.order["approval_id"] == "AP-7"
    assert row(tmp_path / "orders") == run.order  # what the database holds
    audit = [(a["user"], a["session_id"], a["tool_use_id"], a["outcome"]) for a in run.audit]
    session = run.result.session_id
    assert audit == [
        (USER, session, "toolu_01_get", "ran"),
        (USER, session, "toolu_02_refund", "refused"),
        (USER, session, "toolu_03_approval", "ran"),
        (USER, session, "toolu_04_refund", "ran"),
    ]
    assert run.audit[1]["tool"] == "mcp__orders__update_order_status"
    assert run.audit[1]["input"] == REFUND and "needs an approval" in run.audit[1]["detail"]
    assert run.audit[3]["input"] == {**REFUND, "approval_id": "AP-7"}
    assert ("ledger", "orders.db: A-1001 is refunded (approval AP-7)") in said


def test_without_the_hooks_the_server_would_refund_with_no_approval(tmp_path):
    """The control: the server itself does not insist on an approval, so the hook is the rule."""
    status, order = refund_without_approval(prepare(tmp_path), settings=[NO_SETTINGS_HOOKS])
    assert status == "executed"
    assert (order["status"], order["approval_id"]) == ("refunded", None)


def test_the_python_hooks_file_keeps_the_same_rule(tmp_path):
    workspace = prepare(tmp_path)
    status, order = refund_without_approval(
        workspace, settings=[NO_SETTINGS_HOOKS], hook_files=[workspace / "hooks.py"]
    )
    assert status == "blocked"
    assert order["status"] == "paid"  # untouched


def test_hookline_demo_orders_prints_the_refusal_and_the_evidence(tmp_path):
    done = hookline("demo", "orders", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "[mcp__orders__update_order_status] BLOCKED: A refund needs an approval" in out
    assert "orders.db: A-1001 is refunded (approval AP-7)" in out
    assert "lin@shop toolu_02_refund mcp__orders__update_order_status" in out
    assert out.rstrip().endswith("order A-1001 is refunded.")
    assert list(tmp_path.iterdir()) == []  # it ran in a temporary copy


def test_hookline_demo_orders_without_the_sdk_says_how_to_install_it(tmp_path, monkeypatch):
    shim = tmp_path / "shim"
    (shim / "mcp").mkdir(parents=True)
    (shim / "mcp" / "__init__.py").write_text("raise ImportError('mcp is hidden here')\n")
    monkeypatch.setenv("PYTHONPATH", str(shim))
    done = hookline("demo", "orders", cwd=tmp_path)
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert "the mcp SDK, which is not installed" in line
    assert line.endswith("(fix: pip install 'hookline[mcp]')")


def test_model_is_only_for_a_named_demo(tmp_path):
    done = hookline("demo", "--model", "rules", cwd=tmp_path)
    assert done.returncode == 2 and "--model: --model is for a named demo" in done.stderr
