"""Navigation tools: browser_navigate, browser_navigate_back, browser_wait_for.

Loaded means DOMContentLoaded, then up to 5 s more for `load` without failing. A navigation
that turns into a download (the URL or a hop of its redirect chain is the download's URL)
answers with `download: true` instead of a failure. A failed navigation leaves the page where it
was, within the operation's deadline (core/navigation.py), and its message says where the page is.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from ..core import lifecycle, observers
from ..core.event_records import Download
from ..core.navigation import where_now
from ..core.tab import Tab
from ..errors import CDPEngineError, NavigationError, NavigationTimeoutError, ProtocolError
from .envelope import ToolError
from .instances import Page
from .observe import TEXT_CHECK, poll
from .registry import Ctx, tool
from .urls import normalize_url

LOAD_GRACE = 5.0
MAX_WAIT_SECONDS = 30.0
TEXT_WAIT_TIMEOUT = 30.0
DOWNLOAD_SETTLE = 1.0


async def page_title(tab: Tab) -> str:
    with contextlib.suppress(CDPEngineError, TimeoutError):
        title = await tab.evaluate("document.title", timeout=2.0)
        if isinstance(title, str):
            return title
    return tab.title


async def wait_loaded(tab: Tab, timeout: float) -> None:
    """Up to `timeout` for the main document's `load` (never fails; no main frame counts as loaded)."""
    await lifecycle.wait_loaded(tab, timeout, "load", missing=True)


REPORT_MARGIN = 0.5  # seconds of the operation deadline kept for saying how a navigation or its restore ended


def nav_timeout(ctx: Ctx) -> float:
    return max(0.1, min(ctx.config.navigation_timeout, ctx.remaining() - REPORT_MARGIN))


def kept_until(ctx: Ctx) -> float:
    """The deadline (event-loop time) a navigation and the restore after its failure share: the operation's,
    less REPORT_MARGIN, so a restore that runs out still ends as navigation_failed, never operation_timeout."""
    return ctx.deadline - REPORT_MARGIN


@tool(
    docs={
        "url": "Destination URL (localhost/IPv4 get http://, dotted hosts https://; explicit schemes kept)."
    }
)
async def browser_navigate(ctx: Ctx, url: str, *, page_id: str | None = None) -> dict[str, Any]:
    """Navigate the page to a URL and wait until it has loaded (DOMContentLoaded, then up to 5 s for load).
    Snapshot refs are invalidated."""
    target = normalize_url(url)
    if not target:
        raise ToolError("invalid_params", "url must not be empty.")
    ctx.manager.policies.navigation.check(target)  # PolicyError -> invalid_params, before any page exists
    page = await ctx.page(page_id)

    async def action() -> dict[str, Any]:
        tab = page.tab
        chain = {target}
        downloads: list[Download] = []
        arrived = asyncio.Event()
        main = tab.main_frame_id

        def on_request(params: dict[str, Any]) -> None:
            if params.get("type") == "Document" and params.get("frameId") == main:
                chain.add((params.get("request") or {}).get("url", ""))
                redirect = params.get("redirectResponse")
                if redirect:
                    chain.add(redirect.get("url", ""))

        def on_event(kind: str, payload: Any) -> None:
            if kind == "download" and isinstance(payload, Download) and payload not in downloads:
                downloads.append(payload)
                arrived.set()

        requests = observers.watch_network(tab.session, on_request=on_request, enable=False)  # on since setup
        unsubscribe = [requests.close, tab.add_listener(on_event)]
        try:
            try:
                await tab.goto(
                    target, wait_until="domcontentloaded", timeout=nav_timeout(ctx), deadline=kept_until(ctx),
                    dialog_ends=False,
                )  # fmt: skip
            except NavigationTimeoutError as exc:
                raise ToolError(
                    "navigation_timeout",
                    f"Navigation to {target} did not reach DOMContentLoaded in time. {where_now(exc)}",
                ) from None
            except (NavigationError, ProtocolError) as exc:
                # A navigation that became a download is aborted; its download event may follow the answer.
                aborted = isinstance(exc, NavigationError) and exc.error_text == "net::ERR_ABORTED"
                download = await _matching_download(downloads, arrived, chain, DOWNLOAD_SETTLE if aborted else 0)
                if download is not None:
                    return await _download_result(page, download)
                if isinstance(exc, ProtocolError):
                    raise ToolError("navigation_failed", f"Navigation to {target} failed: {exc.message}") from None
                raise ToolError(
                    "navigation_failed", f"Navigation to {target} failed: {exc.error_text}. {where_now(exc)}"
                ) from None
            await wait_loaded(tab, min(LOAD_GRACE, max(0.0, ctx.remaining() - 0.5)))
            data: dict[str, Any] = {"url": tab.url, "title": await page_title(tab)}
            download = await _matching_download(downloads, arrived, chain, 0)
            if download is not None:
                data.update(await _download_result(page, download, with_page=False))
            return data
        finally:
            for unsub in unsubscribe:
                unsub()

    return await ctx.run(page, action)


