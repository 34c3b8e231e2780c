"""Benchmark pages: the synthetic pages of cdp-floor.md, frame and shadow-root pages, and a real-page folder.

Generated pages are deterministic so numbers from different runs and systems compare. The suite serves
them on two loopback origins (127.0.0.1 and localhost) so that the iframe page has a real cross-site,
out-of-process frame. The action benchmark's pages (others/action_cases.py: /act/*, /miniwob/*) are served
here too, with /act/slow, an answer that takes ?ms= milliseconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import glob
import html
import os
import socket
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from aiohttp import web

sys.path.insert(0, str(Path(__file__).resolve().parent / "others"))  # the adapters' shared modules
import action_cases

ROW_SIZES = (100, 1_000, 5_000, 20_000)
ELEMENT_KINDS = ("link", "button", "input", "select", "checkbox")

# Debian's python3-doc puts the HTML under the versioned doc folder; /usr/share/doc/python3/html links to it.
DOCS_CANDIDATES = ("/usr/share/doc/python3/html", "/usr/share/doc/python3-doc/html")

_HEAD = (
    "<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>{title}</title>"
    "<style>body{{font:14px sans-serif;margin:8px}}.row{{padding:2px 0}}"
    "iframe{{width:420px;height:160px;border:1px solid #888}}[role=checkbox]{{display:inline-block}}</style>"
    "</head><body>"
)


@dataclass(frozen=True)
class PageSpec:
    """One benchmark page; `markers` are strings a complete state of the page should contain."""

    id: str
    path: str
    kind: str  # "generated" | "real" | "frames" | "shadow"
    interactive: int | None = None
    markers: tuple[str, ...] = ()
    origin: str = "main"  # which served origin the page is loaded from
    order: int = 0  # rough size rank: pages run smallest first so a timeout can skip bigger ones


def row_element(i: int) -> str:
    """The interactive element of row i: the kind cycles link, button, input, select, checkbox."""
    kind = ELEMENT_KINDS[i % len(ELEMENT_KINDS)]
    if kind == "link":
        return f'<a href="#row-{i}">Link {i}</a>'
    if kind == "button":
        # A button the page handles (the engine refuses a click nothing on the page would hear, core/actionability).
        return f'<button type="button" onclick="this.dataset.clicks = (+this.dataset.clicks || 0) + 1">Button {i}</button>'
    if kind == "input":
        return f'<input type="text" name="field-{i}" placeholder="Input {i}">'
    if kind == "select":
        return f'<select name="choice-{i}"><option value="a">Option A {i}</option><option value="b">Option B {i}</option></select>'
    return f'<div role="checkbox" aria-checked="false" tabindex="0">Check {i}</div>'


@lru_cache(maxsize=8)
def rows_page(n: int) -> bytes:
    """A page with n rows, each a text span, a space and one interactive element: about 6.4 DOM nodes per row.

    No whitespace between rows, so the node count stays what cdp-floor.md states. The first and last
    rows carry markers that tell whether a system's state covers the whole page or only the viewport.
    """
    parts = [_HEAD.format(title=f"{n} interactive elements"), f'<main id="rows" data-rows="{n}">']
    for i in range(n):
        label = f"Item {i}"
        if i == 0:
            label += " FIRST-ROW-MARKER"
        elif i == n - 1:
            label += " LAST-ROW-MARKER"
        parts.append(f'<div class="row" id="row-{i}"><span>{label}</span> {row_element(i)}</div>')
    parts.append("</main></body></html>")
    return "".join(parts).encode()


def frame_child_page(label: str, nest_url: str | None = None) -> bytes:
    """A frame document with a marker, a button and an input; optionally one nested frame."""
    body = (
        f"<h2>{html.escape(label)}</h2><button type=button>Button in {html.escape(label)}</button>"
        f'<input type=text placeholder="Input in {html.escape(label)}">'
    )
    if nest_url:
        body += f'<iframe src="{html.escape(nest_url)}" title="nested frame"></iframe>'
    return (_HEAD.format(title=html.escape(label)) + body + "</body></html>").encode()


def frames_page(main_base: str, other_base: str) -> bytes:
    """A page with a same-origin frame, a cross-origin frame (second origin, nesting back), and a srcdoc frame."""
    same = f"{main_base}/gen/frame-child.html?label=SAME-ORIGIN-FRAME-MARKER"
    nested_back = f"{main_base}/gen/frame-child.html?label=NESTED-BACK-FRAME-MARKER"
    cross = f"{other_base}/gen/frame-child.html?label=CROSS-ORIGIN-FRAME-MARKER&nest={nested_back}"
    srcdoc = html.escape("<p>SRCDOC-FRAME-MARKER</p><button type=button>Button in srcdoc frame</button>")
    body = (
        "<h1>MAIN-FRAME-MARKER</h1><button type=button>Main button</button>"
        f'<p><iframe src="{html.escape(same)}" title="same-origin frame"></iframe></p>'
        f'<p><iframe src="{html.escape(cross)}" title="cross-origin frame"></iframe></p>'
        f'<p><iframe srcdoc="{srcdoc}" title="srcdoc frame"></iframe></p>'
    )
    return (_HEAD.format(title="frames") + body + "</body></html>").encode()


def shadow_page() -> bytes:
    """A page with open and closed shadow roots, declarative and scripted, nested, and with slotted content."""
    body = (
        "<h1>SHADOW-PAGE-MARKER</h1>"
        '<div id="open-host"><template shadowrootmode="open"><p>OPEN-SHADOW-MARKER</p>'
        "<button type=button>Button in open shadow</button>"
        '<input type=text placeholder="Input in open shadow">'
        '<div id="nested-host"><template shadowrootmode="open"><p>NESTED-SHADOW-MARKER</p>'
        '<a href="#nested">Link in nested shadow</a></template></div>'
        "</template></div>"
        '<div id="closed-host"><template shadowrootmode="closed"><p>CLOSED-SHADOW-MARKER</p>'
        "<button type=button>Button in closed shadow</button></template></div>"
        '<div id="slot-host"><template shadowrootmode="open"><div>Before slot</div><slot></slot>'
        "<button type=button>Button beside slot</button></template><span>SLOTTED-MARKER</span></div>"
        '<div id="scripted-host"></div>'
        "<script>const r = document.getElementById('scripted-host').attachShadow({mode: 'closed'});"
        "r.innerHTML = '<p>SCRIPTED-CLOSED-SHADOW-MARKER</p>"
        '<div role="checkbox" aria-checked="true" tabindex="0">Checkbox in scripted closed shadow</div>\';'
        "</script>"
    )
    return (_HEAD.format(title="shadow roots") + body + "</body></html>").encode()


def find_docs_root() -> Path | None:
    """Where Debian's python3-doc HTML is, or None when the package is not installed."""
    candidates = [*DOCS_CANDIDATES, *sorted(glob.glob("/usr/share/doc/python3.*/html"), reverse=True)]
    for cand in candidates:
        p = Path(cand)
        if (p / "library" / "typing.html").is_file():
            return p.resolve()
    return None


