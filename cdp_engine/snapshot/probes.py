"""The change probe: whether a tab's state could differ from a cached one, and whether its pixels could.

Why its own module: the state cache (snapshot/capture.py), an index's version-key check before an action
(index/perform.py) and the screenshot reuse all ask the same question of the page: has anything a state
depends on changed? An observer in the engine's isolated world of every frame document counts each change
(mutations, scrolls of elements, input, loads, fonts, transitions) and reports the window's size, its scroll
offsets and the visual viewport with it; a capture sends the probe first in its burst, so the answer describes
the page at or before the snapshot. The observer itself (the page half) is snapshot/probe_script.py.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from ..cdp.connection import CDPSession
from ..core.scripts import retrieve_quietly
from ..core.worlds import Worlds
from ..errors import CDPEngineError
from .probe_script import PROBE_SCRIPT, STILL_PROBE_SCRIPT

if TYPE_CHECKING:
    from ..core.tab import Tab

__all__ = ["PROBE_SCRIPT", "STILL_PROBE_SCRIPT", "ChangeProbes", "FieldChanges", "SentProbes", "TypedField"]

WATCH_ROOT = "function() { const p = globalThis.__cdpEngineProbe; return p && p.sweep ? p.sweep(this) : -1; }"
SWEEP = "(() => { const p = globalThis.__cdpEngineProbe; return p && p.sweep ? p.sweep(document) : -1; })()"
ROOTS_GROUP = "cdp-engine-roots"
# since() on the node where the state's page_content stopped (`this`), with the rest of the state's reach.
SINCE_WITH_REACH = (
    "function(v0, floor, reach) { const p = globalThis.__cdpEngineProbe;"
    " return p && p.since ? p.since(v0, floor, {...reach, trunc: this}) : null; }"
)


class TypedField(NamedTuple):
    """A text field typed into since a capture: what the probe's since() says of it."""

    place: int  # its index among the document's <input> and <textarea> elements in tree order (-1: not found)
    tag: str
    value: str
    box: tuple[float, float, float, float]  # x, y, width, height in its document's page coordinates
    names_elsewhere: bool = True  # an accessible name beyond the field's and its ancestors' may hold the value


class FieldChanges(NamedTuple):
    """probes.changes_since()'s answer: how many inputs and textareas the document holds, the typed ones, how many
    changes lay inside hidden subtrees, whether focus moved, and how many structural changes lay beyond the
    state's reach (-1: some may, the probe needs the reach to judge)."""

    total: int
    fields: list[TypedField]
    hidden: int = 0
    focus: bool = False
    structural: int = 0


class Reach(Protocol):
    """What the state shows of a document (snapshot/incremental.Reach): a remote node and the band's elements."""

    @property
    def trunc(self) -> str: ...

    @property
    def args(self) -> dict[str, Any]: ...


# What send_probes() sent: the tab's frame/navigation event count then, and per frame (frame id, loader id,
# the probe's pending answer or None when the frame has no world yet).
SentProbes = tuple[int, list[tuple[str, str, asyncio.Future[dict[str, Any]] | None]]]


