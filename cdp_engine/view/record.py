"""Recording any surface's calls as a trajectory, and a trajectory as a replay page or one HTML file.

`Recorder(folder)` subscribes to the activity hook (util/activity.py), so it records whatever calls the
engine in this process (the MCP server's tools, the browser toolset's members, state()/act() under the
HTTP service, the harness or a library program), one step per call: what ran, its arguments, how long
it took, how it ended, the URL, the screenshot (the state's own when the call returned one, else one
taken just after the call when `capture` is on) and the element boxes of the last state. It writes the
harness's trajectory format (harness/trajectory.py: a JSONL file per run, screenshots beside it), so
`load_run()` opens a harness trajectory and a recording alike, and `export_html()` makes either one
self-contained HTML file (data, script and style inline; it loads nothing).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import CDPEngineError
from ..harness.trajectory import TrajectoryRecorder, read_trajectory
from ..util import activity
from ..util.activity import Activity
from .live import entry_of, overlay_of, short_json
from .page import render_page

if TYPE_CHECKING:
    from ..core.tab import Tab

__all__ = ["Recorder", "export_html", "load_run"]

STATE_TEXT_LIMIT = 200_000  # characters of page_content kept per step


def _format(b64: str) -> str:
    return "jpeg" if b64.startswith("/9j/") else "webp" if b64.startswith("UklGR") else "png"


class Recorder:
    """Records every call of this process as one trajectory in `directory` while started."""

    def __init__(self, directory: str | os.PathLike[str], *, screenshots: bool = True, capture: bool = True) -> None:
        self.trajectory = TrajectoryRecorder(directory, screenshots=screenshots)
        self.capture = capture and screenshots
        self.steps = 0
        self.path: Path | None = None
        self._off: Any = None
        self._tasks: set[asyncio.Task[Any]] = set()

    def start(self) -> Path:
        """Begin the run's file and subscribe; returns its path."""
        run_id = time.strftime("run-%Y%m%d-%H%M%S") + f"-{os.getpid()}"
        self.path = self.trajectory.begin({"episode_id": run_id, "task": "recording", "source": "recorder", "started": time.time()})
        self._off = activity.on_activity(self._on_activity)
        return self.path

    async def stop(self) -> None:
        """Unsubscribe, wait for the screenshots still being taken, end the file."""
        if self._off is not None:
            self._off()
            self._off = None
        if self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)
        self.trajectory.end({"steps": self.steps, "ended": time.time()})

    async def __aenter__(self) -> Recorder:
        self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def _on_activity(self, event: Activity) -> None:
        self.steps += 1
        entry: dict[str, Any] = {**entry_of(event), "step": self.steps, "action": event.arguments}
        if event.tab is not None and event.boxes is not None:
            overlay = overlay_of(event.tab.target_id, event.boxes)
            if overlay is not None and overlay["boxes"]:
                entry["boxes"], entry["viewport"] = overlay["boxes"], overlay["viewport"]
        state = event.state or {}
        if isinstance(state.get("page_content"), str):
            entry["state_text"] = state["page_content"][:STATE_TEXT_LIMIT]
            entry["state_hash"] = state.get("state_hash")
        shot = state.get("screenshot")
        if isinstance(shot, str) and shot:
            self.trajectory.record(entry, shot, _format(shot))
        elif self.capture and event.tab is not None and not event.tab.closed:
            task = asyncio.get_running_loop().create_task(self._shoot(event.tab, entry))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        else:
            self.trajectory.record(entry)

    async def _shoot(self, tab: Tab, entry: dict[str, Any]) -> None:
        """The page just after a call that returned no screenshot (JPEG: small, and quick to take). A tab behind
        another of its window is recorded without one: a capture would bring it to the front
        (Tab.show_for_capture), and a watcher never changes what the agent's pages show."""
        shot: str | None = None
        with contextlib.suppress(CDPEngineError, TimeoutError):
            if await tab.evaluate("document.visibilityState", timeout=5.0) == "visible":
                shot = await tab.screenshot_base64(format="jpeg", quality=70, timeout=5.0)
        self.trajectory.record(entry, shot, "jpeg")


def _data_url(path: Path) -> str | None:
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    mime = "image/jpeg" if raw[:3] == b"\xff\xd8\xff" else "image/webp" if raw[8:12] == b"WEBP" else "image/png"
    return f"data:{mime};base64,{base64.b64encode(raw).decode()}"


def load_run(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A trajectory (harness or recording) as the replay page's data: every step, screenshots inlined."""
    path = Path(path)
    header, records, end = read_trajectory(path)
    if not header and not records:
        raise CDPEngineError(f"{path}: no trajectory records (a .jsonl file written by the harness or a recording)")
    steps = []
    for rec in sorted(records, key=lambda r: r.get("step", 0)):
        action = rec.get("action")
        error = rec.get("error")
        name = rec.get("name") or (action.get("action") if isinstance(action, dict) else None)
        if name is None:
            name = "reset" if action is None else str(action)[:60]
        timings = rec.get("timings") or {}
        shot = rec.get("screenshot")
        steps.append(
            {
                "step": rec.get("step"),
                "surface": rec.get("surface", "harness"),
                "name": name,
                "args": rec.get("args") if "args" in rec else short_json(action),
                "url": rec.get("url", ""),
                "ms": rec.get("ms", timings.get("total_action_ms")),
                "ok": rec.get("ok", not error),
                "error": (error.get("code") or error.get("message")) if isinstance(error, dict) else error,
                "timings": timings,
                "state_hash": rec.get("state_hash"),
                "state_text": rec.get("state_text"),
                "boxes": rec.get("boxes"),
                "viewport": rec.get("viewport"),
                "screenshot": _data_url(path.parent / shot) if isinstance(shot, str) else None,
            }
        )
    title = f"{header.get('task') or ''} {header.get('episode_id') or path.stem}".strip()
    return {"title": title, "source": str(path), "header": header, "end": end, "steps": steps}


def export_html(path: str | os.PathLike[str], out: str | os.PathLike[str]) -> Path:
    """Write the replay of a trajectory as one self-contained HTML file; returns its path."""
    target = Path(out)
    target.write_text(render_page(load_run(path)), encoding="utf-8")
    return target
