"""Whose records: the caller filters the evidence commands share (``--tenant``, ``--agent``,
``--user``, ``--host``), so a platform team can look at one team's traffic.

    who = Callers(tenant="payments", host="codex")
    who.rows(store.audit_rows(tenant=who.tenant))    # the records whose data says so

A record says who made it in its data: a run's records carry the ``user`` and ``tenant`` of the
run; a ``served`` record (``hookline serve``) carries the ``host`` that sent the event
(``claude-code``, ``codex``, ``gemini``, ``cursor``) and the token it came with: ``agent`` (the
token's name), ``tenant`` and ``user``. Each filter given must equal the record's field, exactly;
a record without that field is left out. They choose what to read: a query filter, not access
control.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from hookline.storage import AuditRow

#: The fields a record's data names its caller by, in the order the options are listed.
CALLER_FIELDS: Final = ("tenant", "agent", "user", "host")


@dataclass(frozen=True, slots=True)
class Callers:
    """The callers whose records are kept; a field left None keeps every value of it."""

    tenant: str | None = None
    agent: str | None = None
    user: str | None = None
    host: str | None = None

    def given(self) -> dict[str, str]:
        """The filters given, by field."""
        said = {f.name: getattr(self, f.name) for f in fields(self)}
        return {name: value for name, value in said.items() if value is not None}

    def __bool__(self) -> bool:
        return bool(self.given())

    def keeps(self, data: Mapping[str, Any] | None) -> bool:
        """Whether a record whose data is ``data`` is one of these callers'."""
        wanted = self.given()
        if not wanted:
            return True
        if not isinstance(data, Mapping):
            return False
        return all(data.get(name) == value for name, value in wanted.items())

    def rows(self, rows: Iterable[AuditRow]) -> list[AuditRow]:
        """The rows these callers' records are, in their order."""
        if not self:
            return list(rows)
        return [row for row in rows if self.keeps(row.data)]

    def __str__(self) -> str:
        """As a person reads it: ``tenant payments, host codex`` (``anyone`` for none)."""
        return ", ".join(f"{name} {value}" for name, value in self.given().items()) or "anyone"
