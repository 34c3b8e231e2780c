"""Tabs, frames, page utilities, cookies and local storage.

The selected page is tracked by identity: a popup never becomes selected, closing another
tab never retargets later calls. Local storage of an origin is read and written through a
temporary tab whose document request is answered locally (an empty page of that origin), so
no request reaches the site and none of its scripts run.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from ..core import emulation, network, storage
from ..errors import CDPEngineError, NavigationError, StorageStateError
from .envelope import ToolError
from .instances import Instance, Page
from .navigation_tools import LOAD_GRACE, nav_timeout, wait_loaded
from .registry import Ctx, tool
from .urls import normalize_url


def _live_pages(inst: Instance) -> list[Page]:
    return [p for p in inst.pages if p.live]


@tool(
    modal_exempt=True,
    docs={
        "action": "list, new, close or select.",
        "index": "Tab index (from list) for close/select.",
        "url": "URL to open in the new tab.",
        "page_id": "Tab to close/select (instead of index).",
    },
)
async def browser_tabs(
    ctx: Ctx,
    action: Literal["list", "new", "close", "select"],
    index: int | None = None,
    url: str | None = None,
    page_id: str | None = None,
) -> dict[str, Any]:
    """List, open, close or select tabs. Each tab has a stable page_id; `new` selects the tab it opens."""
    inst = ctx.instance
    if index is not None and page_id is not None:
        raise ToolError("invalid_params", "Give index or page_id, not both.")
    if action in ("list", "new") and (page_id is not None or index is not None):
        raise ToolError("invalid_params", f"'{action}' takes no index or page_id.")
    if action != "new" and url is not None:
        raise ToolError("invalid_params", "url is only for action 'new'.")
    pages = _live_pages(inst)
    if action == "list":
        return {
            "tabs": [
                {
                    "index": i,
                    "url": p.tab.url,
                    "title": p.tab.title,
                    "page_id": p.page_id,
                    "selected": p is inst.selected,
                }
                for i, p in enumerate(pages)
            ]
        }
    if action == "new":
        modals = inst.pending_modals()
        if modals:
            raise ToolError("modal_state_blocked", modals[0].blocking_message())
        previous = inst.selected
        if url is not None:
            ctx.manager.policies.navigation.check(normalize_url(url))
        ctx.touch()
        page = await inst.new_page(select=True)
        ctx.op.page_id = page.page_id
        if url is not None:
            try:
                await page.tab.goto(
                    normalize_url(url), wait_until="domcontentloaded", timeout=nav_timeout(ctx), dialog_ends=False
                )
                await wait_loaded(page.tab, min(LOAD_GRACE, max(0.0, ctx.remaining() - 0.5)))
            except (NavigationError, CDPEngineError) as exc:
                with contextlib.suppress(CDPEngineError, TimeoutError):
                    await page.tab.close(timeout=2.0)
                if previous is not None and previous.live:
                    inst.select(previous)
                kind = "navigation_timeout" if isinstance(exc, TimeoutError) else "navigation_failed"
                raise ToolError(kind, f"The new tab could not load {url}: {exc}") from None
        return {"index": _live_pages(inst).index(page), "url": page.tab.url, "page_id": page.page_id}
    if page_id is not None:
        target = inst.by_id.get(page_id)
        if target is None or not target.live:
            raise ToolError("page_not_found", f"Page '{page_id}' is not open in instance '{inst.name}'.")
    elif index is not None:
        if not 0 <= index < len(pages):
            raise ToolError("invalid_params", f"No tab at index {index} ({len(pages)} open).")
        target = pages[index]
    elif action == "close" and inst.selected is not None and inst.selected.live:
        target = inst.selected
    else:
        raise ToolError("invalid_params", f"'{action}' needs an index or page_id.")
    ctx.op.page_id = target.page_id
    position = pages.index(target)
    ctx.touch()
    if action == "select":
        inst.select(target)
        await inst.bring_to_front(target)
        return {"selected_index": position, "page_id": target.page_id}
    await target.tab.close(timeout=ctx.config.close_timeout)
    inst.page_closed(target)
    return {"closed_index": position, "page_id": target.page_id}


@tool(modal_exempt=True, read_only=True)
async def browser_frames(ctx: Ctx, *, page_id: str | None = None) -> dict[str, Any]:
    """The page's frames with stable frame_ids (for frame_id parameters); does not change the selection."""
    page = await ctx.page(page_id)
    tab = page.tab
    frames = []
    main = tab.main_frame_id
    ordered = [main, *[f for f in tab.frames if f != main]]
    for cdp in ordered:
        frame = tab.frames.get(cdp)
        if frame is None:
            continue
        frames.append(
            {
                "frame_id": page.frame_id(cdp),
                "parent_frame_id": page.frame_id(frame.parent_id) if frame.parent_id else None,
                "name": frame.name,
                "url": frame.url,
                "is_main": cdp == main,
            }
        )
    return {"page_id": page.page_id, "main_frame_id": page.frame_id(main), "frames": frames}


