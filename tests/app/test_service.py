"""The HTTP service against the session Chromium: auth, state, actions, error statuses, timings header.

Each test gets its own app (a fresh context and tab of the session browser) on a real loopback
socket, driven by a plain aiohttp client, as an agent in another process would.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import orjson
import pytest
import pytest_asyncio
from aiohttp import ClientSession, web

import cdp_engine
from cdp_engine.service import TIMINGS_HEADER, create_app, serve
from cdp_engine.util import schema

TOKEN = "test-token-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}

PAGE = """<!doctype html><title>svc</title>
<button id="b" onclick="document.getElementById('out').textContent = 'clicked ' + (++window.n)">Press me</button>
<p id="out">idle</p>
<script>window.n = 0</script>"""


@dataclass
class Service:
    url: str
    http: ClientSession
    app: web.Application

    async def get(self, path: str, headers: dict[str, str] | None = AUTH) -> tuple[int, Any, dict[str, str]]:
        async with self.http.get(self.url + path, headers=headers) as resp:
            return resp.status, orjson.loads(await resp.read()), dict(resp.headers)

    async def post(
        self, path: str, body: bytes | str, headers: dict[str, str] | None = AUTH
    ) -> tuple[int, Any]:
        async with self.http.post(self.url + path, data=body, headers=headers) as resp:
            assert resp.content_type == "application/json"
            return resp.status, orjson.loads(await resp.read())


@pytest_asyncio.fixture
async def service(browser: cdp_engine.Browser, site: Any) -> AsyncIterator[Service]:
    app = create_app(browser, token=TOKEN, start_url=site.add("/service", PAGE))
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    port = runner.addresses[0][1]
    async with ClientSession() as http:
        yield Service(f"http://127.0.0.1:{port}", http, app)
    await runner.cleanup()


def _index_of(state: dict[str, Any], tag: str) -> int:
    return next(int(k) for k, d in state["element_index"].items() if d["tag"] == tag)


async def test_health_needs_no_token(service: Service, browser: cdp_engine.Browser) -> None:
    status, body, _ = await service.get("/health", headers=None)
    assert status == 200
    assert body == {"status": "ok", "browser": browser.version["product"]}
    assert body["browser"].startswith(("HeadlessChrome/", "Chrome/"))


@pytest.mark.parametrize(
    "headers",
    [None, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}, {"Authorization": "Basic " + TOKEN}],
    ids=["missing", "wrong", "no-scheme", "basic"],
)
async def test_routes_need_the_bearer_token(service: Service, headers: dict[str, str] | None) -> None:
    status, body, _ = await service.get("/state?screenshot=0", headers=headers)
    assert (status, body) == (401, {"error": "missing or invalid bearer token"})
    status, body = await service.post("/action", '{"action": "scroll", "direction": "down"}', headers=headers)
    assert (status, body) == (401, {"error": "missing or invalid bearer token"})
    status, body, _ = await service.get("/nowhere", headers=headers)  # unknown paths leak nothing either
    assert status == 401


async def test_unknown_route_and_method_are_json(service: Service) -> None:
    status, body, _ = await service.get("/nowhere")
    assert status == 404 and "error" in body
    status, body = await service.post("/state", b"{}")
    assert status == 405 and "error" in body


async def test_state_is_schema_valid_with_timings_beside_it(service: Service) -> None:
    status, state, headers = await service.get("/state?screenshot=0")
    assert status == 200
    assert schema.validate("state", state) == []
    assert state["url"].endswith("/service")
    assert "Press me" in state["page_content"]
    assert "timings" not in state and "error" not in state
    timings = orjson.loads(headers[TIMINGS_HEADER])
    assert timings and all(isinstance(v, int | float) for v in timings.values())

    status, shot, _ = await service.get("/state?screenshot=jpeg")
    assert status == 200 and schema.validate("state", shot) == []
    assert shot["screenshot"].startswith("/9j/")  # base64 of a JPEG's FF D8 FF
    status, png, _ = await service.get("/state")
    assert status == 200 and png["screenshot"].startswith("iVBOR")
    status, body, _ = await service.get("/state?screenshot=gif")
    assert status == 400 and "screenshot" in body["error"]


async def test_click_returns_the_next_state(service: Service) -> None:
    _, state, _ = await service.get("/state?screenshot=0")
    action = {"action": "click_element", "element_index": _index_of(state, "button")}
    status, after = await service.post("/action?screenshot=0", orjson.dumps(action))
    assert status == 200
    assert "error" not in after
    assert schema.validate("state", after) == []
    assert "clicked 1" in after["page_content"]
    assert after["state_hash"] != state["state_hash"]
    async with service.http.post(
        service.url + "/action?screenshot=0", data=orjson.dumps(action), headers=AUTH
    ) as r:
        assert r.status == 200
        assert "clicked 2" in (await r.json())["page_content"]
        assert "total_action_ms" in orjson.loads(r.headers[TIMINGS_HEADER])


@pytest.mark.parametrize(
    "body",
    [b"{not json", b"", '"click_element"', b"\xff\xfe"],
    ids=["broken", "empty", "string", "not-utf8"],
)
async def test_malformed_body_is_400_with_the_previous_state(service: Service, body: bytes | str) -> None:
    _, before, _ = await service.get("/state")
    status, state = await service.post("/action", body)
    assert status == 400
    error = state.pop("error")
    assert error["code"] == "ACTION_VALIDATION_FAILED"
    assert error["message"]
    assert state == before
    # The service survives: the next request still works.
    status, again, _ = await service.get("/state")
    assert status == 200 and again == before


async def test_unknown_action_is_400(service: Service) -> None:
    _, before, _ = await service.get("/state")
    status, state = await service.post("/action", b'{"action": "teleport", "element_index": 1}')
    assert status == 400
    assert state["error"]["code"] == "ACTION_VALIDATION_FAILED"
    assert state["error"]["failed_action"] == {"action": "teleport", "element_index": 1}
    assert {k: v for k, v in state.items() if k != "error"} == before
    status, state = await service.post("/action", b'{"action": "click_element"}')  # missing element_index
    assert status == 400 and state["error"]["code"] == "ACTION_VALIDATION_FAILED"


async def test_invalid_index_is_a_protocol_error_with_200(service: Service) -> None:
    _, before, _ = await service.get("/state")
    status, state = await service.post("/action", b'{"action": "click_element", "element_index": 9999}')
    assert status == 200
    assert state["error"]["code"] == "INVALID_ELEMENT_INDEX"
    assert schema.validate("state", state) == []
    assert {k: v for k, v in state.items() if k != "error"} == before


async def test_navigate_action_moves_the_tab(service: Service, site: Any) -> None:
    url = site.add("/service-next", "<title>next</title><a href='/service'>back home</a>")
    status, state = await service.post(
        "/action?screenshot=0", orjson.dumps({"action": "navigate", "url": url})
    )
    assert status == 200 and "error" not in state
    assert state["url"] == url and "back home" in state["page_content"]


async def test_non_loopback_host_is_refused() -> None:
    for host in ("0.0.0.0", "192.168.1.10", "example.com", "::"):
        with pytest.raises(ValueError, match="allow_remote"):
            await serve(host=host, token="t")


def test_empty_token_is_refused(browser: cdp_engine.Browser) -> None:
    with pytest.raises(ValueError):
        create_app(browser, token="")
