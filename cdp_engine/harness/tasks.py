"""Tasks: what an episode starts from, how it is set up and scored, and the pages a worker serves.

`TaskSpec` is picklable so task lists travel to worker processes and Ray tasks; `TaskSite` serves
task pages from memory on 127.0.0.1 (one per worker, port 0); `seed_script` makes Math.random
deterministic for a seeded episode.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin

from aiohttp import web

from ..core.liveness import bounded
from ..errors import CDPEngineError

if TYPE_CHECKING:
    from ..core.tab import Tab

log = logging.getLogger("cdp_engine.harness")

__all__ = ["TaskSite", "TaskSpec", "seed_script"]


@dataclass(frozen=True)
class TaskSpec:
    """One task: where it starts, how it is set up and scored. Picklable, so it travels to workers.

    A ``start_url`` starting with ``/`` is resolved against the worker's `TaskSite` (``pages=``),
    so the same task list works on any machine. ``reward_js`` is an expression returning a number
    or a boolean (true = 1.0), read in the active tab after every step.
    """

    name: str
    start_url: str
    goal: str = ""
    setup_js: str | None = None
    reward_js: str | None = None
    init_scripts: tuple[str, ...] = ()
    max_steps: int = 20
    seed: int | None = None
    data: Mapping[str, Any] = field(default_factory=dict)  # free-form, for policies

    def resolve(self, base_url: str | None) -> str:
        """The absolute start URL (relative ones against base_url)."""
        url = self.start_url
        if "://" in url or url.startswith(("about:", "data:", "file:")):
            return url
        if not base_url:
            raise ValueError(f"task {self.name!r}: relative start_url {url!r} needs pages= or base_url")
        return urljoin(base_url.rstrip("/") + "/", url.lstrip("/"))


_SEED_SCRIPT = (
    "(() => { let s = __SEED__ >>> 0; Math.random = function random() { s = (s + 0x6D2B79F5) >>> 0;"
    " let t = s; t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61);"
    " return ((t ^ (t >>> 14)) >>> 0) / 4294967296; }; })();"
)


async def read_reward(tab: Tab, reward_js: str, timeout: float) -> float:
    """A task's reward_js read in `tab`: a number, or a boolean as 1.0 / 0.0; 0.0 if it throws or the page
    does not answer within `timeout` (a renderer found hung answers within the liveness probe's second)."""
    try:
        value = await bounded(tab, tab.evaluate(reward_js, timeout=timeout), "reward_js", timeout)
    except (CDPEngineError, TimeoutError) as exc:
        log.debug("reward_js failed: %s", exc)
        return 0.0
    return float(value) if isinstance(value, (int, float)) else 0.0


def seed_script(seed: int) -> str:
    """An init script that makes Math.random a seeded PRNG (mulberry32) in every document."""
    return _SEED_SCRIPT.replace("__SEED__", str(seed & 0xFFFFFFFF))


_CONTENT_TYPES = {
    ".html": "text/html",
    ".htm": "text/html",
    ".js": "application/javascript",
    ".css": "text/css",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".txt": "text/plain",
}


class TaskSite:
    """Serves task pages from memory on 127.0.0.1, port 0 (never a fixed port), one per worker.

    ``pages`` maps a path (``/login.html``) to its body; ``/`` serves ``/index.html`` when present.
    """

    def __init__(self, pages: Mapping[str, str | bytes]) -> None:
        self.pages = {("/" + p.lstrip("/")): body for p, body in pages.items()}
        self.url = ""
        self._runner: web.AppRunner | None = None

    async def _serve(self, request: web.Request) -> web.Response:
        path = request.path if request.path != "/" else "/index.html"
        body = self.pages.get(path)
        if body is None:
            return web.Response(status=404, text="not found")
        ctype = _CONTENT_TYPES.get(os.path.splitext(path)[1].lower(), "text/html")
        data = body.encode() if isinstance(body, str) else body
        return web.Response(body=data, content_type=ctype, headers={"Cache-Control": "no-store"})

    async def start(self) -> str:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._serve)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", 0).start()
        port = self._runner.addresses[0][1]
        self.url = f"http://127.0.0.1:{port}/"
        return self.url

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> TaskSite:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
