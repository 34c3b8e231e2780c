"""Element boxes and marked screenshots against a real headless Chromium (issue 19, builds 1 and 2).

Boxes must match what the page's own getBoundingClientRect says (scrolled, in frames), carry the right
flags, map onto a scaled screenshot, and never touch the state: fields and state_hash stay identical.
"""

from __future__ import annotations

import itertools
from typing import Any

import cdp_engine
from cdp_engine.core.files import ScreenshotOptions
from cdp_engine.core.marks import CANVAS_SCRIPT, LABELS_SCRIPT, PALETTE
from cdp_engine.core.worlds import Worlds

_paths = itertools.count(1)

BUTTONS = (
    "<!doctype html><html><head><title>boxes</title><style>body{margin:0;height:3000px}"
    "button{position:absolute;width:100px;height:30px}</style></head><body>"
    "<button id=a style='left:10px;top:20px'>A</button>"
    "<button id=b style='left:300.5px;top:200.25px;width:120px'>B</button>"
    "<button id=c style='left:1200px;top:100px;width:200px'>C</button>"  # cut by the 1280px edge
    "<button id=d style='left:40px;top:1500px'>D</button>"  # below the fold until scrolled
    "<select id=s style='position:absolute;left:500px;top:300px'><option>one</option><option>two</option></select>"
    "</body></html>"
)


async def open_page(tab: cdp_engine.Tab, site: Any, html: str) -> None:
    await tab.goto(site.add(f"/marks/{next(_paths)}", html))


def index_of(state: dict[str, Any], text: str) -> int:
    return next(int(k) for k, d in state["element_index"].items() if d["text_content"] == text)


async def client_rect(tab: cdp_engine.Tab, selector: str) -> list[float]:
    js = f"(() => {{ const r = document.querySelector({selector!r}).getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; }})()"
    return list(await tab.evaluate(js))


def assert_close(box: dict[str, Any], rect: list[float], dx: float = 0.0, dy: float = 0.0) -> None:
    got = [box["x"], box["y"], box["width"], box["height"]]
    want = [rect[0] + dx, rect[1] + dy, rect[2], rect[3]]
    assert all(abs(g - w) <= 0.51 for g, w in zip(got, want, strict=True)), (got, want)


async def test_boxes_match_get_bounding_client_rect(tab: cdp_engine.Tab, site: Any) -> None:
    await open_page(tab, site, BUTTONS)
    assert await tab.boxes() == {}  # no state returned yet
    state = await tab.state(screenshot=False)
    boxes = await tab.boxes()
    assert set(boxes) == {int(k) for k in state["element_index"]}
    for text, selector in (("A", "#a"), ("B", "#b"), ("C", "#c")):
        assert_close(boxes[index_of(state, text)], await client_rect(tab, selector))
    a = boxes[index_of(state, "A")]
    assert a["visible"] and a["in_viewport"] and a["fully_in_viewport"]
    c = boxes[index_of(state, "C")]  # partly beyond the right edge: indexed, in the viewport, not wholly
    assert c["visible"] and c["in_viewport"] and not c["fully_in_viewport"]
    assert "screenshot" not in a  # no screenshot, nothing to map


async def test_boxes_of_a_scrolled_page_and_an_option(tab: cdp_engine.Tab, site: Any) -> None:
    await open_page(tab, site, BUTTONS)
    await tab.evaluate("window.scrollTo(0, 1400)")
    state = await tab.state(screenshot=False)
    boxes = await tab.boxes()
    d = index_of(state, "D")
    assert_close(boxes[d], await client_rect(tab, "#d"))
    assert abs(boxes[d]["y"] - 100) <= 0.51  # 1500 - 1400: viewport coordinates, not the page's
    assert all(k != "A" for k in (state["element_index"][str(i)]["text_content"] for i in boxes))
    await tab.evaluate("window.scrollTo(0, 0)")
    state = await tab.state(screenshot=False)
    boxes = await tab.boxes()
    select = next(int(k) for k, v in state["element_index"].items() if v["tag"] == "select")
    option = next(int(k) for k, v in state["element_index"].items() if v["tag"] == "option")
    assert boxes[select]["visible"] and not boxes[option]["visible"]
    assert boxes[option]["select"] == select
    assert_close(boxes[select], await client_rect(tab, "#s"))


