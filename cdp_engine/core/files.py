"""Files in and out of a page, each job once: screenshots, file inputs and intercepted file choosers.

Every surface calls these (through `Tab` or directly) instead of sending the CDP commands itself:
`start_screenshot` is the one sender of Page.captureScreenshot and returns the command's future,
so a capture can gather it with its other commands; uploads take a `FilePolicy` and send only
paths it allows.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..cdp.connection import CDPSession
from ..errors import CDPEngineError
from .policies import FilePolicy

ImageFormat = Literal["png", "jpeg", "webp"]

# What an element is to an upload: an <input type=file>, or a <label> whose control is one.
FILE_INPUT_JS = """function() {
  let el = this;
  if (el.tagName === 'LABEL' && el.control && el.control.tagName === 'INPUT' && el.control.type === 'file')
    return {file: true, label: true, multiple: el.control.multiple, disabled: el.control.disabled};
  if (el.tagName === 'INPUT' && el.type === 'file') return {file: true, multiple: el.multiple, disabled: el.disabled};
  return {file: false};
}"""
CANCEL_JS = "function() { this.dispatchEvent(new Event('cancel', {bubbles: true})); }"


def _quiet(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


# ----- screenshots -----------------------------------------------------------------------------


def start_screenshot(
    session: CDPSession,
    *,
    format: ImageFormat = "png",
    quality: int | None = None,
    clip: dict[str, float] | None = None,
    scale: float = 1.0,
    full_page: bool = False,
    optimize_for_speed: bool = True,
    timeout: float | None = None,
) -> asyncio.Future[dict[str, Any]]:
    """Send Page.captureScreenshot now; the future's result["data"] is the base64 image.

    `clip` is in CSS pixels of the page and is captured at `scale`; `full_page` captures beyond
    the viewport (give the page's size as the clip); `quality` applies to jpeg and webp only.
    """
    params: dict[str, Any] = {"format": format, "captureBeyondViewport": full_page}
    if optimize_for_speed:
        params["optimizeForSpeed"] = True
    if quality is not None and format != "png":
        params["quality"] = quality
    if clip is not None:
        params["clip"] = {**clip, "scale": scale}
    return session.send("Page.captureScreenshot", params, timeout=timeout)


async def page_region(session: CDPSession, *, full_page: bool = False, timeout: float | None = None) -> dict[str, float]:
    """The CSS rectangle of the visible viewport (at its scroll offset), or of the whole page."""
    metrics = await session.send("Page.getLayoutMetrics", timeout=timeout)
    if full_page:
        size = metrics["cssContentSize"]
        return {"x": 0.0, "y": 0.0, "width": float(size["width"]), "height": float(size["height"])}
    vp = metrics["cssVisualViewport"]
    return {
        "x": vp["pageX"],
        "y": vp["pageY"],
        "width": float(vp["clientWidth"]),
        "height": float(vp["clientHeight"]),
    }


async def print_pdf(
    session: CDPSession,
    *,
    paper_width: float,
    paper_height: float,
    landscape: bool = False,
    print_background: bool = False,
    timeout: float | None = None,
) -> str:
    """Page.printToPDF (paper size in inches); the base64 PDF."""
    result = await session.send(
        "Page.printToPDF",
        {
            "paperWidth": paper_width,
            "paperHeight": paper_height,
            "landscape": landscape,
            "printBackground": print_background,
        },
        timeout=timeout,
    )
    return str(result["data"])


# ----- file inputs -----------------------------------------------------------------------------


@dataclass
class FileInput:
    """The <input type=file> an element is or labels: files are always set on the input itself."""

    session: CDPSession
    backend_node_id: int
    multiple: bool
    disabled: bool

    async def set_files(self, paths: Sequence[str], policy: FilePolicy) -> list[str]:
        """Set the files (checked and resolved by `policy`); returns the paths sent."""
        return await set_input_files(self.session, self.backend_node_id, paths, policy)


async def file_input(session: CDPSession, backend_node_id: int) -> FileInput | None:
    """The file input an element is (or, for a <label>, controls); None when it is neither."""
    resolved = await session.send("DOM.resolveNode", {"backendNodeId": backend_node_id})
    object_id = resolved["object"]["objectId"]
    try:
        result = await session.send(
            "Runtime.callFunctionOn",
            {"objectId": object_id, "functionDeclaration": FILE_INPUT_JS, "returnByValue": True},
        )
        kind = result.get("result", {}).get("value")
        if not isinstance(kind, dict) or not kind.get("file"):
            return None
        target = backend_node_id
        if kind.get("label"):
            control = await session.send(
                "Runtime.callFunctionOn",
                {"objectId": object_id, "functionDeclaration": "function() { return this.control; }"},
            )
            control_id = control.get("result", {}).get("objectId")
            if not control_id:
                return None
            described = await session.send("DOM.describeNode", {"objectId": control_id})
            target = described["node"]["backendNodeId"]
        return FileInput(session, target, bool(kind.get("multiple")), bool(kind.get("disabled")))
    finally:
        session.send("Runtime.releaseObject", {"objectId": object_id}).add_done_callback(_quiet)


async def set_input_files(
    session: CDPSession, backend_node_id: int, paths: Sequence[str], policy: FilePolicy
) -> list[str]:
    """DOM.setFileInputFiles with the paths `policy` allows (PolicyError before anything is sent)."""
    files = policy.upload_paths(paths)
    await session.send("DOM.setFileInputFiles", {"files": files, "backendNodeId": backend_node_id})
    return files


# ----- file choosers ---------------------------------------------------------------------------


@dataclass
class FileChooser:
    """A file chooser the page opened while interception was on (Page.fileChooserOpened)."""

    session: CDPSession
    backend_node_id: int | None
    mode: str = "selectSingle"
    frame_id: str | None = None

    @property
    def multiple(self) -> bool:
        return self.mode == "selectMultiple"

    async def set_files(self, paths: Sequence[str], policy: FilePolicy) -> list[str]:
        """Answer the chooser with these files (checked and resolved by `policy`)."""
        if self.backend_node_id is None:
            raise CDPEngineError("the file chooser names no input element to fill")
        return await set_input_files(self.session, self.backend_node_id, paths, policy)

    async def cancel(self) -> None:
        """Answer the chooser with no files: the input gets the `cancel` event a user's Cancel sends."""
        if self.backend_node_id is None:
            return
        resolved = await self.session.send("DOM.resolveNode", {"backendNodeId": self.backend_node_id})
        object_id = resolved["object"]["objectId"]
        await self.session.send("Runtime.callFunctionOn", {"objectId": object_id, "functionDeclaration": CANCEL_JS})


def intercept_file_choosers(
    session: CDPSession, listener: Callable[[FileChooser], None]
) -> tuple[asyncio.Future[dict[str, Any]], Callable[[], None]]:
    """Intercept this session's file choosers (no native dialog): listener(chooser) for each one.

    Returns the enabling command's future (await or gather it) and `stop`, which unsubscribes
    and turns interception off again.
    """

    def on_opened(params: dict[str, Any]) -> None:
        listener(
            FileChooser(session, params.get("backendNodeId"), params.get("mode", "selectSingle"), params.get("frameId"))
        )

    unsubscribe = session.on("Page.fileChooserOpened", on_opened)
    enabled = session.send("Page.setInterceptFileChooserDialog", {"enabled": True})

    def stop() -> None:
        unsubscribe()
        if not session.closed:
            session.send("Page.setInterceptFileChooserDialog", {"enabled": False}).add_done_callback(_quiet)

    return enabled, stop


class ChooserWatch:
    """`async with ChooserWatch(sessions) as watch:` intercepts their choosers; `await watch.next(t)`
    gives the first one opened (TimeoutError after t seconds). Interception ends with the block."""

    def __init__(self, sessions: Sequence[CDPSession]) -> None:
        self.sessions = list(dict.fromkeys(sessions))
        self._opened: asyncio.Future[FileChooser] = asyncio.get_running_loop().create_future()
        self._stops: list[Callable[[], None]] = []

    def _on_chooser(self, chooser: FileChooser) -> None:
        if not self._opened.done():
            self._opened.set_result(chooser)

    async def __aenter__(self) -> ChooserWatch:
        enabling = []
        for session in self.sessions:
            enabled, stop = intercept_file_choosers(session, self._on_chooser)
            enabling.append(enabled)
            self._stops.append(stop)
        try:
            await asyncio.gather(*enabling)
        except BaseException:
            self._stop()
            raise
        return self

    async def next(self, timeout: float) -> FileChooser:
        async with asyncio.timeout(timeout):
            return await asyncio.shield(self._opened)

    def _stop(self) -> None:
        for stop in self._stops:
            with contextlib.suppress(CDPEngineError):
                stop()
        self._stops.clear()

    async def __aexit__(self, *exc: object) -> None:
        self._stop()