def page_specs() -> list[PageSpec]:
    """Every page the suite knows, smallest first within each kind."""
    specs = [
        PageSpec(
            f"gen-{n}",
            f"/gen/rows/{n}.html",
            "generated",
            interactive=n,
            markers=("FIRST-ROW-MARKER", "LAST-ROW-MARKER"),
            order=n,
        )
        for n in ROW_SIZES
    ]
    specs += [
        PageSpec(
            "frames",
            "/gen/frames.html",
            "frames",
            markers=(
                "MAIN-FRAME-MARKER",
                "SAME-ORIGIN-FRAME-MARKER",
                "CROSS-ORIGIN-FRAME-MARKER",
                "NESTED-BACK-FRAME-MARKER",
                "SRCDOC-FRAME-MARKER",
            ),
            order=50,
        ),
        PageSpec(
            "shadow",
            "/gen/shadow.html",
            "shadow",
            markers=(
                "SHADOW-PAGE-MARKER",
                "OPEN-SHADOW-MARKER",
                "NESTED-SHADOW-MARKER",
                "CLOSED-SHADOW-MARKER",
                "SLOTTED-MARKER",
                "SCRIPTED-CLOSED-SHADOW-MARKER",
            ),
            order=50,
        ),
        PageSpec("docs-typing", "/docs/library/typing.html", "real", order=3_500),
        PageSpec("docs-os", "/docs/library/os.html", "real", order=3_600),
        PageSpec("docs-genindex-all", "/docs/genindex-all.html", "real", order=19_000),
    ]
    return specs


def specs_by_id() -> dict[str, PageSpec]:
    """Page specs keyed by id."""
    return {s.id: s for s in page_specs()}


@dataclass
class Served:
    """Base URLs of the running servers: `main` on 127.0.0.1, `other` (a second site) on localhost."""

    main: str
    other: str
    docs_root: Path | None = None
    runners: list[web.AppRunner] = field(default_factory=list, repr=False)

    def url(self, spec: PageSpec) -> str:
        """The absolute URL of a page."""
        base = self.other if spec.origin == "other" else self.main
        return base + spec.path


