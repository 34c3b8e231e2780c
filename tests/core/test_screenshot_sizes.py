"""Screenshots sized for models (issue 16, Build 5), on every surface, against real Chromium.

MCP browser_screenshot: max_width / max_height / quality per call and per server, webp, and a full page in
readable tiles walked to the page's end; the toolset driver's image limits; the element index state's
screenshot options and the HTTP service's query parameters. Bad values are invalid_params and change nothing.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import test_mcp_tools
import test_service
from test_mcp_tools import Surface
from test_screenshot import decode_png
from test_service import Service

import cdp_engine
from cdp_engine.app import options
from cdp_engine.core.files import ScreenshotOptions, image_size_base64, page_tile, tile_count
from cdp_engine.index.element_index import ElementIndex
from cdp_engine.mcp_server import Config
from cdp_engine.mcp_server.server import lift_image
from cdp_engine.toolset.driver_config import ToolsetConfig
from cdp_engine.toolset.executor import BrowserToolset

TALL = """<!doctype html><body style="margin:0">
<div style="height:{top}px;background:rgb(255,0,0)"></div>
<div style="height:{middle}px;background:rgb(0,255,0)">{lines}</div>
<div style="height:{bottom}px;background:rgb(0,0,255)"></div>"""


def tall(height: int, *, lines: int = 0) -> str:
    """A page `height` CSS px tall: red on top (100 px), blue at the bottom (100 px), green between."""
    text = "".join(f"<p style='margin:0;font:16px sans-serif'>Line {i} of the long page</p>" for i in range(lines))
    return TALL.format(top=100, middle=height - 200, bottom=100, lines=text)


Make = Callable[..., Awaitable[Surface]]
make = test_mcp_tools.make  # make(**config) -> a Surface over a fresh manager, instance 't' created
service = test_service.service  # the HTTP service fixture (an app on a loopback port over a fresh tab)


async def invalid(mcp: Surface, **args: Any) -> dict[str, Any]:
    return await mcp.err("browser_screenshot", "invalid_params", **args)


def rgb_at(data_b64: str, x: int, y: int) -> tuple[int, int, int]:
    _width, _height, rows = decode_png(base64.b64decode(data_b64))
    row = rows[y]
    return row[x * 3], row[x * 3 + 1], row[x * 3 + 2]


# ----- the tiling arithmetic ---------------------------------------------------------------------------


def test_tiles_cover_the_page_to_its_end_at_one_scale() -> None:
    page = {"x": 0.0, "y": 0.0, "width": 1280.0, "height": 49_001.0}
    scale, band, count = tile_count(page, 1568, 1568)
    assert (scale, band, count) == (1.0, 1568.0, 32)
    last = page_tile(page, count - 1, 1568, 1568)
    assert last.region["y"] + last.region["height"] == 49_001.0 and last.next_index is None
    assert page_tile(page, 0, 1568, 1568).next_index == 1
    wide = {"x": 0.0, "y": 0.0, "width": 3136.0, "height": 3136.0}
    assert tile_count(wide, 1568, 1568) == (0.5, 3136.0, 1)  # a wide page shrinks to fit, in one band
    with pytest.raises(ValueError, match="tile must be 0-31"):
        page_tile(page, 32, 1568, 1568)


# ----- MCP browser_screenshot --------------------------------------------------------------------------


async def test_max_width_and_height_per_call_and_per_server(make: Make, site: Any) -> None:
    mcp = await make()
    await mcp.ok("browser_navigate", url=site.add("/sizes/a", tall(3000)))
    data = await mcp.ok("browser_screenshot", max_width=640)
    assert (data["width"], data["height"]) == (640, 360) and image_size_base64(data["image_base64"]) == (640, 360)
    data = await mcp.ok("browser_screenshot", max_height=180)
    assert (data["width"], data["height"]) == (320, 180)
    data = await mcp.ok("browser_screenshot", max_width=2000, max_height=2000)
    assert (data["width"], data["height"]) == (1280, 720)  # never enlarged
    server = await make(screenshot_max_width=400)
    await server.ok("browser_navigate", url=site.url + "/sizes/a")
    data = await server.ok("browser_screenshot")
    assert (data["width"], data["height"]) == (400, 225)
    data = await server.ok("browser_screenshot", max_width=800)  # the call wins over the server
    assert data["width"] == 800
    assert Config.from_env({"BROWSER_MCP_SCREENSHOT_MAX_HEIGHT": "300"}).screenshot_max_height == 300
    with pytest.raises(ValueError, match="screenshot_max_width"):
        Config(screenshot_max_width=0)


async def test_quality_is_honoured_for_jpeg_and_webp(make: Make, site: Any) -> None:
    mcp = await make()
    await mcp.ok("browser_navigate", url=site.add("/sizes/q", tall(2000, lines=60)))
    sizes = {}
    for fmt in ("jpeg", "webp"):
        for quality in (10, 95):
            env = await mcp.call("browser_screenshot", image_format=fmt, quality=quality)
            lifted, _raw, image = lift_image(env, b"")
            assert image is not None and image[1] == f"image/{fmt}" and lifted["data"]["image_base64"] is None
            sizes[fmt, quality] = len(base64.b64decode(image[0]))
    assert sizes["jpeg", 10] < sizes["jpeg", 95] / 2, sizes
    assert sizes["webp", 10] < sizes["webp", 95] / 2, sizes
    server = await make(screenshot_quality=10)  # the server's quality when a call names none
    await server.ok("browser_navigate", url=site.url + "/sizes/q")
    default = await server.ok("browser_screenshot", image_format="jpeg")
    assert abs(len(base64.b64decode(default["image_base64"])) - sizes["jpeg", 10]) < sizes["jpeg", 10] / 10


async def test_full_page_comes_in_readable_tiles_to_the_page_end(make: Make, site: Any) -> None:
    mcp = await make()
    height = 20_000
    await mcp.ok("browser_navigate", url=site.add("/sizes/tall", tall(height, lines=900)))
    first = await mcp.ok("browser_screenshot", full_page=True)
    count = math.ceil(height / 1568)
    assert (first["width"], first["height"]) == (1280, 1568), first  # readable: the viewport's own scale
    assert (first["tile"], first["tile_count"], first["tile_y"], first["next_tile"]) == (0, count, 0, 1)
    assert (first["source_width"], first["source_height"]) == (1280, height)
    assert "tile=1" in first["note"] and "browser_screenshot" in first["note"]
    last = await mcp.ok("browser_screenshot", full_page=True, tile=count - 1)
    assert last["tile_y"] + last["tile_height"] == height and last["next_tile"] is None
    assert last["width"] == 1280 and last["height"] == height - (count - 1) * 1568
    assert "end of the page" in last["note"]
    assert (await mcp.ok("browser_evaluate", expression="[innerWidth, innerHeight]"))["result"] == [1280, 720]


async def test_walking_the_tiles_reaches_the_bottom_of_the_page(make: Make, site: Any) -> None:
    """Small tiles (decoded here): the first starts at the page's red top, the last ends in its blue bottom."""
    mcp = await make()
    await mcp.ok("browser_navigate", url=site.add("/sizes/walk", tall(3000)))
    tiles: list[dict[str, Any]] = []
    index: int | None = 0
    while index is not None:
        tiles.append(await mcp.ok("browser_screenshot", full_page=True, max_width=320, max_height=200, tile=index))
        index = tiles[-1]["next_tile"]
    assert [t["tile_y"] for t in tiles] == [0, 800, 1600, 2400] and tiles[-1]["tile_height"] == 600
    assert all(t["width"] == 320 for t in tiles) and [t["height"] for t in tiles] == [200, 200, 200, 150]
    assert rgb_at(tiles[0]["image_base64"], 160, 2) == (255, 0, 0)
    assert rgb_at(tiles[1]["image_base64"], 160, 100) == (0, 255, 0)
    assert rgb_at(tiles[-1]["image_base64"], 160, 148) == (0, 0, 255)


