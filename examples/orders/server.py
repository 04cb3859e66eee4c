"""``orders``: an MCP server over SQLite, the shop system the refund agent works on.

    python3 server.py [--db orders.db]             stdio (what .mcp.json starts)
    python3 server.py --http 8765 [--db orders.db]  streamable HTTP on 127.0.0.1:8765/mcp

Tools: ``list_orders``, ``get_order``, ``find_refund_approval`` and ``update_order_status``.
The database is created with a few sample orders and refund approvals the first time. Like many
real back ends, the server checks that an ``approval_id`` it is given exists and covers the
order, but does not insist on one: requiring an approval before a refund is the agent's policy,
kept by a hook (``hooks/require_approval.py``), not by the model's memory.

Needs the ``mcp`` SDK (``pip install 'hookline[mcp]'``).
"""

from __future__ import annotations

import argparse
import os
import sqlite3
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

#: Order statuses, with the labels the shop's staff read.
STATUSES = {"pending": "待付款", "paid": "已付款", "shipped": "已发货", "refunded": "已退款"}
SAMPLE_ORDERS = [
    ("A-1001", "Chen Jing", "wool coat", 89900, "paid"),
    ("A-1002", "Li Wei", "rice cooker", 45900, "shipped"),
    ("A-1003", "Zhao Min", "desk lamp", 12900, "paid"),
    ("A-1004", "Wang Fang", "tea set", 25900, "refunded"),
]
SAMPLE_APPROVALS = [
    ("AP-7", "A-1001", "approved", "lin.manager", "returned unworn"),
    ("AP-8", "A-1003", "pending", None, "customer changed their mind"),
    ("AP-3", "A-1004", "approved", "lin.manager", "arrived broken"),
]

app = MCPServer("orders", log_level="WARNING")
DB = Path("orders.db")


def connect() -> sqlite3.Connection:
    """The database, created with the sample data if it does not exist yet."""
    fresh = not DB.exists()
    db = sqlite3.connect(DB)
    db.row_factory = sqlite3.Row
    if fresh:
        with db:
            db.executescript(
                """
                CREATE TABLE orders (id TEXT PRIMARY KEY, customer TEXT, item TEXT,
                    amount_cents INTEGER, status TEXT, approval_id TEXT, updated_at TEXT);
                CREATE TABLE refund_approvals (id TEXT PRIMARY KEY, order_id TEXT,
                    status TEXT, approved_by TEXT, reason TEXT);
                """
            )
            db.executemany("INSERT INTO orders VALUES (?, ?, ?, ?, ?, NULL, NULL)", SAMPLE_ORDERS)
            db.executemany("INSERT INTO refund_approvals VALUES (?, ?, ?, ?, ?)", SAMPLE_APPROVALS)
    return db


def _order(row: sqlite3.Row) -> dict[str, Any]:
    order = dict(row)
    order["status_label"] = STATUSES.get(order["status"], order["status"])
    return order


@app.tool()
def list_orders(status: str | None = None) -> list[dict[str, Any]]:
    """List orders, optionally only those with one status (pending, paid, shipped, refunded)."""
    with closing(connect()) as db:
        if status:
            rows = db.execute("SELECT * FROM orders WHERE status = ? ORDER BY id", (status,))
        else:
            rows = db.execute("SELECT * FROM orders ORDER BY id")
        return [_order(row) for row in rows]


@app.tool()
def get_order(order_id: str) -> dict[str, Any]:
    """One order by its id (as A-1001)."""
    with closing(connect()) as db:
        row = db.execute("SELECT * FROM orders WHERE id = ?", (order_id,)).fetchone()
    if row is None:
        raise ToolError(f"no order {order_id}")
    return _order(row)


@app.tool()
def find_refund_approval(order_id: str) -> dict[str, Any]:
    """The refund approval on file for an order: its approval_id and whether it is approved."""
    with closing(connect()) as db:
        row = db.execute(
            "SELECT * FROM refund_approvals WHERE order_id = ?", (order_id,)
        ).fetchone()
    if row is None:
        raise ToolError(f"no refund approval on file for order {order_id}")
    approval = dict(row)
    approval["approval_id"] = approval.pop("id")
    return approval


@app.tool()
def update_order_status(
    order_id: str, status: str, approval_id: str | None = None
) -> dict[str, Any]:
    """Set an order's status (pending, paid, shipped, refunded). A refund names the
    approval_id it was approved under."""
    if status not in STATUSES:
        raise ToolError(f"unknown status {status!r}; use one of {', '.join(STATUSES)}")
    with closing(connect()) as db, db:
        if approval_id is not None:
            _check_approval(db, order_id, approval_id)
        now = datetime.now(UTC).isoformat(timespec="seconds")
        changed = db.execute(
            "UPDATE orders SET status = ?, approval_id = ?, updated_at = ? WHERE id = ?",
            (status, approval_id, now, order_id),
        ).rowcount
        if not changed:
            raise ToolError(f"no order {order_id}")
        row = db.execute("SELECT * FROM orders WHERE id = ?", (order_id,)).fetchone()
    return _order(row)


def _check_approval(db: sqlite3.Connection, order_id: str, approval_id: str) -> None:
    row = db.execute("SELECT * FROM refund_approvals WHERE id = ?", (approval_id,)).fetchone()
    if row is None or row["order_id"] != order_id:
        raise ToolError(f"approval {approval_id} does not cover order {order_id}")
    if row["status"] != "approved":
        raise ToolError(f"approval {approval_id} is {row['status']}, not approved")


def main() -> None:
    global DB
    parser = argparse.ArgumentParser(description="the orders MCP server")
    parser.add_argument("--db", default=os.environ.get("ORDERS_DB", "orders.db"))
    parser.add_argument("--http", type=int, metavar="PORT", help="serve HTTP on 127.0.0.1:PORT")
    args = parser.parse_args()
    DB = Path(args.db)
    connect().close()
    if args.http:
        app.run("streamable-http", host="127.0.0.1", port=args.http)
    else:
        app.run()


if __name__ == "__main__":
    main()
