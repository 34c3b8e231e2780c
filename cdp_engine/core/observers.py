"""Console and network observation of a session: the event subscription and domain enabling in one place.

The engine leaves the Runtime console and Network domains' events unused (they cost on busy
pages); a surface that keeps logs turns them on per session here and renders the raw events
in its own words (the toolset as one-line text, the MCP server as records).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from ..cdp.connection import CDPSession
from . import network

Handler = Callable[[dict[str, Any]], None]


class Subscription:
    """Listeners on one session: `enabled` is the domain enable future; close() removes the listeners."""

    def __init__(self, unsubscribes: list[Callable[[], None]], enabled: asyncio.Future[dict[str, Any]]) -> None:
        self._unsubscribes = unsubscribes
        self.enabled = enabled

    def close(self) -> None:
        for unsubscribe in self._unsubscribes:
            unsubscribe()
        self._unsubscribes.clear()


def _subscribe(session: CDPSession, handlers: dict[str, Handler | None]) -> list[Callable[[], None]]:
    return [session.on(event, handler) for event, handler in handlers.items() if handler is not None]


def watch_console(
    session: CDPSession,
    *,
    on_console: Handler | None = None,
    on_exception: Handler | None = None,
    on_context_created: Handler | None = None,
) -> Subscription:
    """Runtime.consoleAPICalled / exceptionThrown (/ executionContextCreated) of the session; enables Runtime."""
    unsubscribes = _subscribe(
        session,
        {
            "Runtime.executionContextCreated": on_context_created,
            "Runtime.consoleAPICalled": on_console,
            "Runtime.exceptionThrown": on_exception,
        },
    )
    return Subscription(unsubscribes, session.send("Runtime.enable"))


def watch_network(
    session: CDPSession,
    *,
    on_request: Handler | None = None,
    on_response: Handler | None = None,
    on_finished: Handler | None = None,
    on_failed: Handler | None = None,
    keep_bodies: bool = True,
    enable: bool = True,
) -> Subscription:
    """Network.requestWillBeSent / responseReceived / loadingFinished / loadingFailed; enables Network.

    keep_bodies=False asks Chromium to buffer no response bodies (a log that never reads them);
    enable=False only listens, for a session whose Network domain its owner already turned on.
    A main document the engine aborted in place of its network failure (core/navigation.py) is reported
    with the network's own error, not net::ERR_ABORTED.
    """
    if on_failed is not None:
        on_failed = _with_real_failure(session, on_failed)
    unsubscribes = _subscribe(
        session,
        {
            "Network.requestWillBeSent": on_request,
            "Network.responseReceived": on_response,
            "Network.loadingFinished": on_finished,
            "Network.loadingFailed": on_failed,
        },
    )
    if not enable:
        done: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        done.set_result({})
        return Subscription(unsubscribes, done)
    params = None if keep_bodies else {"maxTotalBufferSize": 0, "maxResourceBufferSize": 0}
    return Subscription(unsubscribes, session.send("Network.enable", params))


def _with_real_failure(session: CDPSession, handler: Handler) -> Handler:
    def on_failed(params: dict[str, Any]) -> None:
        real = network.real_failure(session, str(params.get("requestId", "")))
        handler({**params, "errorText": real, "canceled": False} if real else params)

    return on_failed
