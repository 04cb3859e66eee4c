"""OpenTelemetry traces of what an agent does: a span for each run of a session, model call,
tool call and hook run, with the decision, the reason, the failure kind and the policy digest as
attributes, redacted as the audit redacts.

    Agent(model)                   # traced when OTEL_* variables configure an exporter
    agent.observe(Tracing(provider))   # or into a TracerProvider of the program's own

Nothing here imports OpenTelemetry until tracing is on: ``from_environment`` (the agent's
``Runtime.tracing`` plug-in) reads the environment first (``hookline.telemetry._environment``);
``Tracing`` (``hookline.telemetry._spans``) needs the SDK: ``pip install 'hookline[otel]'``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hookline.telemetry._environment import from_environment, tracing_of

if TYPE_CHECKING:
    from hookline.telemetry._spans import Tracing

__all__ = ["Tracing", "from_environment", "tracing_of"]


def __getattr__(name: str) -> Any:
    """``Tracing``, imported (with OpenTelemetry) when first asked for."""
    if name == "Tracing":
        from hookline.telemetry._spans import Tracing

        return Tracing
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