@tool(modal_exempt=True)
async def browser_close(ctx: Ctx, *, page_id: str | None = None) -> dict[str, Any]:
    """Close the selected (or given) page; the instance stays alive, even with no pages."""
    inst = ctx.instance
    if page_id is None and (inst.selected is None or not inst.selected.live):
        return {"closed": False, "reason": "no open pages"}
    page = await ctx.page(page_id, create=False)
    ctx.touch()
    await page.tab.close(timeout=ctx.config.close_timeout)
    inst.page_closed(page)
    return {"closed": True}


@tool(docs={"width": "Viewport width in CSS px.", "height": "Viewport height in CSS px."})
async def browser_resize(ctx: Ctx, width: int, height: int, *, page_id: str | None = None) -> dict[str, Any]:
    """Resize this page's viewport."""
    if not (1 <= width <= 10000 and 1 <= height <= 10000):
        raise ToolError("invalid_params", "width and height must be between 1 and 10000.")
    page = await ctx.page(page_id)

    async def action() -> dict[str, Any]:
        await emulation.set_viewport(page.tab, width, height)
        return {"width": width, "height": height}

    return await ctx.run(page, action)


# ----- cookies -----------------------------------------------------------------------------------


def _cookie_matches(cookie: dict[str, Any], url: str) -> bool:
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    domain = cookie.get("domain", "").lower()
    if domain.startswith("."):
        if not (host == domain[1:] or host.endswith(domain)):
            return False
    elif host != domain:
        return False
    path = parts.path or "/"
    cpath = cookie.get("path", "/")
    if not (path == cpath or path.startswith(cpath.rstrip("/") + "/") or cpath == "/"):
        return False
    return not (cookie.get("secure") and parts.scheme != "https" and host not in ("localhost", "127.0.0.1"))


@tool(
    modal_exempt=True,
    read_only=True,
    docs={"urls": "Only cookies sent to one of these URLs.", "name": "Exact cookie name."},
)
async def browser_get_cookies(
    ctx: Ctx, urls: list[str] | None = None, name: str | None = None
) -> dict[str, Any]:
    """The instance's cookies, filtered by URL, then by exact name."""
    inst = ctx.instance
    cookies = []
    for c in await inst.context.cookies():
        if urls and not any(_cookie_matches(c, u) for u in urls):
            continue
        if name is not None and c.get("name") != name:
            continue
        cookies.append(
            {
                "name": c.get("name"),
                "value": c.get("value"),
                "domain": c.get("domain"),
                "path": c.get("path"),
                "expires": c.get("expires", -1),
                "httpOnly": c.get("httpOnly", False),
                "secure": c.get("secure", False),
                "sameSite": c.get("sameSite", "Lax"),
            }
        )
    return {"cookies": cookies}


