"""The state of a tab, captured: served from cache when nothing changed, built on the last state when the
change probe places every change (snapshot/incremental.py), else captured in full in one burst.

Per full capture, every frame session (the tab's, and each out-of-process iframe's) gets one concurrent burst:
`DOMSnapshot.captureSnapshot` (two computed styles and paint order, no DOM rects), the change-detection probe
(which also reports the visual viewport), and for the tab the optional screenshot. The snapshots are decoded
and joined into the element index and page_content by snapshot/capture.py's StateBuilder. The snapshot decodes
into ~100k Python lists on big pages; the cyclic GC stays paused from the decode until they are freed
(connection.gc_paused).
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from ..cdp.connection import CDPSession, gc_paused
from ..core.files import ScreenshotOptions, ScreenshotSpec, page_region, screenshot_options, start_screenshot
from .capture import (
    PAGE_CONTENT_CAP,
    Capture,
    CaptureSource,
    ContentWindow,
    StateBuilder,
    settled_roles,
    state_hash,
)
from .extended import check_mode, find_extended
from .incremental import build_on, main_truncation, release_reach
from .probes import ChangeProbes, SentProbes
from .snapshot_doc import EXTENDED_STYLES, SNAPSHOT_STYLES, SnapshotDoc

if TYPE_CHECKING:
    from ..core.tab import Tab

__all__ = ["StateCapturer"]

# Below this many milliseconds of snapshot (its CDP round trip, Chromium's work, the transfer and the decode), a
# full capture costs about what building on the last one does (the probe's two round trips and one walk): the
# snapshot is taken again (benchmarks/actions.py's small pages; benchmarks/incremental.py).
INCREMENT_WORTH = 15.0


class StateCapturer:
    """Captures the state of one tab and caches it until the page changes."""

    def __init__(self, tab: Tab) -> None:
        self.tab = tab
        self.last: Capture | None = None
        self.probes = ChangeProbes.of(tab)  # what the cache asks before it serves a state (snapshot/probes.py)
        self.worlds = self.probes.worlds
        self.epoch = tab.scroll_epoch  # Tab.scroll_epoch at the last capture: an input since may have scrolled
        self.increment_worth_ms = INCREMENT_WORTH  # 0: build on the last capture whenever it may (the tests do)

    def frame_sessions(self) -> list[tuple[str, CDPSession]]:
        """(frame id, session) of each session a capture snapshots: the tab's first, then each
        out-of-process frame's (whose owner iframe the capture asks its parent session for)."""
        tab = self.tab
        return [(tab.main_frame_id, tab.session), *tab.frame_sessions.items()]

    def invalidate(self, *, scrolled: bool = True) -> None:
        """Forget the cached state (after the engine itself acted on the page). `scrolled`: the action may have
        scrolled an element, whose scroll event comes with the next frame: Tab.scroll_epoch moves, and the next
        state (and tree) is a full capture (docs/incremental.md). Typing says False: the field's box is checked."""
        if self.last is not None:
            self.last.version_key = (None,)
        if scrolled:
            self.tab.scroll_epoch += 1

    # ----- capture ----------------------------------------------------------------------------

    async def capture(
        self,
        *,
        screenshot: ScreenshotSpec = True,
        jpeg_quality: int = 80,
        use_cache: bool = True,
        content: ContentWindow = (0, PAGE_CONTENT_CAP),
        interactive: str = "strict",
    ) -> Capture:
        """The current state; served from cache when nothing changed since the last capture.

        `screenshot`: False (none), True or "png", "jpeg" or "webp" (at `jpeg_quality`), or ScreenshotOptions.
        An unchanged state keeps its screenshot only when the page could not have painted by itself since
        (still_signature) and the options are the same; otherwise only the screenshot is taken again.
        `content`: the (offset, budget) of page_content in the page's text (util.text_windows); another one than the
        cached state's is a new capture. `interactive`: "strict" or "extended" (snapshot/extended.py); a cached
        state serves only its own set."""
        t0, epoch = time.perf_counter(), self.tab.scroll_epoch
        check_mode(interactive)
        options = screenshot_options(screenshot, quality=jpeg_quality)
        last = self.last
        sent: SentProbes | None = None
        capture: Capture | None = None
        cacheable = ChangeProbes.key_is_stable(last.version_key) if last is not None else False
        # Built on the last capture only where that beats a full capture: a snapshot that cost little is taken again.
        buildable = (
            last is not None and last.source is not None and self.epoch == epoch and not last.source.shadow
            and last.source.snapshot_ms >= self.increment_worth_ms
        )  # fmt: skip
        if (
            use_cache
            and last is not None
            and (cacheable or buildable)
            and ChangeProbes.key_is_stable(last.base_key)
            and last.base_key[0] == self.tab.dom_version  # a navigation or frame change is a sure miss
            and last.content == content
            and last.interactive == interactive
        ):
            sent = self.probes.send_probes(still=options is not None)
            key = await self.probes.read_probes(sent)
            if key == last.version_key:
                return await self.from_cache(last, options, sent, t0)
            if buildable:
                capture = await self._build_on(last, key, options, sent, t0)
        if capture is None:
            with gc_paused():  # the snapshot's lists are freed by refcount before the collector is back
                capture = await self._capture(options, t0, content, interactive == "extended", sent)
        if last is not None and last is not capture and last.source is not capture.source:
            release_reach(self.tab, last.source)
            last.source = None  # only the latest capture is built on
        self.epoch = epoch
        self.last = capture
        self.probes.hold("state", capture.source.key if capture.source is not None else None)
        self.tab.last_timings = capture.timings
        return capture

    async def from_cache(
        self,
        last: Capture,
        options: ScreenshotOptions | None,
        sent: SentProbes,
        t0: float,
        how: str = "cached",
        painted: bool = False,
    ) -> Capture:
        """The cached state of an unchanged page, with the screenshot `options` ask for: the cached one
        when the page provably painted nothing new since (same options, equal still signatures, and not
        `painted`: a focus or hover change that paint-only rules style), else a new one (the state itself
        still holds). The copy does not keep the snapshots `last` keeps for an increment."""
        state = dict(last.state)
        timings: dict[str, float] = {how: 1.0}
        shot_options, shot_still, shot_region = last.shot_options, last.shot_still, last.shot_region
        if options is None:
            state["screenshot"] = ""
        else:
            still = await self.probes.still_signature(sent)
            if not painted and options == last.shot_options and still is not None and still == last.shot_still:
                timings["screenshot_reused"] = 1.0
            else:
                t_shot = time.perf_counter()
                region = await self.shot_region(options, last.viewport)
                scale = await self.probes.device_scale(sent)
                self.tab.show_for_capture()
                shot = start_screenshot(self.tab.session, options, region=region, device_scale=scale)
                state["screenshot"] = (await shot)["data"]
                timings["screenshot_ms"] = (time.perf_counter() - t_shot) * 1000
                shot_options, shot_still, shot_region = options, still, region
                # The next unchanged capture may reuse this one.
                last.state = {**last.state, "screenshot": state["screenshot"]}
                last.shot_options, last.shot_still, last.shot_region = shot_options, shot_still, shot_region
        timings["total_ms"] = (time.perf_counter() - t0) * 1000
        last.timings = timings
        self.tab.last_timings = timings
        return Capture(
            state, last.elements, last.version_key, last.viewport, timings, shot_options, shot_still, last.content,
            last.interactive, shot_region, last.title, last.tree, last.base_key, None,
        )  # fmt: skip

    async def _build_on(
        self, last: Capture, key: tuple[Any, ...], options: ScreenshotOptions | None, sent: SentProbes, t0: float
    ) -> Capture | None:
        """The state built on `last` (snapshot/incremental.py) with the screenshot `options` ask for; None when
        a full capture must follow."""
        built = await build_on(self.tab, self.probes, self.worlds, last, key)
        if built is None:
            return None
        if isinstance(built, str):  # STANDS: the same state; its pixels may differ when the count moved
            painted = key != last.base_key
            last.version_key = last.base_key = key
            served = await self.from_cache(last, options, sent, t0, how="incremental", painted=painted)
            served.source = last.source  # it becomes the latest capture: the next increment builds on it
            return served
        if options is not None:
            region = await self.shot_region(options, last.viewport)
            scale = await self.probes.device_scale(sent)
            self.tab.show_for_capture()
            shot = start_screenshot(self.tab.session, options, region=region, device_scale=scale)
            built.state["screenshot"] = (await shot)["data"]
            built.shot_options, built.shot_region = options, region
            built.shot_still = await self.probes.still_signature(sent)
        built.timings["total_ms"] = (time.perf_counter() - t0) * 1000
        return built

    async def screenshot_current(self, capture: Capture, options: ScreenshotOptions) -> bool:
        """Whether `capture`'s screenshot is what a capture with `options` would show now: the same options,
        an unchanged page and equal still signatures (it could not have painted by itself), as the cache
        decides reuse. One probe round trip."""
        key = capture.version_key
        if capture.shot_options != options or capture.shot_still is None or key[0] != self.tab.dom_version:
            return False
        probes = self.probes
        sent = probes.send_probes(still=True)
        return await probes.read_probes(sent) == key and await probes.still_signature(sent) == capture.shot_still

    async def shot_region(
        self, options: ScreenshotOptions, viewport: tuple[float, float, float, float]
    ) -> dict[str, float] | None:
        """The rectangle a screenshot needs first (to scale to a maximum size, or to cover the page), None
        when it needs none; the viewport comes from the probe, the whole page from Page.getLayoutMetrics."""
        if not options.needs_region:
            return None
        if options.full_page:
            return await page_region(self.tab.session, full_page=True)
        width, height, left, top = viewport
        return {"x": float(left), "y": float(top), "width": float(width), "height": float(height)}

    async def _capture(
        self,
        options: ScreenshotOptions | None,
        t0: float,
        content: ContentWindow = (0, PAGE_CONTENT_CAP),
        extended: bool = False,
        probes: SentProbes | None = None,
    ) -> Capture:
        """A full capture. `probes`: the probes this capture's caller already sent (they describe the page
        before the snapshot, as the capture's own would)."""
        tab = self.tab
        tab.check_open()
        frames = self.frame_sessions()
        styles = EXTENDED_STYLES if extended else SNAPSHOT_STYLES
        params = {"computedStyles": styles, "includePaintOrder": True, "includeDOMRects": False}
        worlds = self.worlds
        missing = [fid for fid, _s in self.probes.probe_frames() if worlds.get(fid) is None]
        if missing:  # a new document: its probe must be in place first (usually installed already at commit)
            await asyncio.gather(*[worlds.ensure(fid) for fid in missing])
        # Read before the snapshot (a later change can only cause a miss) and before the screenshot (so the
        # still signature describes the page the image shows, or an older one).
        if probes is None:  # (a caller's were sent with the same `still`: the same options)
            probes = self.probes.send_probes(still=options is not None)
        snapshot_futures = [s.send("DOMSnapshot.captureSnapshot", params) for _, s in frames]
        shot_future, region = None, None
        if options is not None:
            # Sent now, in the burst, and awaited after the snapshot is built. Scaling to a maximum size
            # needs the viewport first: the probe's answer, which comes before the snapshot's.
            scale = 1.0
            if options.needs_region:
                region = await self.shot_region(options, await self.probes.viewport(probes))
                scale = await self.probes.device_scale(probes)
            tab.show_for_capture()  # a background tab would draw no frame to capture
            shot_future = start_screenshot(tab.session, options, region=region, device_scale=scale)
        # OOPIF owners: which iframe element in which parent session hosts each out-of-process frame.
        owner_futures = []
        for fid, s in frames[1:]:
            parent = s.parent or tab.session
            owner_futures.append(parent.send("DOM.getFrameOwner", {"frameId": fid}))
        snap_results = await asyncio.gather(*snapshot_futures, return_exceptions=True)
        owners = await asyncio.gather(*owner_futures, return_exceptions=True)
        viewport = await self.probes.viewport(probes)
        t_snapshot = time.perf_counter()

        title = _document_title(snap_results[0]) if frames else None
        docs_by_session: dict[str, list[SnapshotDoc]] = {}
        for (fid, s), result in zip(frames, snap_results, strict=True):
            if isinstance(result, BaseException):
                if s is tab.session:
                    raise result
                continue  # a frame detaching mid-capture never fails the whole capture
            strings = result["strings"]
            docs_by_session[fid] = [SnapshotDoc(s, d, strings, extended=extended) for d in result["documents"]]
            if extended:
                for doc in docs_by_session[fid]:
                    doc.extended = find_extended(doc)
        oopif_owner: dict[tuple[str, int], str] = {}  # (owner session id, backend id) -> frame id
        for (fid, s), owner in zip(frames[1:], owners, strict=True):
            if not isinstance(owner, BaseException):
                parent = s.parent or tab.session
                oopif_owner[(parent.id or "", owner["backendNodeId"])] = fid

        # Shadow roots the change probe does not watch yet: their watch goes out now, beside the build.
        shadowed: dict[tuple[CDPSession, str], list[int]] = {}
        any_shadow = False
        for docs in docs_by_session.values():
            for doc in docs:
                if doc.shadow:
                    page_made, closed_hosts = doc.shadow_hosts()
                    if page_made:
                        any_shadow = True
                        shadowed.setdefault((doc.session, doc.frame_id), []).extend(closed_hosts)
        watching = asyncio.ensure_future(self.probes.watch_shadow_roots(shadowed)) if shadowed else None
        builder = StateBuilder(tab, self.worlds, viewport, docs_by_session, oopif_owner, content)
        await builder.place_frames()
        await builder.verify()
        builder.walk()
        roles = builder.request_roles()
        await asyncio.sleep(0)  # a yield, not a wait: the role requests go out while page_content is folded
        url = tab.url
        page_content = builder.page_content()
        hashed = state_hash(url, page_content)
        t_walk = time.perf_counter()
        await builder.apply_roles(roles)
        t_ax = time.perf_counter()
        element_index = {str(el.index): el.descriptor for el in builder.elements}
        state = {
            "url": url,
            "page_content": page_content,
            "element_index": element_index,
            "screenshot": "",
            "state_hash": hashed,
        }
        still = None
        if shot_future is not None:
            state["screenshot"] = (await shot_future)["data"]
            still = await self.probes.still_signature(probes)
        key = await self.probes.read_probes(probes)
        if watching is not None:
            await watching  # a root's first watch changes the key: this capture is not served again
        t_end = time.perf_counter()
        timings = {
            "snapshot_ms": (t_snapshot - t0) * 1000,
            "build_ms": (t_walk - t_snapshot) * 1000,
            "ax_ms": (t_ax - t_walk) * 1000,
            "total_ms": (t_end - t0) * 1000,
            "elements": float(len(element_index)),
            "verified": float(builder.verified),
        }
        mode = "extended" if extended else "strict"
        elements = {el.index: el for el in builder.elements}
        main_docs = docs_by_session.get(tab.main_frame_id)
        tree = main_docs[0].tree() if main_docs else None
        source = CaptureSource(
            docs_by_session, oopif_owner, builder.clip, settled_roles(builder.elements), any_shadow,
            (t_snapshot - t0) * 1000, key=key, trunc=main_truncation(builder, main_docs),
        )  # fmt: skip
        return Capture(
            state, elements, key, viewport, timings, options, still, content, mode, region, title, tree, key, source
        )

    async def capture_full(self, *, content: ContentWindow = (0, PAGE_CONTENT_CAP), interactive: str = "strict") -> Capture:
        """A full capture without a screenshot that leaves the cached state alone: what the incremental state must
        equal byte for byte (the differential test, tests/stress; the benchmarks)."""
        with gc_paused():
            return await self._capture(None, time.perf_counter(), content, check_mode(interactive) == "extended")


def _document_title(result: Any) -> str | None:
    """The title of a snapshot's first document (the session's main frame), free with the snapshot."""
    if isinstance(result, BaseException):
        return None
    try:
        index = result["documents"][0].get("title", -1)
        return str(result["strings"][index]) if index >= 0 else ""
    except (KeyError, IndexError, TypeError):
        return None
