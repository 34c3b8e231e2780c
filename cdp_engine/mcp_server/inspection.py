"""Inspection, verification and code tools: snapshot, screenshot, console, network, downloads, evaluate,
verify_*, generate_locator, pdf_save, run_code.

Size: about twenty small inspection, verification and code tools, one tool group as the MCP reference lists
them.
"""

from __future__ import annotations

import asyncio
import base64
import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import orjson

from ..core import input, scripts
from ..core.files import IMAGE_FORMATS, ImageFormat, PageTile, ScreenshotOptions, page_tile
from ..core.page_rules import VISIBLE_JS
from ..core.refs import NodeRef
from ..core.worlds import Worlds
from ..errors import CDPEngineError, CommandTimeoutError, JavaScriptError, ProtocolError
from ..snapshot.ax_capturer import capture_ax_tree
from ..snapshot.boxes import ref_boxes, ref_marks
from ..util.text_windows import BudgetError, check_budget, check_offset, context_lines, window
from . import snapshot_changes
from .envelope import ToolError
from .instances import Instance, Page
from .interaction import coerce_bool
from .observe import TEXT_CHECK, call_in_frame, frame_world
from .params import Bounds
from .registry import Ctx, tool
from .server_config import STATIC_RESOURCE_TYPES, Config
from .snapshot import View, find_backend_node, find_frame_root, map_role, render

LEVELS = {"debug": 0, "log": 1, "info": 1, "warning": 2, "error": 3}
PAPER_INCHES = {"A3": (11.69, 16.54), "A4": (8.27, 11.69), "A5": (5.83, 8.27), "Letter": (8.5, 11.0),
                "Legal": (8.5, 14.0), "Tabloid": (11.0, 17.0)}  # fmt: skip
VISIBLE = (
    """function() {
  VISIBLE_JS
  const el = this.nodeType === 1 ? this : this.parentElement;
  return !!el && visible(el);
}""".replace("VISIBLE_JS", VISIBLE_JS)
)
CONTAINS_VISIBLE = """function(items) {
  VISIBLE_JS
  const norm = s => (s || '').replace(/\\s+/g, ' ').toLowerCase();
  const all = [...this.querySelectorAll('*')];
  return items.filter(item => !all.some(el => visible(el) && norm(el.innerText).includes(norm(item))));
}""".replace("VISIBLE_JS", VISIBLE_JS)

VALUE_OF = """function() {
  const el = this;
  if (el.tagName === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio')) return {checked: el.checked, value: el.value};
  if ('value' in el && ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName)) return {value: el.value, checked: null};
  const aria = el.getAttribute('aria-checked');
  return {value: el.isContentEditable ? el.innerText : (el.getAttribute('aria-valuenow') || el.textContent || ''),
          checked: aria === null ? null : aria === 'true'};
}"""
LOCATOR_FACTS = """function() {
  const el = this;
  const q = s => { try { return document.querySelectorAll(s).length === 1; } catch (e) { return false; } };
  const cssPath = (node) => {
    if (node.id && q('#' + CSS.escape(node.id))) return '#' + CSS.escape(node.id);
    const parts = [];
    for (let n = node; n && n.nodeType === 1 && n !== document.documentElement; n = n.parentElement) {
      if (n !== node && n.id && q('#' + CSS.escape(n.id))) { parts.unshift('#' + CSS.escape(n.id)); break; }
      const tag = n.tagName.toLowerCase();
      const same = n.parentElement ? [...n.parentElement.children].filter(c => c.tagName === n.tagName) : [n];
      parts.unshift(same.length > 1 ? `${tag}:nth-of-type(${same.indexOf(n) + 1})` : tag);
      if (q(parts.join(' > '))) break;
    }
    return parts.join(' > ');
  };
  const testid = el.getAttribute('data-testid');
  const labels = el.labels ? [...el.labels].map(l => l.innerText.trim()).filter(Boolean) : [];
  return {
    testid, label: labels[0] || null, placeholder: el.getAttribute('placeholder'), alt: el.getAttribute('alt'),
    title: el.getAttribute('title'), text: (el.innerText || '').replace(/\\s+/g, ' ').trim().slice(0, 80),
    css: cssPath(el),
  };
}"""


def output_path(ctx: Ctx, path: str) -> Path:
    """Where a file the caller asked for goes: inside the server's output folder (the file policy; a
    relative path is resolved against it), in a directory that exists."""
    target = ctx.manager.policies.files.output_path(path)  # PolicyError -> invalid_params
    if not target.parent.is_dir():
        raise ToolError("invalid_params", f"The directory of '{path}' does not exist.")
    return target


