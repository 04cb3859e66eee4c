"""``hookline demo``: the offline scenarios, or a named demo."""

from __future__ import annotations

import asyncio

import click

from hookline._cli.render import say
from hookline._demo import run_demo
from hookline._errors import ConfigError


@click.command()
@click.argument("name", required=False, type=click.Choice(["orders"]))
@click.option(
    "--model",
    "model_spec",
    default=None,
    help="For orders: openai:NAME, anthropic:NAME, ... (default: the example's script, offline).",
)
def demo(name: str | None, model_spec: str | None) -> None:
    """Four scenarios, offline, in a temporary workspace; or NAME: orders, the refund agent
    on an MCP server (needs hookline[mcp])."""
    if name == "orders":
        _orders_demo(model_spec)
        return
    if model_spec:
        fix = "hookline demo orders --model ..."
        raise ConfigError("--model is for a named demo", key="--model", fix=fix)
    ledgers = asyncio.run(run_demo(say))
    say("note", f"{len(ledgers.executed)} calls ran, {len(ledgers.blocked)} were refused.")


def _orders_demo(model_spec: str | None) -> None:
    from hookline._demo.orders import run_orders_demo
    from hookline.models._choice import model_from_spec

    model = model_from_spec(model_spec) if model_spec else None
    run = asyncio.run(run_orders_demo(say, model=model))
    say("note", f"order {run.order.get('id')} is {run.order.get('status')}.")