class ChangeProbes:
    """The change probe of one tab's frames: sends it, reads the version key and the still signature.
    `ChangeProbes.of(tab)` is the tab's one instance (the state and the accessibility tree share it)."""

    @classmethod
    def of(cls, tab: Tab) -> ChangeProbes:
        return tab.extension(cls)

    def __init__(self, tab: Tab) -> None:
        self.tab = tab
        # The engine's isolated world per frame document (core.worlds); each new one gets the change probe
        # before it is handed out, and each document gets its world as it commits.
        self.worlds = Worlds.of(tab)
        self.worlds.add_init_script(PROBE_SCRIPT)
        self._watched: dict[tuple[str, str], set[int]] = {}  # (frame id, loader id) -> shadow roots watched
        # Per view the engine builds on a capture (the state, the accessibility tree): the version key it builds on.
        # since() forgets only what is older than every one of them (hold).
        self._holds: dict[str, tuple[Any, ...]] = {}

    def probe_frames(self) -> list[tuple[str, CDPSession]]:
        """Every frame, same-process iframes included: each document needs its own observer."""
        return [(fid, frame.session) for fid, frame in self.tab.frames.items() if not frame.session.closed]

    def world_context(self, frame_id: str, loader_id: str | None = None) -> int | None:
        """The execution context of the engine's isolated world in a frame's document (the current one,
        or the document of `loader_id`), None when it is not installed."""
        return self.worlds.get(frame_id, loader_id)

    def send_probes(self, *, still: bool = False) -> SentProbes:
        """Send the change probe to every frame now (before anything else), without awaiting; read_probes()
        turns the answers into the version key (and, with `still`, still_signature() into whether a
        screenshot may be reused). A capture sends them first in its burst."""
        probes: list[tuple[str, str, asyncio.Future[dict[str, Any]] | None]] = []
        worlds = self.worlds
        frames = self.tab.frames
        for fid, session in self.probe_frames():
            loader = frames[fid].loader_id
            ctx = worlds.get(fid, loader)
            if ctx is None:
                probes.append((fid, loader, None))  # unknown: this key never matches, so no stale cache
                continue
            future = session.send(
                "Runtime.evaluate",
                {"expression": STILL_PROBE_SCRIPT if still else PROBE_SCRIPT, "contextId": ctx, "returnByValue": True},
                timeout=5.0,
            )
            future.add_done_callback(retrieve_quietly)  # a capture cancelled before reading it must not warn
            probes.append((fid, loader, future))
        return self.tab.dom_version, probes

    def is_key_now(self, key: tuple[Any, ...], keys: Mapping[tuple[str, int], str]) -> bool:
        """Whether version `key` is each frame document's probe key in `keys` (read by someone else, by session
        id and the engine's world there; the settle's looks report them as they end): nothing a state read at
        `key` depends on changed since, so that state is the state as of then (core/settle.py, Speculation)."""
        if len(key) < 2 or key[0] is None or key[0] != self.tab.dom_version:
            return False
        for fid, loader, value in key[1:]:
            frame, ctx = self.tab.frames.get(fid), self.worlds.get(fid, loader)
            if frame is None or ctx is None or not isinstance(value, str):
                return False
            if keys.get((frame.session.id or "", ctx)) != value:
                return False
        return True

    async def read_probes(self, sent: SentProbes) -> tuple[Any, ...]:
        """The version key from the probes send_probes() sent: (None,) if a frame or navigation event came
        in between (never equal to a cached key), else the event count and each frame's change counter."""
        before, probes = sent
        parts: list[tuple[str, str, Any]] = []
        for fid, loader, future in probes:
            value = None
            if future is not None:
                try:
                    result = await future
                    if "exceptionDetails" not in result:
                        value = result["result"].get("value")
                except CDPEngineError:
                    self.worlds.forget(fid, loader)
            if isinstance(value, str):
                value = value.partition("|")[0]  # the still part is not part of the key
            parts.append((fid, loader, value))
        if self.tab.dom_version != before:
            return (None,)
        return (before, *parts)

    async def still_signature(self, sent: SentProbes) -> tuple[Any, ...] | None:
        """From probes sent with `still`: None when any frame could paint by itself (or did not answer),
        else what each frame said. Two equal signatures around an unchanged version key mean nothing
        the probes watch changed the page's pixels in between, so a screenshot may be reused."""
        before, probes = sent
        parts: list[tuple[str, str, str]] = []
        for fid, loader, future in probes:
            if future is None:
                return None
            try:
                result = await future
            except CDPEngineError:
                return None
            value = result.get("result", {}).get("value")
            fields = value.split("|") if isinstance(value, str) else []
            if len(fields) != 3 or not fields[2].startswith("1"):
                return None
            parts.append((fid, loader, f"{fields[1]}|{fields[2]}"))
        if self.tab.dom_version != before:
            return None
        return (before, *parts)

    async def version_key(self) -> tuple[Any, ...]:
        """What the state depends on: frame/navigation events seen, and each frame's change counter."""
        return await self.read_probes(self.send_probes())

    async def device_scale(self, sent: SentProbes) -> float:
        """The main frame's devicePixelRatio from probes sent with `still` (1.0 when it did not say)."""
        for fid, _loader, future in sent[1]:
            if fid == self.tab.main_frame_id and future is not None:
                try:
                    fields = str((await future)["result"]["value"]).split("|")
                    return float(fields[1]) if len(fields) == 3 else 1.0
                except (CDPEngineError, KeyError, TypeError, ValueError):
                    return 1.0
        return 1.0

    async def viewport(
        self, sent: tuple[int, list[tuple[str, str, Any]]]
    ) -> tuple[float, float, float, float]:
        """Width, height and page offset of the visual viewport, from the main frame's probe (answered before
        the snapshot); Page.getLayoutMetrics only when the probe has no answer."""
        for fid, _loader, future in sent[1]:
            if fid == self.tab.main_frame_id and future is not None:
                try:
                    value = (await future)["result"]["value"].partition("|")[0]
                    numbers = [float(v) for v in value.rsplit(":", 1)[1].split(",")]
                    width, height, left, top = (int(v) if v.is_integer() else v for v in numbers)
                    return (width, height, left, top)
                except (CDPEngineError, KeyError, TypeError, ValueError, AttributeError, IndexError):
                    break
        vp = (await self.tab.session.send("Page.getLayoutMetrics"))["cssVisualViewport"]
        return (vp["clientWidth"], vp["clientHeight"], vp["pageX"], vp["pageY"])

    async def watch_shadow_roots(self, shadowed: dict[tuple[CDPSession, str], list[int]]) -> None:
        """Have the probe of each document a capture found shadow content in (`shadowed`: (session, frame id)
        to the backend node ids of the hosts of its closed roots) watch its shadow roots: the open ones it
        finds itself (a sweep of the document), each closed one handed to it once (DOM.describeNode names
        the roots of its host and of the hosts inside them; the probe cannot reach them). A closed root
        attached inside another one after its host was first seen is not found (docs/real-web.md)."""
        frames = self.tab.frames
        jobs: list[Awaitable[Any]] = []
        for (session, fid), hosts in shadowed.items():
            frame = frames.get(fid)
            ctx = self.worlds.get(fid) if frame is not None else None
            if frame is None or ctx is None:
                continue
            for old in [k for k in self._watched if k[0] == fid and k[1] != frame.loader_id]:
                del self._watched[old]  # that document is gone
            seen = self._watched.setdefault((fid, frame.loader_id), set())
            jobs.append(session.send("Runtime.evaluate", {"expression": SWEEP, "contextId": ctx, "returnByValue": True}))
            new = [h for h in hosts if h not in seen]
            if new:
                jobs.append(self._watch_closed(session, ctx, new, seen))
        if jobs:
            await asyncio.gather(*jobs, return_exceptions=True)

    @staticmethod
    async def _watch_closed(session: CDPSession, ctx: int, hosts: list[int], seen: set[int]) -> None:
        def roots_in(node: dict[str, Any]) -> list[dict[str, Any]]:
            """The shadow roots of the host and of every host inside them (a closed root in a closed root's tree:
            the snapshot cannot tell its host from the outer tree's nodes, DOM.describeNode pierces both)."""
            found = []
            for root in node.get("shadowRoots", []):
                found.append(root)
                found += roots_in(root)
            for child in node.get("children", []):
                found += roots_in(child)
            return found

        async def one(host: int) -> None:
            described = await session.send("DOM.describeNode", {"backendNodeId": host, "depth": -1, "pierce": True})
            for root in roots_in(described["node"]):
                params = {"backendNodeId": root["backendNodeId"], "executionContextId": ctx, "objectGroup": ROOTS_GROUP}
                resolved = await session.send("DOM.resolveNode", params)
                answer = await session.send(
                    "Runtime.callFunctionOn",
                    {"objectId": resolved["object"]["objectId"], "functionDeclaration": WATCH_ROOT, "returnByValue": True},
                )
                if isinstance((answer.get("result") or {}).get("value"), int) and answer["result"]["value"] >= 0:
                    seen.add(host)

        try:
            await asyncio.gather(*[one(h) for h in hosts], return_exceptions=True)
        finally:
            if not session.closed:
                session.send("Runtime.releaseObjectGroup", {"objectGroup": ROOTS_GROUP}).add_done_callback(retrieve_quietly)

    def hold(self, view: str, key: tuple[Any, ...] | None) -> None:
        """`view` (a name) builds its next increment on `key` (None: on nothing): what changes_since() answers any
        view keeps what happened after it."""
        if key is None:
            self._holds.pop(view, None)
        else:
            self._holds[view] = key

    def _floor(self, frame_id: str, loader_id: str, version: int) -> int:
        """The oldest count any view holds for a frame's document, at most `version`."""
        counts = [ChangeProbes.count_in(key, frame_id, loader_id) for key in self._holds.values()]
        return min([version, *[c for c in counts if c is not None]])

    @staticmethod
    def count_in(key: tuple[Any, ...], frame_id: str, loader_id: str) -> int | None:
        """A frame document's change count in a version key (None: the key has no count for it)."""
        for part in key[1:]:
            if part[0] == frame_id and part[1] == loader_id:
                count = _count_and_rest(part[2])[0]
                return int(count) if count.isdigit() else None
        return None

    async def changes_since(
        self, frame_id: str, loader_id: str, version: int, *, reach: Reach | bool = False
    ) -> FieldChanges | None:
        """What changed in a frame's document since its probe counted `version` (a capture's key), when the
        probe can place every change (docs/incremental.md): the text fields typed into (each by its place among
        the document's inputs and textareas in tree order, with its value and box in page coordinates) and how
        many such elements the document holds; no fields when every change lies inside a hidden subtree or only
        restyles paint. None when anything else changed or the answer cannot be read. One round trip.

        `reach`: False, insertions and attribute or text changes outside hidden subtrees are not placed; True,
        when they are all that stands in the way the answer says so (structural -1: ask again with the state's
        Reach, snapshot/incremental.py); a Reach, the probe judges whether they lie beyond it."""
        frame = self.tab.frames.get(frame_id)
        ctx = self.worlds.get(frame_id, loader_id)
        if frame is None or ctx is None:
            return None
        floor = self._floor(frame_id, loader_id, version)
        try:
            if not isinstance(reach, bool):
                answer = await frame.session.send(
                    "Runtime.callFunctionOn",
                    {"objectId": reach.trunc, "functionDeclaration": SINCE_WITH_REACH, "returnByValue": True,
                     "arguments": [{"value": int(version)}, {"value": floor}, {"value": reach.args}]},
                    timeout=5.0,
                )  # fmt: skip
                if "exceptionDetails" not in answer:
                    reach.args.pop("cands", None)  # the probe keeps them for the snapshot (p.cands)
            else:
                answer = await frame.session.send(
                    "Runtime.evaluate",
                    {"expression": f"globalThis.__cdpEngineProbe.since({int(version)}, {floor}, {'true' if reach else 'null'})",
                     "contextId": ctx,
                     "returnByValue": True},
                    timeout=5.0,
                )  # fmt: skip
            value = (answer.get("result") or {}).get("value")
            if "exceptionDetails" in answer or not isinstance(value, dict):
                return None
            if value.get("reach"):
                return FieldChanges(0, [], structural=-1)
            fields = [
                TypedField(int(place), str(tag), str(text), (float(x), float(y), float(w), float(h)), bool(named))
                for place, tag, text, x, y, w, h, named in value["fields"]
            ]
            return FieldChanges(
                int(value["count"]), fields, int(value["hidden"]), bool(value["focus"]), int(value["structural"])
            )
        except (CDPEngineError, KeyError, TypeError, ValueError):
            return None

    @staticmethod
    def key_is_stable(key: tuple[Any, ...]) -> bool:
        """Whether a version key can match another: every frame answered, with a known count (not 0: the probe
        was just installed, or the page is hidden)."""
        return key[0] is not None and all(part[2] not in (None, 0, "0") for part in key[1:])

    @staticmethod
    def moved_counts(key: tuple[Any, ...], base: tuple[Any, ...]) -> list[tuple[str, str, int]] | None:
        """(frame id, loader id, the count in `base`) of each frame whose change count moved from `base` to
        `key`, two stable keys: what changes_since() is asked. None when anything else differs: the frames or
        documents, or a window's scroll offsets, size, visual viewport or focus (every box may be elsewhere)."""
        stable = ChangeProbes.key_is_stable
        if not stable(key) or not stable(base) or key[0] != base[0] or len(key) != len(base):
            return None
        moved: list[tuple[str, str, int]] = []
        for (fid, loader, now), (then_fid, then_loader, then) in zip(key[1:], base[1:], strict=True):
            if fid != then_fid or loader != then_loader:
                return None
            count_now, where_now = _count_and_rest(now)
            count_then, where_then = _count_and_rest(then)
            if where_now != where_then:
                return None
            if count_now != count_then:
                moved.append((fid, loader, int(count_then)))
        return moved


def _count_and_rest(value: Any) -> tuple[str, str]:
    """A frame's probe answer in a version key, split: its change count, and the rest (the window's scroll and
    size, focus, the visual viewport; PROBE_FUNCTION's key())."""
    count, _, rest = str(value).partition(":")
    return count, rest