async def test_boxes_inside_iframes(tab: cdp_engine.Tab, site: Any) -> None:
    inner = "<!doctype html><body style='margin:0'><button style='position:absolute;left:10px;top:20px'>In</button>"
    same = site.add(f"/marks/inner{next(_paths)}", inner)
    other = site.add(f"/marks/inner{next(_paths)}", inner).replace(site.url, site.other_url)
    html = (
        "<!doctype html><body style='margin:0'>"
        f"<iframe id=f1 src='{same}' style='position:absolute;left:50px;top:60px;width:300px;height:200px;"
        "border:3px solid #000;padding:2px'></iframe>"
        f"<iframe id=f2 src='{other}' style='position:absolute;left:400px;top:60px;width:300px;height:200px;"
        "border:0'></iframe></body>"
    )
    await open_page(tab, site, html)
    state = await tab.state(screenshot=False)
    for _ in range(50):  # the out-of-process frame's document may attach a little later
        if sum(1 for v in state["element_index"].values() if v["text_content"] == "In") == 2:
            break
        await tab.evaluate("new Promise(r => setTimeout(r, 20))")
        state = await tab.state(screenshot=False)
    boxes = await tab.boxes()
    found = sorted(
        (boxes[int(k)] for k, v in state["element_index"].items() if v["text_content"] == "In"), key=lambda b: b["x"]
    )
    assert len(found) == 2, state["element_index"]
    # Same-origin: the inner rect plus the iframe's content box (left + border + padding).
    inner_rect = await tab.evaluate(
        "(() => { const r = document.querySelector('#f1').contentDocument.querySelector('button')"
        ".getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; })()"
    )
    assert_close(found[0], list(inner_rect), dx=55, dy=65)
    # Out of process: the button sits at (10, 20) of a borderless frame at (400, 60).
    assert abs(found[1]["x"] - 410) <= 0.51 and abs(found[1]["y"] - 80) <= 0.51
    assert abs(found[1]["width"] - found[0]["width"]) <= 0.51


async def test_screenshot_boxes_when_the_screenshot_is_scaled(tab: cdp_engine.Tab, site: Any) -> None:
    await open_page(tab, site, BUTTONS)
    state = await tab.state(screenshot=ScreenshotOptions(scale=0.5))
    boxes = await tab.boxes()
    b = boxes[index_of(state, "B")]
    shot = b["screenshot"]
    assert all(abs(shot[k] - b[k] / 2) <= 0.01 for k in ("x", "y", "width", "height")), b
    state = await tab.state(screenshot=ScreenshotOptions(clip={"x": 300, "y": 200, "width": 400, "height": 300}))
    b = (await tab.boxes())[index_of(state, "B")]
    assert abs(b["screenshot"]["x"] - 0.5) <= 0.01 and abs(b["screenshot"]["y"] - 0.25) <= 0.01
    state = await tab.state(screenshot=True)
    assert "screenshot" not in (await tab.boxes())[index_of(state, "B")]  # 1:1, nothing to map


async def test_state_and_hash_identical_with_and_without_boxes(browser: cdp_engine.Browser, site: Any) -> None:
    url = site.add(f"/marks/{next(_paths)}", BUTTONS)
    states = []
    for with_boxes in (False, True):
        context = await browser.new_context()
        try:
            tab = await context.new_tab()
            await tab.goto(url)
            first = await tab.state(screenshot=False)
            if with_boxes:
                await tab.boxes()
            again = await tab.state(screenshot=False)
            assert again == first
            states.append(first)
        finally:
            await context.close()
    assert states[0] == states[1]
    assert states[0]["state_hash"] == states[1]["state_hash"]


# ----- marked screenshots ---------------------------------------------------------------------------

