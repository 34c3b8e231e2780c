"""Console and network logs for read_console / read_network.

Both need domains the engine leaves off (Runtime and Network events cost on busy pages), so a
log is attached to a tab only when its member is enabled, from the moment the toolset adopts
the tab; a tab that predates that has no earlier entries. Each read drains what it returns.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import TYPE_CHECKING, Any

from ..core import observers, scripts
from .state import clean_url, one_line

if TYPE_CHECKING:
    from ..cdp.connection import CDPSession
    from ..core.tab import Tab

ENTRY_MAX = 1000
URL_MAX = 500
BUFFER_MAX = 1000


def _quiet(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


def _bounded(text: str, limit: int = ENTRY_MAX) -> str:
    text = one_line(text, 10 * limit)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _remote(obj: dict[str, Any]) -> str:
    if "value" in obj:
        value = obj["value"]
        return value if isinstance(value, str) else _json(value)
    if "unserializableValue" in obj:
        return str(obj["unserializableValue"])
    if obj.get("type") == "undefined":
        return "undefined"
    preview = obj.get("preview")
    if isinstance(preview, dict) and preview.get("properties") is not None:
        array = preview.get("subtype") == "array"
        items = [
            (
                str(p.get("value", p.get("type", "")))
                if array
                else f"{p.get('name')}: {p.get('value', p.get('type', ''))}"
            )
            for p in preview["properties"]
        ]
        if preview.get("overflow"):
            items.append("…")
        return ("[{}]" if array else "{{{}}}").format(", ".join(items))
    return str(obj.get("description") or obj.get("className") or obj.get("type", ""))


class _Text:
    """A console line whose text may still be completed (object previews fetched after the event)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text


# A one-line preview like DevTools': {a: 1, b: "x"} or [1, 2, …].
PREVIEW_FUNCTION = """function() {
  const show = (v) => typeof v === 'string' ? JSON.stringify(v) : (v && typeof v === 'object')
    ? (Array.isArray(v) ? 'Array(' + v.length + ')' : (v.constructor && v.constructor.name) || 'Object') : String(v);
  if (Array.isArray(this)) return '[' + this.slice(0, 5).map(show).join(', ') + (this.length > 5 ? ', …' : '') + ']';
  const keys = Object.keys(this);
  return '{' + keys.slice(0, 5).map(k => k + ': ' + show(this[k])).join(', ') + (keys.length > 5 ? ', …' : '') + '}';
}"""


def _json(value: Any) -> str:
    import orjson

    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return str(value)


class _Log:
    """Per-tab buffer attached to the tab's session and its out-of-process frame sessions."""

    def __init__(self, tab: Tab) -> None:
        self.tab = tab
        self.entries: deque[Any] = deque(maxlen=BUFFER_MAX)
        self.dropped = 0
        self._sessions: set[str] = set()
        self._unsubscribe: list[Any] = []

    def attach_all(self) -> None:
        self.attach(self.tab.session)
        for session in list(self.tab.frame_sessions.values()):
            self.attach(session)

    def attach(self, session: CDPSession) -> None:
        key = session.id or ""
        if key in self._sessions or session.closed:
            return
        self._sessions.add(key)
        self._subscribe(session)

    def _subscribe(self, session: CDPSession) -> None:
        raise NotImplementedError

    def _push(self, entry: Any) -> None:
        if len(self.entries) == self.entries.maxlen:
            self.dropped += 1
        self.entries.append(entry)

    def detach(self) -> None:
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe.clear()


