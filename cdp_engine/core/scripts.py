"""Page scripts: the one home of Runtime.evaluate / callFunctionOn and node handles for every surface.

A surface says what to run and where (a session, optionally one execution context, or a node);
this module sends it, maps a thrown exception to JavaScriptError (message + the protocol's
exceptionDetails, so a surface can word it its own way) and releases node handles it made.
Results come back as the protocol's RemoteObject (`value` when returned by value), since the
surfaces render undefined, unserialisable numbers and descriptions differently.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ..cdp.connection import CDPSession
from ..errors import JavaScriptError


def retrieve_quietly(future: asyncio.Future[Any]) -> None:
    """A done callback for a command whose answer nobody awaits: its exception is retrieved (no 'never
    retrieved' warning), as a release or an arming whose failure changes nothing."""
    if not future.cancelled():
        future.exception()



def exception_text(details: dict[str, Any], fallback: str = "script failed") -> str:
    """The thrown value's description (or the protocol's summary text) of exceptionDetails."""
    exception = details.get("exception") or {}
    return str(exception.get("description") or details.get("text") or fallback)


def _checked(result: dict[str, Any]) -> dict[str, Any]:
    details = result.get("exceptionDetails")
    if details:
        raise JavaScriptError(exception_text(details), details)
    remote: dict[str, Any] = result.get("result") or {}
    return remote


async def evaluate(
    session: CDPSession,
    expression: str,
    *,
    context_id: int | None = None,
    by_value: bool = True,
    await_promise: bool = True,
    user_gesture: bool = False,
    repl_mode: bool = False,
    script_timeout: float | None = None,
    timeout: float | None = None,
) -> dict[str, Any]:
    """Evaluate an expression in the session's default context (or `context_id`); its RemoteObject.

    `script_timeout` lets Chromium terminate a long script itself; `timeout` bounds the round trip.
    JavaScriptError if the script throws; CDPEngineError subclasses if the command fails.
    """
    params: dict[str, Any] = {"expression": expression, "returnByValue": by_value, "awaitPromise": await_promise}
    if user_gesture:
        params["userGesture"] = True
    if repl_mode:
        params["replMode"] = True
    if script_timeout is not None:
        params["timeout"] = int(script_timeout * 1000)
    if context_id is not None:
        params["contextId"] = context_id
    return _checked(await session.send("Runtime.evaluate", params, timeout=timeout))


async def evaluate_value(session: CDPSession, expression: str, **kwargs: Any) -> Any:
    """evaluate() returning the JSON value itself (None for undefined)."""
    return (await evaluate(session, expression, **kwargs)).get("value")


async def call_function(
    session: CDPSession,
    object_id: str,
    function: str,
    *args: Any,
    by_value: bool = True,
    await_promise: bool = True,
    user_gesture: bool = False,
    timeout: float | None = None,
) -> dict[str, Any]:
    """Call `function` with `this` bound to a remote object, JSON args; its RemoteObject (JavaScriptError if it throws)."""
    params: dict[str, Any] = {
        "objectId": object_id,
        "functionDeclaration": function,
        "returnByValue": by_value,
        "awaitPromise": await_promise,
    }
    if args:
        params["arguments"] = [{"value": a} for a in args]
    if user_gesture:
        params["userGesture"] = True
    return _checked(await session.send("Runtime.callFunctionOn", params, timeout=timeout))


async def resolve_node(session: CDPSession, backend_node_id: int, *, context_id: int | None = None) -> str:
    """A remote object id for a DOM node (in `context_id`'s world if given); release it when done."""
    params: dict[str, Any] = {"backendNodeId": backend_node_id}
    if context_id is not None:
        params["executionContextId"] = context_id
    resolved = await session.send("DOM.resolveNode", params)
    return str(resolved["object"]["objectId"])


async def describe_node(session: CDPSession, object_id: str) -> dict[str, Any]:
    """The protocol's DOM.Node of a remote object (backendNodeId, nodeName, attributes...)."""
    described = await session.send("DOM.describeNode", {"objectId": object_id})
    node: dict[str, Any] = described["node"]
    return node


async def ax_node(session: CDPSession, backend_node_id: int) -> dict[str, Any]:
    """The accessibility node of one DOM node (role, name...), without its relatives; {} if none."""
    ax = await session.send("Accessibility.getPartialAXTree", {"backendNodeId": backend_node_id, "fetchRelatives": False})
    nodes = ax.get("nodes") or [{}]
    first: dict[str, Any] = nodes[0]
    return first


def send_resolve(session: CDPSession, backend_node_id: int) -> asyncio.Future[dict[str, Any]]:
    """DOM.resolveNode sent now, for call_on_node(resolved=...); unused, pass it to drop_resolve."""
    return session.send("DOM.resolveNode", {"backendNodeId": backend_node_id})


def drop_resolve(session: CDPSession, resolved: asyncio.Future[dict[str, Any]]) -> None:
    """Release the object of a resolution sent with send_resolve and never used (once it is answered)."""

    def done(future: asyncio.Future[dict[str, Any]]) -> None:
        if not future.cancelled() and future.exception() is None:
            release(session, str(future.result()["object"]["objectId"]))

    resolved.add_done_callback(done)


def release(session: CDPSession, object_id: str) -> None:
    """Release a remote object without waiting (a gone context released it already)."""
    session.send("Runtime.releaseObject", {"objectId": object_id}).add_done_callback(retrieve_quietly)


async def call_on_node(
    session: CDPSession,
    backend_node_id: int,
    function: str,
    *args: Any,
    context_id: int | None = None,
    by_value: bool = True,
    user_gesture: bool = True,
    timeout: float | None = None,
    resolved: asyncio.Future[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Call `function` with `this` bound to a DOM node (resolved, then released); its RemoteObject.

    CDPEngineError if the node is gone, JavaScriptError if the function throws. `resolved`: the node's
    DOM.resolveNode already sent (send_resolve), so the resolution rode along with earlier commands.
    """
    if resolved is not None:
        object_id = str((await resolved)["object"]["objectId"])
    else:
        object_id = await resolve_node(session, backend_node_id, context_id=context_id)
    try:
        return await call_function(
            session, object_id, function, *args, by_value=by_value, user_gesture=user_gesture, timeout=timeout
        )
    finally:
        release(session, object_id)