# A still page: flat colours, elements at fixed places, and observers that count anything the page could see.
WATCHED = (
    "<!doctype html><html><head><title>marks</title><style>body{margin:0;background:#fff}"
    "button,input,a{position:absolute;font:14px sans-serif}</style></head><body>"
    "<button style='left:40px;top:60px;width:120px;height:32px' onclick='void 0'>Save</button>"
    "<input style='left:300px;top:200px;width:200px;height:24px' placeholder=Name>"
    "<a href='#x' style='left:600px;top:400px'>A link</a>"
    "<script>"
    "window.__records = 0; new MutationObserver((r) => { window.__records += r.length; })"
    ".observe(document, {subtree: true, childList: true, attributes: true, characterData: true});"
    "window.__touched = [];"
    "for (const name of ['OffscreenCanvas', 'createImageBitmap', 'Blob', 'atob', 'btoa']) {"
    "  const real = window[name]; window[name] = function(...a) { window.__touched.push(name);"
    "    return new.target ? new real(...a) : real.apply(this, a); }; }"
    "const create = document.createElement.bind(document);"
    "document.createElement = (...a) => { window.__touched.push('createElement'); return create(...a); };"
    "</script></body></html>"
)


def rgb_rows(data_b64: str) -> tuple[int, int, list[bytes]]:
    import base64

    from test_screenshot import decode_png  # the tests' own PNG decoder (no imaging library)

    return decode_png(base64.b64decode(data_b64))


def changed_pixels(plain: str, marked: str) -> list[tuple[int, int]]:
    w1, h1, a = rgb_rows(plain)
    w2, h2, b = rgb_rows(marked)
    assert (w1, h1) == (w2, h2)
    out = []
    for y, (ra, rb) in enumerate(zip(a, b, strict=True)):
        if ra != rb:
            out.extend((x, y) for x in range(w1) if ra[3 * x : 3 * x + 3] != rb[3 * x : 3 * x + 3])
    return out


def inside(point: tuple[int, int], rects: tuple[tuple[float, float, float, float], ...]) -> bool:
    x, y = point
    return any(rx - 1 <= x <= rx + rw + 1 and ry - 1 <= y <= ry + rh + 1 for rx, ry, rw, rh in rects)


async def test_marked_screenshot_differs_only_where_marks_are_drawn(tab: cdp_engine.Tab, site: Any) -> None:
    await open_page(tab, site, WATCHED)
    state = await tab.state(screenshot=True)
    marks = await tab.element_index.marks()
    assert sorted(m.label for m in marks) == sorted(state["element_index"])
    plain = await tab.capture_screenshot()
    marked = await tab.capture_screenshot(marks=marks)
    assert marked.format == "png" and (marked.width, marked.height) == (plain.width, plain.height)
    assert len(marked.marked) == 2 * len(marks)  # an outline and a label each
    changed = changed_pixels(plain.data, marked.data)
    assert changed, "nothing was drawn"
    stray = [p for p in changed if not inside(p, marked.marked)]
    assert not stray, f"pixels changed outside the marks: {stray[:10]}"
    for mark in marks:  # each element's outline is drawn on its box
        x, y, w, _h = mark.box
        assert any(x - 1 <= px <= x + w + 1 and y - 1 <= py <= y + 2 for px, py in changed), mark
    # The page saw nothing: no mutation, none of its (replaced) globals called, the same state, from cache.
    assert await tab.evaluate("window.__records") == 0
    assert await tab.evaluate("window.__touched") == []
    again = await tab.state(screenshot=True)
    assert again == state
    assert tab.last_timings.get("cached") == 1.0
    # The state's own screenshot with its marks: the very image of the state, marked the same way.
    on_state = await tab.element_index.marked_state_screenshot()
    assert on_state is not None
    assert not [p for p in changed_pixels(state["screenshot"], on_state.data) if not inside(p, on_state.marked)]
    # The canvas is kept for the next call: a second image with one mark carries none of the first's.
    one = await tab.capture_screenshot(marks=marks[:1])
    assert len(one.marked) == 2
    assert not [p for p in changed_pixels(plain.data, one.data) if not inside(p, one.marked)]


LABELS, CANVAS = LABELS_SCRIPT[:40], CANVAS_SCRIPT[:40]