def _make_app(state: dict[str, str], docs_root: Path | None) -> web.Application:
    async def rows(request: web.Request) -> web.Response:
        n = int(request.match_info["n"])
        if not 1 <= n <= 200_000:
            raise web.HTTPNotFound()
        return web.Response(body=rows_page(n), content_type="text/html", charset="utf-8")

    async def frames(request: web.Request) -> web.Response:
        body = frames_page(state["main"], state["other"])
        return web.Response(body=body, content_type="text/html", charset="utf-8")

    async def frame_child(request: web.Request) -> web.Response:
        label = request.query.get("label", "FRAME")
        body = frame_child_page(label, request.query.get("nest"))
        return web.Response(body=body, content_type="text/html", charset="utf-8")

    async def shadow(request: web.Request) -> web.Response:
        return web.Response(body=shadow_page(), content_type="text/html", charset="utf-8")

    async def docs(request: web.Request) -> web.StreamResponse:
        if docs_root is None:
            raise web.HTTPNotFound(text="python3-doc is not installed: run benchmarks/setup.sh")
        tail = request.match_info["tail"] or "index.html"
        # Debian links jquery.js and underscore.js out of the doc tree, so resolve first, then confine by
        # the unresolved path: the request may not climb out of the docs root with "..".
        rel = Path(os.path.normpath("/" + tail)).relative_to("/")
        target = docs_root / rel
        if not target.is_file():
            raise web.HTTPNotFound()
        return web.FileResponse(target.resolve())

    async def index(request: web.Request) -> web.Response:
        links = "".join(f'<li><a href="{s.path}">{s.id}</a></li>' for s in page_specs())
        return web.Response(text=f"<ul>{links}</ul>", content_type="text/html")

    async def action_page(request: web.Request) -> web.Response:
        body = action_cases.PAGES.get(request.path)
        if body is None:
            raise web.HTTPNotFound()
        return web.Response(text=body, content_type="text/html")

    async def nav_page(request: web.Request) -> web.Response:
        return web.Response(text=action_cases.nav_page(int(request.query.get("n", "0"))), content_type="text/html")

    async def slow(request: web.Request) -> web.Response:
        """Answers after ?ms= milliseconds (at most 10 s) with ?n=: the fetch of the click-fetch case."""
        await asyncio.sleep(min(10_000, int(request.query.get("ms", "100"))) / 1000)
        return web.Response(text=request.query.get("n", ""), headers={"Cache-Control": "no-store"})

    app = web.Application()
    app.router.add_get("/", index)
    app.router.add_get("/act/nav.html", nav_page)
    app.router.add_get("/act/slow", slow)
    for path in action_cases.PAGES:
        app.router.add_get(path, action_page)
    app.router.add_get("/gen/rows/{n:\\d+}.html", rows)
    app.router.add_get("/gen/frames.html", frames)
    app.router.add_get("/gen/frame-child.html", frame_child)
    app.router.add_get("/gen/shadow.html", shadow)
    app.router.add_get("/docs/{tail:.*}", docs)
    return app


async def _start(app: web.Application, host: str, port: int = 0) -> tuple[web.AppRunner, int]:
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    return runner, runner.addresses[-1][1]  # the site just started is the runner's last address


@contextlib.asynccontextmanager
async def serve_pages(docs_root: Path | None = None) -> AsyncIterator[Served]:
    """Serve generated pages and the real-page folder on 127.0.0.1 and on a second origin addressed as localhost.

    Both servers serve the same routes. The second one also listens on ::1 (same port) when it can,
    since Chromium may try the IPv6 loopback first for "localhost".
    """
    docs_root = docs_root or find_docs_root()
    state: dict[str, str] = {}
    app = _make_app(state, docs_root)
    runners: list[web.AppRunner] = []
    try:
        main_runner, main_port = await _start(app, "127.0.0.1")
        runners.append(main_runner)
        other_app = _make_app(state, docs_root)
        other_runner, other_port = await _start(other_app, "127.0.0.1")
        runners.append(other_runner)
        if socket.has_ipv6:
            with contextlib.suppress(OSError):
                site6 = web.TCPSite(other_runner, "::1", other_port)
                await site6.start()
        state["main"] = f"http://127.0.0.1:{main_port}"
        state["other"] = f"http://localhost:{other_port}"
        yield Served(state["main"], state["other"], docs_root, runners)
    finally:
        for r in reversed(runners):
            await r.cleanup()


if __name__ == "__main__":
    import asyncio

    async def _main() -> None:
        async with serve_pages() as served:
            print(f"serving {served.main} and {served.other}; docs: {served.docs_root}")
            for s in page_specs():
                print(f"  {s.id:20} {served.url(s)}")
            await asyncio.Event().wait()

    asyncio.run(_main())