async def _matching_download(
    downloads: list[Download], arrived: asyncio.Event, chain: set[str], settle: float
) -> Download | None:
    """The download whose URL is the navigation's or one of its redirects, waiting up to `settle` for it."""
    loop = asyncio.get_running_loop()
    end = loop.time() + settle
    while True:
        for download in downloads:
            if download.url in chain:
                return download
        remaining = end - loop.time()
        if remaining <= 0:
            return None
        arrived.clear()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(remaining):
                await arrived.wait()  # woken by the next download event


async def _download_result(page: Page, download: Download, *, with_page: bool = True) -> dict[str, Any]:
    data: dict[str, Any] = {}
    if with_page:
        data = {"url": page.tab.url, "title": await page_title(page.tab)}
    data["download"] = True
    if page.instance.downloads.get(download.id) is not None:
        data["download_id"] = download.id
    return data


@tool()
async def browser_navigate_back(ctx: Ctx, *, page_id: str | None = None) -> dict[str, Any]:
    """Go back one step in the page's history; with no history entry the page stays and its URL is returned."""
    page = await ctx.page(page_id)

    async def action() -> dict[str, Any]:
        tab = page.tab
        try:
            response = await tab.back(
                wait_until="domcontentloaded", timeout=nav_timeout(ctx), deadline=kept_until(ctx),
                dialog_ends=False,
            )  # fmt: skip
        except NavigationTimeoutError as exc:
            raise ToolError(
                "navigation_timeout", f"Back navigation did not reach DOMContentLoaded in time. {where_now(exc)}"
            ) from None
        except NavigationError as exc:
            raise ToolError(
                "navigation_failed", f"Back navigation failed: {exc.error_text}. {where_now(exc)}"
            ) from None
        if response is not None:
            await wait_loaded(tab, min(LOAD_GRACE, max(0.0, ctx.remaining() - 0.5)))
        return {"url": tab.url}

    return await ctx.run(page, action)


@tool(
    docs={
        "text": "Wait until at least one element containing this text is visible.",
        "text_gone": "Wait until no element containing this text is visible.",
        "time": "Seconds to wait unconditionally (capped at 30).",
    }
)
async def browser_wait_for(
    ctx: Ctx,
    text: str | None = None,
    text_gone: str | None = None,
    time: float | None = None,
    *,
    page_id: str | None = None,
    frame_id: str | None = None,
) -> dict[str, Any]:
    """Wait for text to appear, text to disappear, or a fixed time; evaluated in the order time, text_gone, text."""
    if text is None and text_gone is None and time is None:
        raise ToolError("invalid_params", "At least one of 'text', 'text_gone', or 'time' must be provided.")
    if time is not None and time < 0:
        raise ToolError("invalid_params", "'time' must not be negative.")
    if text == "" or text_gone == "":
        raise ToolError("invalid_params", "'text' and 'text_gone' must not be empty.")
    page = await ctx.page(page_id)
    cdp_frame, _ = ctx.frame(page, frame_id)

    async def action() -> dict[str, Any]:
        parts: list[str] = []
        if time is not None:
            seconds = min(float(time), MAX_WAIT_SECONDS)
            await asyncio.sleep(seconds)
            parts.append(f"{seconds}s")
        if text_gone is not None:
            try:
                await poll(page, cdp_frame, TEXT_CHECK, [text_gone, False], _text_timeout(ctx))
            except TimeoutError:
                raise ToolError(
                    "wait_timeout", f"Text '{text_gone}' did not disappear: still visible after the wait."
                ) from None
            parts.append(f"text_gone='{text_gone}'")
        if text is not None:
            try:
                await poll(page, cdp_frame, TEXT_CHECK, [text, True], _text_timeout(ctx))
            except TimeoutError:
                raise ToolError(
                    "wait_timeout", f"Text '{text}' did not appear: not visible after the wait."
                ) from None
            parts.append(f"text='{text}'")
        return {"waited_for": ", ".join(parts)}

    return await ctx.run(page, action)


def _text_timeout(ctx: Ctx) -> float:
    return max(0.0, min(ctx.config.wait_timeout, ctx.remaining() - 0.25))