def callbacks_sent(tab: cdp_engine.Tab) -> tuple[list[str], Any]:
    """A list that fills with the Runtime.callFunctionOn scripts the tab's session sends, and its undo."""
    sent: list[str] = []
    real_send = tab.session.send

    def spy(method: str, params: Any = None, *args: Any, **kwargs: Any) -> Any:
        if method == "Runtime.callFunctionOn":
            sent.append(str((params or {}).get("functionDeclaration", ""))[:40])
        return real_send(method, params, *args, **kwargs)

    tab.session.send = spy  # type: ignore[method-assign]  # counts commands; the browser is real

    def undo() -> None:
        del tab.session.send

    return sent, undo


async def test_a_fast_png_is_painted_by_the_engine_and_any_other_image_in_the_page(
    tab: cdp_engine.Tab, site: Any
) -> None:
    """Chromium's fast PNG (the default) is painted in Python: one script, for the labels' pictures. A
    PNG of the default encoder (other filters) is drawn by the canvas: the same rectangles, the same
    label pixels, the outlines in the mark's exact colour in both."""
    await open_page(tab, site, WATCHED)
    await tab.state(screenshot=False)
    marks = await tab.element_index.marks()
    sent, undo = callbacks_sent(tab)
    try:
        fast = await tab.capture_screenshot(marks=marks)
        assert sent == [LABELS]  # the labels only
        slow = await tab.capture_screenshot(ScreenshotOptions(optimize_for_speed=False), marks=marks)
        assert sent == [LABELS, LABELS, CANVAS]  # the labels, then the canvas
    finally:
        undo()
    assert fast.marked == slow.marked
    # An image already captured goes the same two ways (a state's own image; its PNG is opened while the
    # labels' answer is on its way).
    from cdp_engine.core.files import ImageTransform, mark_image

    world = await Worlds.of(tab).context(tab.main_frame_id)
    plain_slow = await tab.capture_screenshot(ScreenshotOptions(optimize_for_speed=False))
    plain_fast = await tab.capture_screenshot()
    sent, undo = callbacks_sent(tab)
    try:
        again_fast = await mark_image(tab.session, world, plain_fast, marks, ImageTransform())
        assert sent == [LABELS]
        again_slow = await mark_image(tab.session, world, plain_slow, marks, ImageTransform())
        assert sent == [LABELS, LABELS, CANVAS]
    finally:
        undo()
    assert again_fast.marked == again_slow.marked == fast.marked
    assert again_fast.data == fast.data  # a still page: the same pixels, painted the same way
    _, _, fast_rows = rgb_rows(fast.data)
    _, _, slow_rows = rgb_rows(slow.data)
    for i, mark in enumerate(marks):
        colour = bytes.fromhex(PALETTE[i % len(PALETTE)])
        x, y = round(mark.box[0]), round(mark.box[1])
        for rows in (fast_rows, slow_rows):
            assert rows[y][3 * x : 3 * x + 3] == colour, (mark, rows[y][3 * x : 3 * x + 3].hex())
        lx, ly, lw, lh = (int(v) for v in fast.marked[2 * i + 1])
        assert fast_rows[ly][3 * lx : 3 * lx + 3] == colour
        label = [r[3 * lx : 3 * (lx + lw)] for r in fast_rows[ly : ly + lh]]
        assert label == [r[3 * lx : 3 * (lx + lw)] for r in slow_rows[ly : ly + lh]], mark  # the same text
        assert any(b"\xff\xff\xff" in r for r in label)  # white text on the colour


async def test_marks_on_a_transparent_screenshot(tab: cdp_engine.Tab, site: Any) -> None:
    """A transparent page gives an RGBA PNG: painted by the engine too, the marks opaque."""
    await open_page(tab, site, WATCHED.replace("background:#fff", "background:transparent"))
    await tab.session.send("Emulation.setDefaultBackgroundColorOverride", {"color": {"r": 0, "g": 0, "b": 0, "a": 0}})
    try:
        await tab.state(screenshot=False)
        marks = await tab.element_index.marks()
        sent, undo = callbacks_sent(tab)
        try:
            shot = await tab.capture_screenshot(marks=marks)
        finally:
            undo()
        assert sent == [LABELS]
        import base64

        image = base64.b64decode(shot.data)
        assert image[25] == 6  # colour type RGBA
        plain = await tab.capture_screenshot()
        assert changed_pixels(plain.data, shot.data)
        assert not [p for p in changed_pixels(plain.data, shot.data) if not inside(p, shot.marked)]
    finally:
        await tab.session.send("Emulation.setDefaultBackgroundColorOverride", {})