def _artifact(ctx: Ctx, path: str, payload: bytes) -> str:
    """Write a file the caller asked for (see output_path); returns the path written."""
    target = output_path(ctx, path)
    ctx.op.artifact_write_started = True
    try:
        target.write_bytes(payload)
    except OSError as exc:
        raise ToolError("internal_error", f"Could not write '{path}': {exc}") from None
    ctx.op.artifacts.append({"path": str(target)})
    return str(target)


# ----- snapshot ----------------------------------------------------------------------------------


SNAPSHOT_DOCS = {
    "selector": "CSS selector: snapshot only that element's subtree (no refs).",
    "ref": "Snapshot this element's subtree, with refs.",
    "depth": "Element levels to show.",
    "offset": "Start offset (next_offset).",
    "max_chars": "Default 40000.",
    "changes": "Only changes since this page's last snapshot, plus every current ref.",
    "interactive": "extended: also refs for click-handler, tab, pointer-cursor and other custom targets, "
    "marked [interactive=reason] (default: the server's).",
    "boxes": "Also return each ref's box (viewport CSS px, visible, in_viewport).",
}  # element (playwright-mcp's description of the ref) is accepted and ignored
SNAPSHOT_WHAT = "snapshot"


@tool(read_only=True, docs=SNAPSHOT_DOCS)
async def browser_snapshot(
    ctx: Ctx,
    selector: str | None = None,
    *,
    page_id: str | None = None,
    frame_id: str | None = None,
    ref: str | None = None,
    element: str | None = None,
    depth: int | None = None,
    viewport_only: bool | None = None,
    interactive_only: bool | None = None,
    offset: int | None = None,
    max_chars: int | None = None,
    changes: bool = False,
    interactive: Literal["strict", "extended"] | None = None,
    boxes: bool = False,
) -> dict[str, Any]:
    """Accessibility snapshot of the page (or one frame) as YAML; interactive elements carry [ref=eN] for the
    action tools. Refs die with their document: take a new snapshot after navigating. Cut past max_chars,
    naming next_offset."""
    if selector is not None and ref is not None:
        raise ToolError("invalid_params", "Pass selector or ref, not both.")
    if changes and (selector is not None or ref is not None or depth is not None or viewport_only
                    or interactive_only or offset):
        raise ToolError(
            "invalid_params",
            "changes cannot be combined with selector, ref, depth, viewport_only, interactive_only or offset "
            "(it compares whole snapshots of the page).",
        )
    if depth is not None and depth < 1:
        raise ToolError("invalid_params", "depth must be 1 or more.")
    try:
        check_offset(offset)
        budget = check_budget(max_chars) if max_chars is not None else ctx.config.result_chars
    except BudgetError as exc:
        raise ToolError("invalid_params", f"{exc.message}.") from None
    del element  # the model's description of the ref's element: never needed to find it
    page = await ctx.page(page_id)
    cdp_frame, _ = ctx.frame(page, frame_id)
    view = View(depth, bool(viewport_only), bool(interactive_only))

    async def read() -> dict[str, Any]:
        tab = page.tab
        scope = await ctx.ref(page, ref, cdp_frame) if ref is not None else None
        root = await capture_ax_tree(tab, interactive=interactive or ctx.config.interactive)
        for fid in list(tab.frames):
            page.refs.drop_document(fid)
        page.last_tree = root
        if root is not None and cdp_frame != tab.main_frame_id:
            root = find_frame_root(root, cdp_frame)
            if root is None:
                raise ToolError("internal_error", "The frame's accessibility tree could not be captured.")
        if selector is not None:
            text = await _selector_snapshot(page, cdp_frame, root, selector, view)
        elif scope is not None:
            node = find_backend_node(root, scope.session.id or "", scope.backend_node_id) if root else None
            if node is None:
                raise ToolError(
                    "stale_ref",
                    f"Ref '{ref}' not found in current page snapshot (not in the accessibility tree). "
                    "Capture a new snapshot with browser_snapshot.",
                )
            text = render(node, page.refs, include_root=True, view=view)
        else:
            text = render(root, page.refs, view=view)
        # Only a whole, unscoped snapshot is a baseline for the next `changes` call (a part of it still is:
        # the baseline is the whole text); a selector, ref or view snapshot is none.
        whole = selector is None and scope is None and view == View(None, False, False)
        shown = snapshot_changes.observe(page, cdp_frame, text if whole else None, changes=changes)
        frame = tab.frames.get(cdp_frame)
        url = tab.url if cdp_frame == tab.main_frame_id else (frame.url if frame else "")
        where: dict[str, Any] = {"url": url, "page_id": page.page_id, "frame_id": page.frame_id(cdp_frame)}
        if boxes:  # the snapshot's own geometry, never part of its text (docs/marks.md)
            viewport = await tab.viewport()
            size = (float(viewport["width"]), float(viewport["height"]))
            where["boxes"] = ref_boxes(root, page.refs, size) if selector is None else {}
        if shown.get("mode") == "changes":
            if len(shown["changes"]) + len(shown["refs"]) <= budget:
                return {**shown, **where}
            # A diff longer than the budget saves nothing: the (windowed) whole snapshot instead.
            shown = {"mode": "full", "reason": "changes longer than max_chars"}
        return _snapshot_window({"snapshot": text, **{k: v for k, v in shown.items() if k != "snapshot"}, **where},
                                budget, offset)  # fmt: skip

    return await ctx.guard(page, read)