async def test_original_full_page_is_still_one_exact_image(make: Make, site: Any, tmp_path: Path) -> None:
    mcp = await make(output_dir=str(tmp_path))
    await mcp.ok("browser_navigate", url=site.add("/sizes/orig", tall(2500)))
    data = await mcp.ok("browser_screenshot", full_page=True, original=True, path=str(tmp_path / "whole.png"))
    assert (data["width"], data["height"]) == (1280, 2500) and "tile" not in data


@pytest.mark.parametrize(
    "args",
    [
        {"max_width": 0},
        {"max_width": 99_999},
        {"max_height": 15},
        {"max_width": "640"},
        {"quality": 101},
        {"quality": -1},
        {"quality": 50},  # png has no quality
        {"image_format": "gif"},
        {"tile": 1},  # tiles are parts of a full page
        {"tile": -1, "full_page": True},
        {"full_page": True, "tile": 99},  # past the last tile
        {"original": True, "max_width": 100, "path": "x.png"},
    ],
)
async def test_bad_values_are_invalid_params_and_change_nothing(
    make: Make, site: Any, tmp_path: Path, args: dict[str, Any]
) -> None:
    mcp = await make(output_dir=str(tmp_path))
    await mcp.ok("browser_navigate", url=site.add("/sizes/bad", tall(3000)))
    env = await invalid(mcp, **args, **({} if "path" in args else {"path": "shot.png"}))
    assert list(tmp_path.iterdir()) == [], env  # nothing written
    assert env["operation"]["outcome"] in ("not_started", "unknown")
    if "tile" not in args or not args.get("full_page"):
        assert env["operation"]["outcome"] == "not_started", env
    assert (await mcp.ok("browser_evaluate", expression="[innerWidth, innerHeight, scrollY]"))["result"] == [1280, 720, 0]


