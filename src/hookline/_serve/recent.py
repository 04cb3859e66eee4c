"""The recent steps of a live ask's host session, for the person who answers it.

When ``hookline serve --asks inbox`` makes a live ask (``hookline._serve.asks``), the ask keeps
the last ``STEPS`` hook events the server judged of the same host session: the newest
``served`` records (``hookline._serve.record``) of its session id, of the last ``WINDOW``
seconds, whose data names the same host, tenant and agent token as the ask (another token
naming the same session id adds none), oldest first, each one line in the words the inbox
shows a paused session's steps in (``hookline.audit._steps``), made from the record as it
was kept: redacted, its input clipped.

One bounded read: at most ``READ`` rows, newest first (``Store.audit_rows`` with ``newest``),
never the whole session. The server's own records not yet in the store are copied there first,
so the calls just before the ask are among them (another worker's may be up to the second its
copy waits behind). A read that fails, or takes over ``WAIT`` seconds, leaves the ask with no
steps, saying why (``steps_failure``): the ask itself is made and answered as ever.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any, Final

from hookline._serve.record import KIND
from hookline.audit._steps import STEPS, served_step

if TYPE_CHECKING:
    from collections.abc import Mapping

    from hookline.audit._writer import AuditWriter
    from hookline.storage import AuditRow
    from hookline.storage._asks import SessionKey

#: Seconds back a live ask's steps may go.
WINDOW: Final = 3600.0
#: The most rows one read takes: a few more than are kept, as another token's records of the
#: same session id are left out once read.
READ: Final = 4 * STEPS
#: Seconds an ask waits for its steps before it is made without them.
WAIT: Final = 2.0


async def steps_of(audit: AuditWriter, key: SessionKey | None) -> dict[str, Any]:
    """What a live ask of host session ``key`` keeps of its recent steps: ``{"steps":
    [...]}``, or ``{"steps_failure": why}`` when they could not be read; nothing for a call
    that names no session. Read off the event loop."""
    if key is None:
        return {}
    try:
        found = await asyncio.wait_for(asyncio.to_thread(recent, audit, key, time.time()), WAIT)
    except Exception as exc:
        why = str(exc) if str(exc) else f"no answer from the store in {WAIT:g}s"
        return {"steps_failure": why}
    return {"steps": found}


def recent(audit: AuditWriter, key: SessionKey, now: float) -> list[str]:
    """The last steps of host session ``key`` before ``now``, oldest first, one line each."""
    audit.flush(copy=True)  # this process's latest records are in the store too
    store = audit.store_of()
    if store is None:
        return []
    tenant, _, _, session = key
    rows = store.audit_rows(
        session_id=session,
        kind=KIND,
        since=now - WINDOW,
        tenant=tenant or None,
        limit=READ,
        newest=True,
    )
    return [step(row) for row in [row for row in rows if of(row.data, key)][-STEPS:]]


def of(data: Mapping[str, Any], key: SessionKey) -> bool:
    """Whether a record's data names host session ``key``'s host, tenant and agent."""
    tenant, agent, host, _ = key
    said = (data.get("tenant") or "", data.get("agent") or "", data.get("host"))
    return said == (tenant, agent, host)


def step(row: AuditRow) -> str:
    """One ``served`` record as a step."""
    data = row.data
    outcome = row.permission or (row.decision if row.decision != "none" else None)
    origin = data.get("origin") if isinstance(data.get("origin"), str) else None
    return served_step(row.event, row.tool, data.get("input"), outcome, origin)
