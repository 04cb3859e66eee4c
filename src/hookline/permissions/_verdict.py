"""What the permission layer answers for one call, and where its rules come from."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hookline.permissions._rules import PermissionRule

if TYPE_CHECKING:
    from hookline._decisions import Origin, Permission

#: A rule and the settings it came from, as in ``"project settings"``.
SourcedRule = tuple[PermissionRule, str]
#: Where an allow rule of an approval "for the rest of this session" comes from
#: (``hookline.permissions._session``).
SESSION_SOURCE = "this session's approval"


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the permission layer decided, why (in words for the model), and who decided: by
    name (``source``: ``"tier:read-only"``, the rule and its settings, ...) and by kind
    (``origin``: rule, mode, tier, sandbox, or the hook's own)."""

    permission: Permission
    reason: str
    source: str
    origin: Origin = field(compare=False)
