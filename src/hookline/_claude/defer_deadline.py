"""How long a deferred call may wait for its answer (``deferDeadline``, hookline's own).

    {"hookline": {"deferDeadline": "2d"}}      # or "12h", "30m", "90s", or seconds: 172800

The shortest deadline any layer sets applies (``hookline run --defer-deadline`` joins them): a
deadline only ends a wait sooner, in a deny, so no layer lengthens another's, and a folder's own
settings can set one as they can tighten anything else. A value that is not a duration stops
the run, naming the file, as a bad ``auditSync`` does: the run would otherwise let calls wait
past the deadline its settings ask for. What happens at the deadline is
``hookline._agent.saved.deadline``'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from hookline._agent.saved.deadline import seconds, shorter
from hookline._settings_layers import Layer, layered

PATH: Final = ("hookline", "deferDeadline")
_KEY: Final = ".".join(PATH)


def defer_deadline(layers: Sequence[Layer]) -> float | None:
    """The shortest ``deferDeadline`` of the layers, in seconds (None: none sets one); a
    ConfigError naming the file for a value that is not a duration."""
    found: float | None = None
    for layer, value in layered(layers, *PATH):
        found = shorter(found, seconds(value, key=_KEY, file=layer.path))
    return found