async def test_marks_follow_a_scaled_screenshot_and_keep_its_format(tab: cdp_engine.Tab, site: Any) -> None:
    await open_page(tab, site, WATCHED)
    await tab.state(screenshot=False)
    marks = await tab.element_index.marks()
    save = next(m for m in marks if abs(m.box[0] - 40) < 1)
    shot = await tab.capture_screenshot(ScreenshotOptions(scale=0.5), marks=[save])
    assert (shot.width, shot.height) == (640, 360)
    drawn = shot.marked[0]  # the outline: the CSS box at half size
    assert all(abs(d - b / 2) <= 0.5 for d, b in zip(drawn, save.box, strict=True)), (drawn, save.box)
    # Given where the boxes were measured (the state's viewport), the capture need not read it: same marks.
    clip = ScreenshotOptions(clip={"x": 20, "y": 40, "width": 600, "height": 300}, scale=0.5)
    read = await tab.capture_screenshot(clip, marks=[save])
    assert tab.element_index.current is not None
    given = await tab.capture_screenshot(clip, marks=[save], viewport=tab.element_index.current.viewport)
    assert read.marked == given.marked and abs(read.marked[0][0] - (save.box[0] - 20) / 2) <= 0.5
    jpeg = await tab.screenshot(marks=True, format="jpeg", quality=70)
    assert jpeg[:2] == b"\xff\xd8"
    webp = await tab.screenshot(marks=True, format="webp")
    assert webp[:4] == b"RIFF" and webp[8:12] == b"WEBP"
    png = await tab.screenshot(marks=True)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"


async def test_marks_need_a_state_and_capture_one(tab: cdp_engine.Tab, site: Any) -> None:
    await open_page(tab, site, WATCHED)
    assert tab.element_index.current is None
    assert await tab.element_index.marked_state_screenshot() is None
    image = await tab.screenshot(marks=True)
    assert image[:8] == b"\x89PNG\r\n\x1a\n"
    assert tab.element_index.current is not None  # the marks are those of the state it captured
    assert set(await tab.boxes()) == {int(k) for k in tab.element_index.current.state["element_index"]}


async def test_state_identical_with_and_without_marks(browser: cdp_engine.Browser, site: Any) -> None:
    url = site.add(f"/marks/{next(_paths)}", WATCHED)
    states = []
    for with_marks in (False, True):
        context = await browser.new_context()
        try:
            tab = await context.new_tab()
            await tab.goto(url)
            first = await tab.state(screenshot=True)
            if with_marks:
                await tab.screenshot(marks=True)
                await tab.element_index.marked_state_screenshot()
            again = await tab.state(screenshot=True)
            assert again == first  # the screenshot field included: never the marked image
            states.append(first)
        finally:
            await context.close()
    keys = ("url", "page_content", "element_index", "state_hash")
    assert [states[0][k] for k in keys] == [states[1][k] for k in keys]


# ----- the MCP server: boxes beside snapshot refs, marks on browser_screenshot -------------------------