@tool(
    docs={
        "cookies": "[{name, value, url} or {name, value, domain, path}, optional expires, httpOnly, secure, sameSite]."
    }
)
async def browser_set_cookies(
    ctx: Ctx, cookies: list[dict[str, Any]], *, page_id: str | None = None
) -> dict[str, Any]:
    """Set cookies; one without url or domain+path gets the selected (or given) page's host."""
    inst = ctx.instance
    allowed = {"name", "value", "url", "domain", "path", "expires", "httpOnly", "secure", "sameSite"}
    params = []
    fallback: str | None = None
    for i, cookie in enumerate(cookies):
        unknown = set(cookie) - allowed
        if unknown:
            raise ToolError(
                "invalid_params", f"cookies[{i}] has unknown field(s): {', '.join(sorted(unknown))}."
            )
        if not isinstance(cookie.get("name"), str) or not isinstance(cookie.get("value"), str):
            raise ToolError("invalid_params", f"cookies[{i}] needs string name and value.")
        if cookie.get("sameSite") not in (None, "Strict", "Lax", "None"):
            raise ToolError("invalid_params", f"cookies[{i}].sameSite must be Strict, Lax or None.")
        item = dict(cookie)
        if "url" not in item and not ("domain" in item and "path" in item):
            if fallback is None:
                page = inst.by_id.get(page_id) if page_id else inst.selected
                if page_id is not None and (page is None or not page.live):
                    raise ToolError(
                        "page_not_found", f"Page '{page_id}' is not open in instance '{inst.name}'."
                    )
                url = page.tab.url if page is not None and page.live else ""
                if not urlsplit(url).hostname:
                    raise ToolError(
                        "invalid_params",
                        f"cookies[{i}] needs url or domain+path (no page with a host to use).",
                    )
                fallback = url
            item["url"] = fallback
        params.append(item)
    ctx.touch()
    await inst.context.add_cookies(params)
    return {"set_count": len(params)}


@tool(modal_exempt=True)
async def browser_clear_cookies(ctx: Ctx) -> dict[str, Any]:
    """Delete every cookie of the instance (pages are not reloaded)."""
    inst = ctx.instance
    ctx.touch()
    await inst.context.clear_cookies()
    return {"cleared": True}


# ----- local storage -----------------------------------------------------------------------------


def canonical_origin(origin: str) -> str:
    """scheme://host[:port] with IDN as punycode, lower case and default ports dropped; invalid_params otherwise."""
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        raise ToolError("invalid_params", f"'{origin}' is not a valid origin.") from None
    if (
        parts.scheme not in ("http", "https")
        or not parts.hostname
        or parts.path not in ("", "/")
        or parts.query
    ):
        raise ToolError("invalid_params", f"'{origin}' is not an http(s) origin such as https://example.com.")
    host = parts.hostname
    try:
        host = host.encode("idna").decode("ascii") if not host.startswith("[") and ":" not in host else host
    except UnicodeError:
        raise ToolError("invalid_params", f"'{origin}' has an invalid host name.") from None
    if ":" in host:
        host = f"[{host}]"
    default = {"http": 80, "https": 443}[parts.scheme]
    return f"{parts.scheme}://{host.lower()}" + (f":{port}" if port and port != default else "")


async def _with_origin_page(ctx: Ctx, origin: str, script: str, arg: Any) -> Any:
    """Run `script(arg)` in an empty document of `origin` inside a temporary tab of the instance."""
    ctx.manager.policies.navigation.check_origin(origin + "/")  # a blocked origin: invalid_params, no tab opened
    inst = ctx.instance
    inst.suppress_blank += 1
    try:
        if inst.owns_browser and inst.context.id is None:
            tab = await inst.browser.new_tab()
        else:
            tab = await inst.context.new_tab()
    finally:
        inst.suppress_blank -= 1
    empty = network.Fulfill(200, {"Content-Type": "text/html"}, b"")
    blocked = network.Fail("BlockedByClient")

    def decide(request: network.PausedRequest) -> network.Decision:
        return empty if request.resource_type == "Document" and request.url.startswith(origin) else blocked

    try:
        await network.route(tab.session, decide)
        try:
            await tab.goto(origin + "/", wait_until="commit", timeout=nav_timeout(ctx), dialog_ends=False)
        except NavigationError as exc:
            if exc.error_text == "net::ERR_INVALID_URL":  # an origin Chromium cannot parse (an IPv6 zone id)
                raise ToolError("invalid_params", f"'{origin}' is not a valid origin (net::ERR_INVALID_URL).") from None
            raise ToolError("internal_error", f"Could not open {origin}: {exc.error_text}") from None
        value = await tab.evaluate(f"({script})({_json(arg)})", timeout=max(0.5, ctx.remaining() - 0.5))
    finally:
        inst.front = None
        with contextlib.suppress(CDPEngineError, TimeoutError):
            await asyncio.shield(tab.close(timeout=2.0))
    return value


def _json(value: Any) -> str:
    import orjson

    return orjson.dumps(value).decode()


