"""The one page of the live view and the replay view (page.html), with a run's data inlined or none."""

from __future__ import annotations

import functools
from importlib import resources
from typing import Any

import orjson

PLACEHOLDER = "__RUN__"


@functools.cache
def _template() -> str:
    return resources.files(__package__).joinpath("page.html").read_text(encoding="utf-8")


def render_page(run: dict[str, Any] | None) -> str:
    """The page: live (run None: it connects to /ws) or a replay of `run` inlined (no request at all).

    The JSON is inlined in a <script type="application/json">; "</" and the line separators JavaScript
    does not allow are escaped so no value can end the script element early."""
    data = orjson.dumps(run, default=str).decode()
    data = data.replace("</", "<\\/").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return _template().replace(PLACEHOLDER, data, 1)
