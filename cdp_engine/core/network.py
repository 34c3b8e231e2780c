"""Request interception for a session: block resource types, or route requests to fulfil / fail / continue.

Interception pauses each matching request (Fetch domain, at its request stage, or at its response stage
to see how the network answered it) and answers it from a synchronous decision, so no request waits on a
Python round trip longer than one event. Chromium keeps one pattern list per session (Fetch.enable
replaces it), so the routes of a session are enabled together and each paused request is asked of the
routes whose pattern it matches, in order (a core job may still keep its interception apart on a side
session of the tab, Connection.attach_side_session, as core/navigation.py does). `guard_navigations` is
the navigation policy's request-level check: every document request (redirects and popups included) of
a session, against its allowed and blocked origins.
"""

from __future__ import annotations

import asyncio
import base64
import re
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from ..cdp.connection import CDPSession
from .policies import NavigationPolicy, PolicyError


def _quiet(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


@dataclass(frozen=True)
class PausedRequest:
    """A request held by interception, as the decision sees it."""

    request_id: str
    url: str
    method: str
    resource_type: str  # the protocol's ResourceType: "Document", "Image", "Script"...
    frame_id: str | None = None
    error_reason: str | None = None  # at the response stage: how the network failed it (Fetch.ErrorReason)
    status: int | None = None  # at the response stage: the HTTP status it got
    network_id: str | None = None  # the request's id in the Network domain's events


@dataclass(frozen=True)
class Fulfill:
    """Answer the request locally."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | str = b""


@dataclass(frozen=True)
class Fail:
    """Fail the request with a network error reason (the protocol's ErrorReason)."""

    reason: str = "BlockedByClient"


Decision = Fulfill | Fail | None  # None: let the request continue unchanged


def fulfill(session: CDPSession, request_id: str, answer: Fulfill) -> None:
    """Answer a paused request locally (not awaited: a request of a closing page just goes)."""
    body = answer.body.encode() if isinstance(answer.body, str) else answer.body
    session.send(
        "Fetch.fulfillRequest",
        {
            "requestId": request_id,
            "responseCode": answer.status,
            "responseHeaders": [{"name": k, "value": v} for k, v in answer.headers.items()],
            "body": base64.b64encode(body).decode("ascii"),
        },
    ).add_done_callback(_quiet)


def fail(session: CDPSession, request_id: str, reason: str = "BlockedByClient") -> None:
    """Fail a paused request (not awaited)."""
    session.send("Fetch.failRequest", {"requestId": request_id, "errorReason": reason}).add_done_callback(_quiet)


def proceed(session: CDPSession, request_id: str) -> None:
    """Let a paused request continue unchanged (not awaited)."""
    session.send("Fetch.continueRequest", {"requestId": request_id}).add_done_callback(_quiet)


class Route:
    """An interception on one session: `enabled` is the Fetch.enable future; stop() ends it.

    Several routes may share a session (Chromium keeps one pattern list per session): their patterns are
    enabled together and each paused request is offered to the matching routes in order, the first
    decision other than None answering it (see _Interceptor)."""

    def __init__(
        self,
        session: CDPSession,
        decide: Callable[[PausedRequest], Decision],
        patterns: list[dict[str, Any]],
        *,
        first: bool = False,
    ) -> None:
        self.session = session
        self.decide = decide
        self.patterns = patterns
        self._matchers = [
            (p.get("resourceType"), p.get("requestStage", "Request"), _glob(str(p.get("urlPattern", "*"))))
            for p in patterns
        ]
        self._interceptor = _interceptors.get(session) or _Interceptor(session)
        self.enabled: asyncio.Future[dict[str, Any]] = self._interceptor.add(self, first=first)

    def matches(self, request: PausedRequest) -> bool:
        """Whether one of this route's patterns covers the request (Chromium paused it for the union)."""
        stage = "Response" if request.status is not None or request.error_reason is not None else "Request"
        return any(
            (kind is None or kind == request.resource_type) and stage == at and url.fullmatch(request.url) is not None
            for kind, at, url in self._matchers
        )

    def stop(self) -> None:
        """Stop intercepting (requests already paused were answered); the session's other routes stay."""
        self._interceptor.remove(self)

    def __await__(self) -> Any:
        return self.enabled.__await__()


def _glob(pattern: str) -> re.Pattern[str]:
    """Fetch's urlPattern as a regular expression: '*' any run, '?' one character, backslash escapes."""
    out, chars = [], iter(pattern)
    for c in chars:
        if c == "\\":
            out.append(re.escape(next(chars, "\\")))
        elif c == "*":
            out.append(".*")
        elif c == "?":
            out.append(".")
        else:
            out.append(re.escape(c))
    return re.compile("".join(out), re.S)


class _Interceptor:
    """The routes of one session behind one Fetch.enable and one requestPaused listener."""

    def __init__(self, session: CDPSession) -> None:
        self.session = session
        self.routes: list[Route] = []
        _interceptors[session] = self
        self._unsubscribe = session.on("Fetch.requestPaused", self._on_paused)

    def add(self, route: Route, *, first: bool) -> asyncio.Future[dict[str, Any]]:
        self.routes.insert(0 if first else len(self.routes), route)
        return self._enable()

    def remove(self, route: Route) -> None:
        if route not in self.routes:
            return
        self.routes.remove(route)
        if self.routes:
            self._enable().add_done_callback(_quiet)
            return
        self._unsubscribe()
        if _interceptors.get(self.session) is self:
            del _interceptors[self.session]
        if not self.session.closed:
            self.session.send("Fetch.disable").add_done_callback(_quiet)

    def _enable(self) -> asyncio.Future[dict[str, Any]]:
        patterns = [p for r in self.routes for p in r.patterns]
        return self.session.send("Fetch.enable", {"patterns": patterns})

    def _on_paused(self, params: dict[str, Any]) -> None:
        request = params.get("request") or {}
        paused = PausedRequest(
            request_id=params["requestId"],
            url=request.get("url", ""),
            method=request.get("method", "GET"),
            resource_type=str(params.get("resourceType") or "Other"),
            frame_id=params.get("frameId"),
            error_reason=params.get("responseErrorReason"),
            status=params.get("responseStatusCode"),
            network_id=params.get("networkId"),
        )
        for route in list(self.routes):
            if not route.matches(paused):
                continue
            try:
                decision = route.decide(paused)
            except Exception:
                decision = Fail("Failed")  # a broken decision must not leave the request hanging
            if isinstance(decision, Fulfill):
                fulfill(self.session, paused.request_id, decision)
                return
            if isinstance(decision, Fail):
                fail(self.session, paused.request_id, decision.reason)
                return
        proceed(self.session, paused.request_id)


_interceptors: weakref.WeakKeyDictionary[CDPSession, _Interceptor] = weakref.WeakKeyDictionary()


def route(
    session: CDPSession,
    decide: Callable[[PausedRequest], Decision],
    *,
    url_pattern: str = "*",
    resource_types: Iterable[str] | None = None,
    stage: Literal["Request", "Response"] = "Request",
) -> Route:
    """Intercept the session's requests matching url_pattern (and resource_types) and answer each by `decide`.

    `stage` "Response": each is held once the network answered it (its status, or the error_reason of a
    request the network failed), and a decision of None lets it go on as it is.
    Await the returned Route (or its `enabled`) before the requests it must see are made.
    """
    types = list(resource_types or [])
    if types:
        patterns = [{"urlPattern": url_pattern, "resourceType": t, "requestStage": stage} for t in types]
    else:
        patterns = [{"urlPattern": url_pattern, "requestStage": stage}]
    return Route(session, decide, patterns)


def block_resource_types(session: CDPSession, resource_types: Iterable[str], *, reason: str = "BlockedByClient") -> Route:
    """Fail every request of these resource types (e.g. ["Image"]) with `reason`."""
    blocked = Fail(reason)
    return route(session, lambda _request: blocked, resource_types=resource_types)


# Requests the engine aborted in place of the network's own failure (core/navigation.py aborts a failed main
# document so that Chromium commits no error page): Network.loadingFailed then says net::ERR_ABORTED, and the
# network logs (core/observers.watch_network) report the real error from here instead. Per tab session, by
# the Network domain's request id; the last REAL_FAILURES_KEPT of each.
REAL_FAILURES_KEPT = 64
_real_failures: weakref.WeakKeyDictionary[CDPSession, dict[str, str]] = weakref.WeakKeyDictionary()


def record_real_failure(session: CDPSession, network_id: str, error_text: str) -> None:
    """Remember the real error of a request aborted on the engine's decision (see above)."""
    failures = _real_failures.setdefault(session, {})
    failures[network_id] = error_text
    while len(failures) > REAL_FAILURES_KEPT:
        del failures[next(iter(failures))]


def real_failure(session: CDPSession, network_id: str) -> str | None:
    """The real error of a request the engine aborted, or None."""
    return _real_failures.get(session, {}).get(network_id)

def guard_navigations(
    session: CDPSession, policy: NavigationPolicy, on_block: Callable[[PausedRequest, PolicyError], None]
) -> Route:
    """Fail every document request (a main frame or a frame: navigations, their redirects, popups) whose
    origin `policy` refuses, with net::ERR_BLOCKED_BY_CLIENT, telling `on_block` first. Ahead of the
    session's other routes, so none of them can answer a blocked navigation locally."""
    blocked = Fail("BlockedByClient")

    def decide(request: PausedRequest) -> Decision:
        try:
            policy.check_origin(request.url)
        except PolicyError as exc:
            on_block(request, exc)
            return blocked
        return None

    return Route(session, decide, [{"urlPattern": "*", "resourceType": "Document", "requestStage": "Request"}], first=True)
