"""Pooled HTTP clients: one keep-alive ``httpx.AsyncClient`` per event loop, owned by whoever
made the pool.

An ``HttpClients`` makes its loop's client on first use and its owner closes it on that loop
before the loop ends (``aclose``). Each agent owns one (``hookline._agent.runtime.Runtime``) and
lends it to the HTTP hooks its engine runs (``hookline._hooks.resources``) and to its HTTP
approver; closing one agent closes no other's. ``pooled_or_once`` serves a request with no pool
through a client of its own, closed after it. There is no process-wide pool. The pool sets no
httpx timeout: it serves requests with different deadlines, each awaited under its own.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    import httpx

#: HTTP hook and approval servers are few and mostly local: a small pool, and idle connections
#: kept across model turns (httpx's default 5 s expiry would drop them between most tool calls).
DEFAULT_POOL: Final = {
    "max_connections": 64,
    "max_keepalive_connections": 16,
    "keepalive_expiry": 60,
}


class HttpClients:
    """One pooled ``httpx.AsyncClient`` per running event loop, made on first use (httpx is
    imported then: a program that sends no HTTP request never loads it)."""

    def __init__(self, *, limits: httpx.Limits | None = None) -> None:
        self.limits = limits
        self._clients: dict[asyncio.AbstractEventLoop, httpx.AsyncClient] = {}

    def client(self) -> httpx.AsyncClient:
        """The running loop's client."""
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None or client.is_closed:
            import httpx

            self._forget_closed_loops()
            limits = self.limits or httpx.Limits(**DEFAULT_POOL)
            client = httpx.AsyncClient(limits=limits, timeout=None, follow_redirects=False)
            self._clients[loop] = client
        return client

    async def aclose(self) -> None:
        """Close the running loop's client; forget those of loops already closed."""
        client = self._clients.pop(asyncio.get_running_loop(), None)
        self._forget_closed_loops()
        if client is not None:
            await client.aclose()

    def _forget_closed_loops(self) -> None:
        for loop in list(self._clients):  # a copy: other threads' loops may add clients
            if loop.is_closed():
                self._clients.pop(loop, None)


@asynccontextmanager
async def pooled_or_once(clients: HttpClients | None) -> AsyncIterator[httpx.AsyncClient]:
    """The running loop's client of ``clients``; with no pool, a client for this one request,
    closed after it (so nothing is left open that nobody owns)."""
    if clients is not None:
        yield clients.client()
        return
    import httpx

    async with httpx.AsyncClient(
        limits=httpx.Limits(**DEFAULT_POOL), timeout=None, follow_redirects=False
    ) as client:
        yield client
