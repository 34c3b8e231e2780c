"""MCP instance ownership and lifetime over streamable HTTP, through the official SDK client (issue 14, defect 15).

The server runs in the test's loop (uvicorn on 127.0.0.1, the same ASGI app `cdp-engine mcp --http` serves) on
the session browser, so the tests can also look at the manager. Two client sessions use the handshake (stateful)
protocol, whose sessions have an Mcp-Session-Id; the SDK's default client speaks the stateless 2026-07-28
protocol, which has none.
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import pytest

import cdp_engine
from cdp_engine.mcp_server import BrowserTools, Config, InstanceManager

mcp = pytest.importorskip("mcp")
uvicorn = pytest.importorskip("uvicorn")

from mcp import Client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from mcp.shared._httpx_utils import create_mcp_http_client  # noqa: E402

from cdp_engine.mcp_server.server import http_app  # noqa: E402

TOKEN = "sessions-token"
Call = Callable[..., Awaitable[dict[str, Any]]]


@asynccontextmanager
async def http_server(browser: cdp_engine.Browser, **config: Any) -> AsyncIterator[tuple[str, InstanceManager]]:
    """An MCP streamable HTTP server on a free local port; yields (its /mcp URL, its manager)."""
    cfg = Config(**config)
    cfg.transport = "streamable-http"  # as serve_http sets it
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    sock.setblocking(False)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"
    async with InstanceManager(cfg, browser=browser) as manager:
        app = http_app(BrowserTools(manager), TOKEN)
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
        task = asyncio.create_task(server.serve(sockets=[sock]))
        try:
            async with asyncio.timeout(10):
                while not server.started:  # noqa: ASYNC110 - uvicorn has no started event
                    await asyncio.sleep(0.01)
            yield url, manager
        finally:
            server.should_exit = True
            await asyncio.wait_for(task, 10)
            sock.close()


@asynccontextmanager
async def session(url: str, *, mode: str = "legacy") -> AsyncIterator[Call]:
    """One SDK client session; yields call(tool, **arguments) -> envelope. Leaving it ends the session."""
    async with AsyncExitStack() as stack:
        http = await stack.enter_async_context(create_mcp_http_client(headers={"Authorization": f"Bearer {TOKEN}"}))
        client = await stack.enter_async_context(
            Client(streamable_http_client(url, http_client=http), read_timeout_seconds=30, mode=mode)
        )

        async def call(tool: str, **arguments: Any) -> dict[str, Any]:
            result = await client.call_tool(tool, arguments)
            envelope: dict[str, Any] = json.loads(result.content[0].text)
            return envelope

        yield call


def names(listed: dict[str, Any]) -> list[str]:
    return sorted(i["name"] for i in listed["data"]["instances"])


async def until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """Wait for engine state to satisfy condition, within a deadline."""
    async with asyncio.timeout(timeout):
        while not condition():  # noqa: ASYNC110 - the test waits for engine state
            await asyncio.sleep(0.02)


async def test_ownership_each_session_sees_and_drives_only_its_own(browser: cdp_engine.Browser, site: Any) -> None:
    url = site.add("/mcp-sessions/page", "<title>Mine</title><p>mine</p>")
    async with http_server(browser, session_ownership=True) as (mcp_url, manager):
        async with session(mcp_url) as a, session(mcp_url) as b:
            assert (await a("browser_create_instance", name="main"))["status"] == "success"
            assert (await a("browser_navigate", instance="main", url=url))["data"]["title"] == "Mine"
            # B neither lists, drives nor destroys A's instance: to B it does not exist.
            assert names(await b("browser_list_instances")) == []
            health = await b("browser_health")
            assert health["data"]["instance_count"] == 0 and health["data"]["config"]["session_ownership"] is True
            for tool, args in [
                ("browser_snapshot", {"instance": "main"}),
                ("browser_navigate", {"instance": "main", "url": "about:blank"}),
                ("browser_destroy_instance", {"name": "main"}),
            ]:
                env = await b(tool, **args)
                assert env["error_type"] == "instance_not_found", env
                assert env["operation"]["outcome"] == "not_started", env
            # Names are per session: B gets its own "main", and each drives its own.
            assert (await b("browser_create_instance", name="main"))["status"] == "success"
            assert names(await a("browser_list_instances")) == ["main"] == names(await b("browser_list_instances"))
            assert (await b("browser_navigate", instance="main", url="about:blank"))["data"]["url"] == "about:blank"
            snap = await a("browser_snapshot", instance="main")
            assert snap["data"]["url"] == url and "mine" in snap["data"]["snapshot"]
            assert len(manager.instances) == 2
            # A destroys its own; B's stays.
            assert (await a("browser_destroy_instance", name="main"))["status"] == "success"
            assert names(await a("browser_list_instances")) == [] and names(await b("browser_list_instances")) == ["main"]


async def test_ended_sessions_leave_no_instance_behind(browser: cdp_engine.Browser) -> None:
    """Sessions that end without destroying used to keep their instances until the cap refused everyone."""
    async with http_server(browser, session_ownership=True, max_instances=2) as (mcp_url, manager):
        for _ in range(3):  # without the cleanup the second round would get instance_limit_exceeded
            async with session(mcp_url) as a:
                for name in ("one", "two"):
                    assert (await a("browser_create_instance", name=name))["status"] == "success"
                refused = await a("browser_create_instance", name="three")
                assert refused["error_type"] == "instance_limit_exceeded"  # the cap stays server-wide
                contexts = [inst.context for inst in manager.instances.values()]
            await until(lambda: not manager.instances)  # the session's DELETE ended it
            assert all(c.id not in browser.contexts for c in contexts)


async def test_sessionless_clients_share_one_namespace_apart_from_sessions(browser: cdp_engine.Browser) -> None:
    """The stateless protocol has no session to own an instance: such clients share one namespace, which
    sessions do not see; ending a session leaves it alone."""
    async with http_server(browser, session_ownership=True) as (mcp_url, manager):
        async with session(mcp_url, mode="auto") as modern:
            assert (await modern("browser_create_instance", name="shared"))["status"] == "success"
            async with session(mcp_url) as legacy:
                assert names(await legacy("browser_list_instances")) == []
            async with session(mcp_url, mode="auto") as other:
                assert names(await other("browser_list_instances")) == ["shared"]
        assert [inst.name for inst in manager.instances.values()] == ["shared"]


async def test_without_ownership_instances_are_server_level(browser: cdp_engine.Browser) -> None:
    """The reference's semantics stay the default: any session sees an instance, and it outlives its session."""
    async with http_server(browser) as (mcp_url, manager):
        async with session(mcp_url) as a:
            assert (await a("browser_create_instance", name="kept"))["status"] == "success"
        assert [inst.name for inst in manager.instances.values()] == ["kept"]
        async with session(mcp_url) as b:
            assert names(await b("browser_list_instances")) == ["kept"]
            health = (await b("browser_health"))["data"]
            assert health["config"]["idle_ttl_seconds"] == 1800.0  # streamable HTTP's default TTL
            assert health["config"]["session_ownership"] is False
            assert (await b("browser_destroy_instance", name="kept"))["status"] == "success"


