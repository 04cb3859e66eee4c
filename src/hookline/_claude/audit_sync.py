"""Whether the audit's write ahead of each tool body is fsync'd (``auditSync``, hookline's own).

    {"hookline": {"auditSync": true}}

Any layer that sets it true turns it on (``hookline run --audit-sync`` does too): it only adds
durability, so none turns it off for another. A value that is not true or false stops the run,
naming the file, as a bad ``redact`` does: the run would otherwise go on without the guarantee
its settings ask for.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from hookline._errors import ConfigError
from hookline._settings_layers import Layer, layered

PATH: Final = ("hookline", "auditSync")
_KEY: Final = ".".join(PATH)


def audit_sync(layers: Sequence[Layer]) -> bool:
    """Whether any layer turns ``auditSync`` on; a ConfigError for a value that is not a bool."""
    found = False
    for layer, value in layered(layers, *PATH):
        if not isinstance(value, bool):
            raise ConfigError(
                f"{_KEY} must be true or false; got {value!r}",
                file=layer.path,
                key=_KEY,
                fix='write "hookline": {"auditSync": true}',
            )
        found = found or value
    return found