async def test_mcp_snapshot_boxes_and_marked_screenshot(browser: cdp_engine.Browser, site: Any) -> None:
    import base64
    import re

    from cdp_engine.mcp_server import BrowserTools, Config, InstanceManager

    manager = InstanceManager(Config(), browser=browser)
    tools = BrowserTools(manager)

    async def ok(tool: str, **args: Any) -> dict[str, Any]:
        env = await tools.call(tool, {"instance": "t", **args} if tool != "browser_create_instance" else args)
        assert env["status"] == "success", env
        return dict(env["data"])

    try:
        await ok("browser_create_instance", name="t")
        await ok("browser_navigate", url=site.add(f"/marks/{next(_paths)}", WATCHED))
        # Marks before any snapshot: one is taken, so the labels are refs the tools accept.
        shot = await ok("browser_screenshot", marks=True)
        assert shot["marks"] == 3 and base64.b64decode(shot["image_base64"])[:8] == b"\x89PNG\r\n\x1a\n"
        plain = await ok("browser_snapshot")
        assert "boxes" not in plain
        data = await ok("browser_snapshot", boxes=True)
        assert data["snapshot"] == plain["snapshot"]  # the text is the same with boxes
        refs = re.findall(r"\[ref=(e\d+)\]", data["snapshot"])
        assert set(data["boxes"]) <= set(refs) and data["boxes"]
        button = re.search(r'button "Save" \[ref=(e\d+)\]', data["snapshot"])
        assert button is not None
        box = data["boxes"][button.group(1)]
        assert (box["x"], box["y"], box["width"], box["height"]) == (40, 60, 120, 32)
        assert box["visible"] and box["in_viewport"] and box["fully_in_viewport"]
        # The page saw nothing of either.
        result = await ok("browser_evaluate", expression="() => [window.__records, window.__touched.length]")
        assert [0, 0] in result.values(), result
    finally:
        await manager.close()


# ----- the toolset: boxes beside its refs (a library call), marks as a driver option --------------------


async def test_toolset_ref_boxes_and_marked_screenshots(browser: cdp_engine.Browser, site: Any) -> None:
    import base64
    import re

    from cdp_engine.toolset import BrowserToolset, ToolsetConfig

    context = await browser.new_context()
    plain_ts = await BrowserToolset(browser, context=context).start()
    marked_ts = await BrowserToolset(browser, context=context, config=ToolsetConfig(screenshot_marks=True)).start()
    try:
        url = site.add(f"/marks/{next(_paths)}", WATCHED)
        for ts in (plain_ts, marked_ts):
            content, is_error = await ts.call("navigate", {"url": url})
            assert not is_error, content
        # Marks before any read: the interactive elements are read first, so the labels are usable refs.
        marked, is_error = await marked_ts.call("screenshot", {})
        assert not is_error
        plain, _ = await plain_ts.call("screenshot", {})
        image = next(b for b in marked if b["type"] == "image")["source"]["data"]
        plain_image = next(b for b in plain if b["type"] == "image")["source"]["data"]
        assert base64.b64decode(image)[:8] == b"\x89PNG\r\n\x1a\n"
        assert changed_pixels(plain_image, image), "no marks drawn"
        read, _ = await marked_ts.call("read_page", {"filter": "interactive"})
        listing = "\n".join(b["text"] for b in read if b["type"] == "text")
        boxes = marked_ts.ref_boxes()
        save = re.search(r'button "Save" \[(ref_\d+)\]', listing)
        assert save is not None, listing
        box = boxes[save.group(1)]
        assert (box["x"], box["y"], box["width"], box["height"]) == (40, 60, 120, 32)
        assert box["visible"] and box["in_viewport"]
        assert set(boxes) >= set(re.findall(r"\[(ref_\d+)\]", listing))
        assert await marked_ts.book.get(None).tab.evaluate("[window.__records, window.__touched.length]") == [0, 0]
    finally:
        await marked_ts.close()
        await plain_ts.close()
        await context.close()


# ----- the harness: BrowserGym's set-of-marks observation ----------------------------------------------


async def test_harness_som_observation(browser: cdp_engine.Browser, site: Any) -> None:
    from cdp_engine.harness import BrowserEnv

    url = site.add(f"/marks/{next(_paths)}", WATCHED)
    observations = []
    for som in (False, True):
        async with BrowserEnv(browser, som=som, prewarm=False) as env:
            obs = await env.reset(url)
            observations.append(obs)
            if som:
                assert obs["screenshot"] == ""  # screenshot=False: only the marked one is asked for
                assert rgb_rows(obs["screenshot_som"])[0] == 1280
                assert set(obs["element_boxes"]) == set(obs["element_index"])
                button = next(k for k, v in obs["element_index"].items() if v["text_content"] == "Save")
                obs2, info = await env.step({"action": "click_element", "element_index": int(button)})
                assert info["error"] is None, info
                assert obs2["screenshot_som"] and set(obs2["element_boxes"]) == set(obs2["element_index"])
                assert await env.evaluate("[window.__records, window.__touched.length]") == [0, 0]
            else:
                assert "screenshot_som" not in obs and "element_boxes" not in obs
    keys = ("url", "page_content", "element_index", "state_hash")
    assert [observations[0][k] for k in keys] == [observations[1][k] for k in keys]


