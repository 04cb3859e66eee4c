"""Session grants of live asks: "approve for this session" in the inbox, for a host session.

A live ask of the tiers offers a grant (``hookline.permissions._session.grant_for``: acceptEdits
for a file edit in the workspace, an allow rule per Bash command, a WebFetch domain, ...). A
person who approves it for the session gives that grant to the ask's host session, whose key
is the caller's tenant and agent (its token), the host and the host's session id
(``session_key``): another session, host, tenant or agent never sees it, even one that names
the same session id. ``Grants`` keeps them in the store, so every server on
it allows what they name, and reads them per host session with a cache of ``FRESH`` seconds
(a grant seen a moment late only means one more ask); a grant given here is seen at once.
"The rest of the session" is bounded: a grant holds for ``life`` seconds after it was given
(``hookline serve --grant-hours``, a day by default), since a host session can be resumed days
later; then its session asks again.
The judge applies them as a run's ``Permit.restore`` does: allow rules and a mode, weighed
after deny rules, hookline's private state, the dangerous tier, ask rules and the protected
set, so no grant lifts any of those.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from hookline._errors import ConfigError
from hookline.permissions._session import SessionGrant

if TYPE_CHECKING:
    from collections.abc import Mapping

    from hookline._serve.gate import Caller
    from hookline.storage import AskStore
    from hookline.storage._asks import SessionKey

#: Seconds a host session's grants, as read from the store, are taken as they are.
FRESH: Final = 1.0
#: Seconds a grant holds after it was given, unless the server says otherwise.
LIFE: Final = 24 * 3600.0
#: The most host sessions whose grants are kept; past that, all are read again.
_KEPT_MOST: Final = 4096


def session_key(payload: Mapping[str, Any], caller: Caller, host: str) -> SessionKey | None:
    """The host session ``payload`` belongs to: (tenant or "", agent or "", host, session id);
    None when the host named no session (its calls get no grant)."""
    session = payload.get("session_id")
    if not isinstance(session, str) or not session:
        return None
    token = caller.token
    if token is None:
        return ("", "", host, session)
    return (token.tenant or "", token.name, host, session)


@dataclass(eq=False)
class Grants:
    """The session grants of the store's host sessions, as one server process sees them."""

    store: AskStore
    fresh: float = FRESH
    life: float = LIFE
    _seen: dict[SessionKey, tuple[float, tuple[SessionGrant, ...]]] = field(default_factory=dict)

    async def of(self, key: SessionKey) -> tuple[SessionGrant, ...]:
        """The grants given to host session ``key`` (none when the store cannot say: the
        session's calls ask, as without a grant)."""
        now = time.monotonic()
        seen = self._seen.get(key)
        if seen is not None and now < seen[0]:
            return seen[1]
        since = time.time() - self.life
        try:
            rows = await asyncio.to_thread(self.store.session_grants, key, since=since)
        except Exception:
            return seen[1] if seen is not None else ()
        found = tuple(dict.fromkeys(_parsed(rows)))
        self._keep(key, (now + self.fresh, found))
        return found

    async def give(self, key: SessionKey, ask: str, grant: SessionGrant) -> None:
        """Give ``grant`` (live ask ``ask``'s) to host session ``key``: in the store, and seen
        here at once."""
        await asyncio.to_thread(self.store.put_grant, ask, key, grant.to_dict())
        seen = self._seen.get(key)
        until, known = seen if seen is not None else (time.monotonic() + self.fresh, ())
        if grant not in known:
            self._keep(key, (until, (*known, grant)))

    def _keep(self, key: SessionKey, value: tuple[float, tuple[SessionGrant, ...]]) -> None:
        if len(self._seen) >= _KEPT_MOST and key not in self._seen:
            self._seen.clear()
        self._seen[key] = value


def _parsed(rows: list[dict[str, Any]]) -> list[SessionGrant]:
    """The grants the store's rows hold; a row that is not one is left out (fewer grants:
    more asks)."""
    grants = []
    for row in rows:
        try:
            grants.append(SessionGrant.from_dict(row))
        except (ConfigError, AttributeError, TypeError):
            continue
    return grants