@tool(
    modal_exempt=True,
    read_only=True,
    docs={"origin": "Origin such as https://example.com.", "key": "One key (omit for all)."},
)
async def browser_get_local_storage(ctx: Ctx, origin: str, key: str | None = None) -> dict[str, Any]:
    """Read an origin's localStorage without visiting the site (the selected page is untouched)."""
    canonical = canonical_origin(origin)
    ctx.touch()
    if key is not None:
        value = await _with_origin_page(ctx, canonical, "k => localStorage.getItem(k)", key)
        return {"key": key, "value": value, "origin": canonical}
    items = await _with_origin_page(
        ctx, canonical, "() => Object.fromEntries(Object.entries(localStorage))", None
    )
    return {"items": items, "origin": canonical}


@tool(
    modal_exempt=True,
    docs={"origin": "Origin such as https://example.com.", "items": "Keys to string values."},
)
async def browser_set_local_storage(ctx: Ctx, origin: str, items: dict[str, Any]) -> dict[str, Any]:
    """Write keys into an origin's localStorage without visiting the site."""
    canonical = canonical_origin(origin)
    bad = [k for k, v in items.items() if not isinstance(v, str)]
    if bad:
        raise ToolError("invalid_params", f"localStorage values must be strings (not for: {', '.join(bad)}).")
    ctx.touch()
    await _with_origin_page(
        ctx,
        canonical,
        "items => { for (const [k, v] of Object.entries(items)) localStorage.setItem(k, v); }",
        items,
    )
    return {"set_count": len(items), "origin": canonical}


@tool(docs={"origin": "Origin to clear (omit to clear the selected or given page's own origin)."})
async def browser_clear_local_storage(
    ctx: Ctx, origin: str | None = None, *, page_id: str | None = None
) -> dict[str, Any]:
    """Clear localStorage of an origin, or of the page's own origin when none is given."""
    if origin is not None and page_id is not None:
        raise ToolError("invalid_params", "Give origin or page_id, not both.")
    if origin is not None:
        canonical = canonical_origin(origin)
        ctx.touch()
        await _with_origin_page(ctx, canonical, "() => localStorage.clear()", None)
        return {"cleared": True, "origin": canonical}
    page = await ctx.page(page_id)

    async def action() -> dict[str, Any]:
        own = await page.tab.evaluate("(() => { localStorage.clear(); return location.origin; })()")
        return {"cleared": True, "origin": own}

    return await ctx.run(page, action)


# ----- storage state files (engine extension: Playwright's storage_state per instance; docs/mcp.md) ------------


def _state_file(ctx: Ctx, path: str) -> Path:
    """A storage state file's place: inside the server's output folder (the file policy), like every file a tool
    writes, so a state saved by one instance can be loaded by another and nothing outside it is read."""
    target = ctx.manager.policies.files.output_path(path)  # PolicyError -> invalid_params
    if not target.parent.is_dir():
        raise ToolError("invalid_params", f"The directory of '{path}' does not exist.")
    return target


@tool(docs={"path": "File in the output folder to write (owner-only)."})
async def browser_save_storage_state(ctx: Ctx, path: str) -> dict[str, Any]:
    """Save the instance's logins as a Playwright-style storage state file: cookies (httpOnly too), the
    localStorage of the origins its pages showed, the sessionStorage of its open pages."""
    target = _state_file(ctx, path)
    ctx.touch()
    state = await ctx.instance.context.storage_state(path=target)
    return {"path": str(target), "cookies": len(state["cookies"]), "origins": len(state["origins"])}


@tool(docs={"path": "Storage state file in the output folder (from browser_save_storage_state or Playwright)."})
async def browser_load_storage_state(ctx: Ctx, path: str) -> dict[str, Any]:
    """Add a saved storage state to the instance: its cookies, each origin's localStorage, and sessionStorage for
    the origins' next documents. A malformed file changes nothing."""
    target = _state_file(ctx, path)
    try:
        state = storage.load(target)  # checked whole before anything is added
    except StorageStateError as exc:
        raise ToolError("invalid_params", str(exc)) from None
    ctx.touch()
    try:
        await ctx.instance.context.set_storage_state(state)
    except StorageStateError as exc:
        raise ToolError("invalid_params", str(exc)) from None
    return {"path": str(target), "cookies": len(state["cookies"]), "origins": len(state["origins"])}
