"""OpenTelemetry spans (the optional `cdp-engine[otel]` extra): one per MCP tool call, toolset member call and
Element Index state/act, with timings; nothing imported or recorded unless enabled. Skipped where the SDK
is not installed (it is in the test extra)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import cdp_engine
from cdp_engine.index.element_index import ElementIndex
from cdp_engine.mcp_server.instance_manager import InstanceManager
from cdp_engine.mcp_server.server_config import Config
from cdp_engine.mcp_server.tools import BrowserTools
from cdp_engine.toolset import BrowserToolset
from cdp_engine.util import tracing

ROOT = Path(__file__).resolve().parents[2]


def test_off_by_default_and_without_opentelemetry() -> None:
    assert not tracing.enabled()
    with tracing.span("x") as current:
        assert current is None
    script = "import sys; sys.modules['opentelemetry'] = None\nimport cdp_engine, cdp_engine.cli\nprint('ok')"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=60, check=False)
    assert run.stdout.strip() == "ok", run.stderr
    missing = subprocess.run(
        [sys.executable, "-c", "import sys; sys.modules['opentelemetry'] = None\nfrom cdp_engine.cli import main\n"
         "sys.exit(main(['state', '--otel', 'about:blank']))"],
        capture_output=True, text=True, env=env, timeout=60, check=False,
    )  # fmt: skip
    assert missing.returncode == 2 and missing.stderr.splitlines() == [
        "cdp-engine state: error: --otel needs OpenTelemetry: pip install 'cdp-engine[otel]'"
    ]


@pytest.fixture
def spans() -> Iterator[Any]:
    pytest.importorskip("opentelemetry.sdk")
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        provider = TracerProvider()
        trace.set_tracer_provider(provider)
    processor = SimpleSpanProcessor(exporter)
    provider.add_span_processor(processor)
    tracing.enable(install_provider=False)
    try:
        yield exporter
    finally:
        tracing.disable()
        processor.shutdown()


async def test_a_span_per_tool_call_and_action(spans: Any, browser: cdp_engine.Browser, site: Any) -> None:
    url = site.add("/tracing/page", "<title>t</title><button>Go</button>")
    tab = await browser.new_tab(url)
    try:
        index = ElementIndex.of(tab)
        await index.state(screenshot=False)
        await index.act({"action": "scroll", "direction": "down"}, screenshot=False)
        await index.act({"action": "click_element", "element_index": 99}, screenshot=False)
    finally:
        await tab.close()
    async with InstanceManager(Config(), browser=browser) as manager:
        tools = BrowserTools(manager)
        await tools.call("browser_create_instance", {"name": "tr"})
        await tools.call("browser_navigate", {"instance": "tr", "url": url})
        await tools.call("browser_click", {"instance": "tr", "ref": "e999"})
    async with BrowserToolset(browser) as ts:
        await ts.call("navigate", {"url": url})
    finished = {}
    for span in spans.get_finished_spans():
        finished.setdefault(span.name, []).append(span)
    state, acts = finished["cdp_engine.state"][0], finished["cdp_engine.act"]
    assert state.attributes["cdp_engine.timing.total_ms"] > 0 and state.end_time > state.start_time
    assert [a.attributes["cdp_engine.action"] for a in acts[:2]] == ["scroll", "click_element"]
    assert acts[1].attributes["cdp_engine.error"] == "INVALID_ELEMENT_INDEX"
    assert any(k.startswith("cdp_engine.timing.") for k in acts[0].attributes)
    tools_spans = {s.attributes["mcp.tool"]: s for s in finished["cdp_engine.mcp.tool"]}
    assert tools_spans["browser_navigate"].attributes["mcp.status"] == "success"
    assert tools_spans["browser_click"].attributes["mcp.error_type"] == "stale_ref"
    assert tools_spans["browser_navigate"].attributes["mcp.instance"] == "tr"
    member = finished["cdp_engine.toolset.call"][0]
    assert member.attributes["toolset.member"] == "navigate" and member.attributes["toolset.is_error"] is False


def test_the_otel_option_prints_spans_to_stderr_without_an_exporter(site: Any) -> None:
    pytest.importorskip("opentelemetry.sdk")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    run = subprocess.run(
        [sys.executable, "-m", "cdp_engine", "state", "--otel", "data:text/html,<button>x</button>"],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert '"name": "cdp_engine.state"' in run.stderr and "cdp_engine.timing.total_ms" in run.stderr
    assert run.stdout.lstrip().startswith("{")  # stdout stays the state JSON