# ----- the toolset driver ------------------------------------------------------------------------------


async def test_toolset_image_width_and_height_limits(browser: cdp_engine.Browser, site: Any) -> None:
    url = site.add("/sizes/toolset", tall(2000, lines=40))
    config = ToolsetConfig(max_image_width=640, screenshot_format="jpeg", screenshot_quality=30)
    async with BrowserToolset(browser, config=config) as executor:
        await executor.call("navigate", {"url": url})
        content, is_error = await executor.call("screenshot", {})
        assert not is_error
        image = content[0]["source"]
        assert image["media_type"] == "image/jpeg" and image_size_base64(image["data"]) == (640, 360)
        assert executor.image_size == (640, 360)
        # Coordinates are in the image's space: (639, 359) is inside, (640, 10) is outside.
        _content, is_error = await executor.call("hover", {"target": {"type": "coordinate", "x": 639, "y": 359}})
        assert not is_error
        content, is_error = await executor.call("hover", {"target": {"type": "coordinate", "x": 640, "y": 10}})
        assert is_error and "640x360" in content[0]["text"]
    with pytest.raises(ValueError, match="max_height"):
        ToolsetConfig(max_image_height=0)


# ----- the element index state and the HTTP service ----------------------------------------------------


async def test_element_index_state_screenshot_sizes_and_quality(tab: cdp_engine.Tab, site: Any) -> None:
    await tab.goto(site.add("/sizes/state", tall(2000, lines=40)))
    index = ElementIndex.of(tab)
    state = await index.state(screenshot=ScreenshotOptions(max_width=480))
    assert image_size_base64(state["screenshot"]) == (480, 270)
    small = await index.state(screenshot=ScreenshotOptions(format="jpeg", quality=10, max_height=360))
    large = await index.state(screenshot=ScreenshotOptions(format="jpeg", quality=95, max_height=360))
    assert image_size_base64(small["screenshot"]) == (640, 360) == image_size_base64(large["screenshot"])
    assert len(small["screenshot"]) < len(large["screenshot"]) / 2
    assert small["state_hash"] == large["state_hash"]  # the image is beside the state, never part of its hash


async def test_http_service_screenshot_parameters(service: Service) -> None:
    status, state, _headers = await service.get("/state?screenshot=jpeg&max_width=320&quality=20")
    assert status == 200 and image_size_base64(state["screenshot"]) == (320, 180)
    status, better, _headers = await service.get("/state?screenshot=jpeg&max_width=320&quality=95")
    assert status == 200 and len(state["screenshot"]) < len(better["screenshot"])
    status, png, _headers = await service.get("/state?max_height=90")
    assert status == 200 and image_size_base64(png["screenshot"]) == (160, 90)
    status, none, _headers = await service.get("/state?screenshot=0&max_width=320")
    assert status == 200 and none["screenshot"] == ""
    for bad in ("max_width=0", "max_width=wide", "quality=101&screenshot=jpeg", "quality=50"):
        status, body, _headers = await service.get(f"/state?{bad}")
        assert status == 400 and "screenshot parameters" in body["error"], (bad, body)
    status, body = await service.post("/action?max_width=-1", b'{"action": "scroll", "direction": "down"}')
    assert status == 400 and "screenshot parameters" in body["error"]
    status, after, _headers = await service.get("/state?screenshot=0")
    assert status == 200 and after["state_hash"] == state["state_hash"]  # the refused action never ran


def test_the_mcp_command_options_set_the_server_defaults() -> None:
    settings = options.resolve("mcp", {"screenshot_max_width": "800"}, {"CDP_ENGINE_SCREENSHOT_QUALITY": "30"})
    assert (settings.screenshot_max_width, settings.screenshot_max_height, settings.screenshot_quality) == (800, None, 30)
    config = Config.from_env({"BROWSER_MCP_SCREENSHOT_MAX_WIDTH": "500"}, screenshot_max_width=settings.screenshot_max_width)
    assert (config.screenshot_max_width, config.screenshot_max_height) == (800, 1568)  # the option over the variable
    for name, bad in [("screenshot_max_width", "8"), ("screenshot_max_height", "wide"), ("screenshot_quality", "101")]:
        with pytest.raises(options.OptionError, match="--" + name.replace("_", "-")):
            options.resolve("mcp", {name: bad}, {})