async def test_marks_on_a_full_page_image_of_a_scrolled_page(tab: cdp_engine.Tab, site: Any) -> None:
    await open_page(tab, site, BUTTONS)
    await tab.evaluate("window.scrollTo(0, 1400)")
    state = await tab.state(screenshot=False)
    d = next(m for m in await tab.element_index.marks() if m.label == str(index_of(state, "D")))
    shot = await tab.capture_screenshot(ScreenshotOptions(full_page=True), marks=[d])
    x, y = shot.marked[0][:2]  # the page's coordinates: the viewport box plus the scroll
    assert abs(x - 40) <= 0.5 and abs(y - 1500) <= 0.5, shot.marked


async def test_marks_under_a_strict_content_security_policy(tab: cdp_engine.Tab, site: Any) -> None:
    from aiohttp import web

    async def strict(request: web.Request) -> web.Response:
        body = (
            "<!doctype html><body><button>Go</button><script nonce=n>window.__violations = 0;"
            "document.addEventListener('securitypolicyviolation', () => window.__violations++);</script></body>"
        )
        csp = "default-src 'none'; script-src 'nonce-n'; img-src 'none'; style-src 'none'; font-src 'none'"
        return web.Response(text=body, content_type="text/html", headers={"Content-Security-Policy": csp})

    await tab.goto(site.add_handler(f"/marks/csp{next(_paths)}", strict))
    await tab.state(screenshot=False)
    image = await tab.screenshot(marks=True)
    assert image[:8] == b"\x89PNG\r\n\x1a\n" and image != await tab.screenshot()  # drawn
    assert await tab.evaluate("window.__violations") == 0


async def test_marks_reuse_the_state_image_only_while_it_is_the_page(tab: cdp_engine.Tab, site: Any) -> None:
    await open_page(tab, site, WATCHED)
    await tab.state(screenshot=True)
    on_state = await tab.element_index.marked_state_screenshot()
    assert on_state is not None
    sent: list[str] = []
    real_send = tab.session.send

    def spy(method: str, *args: Any, **kwargs: Any) -> Any:
        sent.append(method)
        return real_send(method, *args, **kwargs)

    tab.session.send = spy  # type: ignore[method-assign]  # counts commands; the browser is real
    try:
        assert await tab.screenshot_base64(marks=True) == on_state.data  # unchanged page: the state's image
        assert "Page.captureScreenshot" not in sent
        jpeg = await tab.screenshot_base64(marks=True, format="jpeg")  # other options: a new capture
        assert jpeg != on_state.data and "Page.captureScreenshot" in sent
    finally:
        del tab.session.send
    await tab.evaluate("document.body.style.background = 'rgb(0, 0, 255)'")
    fresh = await tab.screenshot_base64(marks=True)  # the page changed: a new capture, the state's marks on it
    assert fresh != on_state.data
    _, _, rows = rgb_rows(fresh)
    assert rows[5][:3] == bytes((0, 0, 255))


async def test_a_listbox_options_have_their_own_boxes(tab: cdp_engine.Tab, site: Any) -> None:
    html = (
        "<!doctype html><body style='margin:0'><select size=3 id=l style='position:absolute;left:10px;top:10px'>"
        "<option>a</option><option>b</option><option>c</option></select></body>"
    )
    await open_page(tab, site, html)
    state = await tab.state(screenshot=False)
    boxes = await tab.boxes()
    options = [int(k) for k, v in state["element_index"].items() if v["tag"] == "option"]
    rects = await tab.evaluate(
        "[...document.querySelectorAll('option')].map(o => { const r = o.getBoundingClientRect();"
        " return [r.x, r.y, r.width, r.height]; })"
    )
    assert len(options) == 3
    for index, rect in zip(options, rects, strict=True):
        assert boxes[index]["visible"]
        assert_close(boxes[index], rect)
    assert {m.label for m in await tab.element_index.marks()} == {k for k in state["element_index"]}