def _snapshot_window(data: dict[str, Any], budget: int, offset: int | None) -> dict[str, Any]:
    """The snapshot cut to its budget (util.text_windows): the ancestors of the first line repeated, a marker line
    naming next_offset; `offset`, `next_offset` and `total_chars` beside it when it is a part."""
    text = data["snapshot"]
    start = offset or 0
    if start == 0 and len(text) <= budget:
        return data
    try:
        start = window(text, budget, start).start  # where the part starts: a line's start
        head = context_lines(text, start)
        reserve = sum(len(line) + 1 for line in head) + 300  # the ancestors and the marker line
        part = window(text, max(budget - reserve, budget // 2), start)
    except BudgetError as exc:
        raise ToolError("invalid_params", f"{exc.message}.") from None
    how = (
        f"Next: browser_snapshot offset={part.end}, or scope with ref, depth, viewport_only or interactive_only."
        if part.more
        else "This is the end; offset=0 reads from the start."
    )
    body = part.text.rstrip("\n")
    lines = [*head, body] if body else head
    lines.append(f"# {part.marker(SNAPSHOT_WHAT, how)}")
    data["snapshot"] = "\n".join(lines)
    data.update(offset=part.start, next_offset=part.end if part.more else None, total_chars=part.total)
    return data


async def _element_object(page: Page, cdp_frame: str, selector: str, *, main_world: bool) -> tuple[Any, str]:
    """(session, objectId) of the first element matching selector; element_not_found / invalid_params."""
    if main_world:
        session, context_id = _main_world(page, cdp_frame)
    else:
        session, context_id = await frame_world(page, cdp_frame)
    try:
        obj = await scripts.evaluate(
            session,
            f"document.querySelector({json.dumps(selector)})",
            context_id=context_id,
            by_value=False,
            await_promise=False,
        )
    except JavaScriptError:
        raise ToolError("invalid_params", f"'{selector}' is not a valid CSS selector.") from None
    if obj.get("subtype") == "null" or "objectId" not in obj:
        raise ToolError("element_not_found", f"No element matches selector '{selector}'.")
    return session, obj["objectId"]


async def _selector_snapshot(page: Page, cdp_frame: str, root: Any, selector: str, view: View) -> str:
    session, object_id = await _element_object(page, cdp_frame, selector, main_world=False)
    backend = (await scripts.describe_node(session, object_id))["backendNodeId"]
    node = find_backend_node(root, session.id or "", backend) if root is not None else None
    return render(node, None, include_root=True, view=view) if node is not None else ""


def _main_world(page: Page, cdp_frame: str) -> tuple[Any, int | None]:
    world = page.main_world(cdp_frame)
    if world is not None:
        return world
    if cdp_frame == page.tab.main_frame_id:
        return page.tab.session, None
    raise ToolError("internal_error", "The frame has no script context yet; try again once it has loaded.")


# ----- screenshot --------------------------------------------------------------------------------


ImageSide = Annotated[int, Bounds(16, 16384)]  # image pixels; Chromium's own limit is 16384 per side
Quality = Annotated[int, Bounds(0, 100)]
TileIndex = Annotated[int, Bounds(0, 100_000)]


@tool(
    read_only=True,
    docs={
        "image_format": "png, jpeg or webp.",
        "full_page": "The whole page, in tiles of readable size (see tile).",
        "path": "Write the image to this file in the output folder instead.",
        "original": "Exact resolution, no scaling or tiles (requires path).",
        "max_width": "Max image width, px (default 1568).",
        "max_height": "Max image height, px (default 1568).",
        "quality": "jpeg/webp quality 0-100.",
        "tile": "full_page tile, from 0 (the result names the next).",
        "marks": "Label interactive elements with their snapshot refs, on the image only.",
    },
)
async def browser_screenshot(
    ctx: Ctx,
    image_format: str = "png",
    *,
    full_page: bool = False,
    path: str | None = None,
    page_id: str | None = None,
    original: bool = False,
    max_width: ImageSide | None = None,
    max_height: ImageSide | None = None,
    quality: Quality | None = None,
    tile: TileIndex | None = None,
    marks: bool = False,
) -> dict[str, Any]:
    """Screenshot of the viewport, or of the whole page in tiles, scaled to fit max_width x max_height."""
    request = screenshot_request(
        ctx.config, image_format, full_page=full_page, path=path, original=original,
        max_width=max_width, max_height=max_height, quality=quality, tile=tile,
    )  # fmt: skip
    page = await ctx.page(page_id)

    if path is not None:
        output_path(ctx, path)  # refused before anything is captured

    async def read() -> dict[str, Any]:
        tab = page.tab
        region = await tab.screenshot_region(full_page=full_page)
        w, h = region["width"], region["height"]
        part: PageTile | None = None
        if request.tiled:
            try:
                part = page_tile(region, request.tile, request.max_width, request.max_height)
            except ValueError as exc:
                raise ToolError("invalid_params", f"{exc}.") from None
        options = ScreenshotOptions(
            format=request.format,
            quality=request.quality,
            clip=part.region if part is not None else region,
            max_width=None if original else request.max_width,
            max_height=None if original else request.max_height,
            full_page=full_page,
            # A whole page is the image the result-size bound meets: it keeps the compact encoder.
            optimize_for_speed=ctx.config.screenshot_optimize_for_speed and not full_page,
        )
        chosen, world = None, None
        if marks:
            if page.last_tree is None:  # no snapshot yet: take one, so the labels are refs the tools accept
                page.last_tree = await capture_ax_tree(tab)
                render(page.last_tree, page.refs)
            chosen = ref_marks(page.last_tree, page.refs)
            world = await Worlds.of(tab).context(tab.main_frame_id)
        # The viewport the region was read from (a full page's region is the page: read with the capture).
        viewport = None if full_page else (w, h, float(region["x"]), float(region["y"]))
        shot = await tab.capture_screenshot(
            options, timeout=max(1.0, ctx.remaining()), marks=chosen, world=world, viewport=viewport
        )
        encoded = shot.data
        data: dict[str, Any] = {
            "image_format": image_format,
            "width": shot.width,
            "height": shot.height,
            "source_width": round(w),
            "source_height": round(h),
            "original": original,
        }
        if part is not None:
            data.update(tile_fields(part))
        if marks:
            data["marks"] = len(chosen or ())
        if path is not None:
            data["path"] = _artifact(ctx, path, base64.b64decode(encoded))
        else:
            data["image_base64"] = encoded
        return data

    return await ctx.guard(page, read)


@dataclass(frozen=True)
class ScreenshotRequest:
    """browser_screenshot's arguments, checked, with the server's defaults filled in."""

    format: ImageFormat
    quality: int | None
    max_width: int
    max_height: int
    tiled: bool
    tile: int


def screenshot_request(
    config: Config,
    image_format: str,
    *,
    full_page: bool,
    path: str | None,
    original: bool,
    max_width: int | None,
    max_height: int | None,
    quality: int | None,
    tile: int | None,
) -> ScreenshotRequest:
    """The checked request (invalid_params before anything is captured or written)."""
    if image_format not in IMAGE_FORMATS:
        raise ToolError("invalid_params", "image_format must be 'png', 'jpeg' or 'webp'.")
    if original and path is None:
        raise ToolError("invalid_params", "original=true requires a path.")
    if original and (max_width is not None or max_height is not None or tile is not None):
        raise ToolError("invalid_params", "original=true keeps the exact resolution: no max_width, max_height or tile.")
    if quality is not None and image_format == "png":
        raise ToolError("invalid_params", "quality applies to jpeg and webp only.")
    if tile is not None and not full_page:
        raise ToolError("invalid_params", "tile requires full_page=true.")
    return ScreenshotRequest(
        format=image_format,  # type: ignore[arg-type]  # checked against IMAGE_FORMATS above
        quality=None if image_format == "png" else (config.screenshot_quality if quality is None else quality),
        max_width=max_width or config.screenshot_max_width,
        max_height=max_height or config.screenshot_max_height,
        tiled=full_page and not original,
        tile=tile or 0,
    )


def tile_fields(part: PageTile) -> dict[str, Any]:
    """What a tile result says about its place in the page, and how to get the rest."""
    top, height = part.region["y"], part.region["height"]
    fields: dict[str, Any] = {
        "tile": part.index,
        "tile_count": part.count,
        "tile_y": round(top),
        "tile_height": round(height),
        "next_tile": part.next_index,
    }
    if part.next_index is not None:
        fields["note"] = (
            f"Tile {part.index + 1} of {part.count}: page y {round(top)}-{round(top + height)} px. "
            f"For the next part call browser_screenshot with full_page=true, tile={part.next_index}."
        )
    elif part.count > 1:
        fields["note"] = f"Tile {part.count} of {part.count}: the end of the page."
    return fields


# ----- console, network, downloads ---------------------------------------------------------------


def _limit(limit: int) -> None:
    if not 1 <= limit <= 500:
        raise ToolError("invalid_params", "limit must be between 1 and 500.")


def _export(
    ctx: Ctx, key: str, records: list[dict[str, Any]], meta: dict[str, Any], path: str | None
) -> dict[str, Any]:
    if path is None:
        return {key: records, **meta}
    written = _artifact(ctx, path, orjson.dumps({key: records, **meta}, option=orjson.OPT_INDENT_2))
    return {"path": written, "count": len(records), **meta}


@tool(
    modal_exempt=True,
    read_only=True,
    docs={
        "level": "Minimum level: debug < log = info < warning < error.",
        "after": "Cursor from a previous call (omit for the oldest retained message).",
        "limit": "At most this many messages (1-500).",
        "path": "Server path inside the output folder: write this page of messages as JSON there instead.",
    },
)
async def browser_console_messages(
    ctx: Ctx, level: str | None = None, *, after: str | None = None, limit: int = 100, path: str | None = None
) -> dict[str, Any]:
    """Console messages and uncaught errors of the instance's pages (all pages and navigations), paged by cursor."""
    if level is not None and level not in LEVELS:
        raise ToolError("invalid_params", f"level must be one of {', '.join(LEVELS)}.")
    _limit(limit)
    minimum = LEVELS[level] if level else 0
    records, meta = ctx.instance.console.page(after, limit, lambda r: LEVELS.get(r["type"], 1) >= minimum)
    return _export(ctx, "messages", records, meta, path)


@tool(
    modal_exempt=True,
    read_only=True,
    docs={
        "url_filter": "Python regular expression searched in the URL.",
        "static": "Include images, fonts, stylesheets, media and manifests.",
        "after": "Cursor from a previous call.",
        "limit": "At most this many records (1-500).",
        "path": "Server path inside the output folder: write this page as JSON there instead.",
    },
)
async def browser_network_requests(
    ctx: Ctx,
    url_filter: str | None = None,
    *,
    static: bool = False,
    after: str | None = None,
    limit: int = 100,
    path: str | None = None,
) -> dict[str, Any]:
    """Network requests of the instance's pages; a response or failure updates a record under a new sequence
    (upsert by request_id)."""
    _limit(limit)
    try:
        pattern = re.compile(url_filter) if url_filter else None
    except re.error as exc:
        raise ToolError("invalid_params", f"url_filter is not a valid regular expression: {exc}.") from None

    def keep(record: dict[str, Any]) -> bool:
        if not static and record["resource_type"] in STATIC_RESOURCE_TYPES:
            return False
        return pattern is None or pattern.search(record["url"]) is not None

    records, meta = ctx.instance.network.page(after, limit, keep)
    return _export(ctx, "requests", records, meta, path)


@tool(modal_exempt=True, read_only=True, docs={"page_id": "Only downloads of this page (may be a closed page).",
      "after": "Cursor from a previous call.", "limit": "At most this many records (1-500)."})  # fmt: skip
async def browser_downloads(
    ctx: Ctx, *, page_id: str | None = None, after: str | None = None, limit: int = 100
) -> dict[str, Any]:
    """Downloads the instance's pages started: detected, saving, saved or failed."""
    _limit(limit)
    inst = ctx.instance
    if page_id is not None and page_id not in inst.known_page_ids:
        raise ToolError("page_not_found", f"Page '{page_id}' never existed in instance '{inst.name}'.")
    records, meta = inst.downloads.page(after, limit, lambda r: page_id is None or r["page_id"] == page_id)
    return {"downloads": records, **meta}


@tool(modal_exempt=True, docs={"download_id": "From browser_downloads or a download observation.",
      "path": "Server path inside the output folder to save the file to (may overwrite)."})  # fmt: skip
async def browser_download_save(ctx: Ctx, download_id: str, path: str) -> dict[str, Any]:
    """Save a download to a path, waiting for it to finish within the operation deadline."""
    inst: Instance = ctx.instance
    record = inst.downloads.get(download_id)
    download = inst.download_objects.get(download_id)
    if record is None or download is None:
        raise ToolError("download_not_found", f"Download '{download_id}' is unknown or no longer retained.")
    target = ctx.manager.policies.files.output_path(path)  # PolicyError -> invalid_params
    ctx.touch()
    inst.set_download(download_id, status="saving")
    try:
        done = await inst.browser.wait_for_download(download_id, timeout=max(0.1, ctx.remaining() - 0.25))
    except TimeoutError:
        inst.set_download(download_id, status="detected")
        raise ToolError(
            "operation_timeout", "The download did not finish within the operation deadline."
        ) from None
    if done.state != "completed" or not done.path:
        inst.set_download(download_id, status="failed", failure=done.state, available=False)
        raise ToolError("download_failed", f"The download did not complete ({done.state}).")
    ctx.op.artifact_write_started = True
    try:
        await asyncio.to_thread(shutil.copyfile, done.path, target)
    except OSError as exc:
        inst.set_download(download_id, status="failed", failure=str(exc))
        raise ToolError(
            "download_failed", f"Saving to '{path}' failed: {exc}. A partial file may remain."
        ) from None
    ctx.op.artifacts.append({"path": str(target)})
    inst.set_download(download_id, status="saved", path=str(target), available=True)
    return {"download_id": download_id, "path": str(target)}


# ----- evaluate ----------------------------------------------------------------------------------


@tool(docs={"expression": "JavaScript expression or function (e.g. `() => document.title`, `el => el.value`).",
            "ref": "Pass this element as the function's argument.",
            "selector": "Pass the first element matching this CSS selector as the argument."})  # fmt: skip
async def browser_evaluate(
    ctx: Ctx,
    expression: str,
    ref: str | None = None,
    selector: str | None = None,
    *,
    page_id: str | None = None,
    frame_id: str | None = None,
) -> dict[str, Any]:
    """Evaluate JavaScript in the page's own world (page globals visible); a function is called, with the
    element when ref or selector is given. Non-serialisable results are null."""
    if ref is not None and selector is not None:
        raise ToolError("invalid_params", "Give either ref or selector, not both.")
    page = await ctx.page(page_id)
    cdp_frame, explicit = ctx.frame(page, frame_id)
    node: NodeRef | None = (
        await ctx.ref(page, ref, cdp_frame if explicit else None) if ref is not None else None
    )
    body = f"const __v = ({expression}\n);"
    timeout = max(0.5, min(30.0, ctx.remaining() - 0.5))

    async def action() -> dict[str, Any]:
        page.tab.scroll_epoch += 1  # the agent's script may change anything, scrolls included
        try:
            if node is None and selector is None:
                session, context_id = _main_world(page, cdp_frame)
                result = await scripts.evaluate(
                    session,
                    f"(async () => {{ {body} return typeof __v === 'function' ? await __v() : __v; }})()",
                    context_id=context_id,
                    user_gesture=True,
                    timeout=timeout,
                )
            else:
                function = f"async function() {{ {body} return typeof __v === 'function' ? await __v(this) : __v; }}"
                if node is not None:
                    world = page.main_world(node.frame_id)
                    result = await scripts.call_on_node(
                        node.session,
                        node.backend_node_id,
                        function,
                        context_id=world[1] if world is not None and world[0] is node.session else None,
                        timeout=timeout,
                    )
                else:
                    assert selector is not None
                    session, object_id = await _element_object(page, cdp_frame, selector, main_world=True)
                    result = await scripts.call_function(
                        session, object_id, function, user_gesture=True, timeout=timeout
                    )
        except CommandTimeoutError:
            raise ToolError("evaluation_failed", f"Evaluation did not finish within {timeout:g} s.") from None
        except JavaScriptError as exc:
            raise ToolError("evaluation_failed", str(exc)) from None
        except ProtocolError as exc:
            if "serializ" in exc.message.lower() or "reference chain" in exc.message.lower():
                return {"result": None}
            raise ToolError("evaluation_failed", exc.message) from None
        return {"result": result.get("value")}

    return await ctx.run(page, action)


@tool(docs={"code": "Python function body."})
async def browser_run_code(ctx: Ctx, code: str, *, page_id: str | None = None) -> dict[str, Any]:
    """Not supported: upstream runs Python against Playwright objects, which do not exist on this raw-CDP
    engine. Use browser_evaluate for page JavaScript."""
    raise ToolError(
        "unsupported_capability",
        "browser_run_code needs Playwright page/context objects, which this raw-CDP server does not have. "
        "Use browser_evaluate to run JavaScript in the page.",
    )


# ----- verification ------------------------------------------------------------------------------


@tool(read_only=True)
async def browser_verify_element_visible(
    ctx: Ctx, ref: str, *, page_id: str | None = None, frame_id: str | None = None
) -> dict[str, Any]:
    """Verify that the element is visible now (no waiting)."""
    page = await ctx.page(page_id)
    cdp_frame, explicit = ctx.frame(page, frame_id)
    node = await ctx.ref(page, ref, cdp_frame if explicit else None)

    async def read() -> dict[str, Any]:
        if not await input.call_on(node, VISIBLE):
            raise ToolError("verification_failed", f"Element {ref} is not visible.")
        return {"visible": True, "ref": ref}

    return await ctx.guard(page, read)


@tool(read_only=True, docs={"refs": "Refs that must all be visible.", "container_ref": "Container element ref.",
      "items": "Texts that must each appear in a visible descendant of the container (case-insensitive)."})  # fmt: skip
async def browser_verify_list_visible(
    ctx: Ctx,
    refs: list[str] | None = None,
    container_ref: str | None = None,
    items: list[str] | None = None,
    *,
    page_id: str | None = None,
    frame_id: str | None = None,
) -> dict[str, Any]:
    """Verify that a list is visible: either every ref is visible, or every item text appears in the container."""
    if (refs is None) == (container_ref is None):
        raise ToolError("invalid_params", "Give either refs, or container_ref with items.")
    if refs is not None and (not refs or items is not None):
        raise ToolError("invalid_params", "refs must be a non-empty list and cannot be combined with items.")
    if container_ref is not None and not items:
        raise ToolError("invalid_params", "container_ref needs a non-empty items list.")
    page = await ctx.page(page_id)
    cdp_frame, explicit = ctx.frame(page, frame_id)
    scope = cdp_frame if explicit else None
    nodes = [await ctx.ref(page, r, scope) for r in refs] if refs is not None else []
    container = await ctx.ref(page, container_ref, scope) if container_ref is not None else None

    async def read() -> dict[str, Any]:
        if container is None:
            hidden = [n.ref for n in nodes if not await input.call_on(n, VISIBLE)]
            if hidden:
                raise ToolError("verification_failed", f"Not visible: {', '.join(hidden)}.")
            return {"visible_refs": [n.ref for n in nodes]}
        missing = await input.call_on(container, CONTAINS_VISIBLE, items)
        if missing:
            raise ToolError(
                "verification_failed", f"Not visible in {container_ref}: {', '.join(map(repr, missing))}."
            )
        return {"container_ref": container_ref, "verified_items": items}

    return await ctx.guard(page, read)


@tool(read_only=True)
async def browser_verify_text_visible(
    ctx: Ctx, text: str, *, page_id: str | None = None, frame_id: str | None = None
) -> dict[str, Any]:
    """Verify that text is visible (case-insensitive substring), in the main frame or any child frame."""
    if not text:
        raise ToolError("invalid_params", "text must not be empty.")
    page = await ctx.page(page_id)
    cdp_frame, explicit = ctx.frame(page, frame_id)

    async def read() -> dict[str, Any]:
        frames = [cdp_frame] if explicit else [cdp_frame, *[f for f in page.tab.frames if f != cdp_frame]]
        for fid in frames:
            try:
                if await call_in_frame(page, fid, TEXT_CHECK, [text, True, True]):
                    return {"text": text, "visible": True}
            except (ToolError, CDPEngineError):
                if fid == cdp_frame:
                    raise
        raise ToolError("verification_failed", f"Text '{text}' is not visible.")

    return await ctx.guard(page, read)


@tool(read_only=True, docs={"expected_value": "Expected value; for checkbox/radio a checked state (true/false, yes/no…).",
      "element_type": "text (input/textarea/select value), checkbox or radio (checked state)."})  # fmt: skip
async def browser_verify_value(
    ctx: Ctx,
    ref: str,
    expected_value: str,
    element_type: Literal["text", "checkbox", "radio"] = "text",
    *,
    page_id: str | None = None,
    frame_id: str | None = None,
) -> dict[str, Any]:
    """Verify an element's value (or checked state) equals the expected one."""
    want: Any = coerce_bool(expected_value, "expected_value") if element_type != "text" else expected_value
    page = await ctx.page(page_id)
    cdp_frame, explicit = ctx.frame(page, frame_id)
    node = await ctx.ref(page, ref, cdp_frame if explicit else None)

    async def read() -> dict[str, Any]:
        facts = await input.call_on(node, VALUE_OF)
        actual = facts["value"] if element_type == "text" else facts["checked"]
        if actual != want:
            raise ToolError(
                "verification_failed", f"{ref} has {element_type} value {actual!r}, expected {want!r}."
            )
        return {"ref": ref, "value": actual, "element_type": element_type}

    return await ctx.guard(page, read)


# ----- locators, pdf -----------------------------------------------------------------------------


def _q(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


@tool(
    read_only=True,
    docs={"selector": "CSS selector (instead of ref).", "element": "Human description (informational)."},
)
async def browser_generate_locator(
    ctx: Ctx,
    ref: str | None = None,
    selector: str | None = None,
    element: str | None = None,
    *,
    page_id: str | None = None,
    frame_id: str | None = None,
) -> dict[str, Any]:
    """A stable locator for an element: a unique CSS `selector` (usable with this server's selector
    parameters) plus Playwright's internal selector and Python syntax (test id > role+name > label >
    placeholder > alt > title > text > CSS)."""
    if (ref is None) == (selector is None):
        raise ToolError("invalid_params", "Give exactly one of ref or selector.")
    page = await ctx.page(page_id)
    cdp_frame, explicit = ctx.frame(page, frame_id)
    node = await ctx.ref(page, ref, cdp_frame if explicit else None) if ref is not None else None

    async def read() -> dict[str, Any]:
        if node is not None:
            facts = await input.call_on(node, LOCATOR_FACTS)
            role, name = node.role, node.name
        else:
            assert selector is not None
            session, object_id = await _element_object(page, cdp_frame, selector, main_world=False)
            facts = (await scripts.call_function(session, object_id, LOCATOR_FACTS, await_promise=False))["value"]
            described = await scripts.describe_node(session, object_id)
            raw = await scripts.ax_node(session, described["backendNodeId"])
            role, name = (
                str((raw.get("role") or {}).get("value") or ""),
                " ".join(str((raw.get("name") or {}).get("value") or "").split()),
            )
        aria_role = _aria_role(role)
        if facts["testid"]:
            internal, python = (
                f"internal:testid=[data-testid={_q(facts['testid'])}s]",
                f"get_by_test_id({_q(facts['testid'])})",
            )
        elif aria_role and name:
            internal, python = (
                f"internal:role={aria_role}[name={_q(name)}i]",
                f"get_by_role({_q(aria_role)}, name={_q(name)})",
            )
        elif facts["label"]:
            internal, python = f"internal:label={_q(facts['label'])}i", f"get_by_label({_q(facts['label'])})"
        elif facts["placeholder"]:
            internal, python = (
                f"internal:attr=[placeholder={_q(facts['placeholder'])}i]",
                f"get_by_placeholder({_q(facts['placeholder'])})",
            )
        elif facts["alt"]:
            internal, python = (
                f"internal:attr=[alt={_q(facts['alt'])}i]",
                f"get_by_alt_text({_q(facts['alt'])})",
            )
        elif facts["title"]:
            internal, python = (
                f"internal:attr=[title={_q(facts['title'])}i]",
                f"get_by_title({_q(facts['title'])})",
            )
        elif facts["text"]:
            internal, python = f"internal:text={_q(facts['text'])}i", f"get_by_text({_q(facts['text'])})"
        else:
            internal, python = facts["css"], f"locator({_q(facts['css'])})"
        return {
            "ref": ref,
            "selector": facts["css"],
            "internal_selector": internal,
            "python_syntax": f"page.{python}",
            "page_id": page.page_id,
            "frame_id": page.frame_id(cdp_frame),
        }

    return await ctx.guard(page, read)


def _aria_role(role: str) -> str | None:
    mapped = map_role(role)
    if not mapped or mapped in ("generic", "none", "presentation", "StaticText", "text"):
        return None
    return mapped


@tool(docs={"file_path": "Server path inside the output folder for the PDF (omit to get it as base64).",
            "paper_format": "A3, A4, A5, Letter, Legal or Tabloid."})  # fmt: skip
async def browser_pdf_save(
    ctx: Ctx,
    file_path: str | None = None,
    paper_format: str = "A4",
    *,
    landscape: bool = False,
    print_background: bool = False,
) -> dict[str, Any]:
    """Print the selected page to PDF (Chromium's Page.printToPDF, headless only)."""
    if paper_format not in PAPER_INCHES:
        raise ToolError("invalid_params", f"paper_format must be one of {', '.join(PAPER_INCHES)}.")
    if file_path is not None:
        output_path(ctx, file_path)  # refused before anything is printed
    page = await ctx.page()
    width, height = PAPER_INCHES[paper_format]

    async def action() -> dict[str, Any]:
        try:
            encoded = await page.tab.pdf_base64(
                paper_width=width,
                paper_height=height,
                landscape=landscape,
                print_background=print_background,
                timeout=max(1.0, ctx.remaining() - 0.5),
            )
        except ProtocolError as exc:
            raise ToolError(
                "unsupported_capability", f"PDF printing failed: {exc.message} (needs headless Chromium)."
            ) from None
        raw = base64.b64decode(encoded)
        if file_path is not None:
            return {"path": _artifact(ctx, file_path, raw), "size_bytes": len(raw)}
        return {"pdf_base64": encoded, "size_bytes": len(raw)}

    return await ctx.run(page, action)