class ConsoleLog(_Log):
    """console.* calls and uncaught exceptions, one line each: `[level] text (source:line)`."""

    _session_of: Any = None

    def _subscribe(self, session: CDPSession) -> None:
        if not hasattr(self, "_pending"):
            self._pending: set[asyncio.Future[None]] = set()
            self._by_context: dict[int, CDPSession] = {}
            self._session_of = self._context_session

        def on_context(params: dict[str, Any], session: CDPSession = session) -> None:
            self._by_context[params["context"]["id"]] = session

        watch = observers.watch_console(
            session, on_console=self._on_console, on_exception=self._on_exception, on_context_created=on_context
        )
        self._unsubscribe.append(watch.close)
        watch.enabled.add_done_callback(_quiet)

    def _context_session(self, params: dict[str, Any]) -> CDPSession:
        return self._by_context.get(params.get("executionContextId", -1), self.tab.session)

    def _on_console(self, params: dict[str, Any]) -> None:
        level = {
            "warning": "warning",
            "error": "error",
            "assert": "error",
            "debug": "debug",
            "info": "info",
        }.get(params.get("type", "log"), "log")
        args = params.get("args", [])
        frames = (params.get("stackTrace") or {}).get("callFrames") or []
        where = ""
        if frames and frames[0].get("url"):
            f = frames[0]
            where = f" ({clean_url(f['url'], redact=True)[:URL_MAX]}:{f.get('lineNumber', 0) + 1})"
        missing = [a for a in args if a.get("type") == "object" and "preview" not in a and a.get("objectId")]
        if not missing or self._session_of is None:
            self._push(f"[{level}] {_bounded(' '.join(_remote(arg) for arg in args))}{where}")
            return
        # Chromium sometimes reports an object without its preview (a message from a document still being
        # handed to a new process): build it from the object itself before the entry is read.
        entry = _Text(f"[{level}] {_bounded(' '.join(_remote(arg) for arg in args))}{where}")
        self._push(entry)
        session = self._session_of(params)
        task = asyncio.ensure_future(self._fill_previews(session, args, level, where, entry))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _fill_previews(
        self, session: CDPSession, args: list[dict[str, Any]], level: str, where: str, entry: _Text
    ) -> None:
        filled = []
        for arg in args:
            if arg.get("type") == "object" and "preview" not in arg and arg.get("objectId"):
                try:
                    result = await scripts.call_function(
                        session, arg["objectId"], PREVIEW_FUNCTION, await_promise=False, timeout=1.0
                    )
                    filled.append(str(result.get("value") or _remote(arg)))
                    continue
                except Exception:
                    pass
            filled.append(_remote(arg))
        entry.text = f"[{level}] {_bounded(' '.join(filled))}{where}"

    async def settle(self) -> None:
        """Let previews still being fetched land before a read (bounded)."""
        if self._pending:
            await asyncio.wait(set(self._pending), timeout=1.0)

    def _on_exception(self, params: dict[str, Any]) -> None:
        details = params.get("exceptionDetails") or {}
        exception = details.get("exception") or {}
        prefix = str(details.get("text") or "Uncaught")  # "Uncaught", "Uncaught (in promise)"
        description = str(exception.get("description") or _remote(exception) or "")
        first = description.splitlines()[0] if description else ""
        self._push(f"[exception] {_bounded(f'{prefix} {first}'.strip())}")

    def read(self) -> str:
        lines = [str(e) for e in self.entries]
        self.entries.clear()
        if self.dropped:
            lines.insert(0, f"({self.dropped} earlier entries were dropped.)")
            self.dropped = 0
        return "\n".join(lines) if lines else "No console messages since the last read."


class NetworkLog(_Log):
    """Requests since the last read: `METHOD URL → status MIME time`, credentials redacted."""

    def _subscribe(self, session: CDPSession) -> None:
        watch = observers.watch_network(
            session,
            on_request=self._on_request,
            on_response=self._on_response,
            on_finished=self._on_finished,
            on_failed=self._on_failed,
            keep_bodies=False,
        )
        self._unsubscribe.append(watch.close)
        watch.enabled.add_done_callback(_quiet)

    def _find(self, request_id: str) -> dict[str, Any] | None:
        for entry in reversed(self.entries):
            if entry["id"] == request_id and entry["open"]:
                return entry
        return None

    def _on_request(self, params: dict[str, Any]) -> None:
        request_id = params.get("requestId", "")
        redirect = params.get("redirectResponse")
        if redirect is not None:
            previous = self._find(request_id)
            if previous is not None:
                previous.update(status=redirect.get("status"), mime=redirect.get("mimeType", ""), open=False)
                previous["end"] = params.get("timestamp")
        request = params.get("request") or {}
        self._push(
            {
                "id": request_id,
                "open": True,
                "method": request.get("method", "GET"),
                "url": request.get("url", ""),
                "start": params.get("timestamp"),
                "end": None,
                "status": None,
                "mime": "",
                "error": None,
            }
        )

    def _on_response(self, params: dict[str, Any]) -> None:
        entry = self._find(params.get("requestId", ""))
        if entry is not None:
            response = params.get("response") or {}
            entry.update(status=response.get("status"), mime=response.get("mimeType", ""))

    def _on_finished(self, params: dict[str, Any]) -> None:
        entry = self._find(params.get("requestId", ""))
        if entry is not None:
            entry.update(end=params.get("timestamp"), open=False)

    def _on_failed(self, params: dict[str, Any]) -> None:
        entry = self._find(params.get("requestId", ""))
        if entry is not None:
            error = "canceled" if params.get("canceled") else str(params.get("errorText") or "failed")
            entry.update(end=params.get("timestamp"), error=error, open=False)

    def read(self) -> str:
        lines = []
        for entry in self.entries:
            url = clean_url(entry["url"], redact=True)
            if url.startswith("data:"):
                url = url[:60] + "…" if len(url) > 60 else url
            if len(url) > URL_MAX:
                url = url[: URL_MAX - 1] + "…"
            if entry["error"]:
                outcome = f"failed {one_line(entry['error'], 100)}"
            elif entry["status"] is None:
                outcome = "pending"
            else:
                outcome = f"{entry['status']}"
                if entry["mime"]:
                    outcome += f" {one_line(entry['mime'], 100)}"
            if entry["end"] is not None and entry["start"] is not None:
                outcome += f" {max(0.0, (entry['end'] - entry['start']) * 1000):.0f} ms"
            lines.append(f"{one_line(entry['method'], 20)} {url} → {outcome}")
        self.entries.clear()
        if self.dropped:
            lines.insert(0, f"({self.dropped} earlier requests were dropped.)")
            self.dropped = 0
        return "\n".join(lines) if lines else "No network requests since the last read."
