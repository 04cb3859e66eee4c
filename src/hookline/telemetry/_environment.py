"""Whether to trace, decided from the standard ``OTEL_*`` variables before anything is imported.

An agent is traced when

- the program set an OpenTelemetry SDK tracer provider of its own (``trace.set_tracer_provider``):
  its spans go there; this is looked at only when the program imported OpenTelemetry already;
- or ``OTEL_TRACES_EXPORTER``, ``OTEL_EXPORTER_OTLP_ENDPOINT`` or
  ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` is set: a tracer provider is made as the SDK's own
  configuration would make it, and set for the process (the next agent uses it too). Its
  exporters are ``OTEL_TRACES_EXPORTER``'s (``otlp``, the default: OTLP over HTTP with
  protobuf, to ``OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT``, ``http://localhost:4318`` by default;
  ``console``: spans as JSON on stderr; ``none``), each behind a batch processor
  (``OTEL_BSP_*``); its resource is ``OTEL_RESOURCE_ATTRIBUTES`` and ``OTEL_SERVICE_NAME``,
  ``service.name`` ``hookline`` unless they name one.

``OTEL_SDK_DISABLED=true`` turns it off. Otherwise, with none of these, nothing is imported and
an agent pays nothing. With them but without the SDK installed, one warning says how to install
it, and the run goes on untraced. An exporter or protocol hookline cannot make is a
``ConfigError`` naming the variable.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import TYPE_CHECKING, Any, Final

from hookline._errors import ConfigError

if TYPE_CHECKING:
    from hookline._agent.loop import Agent
    from hookline._agent.observers import Observer
    from hookline.telemetry._spans import Tracing

logger = logging.getLogger(__name__)

#: Any of these set (non-empty) turns tracing on.
CONFIGURING: Final = (
    "OTEL_TRACES_EXPORTER",
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
)
INSTALL: Final = "pip install 'hookline[otel]'"
SERVICE: Final = "hookline"


def configured() -> bool:
    """Whether the environment asks for traces (and does not disable the SDK)."""
    env = os.environ
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    return any(env.get(name, "").strip() for name in CONFIGURING)


def from_environment(agent: Agent) -> Observer | None:
    """The tracing observer for ``agent``, or None when nothing asks for traces."""
    provider = tracer_provider()
    if provider is None:
        return None
    from hookline.audit._redact import Redactor
    from hookline.telemetry._spans import Tracing

    return Tracing(provider, redactor=Redactor(agent.options.redact))


def tracer_provider() -> Any:
    """The tracer provider spans go to, as an agent's are (the program's own, else one made
    from the ``OTEL_*`` variables), or None when nothing asks for traces: then nothing of
    OpenTelemetry is imported."""
    asked = configured()
    if not asked and "opentelemetry.trace" not in sys.modules:
        return None  # the common case: nothing imported, nothing paid
    if os.environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return None
    return _provider(asked)


def checked() -> None:
    """A ConfigError naming the variable when ``OTEL_TRACES_EXPORTER`` or the OTLP protocol
    names what hookline cannot make; nothing is imported (a server checks before its workers
    start, each of which makes its own provider)."""
    if not configured():
        return
    names = os.environ.get("OTEL_TRACES_EXPORTER", "").strip() or "otlp"
    asked = [part.strip().lower() for part in names.split(",")]
    for name in asked:
        if name not in ("otlp", "console", "none"):
            raise _unknown_exporter(name)
    if "otlp" in asked:
        _protocol()


def tracing_of(agent: Agent) -> Tracing | None:
    """The ``Tracing`` observer watching ``agent``, if any (nothing imported if none can be)."""
    spans = sys.modules.get("hookline.telemetry._spans")
    if spans is None:
        return None
    return next((o for o in agent.observers if isinstance(o, spans.Tracing)), None)


def _provider(asked: bool) -> Any:
    """The program's SDK tracer provider; else, if ``asked``, one made from the environment and
    set for the process; else None."""
    try:
        from opentelemetry import trace
    except ImportError:
        logger.warning("OTEL_* variables ask for traces, but OpenTelemetry is not installed: %s",
                       INSTALL)  # fmt: skip
        return None
    current = trace.get_tracer_provider()
    if not isinstance(current, trace.ProxyTracerProvider | trace.NoOpTracerProvider):
        return current  # the program's own, or one an earlier agent set
    if not asked:
        return None
    try:
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError:
        logger.warning("OTEL_* variables ask for traces, but the OpenTelemetry SDK is not "
                       "installed: %s", INSTALL)  # fmt: skip
        return None
    resource = Resource.create()
    if str(resource.attributes.get("service.name", "")).startswith("unknown_service"):
        resource = resource.merge(Resource({"service.name": SERVICE}))
    provider = TracerProvider(resource=resource)
    for exporter in _exporters():
        provider.add_span_processor(BatchSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    return trace.get_tracer_provider()  # ours, unless another thread set one first


def _exporters() -> list[Any]:
    """The span exporters ``OTEL_TRACES_EXPORTER`` names (``otlp`` when unset)."""
    names = os.environ.get("OTEL_TRACES_EXPORTER", "").strip() or "otlp"
    exporters = []
    for name in (part.strip().lower() for part in names.split(",")):
        if name == "otlp":
            exporters.append(_otlp())
        elif name == "console":
            from opentelemetry.sdk.trace.export import ConsoleSpanExporter

            exporters.append(ConsoleSpanExporter(out=sys.stderr))
        elif name != "none":
            raise _unknown_exporter(name)
    return exporters


def _unknown_exporter(name: str) -> ConfigError:
    return ConfigError(
        f"{name!r} is not a span exporter hookline can make",
        key="OTEL_TRACES_EXPORTER",
        fix="otlp, console or none",
    )


def _protocol() -> None:
    """A ConfigError unless the OTLP protocol asked for is HTTP with protobuf."""
    key = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
    protocol = os.environ.get(key, "").strip()
    if not protocol:
        key = "OTEL_EXPORTER_OTLP_PROTOCOL"
        protocol = os.environ.get(key, "").strip() or "http/protobuf"
    if protocol != "http/protobuf":
        raise ConfigError(
            f"hookline exports spans over OTLP/HTTP with protobuf, not {protocol!r}",
            key=key,
            fix="set it to http/protobuf (a collector's port 4318), or unset it",
        )


def _otlp() -> Any:
    """An OTLP exporter over HTTP (protobuf); the SDK reads the endpoint, headers, timeout."""
    _protocol()
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    except ImportError:
        raise ConfigError(
            "the OTLP exporter is not installed",
            key="OTEL_TRACES_EXPORTER",
            fix=INSTALL,
        ) from None
    return OTLPSpanExporter()