async def test_idle_ttl_reaps_over_http(browser: cdp_engine.Browser) -> None:
    async with http_server(browser, idle_ttl=0.3, reaper_interval=0.05) as (mcp_url, manager):
        async with session(mcp_url) as a:
            assert (await a("browser_create_instance", name="idle"))["status"] == "success"
            await until(lambda: not manager.instances, timeout=5)
            assert names(await a("browser_list_instances")) == []
            gone = await a("browser_tabs", instance="idle", action="list")
            assert gone["error_type"] == "instance_not_found"


def test_ttl_and_ownership_settings() -> None:
    """Defaults: TTL off for stdio (the reference's 0), 30 minutes for streamable HTTP; both from the environment."""
    assert Config().reap_after == 0.0
    http = Config()
    http.transport = "streamable-http"
    assert http.reap_after == 1800.0
    explicit = Config.from_env({"BROWSER_MCP_IDLE_TTL_SECONDS": "0"})
    explicit.transport = "streamable-http"
    assert explicit.reap_after == 0.0  # an explicit 0 turns it off on HTTP too
    assert Config.from_env({}).session_ownership is False
    env = {"BROWSER_MCP_SESSION_OWNERSHIP": "true", "BROWSER_MCP_SESSION_IDLE_TIMEOUT_SECONDS": "60"}
    config = Config.from_env(env)
    assert config.session_ownership is True and config.session_idle_timeout == 60.0
    with pytest.raises(ValueError, match="BROWSER_MCP_SESSION_OWNERSHIP"):
        Config.from_env({"BROWSER_MCP_SESSION_OWNERSHIP": "maybe"})
