"""Optional OpenTelemetry spans: one per tool call or action, with its timings, when enabled.

Nothing is imported until `enable()` is called (the `--otel` option, or the application itself), and a
disabled `span()` costs one attribute check, so the engine never depends on OpenTelemetry: it is the
`cdp-engine[otel]` extra. Spans go to the global tracer provider the application configured; when it
configured none and the SDK is installed, `enable()` installs one that exports over OTLP when
`opentelemetry-exporter-otlp` is there (OTEL_EXPORTER_OTLP_ENDPOINT etc. apply), else to stderr.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator, Mapping
from typing import Any

from ..errors import CDPEngineError
from ..version import __version__

_tracer: Any = None


def enabled() -> bool:
    return _tracer is not None


def enable(*, install_provider: bool = True) -> None:
    """Emit spans from now on; CDPEngineError saying what to install when OpenTelemetry is missing."""
    global _tracer
    try:
        from opentelemetry import trace
    except ImportError:
        raise CDPEngineError("--otel needs OpenTelemetry: pip install 'cdp-engine[otel]'") from None
    if install_provider and type(trace.get_tracer_provider()).__name__ == "ProxyTracerProvider":
        with contextlib.suppress(ImportError):
            from opentelemetry.sdk.trace import TracerProvider
            from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter

            provider = TracerProvider()
            try:
                from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

                exporter: Any = OTLPSpanExporter()
            except ImportError:
                exporter = ConsoleSpanExporter(out=sys.stderr)  # stdout may be the MCP stdio transport
            provider.add_span_processor(BatchSpanProcessor(exporter))
            trace.set_tracer_provider(provider)
    _tracer = trace.get_tracer("cdp_engine", __version__)


def disable() -> None:
    global _tracer
    _tracer = None


def flush(timeout_ms: int = 5000) -> None:
    """Export the spans still buffered (before a process ends without running its exit handlers)."""
    if _tracer is None:
        return
    from opentelemetry import trace

    force_flush = getattr(trace.get_tracer_provider(), "force_flush", None)
    if force_flush is not None:
        with contextlib.suppress(Exception):
            force_flush(timeout_ms)


@contextlib.contextmanager
def span(name: str, attributes: Mapping[str, Any] | None = None) -> Iterator[Any]:
    """A span around a block when tracing is on (yields it, for set_attribute), else nothing (yields None)."""
    tracer = _tracer
    if tracer is None:
        yield None
        return
    with tracer.start_as_current_span(name, attributes=dict(attributes or {})) as current:
        yield current


def add_timings(current: Any, timings: Mapping[str, float], prefix: str = "cdp_engine.timing.") -> None:
    """Per-phase milliseconds (tab.last_timings) as span attributes."""
    if current is None:
        return
    for phase, ms in timings.items():
        if isinstance(ms, int | float):
            current.set_attribute(prefix + phase, float(ms))
