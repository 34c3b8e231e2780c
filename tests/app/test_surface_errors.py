"""Each surface's words for the core's errors and verdicts, table-driven and without a browser.

The core answers in one vocabulary (identity Verdicts, StaleRefError reasons, PolicyError rules,
NotClickableError reasons, typed errors); the element index, the browser toolset and the MCP server
each map it to their own texts. These tables pin every mapping, including the cases the real-browser
tests (test_identity.py, test_policies.py, test_toolset.py, test_mcp_tools.py) cannot easily reach:
frame_detached, a changed verdict without its looks, a non-default navigation policy, every error
class the MCP server maps.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any

import pytest
import pytest_asyncio
from fakebrowser import FakeBrowser

from cdp_engine.core import input
from cdp_engine.core.identity import Verdict
from cdp_engine.core.keys import UnknownKeyError
from cdp_engine.core.pipeline import Hover
from cdp_engine.core.policies import NavigationPolicy, PolicyError
from cdp_engine.core.refs import StaleRefError, stale_reason
from cdp_engine.errors import (
    CDPEngineError,
    CommandTimeoutError,
    ConnectionClosedError,
    JavaScriptError,
    TargetClosedError,
)
from cdp_engine.index.element_index import ElementIndex
from cdp_engine.index.perform import ActionError, invalid_index_message, not_clickable
from cdp_engine.mcp_server import interaction
from cdp_engine.mcp_server.observe import PageGone
from cdp_engine.mcp_server.tools import BrowserTools

# An element index fingerprint: (tag, aria-label, name, type, text).
from cdp_engine.toolset.driver_config import MemberError
from cdp_engine.toolset.executor import BrowserToolset
from cdp_engine.toolset.page_members import normalize_url

# An element index fingerprint: (tag, aria-label, name, type, text).
WAS = ("button", None, None, "submit", "Pay now")
NOW = ("button", None, None, "submit", "Refund")

# verdict -> (StaleRefError reason, toolset cause sentence, INVALID_ELEMENT_INDEX message for index 7)
VERDICTS: list[tuple[Verdict, str | None, str | None, str | None]] = [
    (Verdict("frame_closed"), "its frame is gone", " Its frame is gone.",
     "Element 7 is gone: its frame was closed. Request a new state."),
    (Verdict("frame_detached"), "the page navigated since the ref was handed out", " The page navigated since it was read.",
     "Element 7 is gone: its document navigated since the state was captured. Request a new state."),
    (Verdict("navigated"), "the page navigated since the ref was handed out", " The page navigated since it was read.",
     "Element 7 is gone: its document navigated since the state was captured. Request a new state."),
    (Verdict("removed"), "the element was removed from the page", " The element was removed from the page.",
     "Element 7 was removed from the page since the state was captured."),
    (Verdict("changed", ("button", "Pay now"), ("button", "Refund")),
     "the element changed (was button 'Pay now', now button 'Refund')", " The element changed since it was read.",
     None),
    (Verdict("changed", WAS, NOW), None, None,
     "Element 7 changed since the state was captured (was 'Pay now', now 'Refund'). Request a new state."),
    (Verdict("changed"), "the element changed", " The element changed since it was read.",
     "Element 7 changed since the state was captured."),
]  # fmt: skip
IDS = ["frame_closed", "frame_detached", "navigated", "removed", "changed-refs", "changed-index", "changed-no-looks"]


def mcp_map(exc: Exception, *, crashed: bool | None = None) -> tuple[str, str]:
    """(error_type, message) the MCP server reports for an exception a tool raised."""
    instance = None if crashed is None else SimpleNamespace(name="one", crashed=crashed)
    ctx = SimpleNamespace(instance=instance, op=SimpleNamespace(tool="browser_click"))
    mapped = BrowserTools._map(BrowserTools.__new__(BrowserTools), exc, ctx)  # type: ignore[arg-type]
    return mapped.error_type, mapped.message


# ----- identity verdicts -------------------------------------------------------------------------


@pytest.mark.parametrize(("verdict", "reason", "cause", "index_message"), VERDICTS, ids=IDS)
def test_verdict_words_on_every_surface(verdict: Verdict, reason: str | None, cause: str | None,
                                        index_message: str | None) -> None:  # fmt: skip
    assert not verdict.same
    if index_message is not None:
        assert invalid_index_message(7, verdict) == index_message
    if reason is None or cause is None:
        return
    assert stale_reason(verdict) == reason
    error = StaleRefError("e5", stale_reason(verdict), verdict)
    assert (error.ref, error.reason, error.verdict) == ("e5", reason, verdict) and str(error) == f"e5: {reason}"
    assert BrowserToolset._stale_text("ref_5", reason) == (
        "Error: ref_5 is stale or not found on the current page. Re-read the page to get fresh references." + cause
    )
    assert mcp_map(error) == (
        "stale_ref", f"Ref 'e5' not found in current page snapshot ({reason}). Capture a new snapshot with browser_snapshot."
    )


def test_unknown_and_odd_refs() -> None:
    assert BrowserToolset._stale_text("ref_999", "unknown ref") == (
        "Error: ref_999 is stale or not found on the current page. Re-read the page to get fresh references."
    )
    # A ref the model made up is not echoed back verbatim (it could be anything).
    assert BrowserToolset._stale_text("<script>" * 10, "unknown ref").startswith("Error: That ref is stale")
    assert mcp_map(StaleRefError("e404", "unknown ref"))[1].startswith("Ref 'e404' not found in current page snapshot (unknown ref)")


# ----- navigation policy -------------------------------------------------------------------------

FILES_TOO = NavigationPolicy(schemes=frozenset({"http", "https", "file"}))
VIEW_SOURCE_TOO = NavigationPolicy(schemes=frozenset({"http", "https", "view-source"}))


@pytest.mark.parametrize(
    ("url", "policy", "text"),
    [
        ("file:///tmp/x.html", FILES_TOO, None),
        ("chrome://settings", FILES_TOO, "Error: Navigation refused. Only file, http, https URLs are allowed."),
        ("view-source:https://e.com", VIEW_SOURCE_TOO, None),
        ("view-source:javascript:alert(1)", VIEW_SOURCE_TOO,
         "Error: Navigation refused. Only http, https, view-source URLs are allowed."),
        ("http://", NavigationPolicy(), "Error: That is not a valid URL."),  # rule navigation.url: no host
        ("https://e.com:99999/", NavigationPolicy(), "Error: That is not a valid URL."),
        ("https:///path", FILES_TOO, "Error: That is not a valid URL."),
    ],
)  # fmt: skip
def test_toolset_words_for_the_navigation_policy(url: str, policy: NavigationPolicy, text: str | None) -> None:
    if text is None:
        assert normalize_url(url, policy) == url
        return
    with pytest.raises(MemberError) as info:
        normalize_url(url, policy)
    assert info.value.text == text


@pytest.mark.parametrize(
    ("url", "rule"),
    [("chrome://settings", "navigation.scheme"), ("javascript:alert(1)", "navigation.scheme"),
     ("not a url", "navigation.url"), ("http://", "navigation.url"), ("https://e.com:99999/", "navigation.url")],
)  # fmt: skip
def test_mcp_words_for_the_navigation_policy(url: str, rule: str) -> None:
    with pytest.raises(PolicyError) as info:
        NavigationPolicy().check(url)
    assert info.value.rule == rule
    assert mcp_map(info.value) == ("invalid_params", f"{info.value} [rule {rule}]")


@pytest_asyncio.fixture
async def fake() -> AsyncIterator[FakeBrowser]:
    fake = await FakeBrowser.start()
    try:
        yield fake
    finally:
        await fake.close()


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("chrome://settings", "navigate: navigation to chrome: URLs is not allowed (policy: allowed schemes"),
        ("devtools://devtools/bundled/inspector.html", "navigate: navigation to devtools: URLs is not allowed"),
        ("not a url", "navigate: navigation to 'not a url' is not allowed: it is not an absolute URL"),
    ],
)
async def test_index_words_for_the_navigation_policy(fake: FakeBrowser, url: str, message: str) -> None:
    index = ElementIndex.of(fake.tab)
    with pytest.raises(ActionError) as info:
        await index.perform.navigate(url, time.perf_counter() + 5.0)
    assert info.value.code == "ACTION_VALIDATION_FAILED" and info.value.message.startswith(message)
    assert not fake.commands("Page.navigate")  # refused before anything reached the browser


# ----- input that cannot land ----------------------------------------------------------------------

NOT_VISIBLE = input.NotClickableError("the element has no visible area in the viewport", input.NOT_VISIBLE)
COVERED = input.NotClickableError(
    "the element is covered by <div id=\"cover\"> at its visible point", input.COVERED, by='<div id="cover">'
)


@pytest.mark.parametrize(
    ("error", "index_text", "mcp_text"),
    [
        (NOT_VISIBLE, "Element 3 is not visible: the element has no visible area in the viewport.",
         "e3 is not visible: the element has no visible area in the viewport"),
        (COVERED, 'Element 3 is covered by another element at its visible point (<div id="cover">).',
         'e3 is covered by another element at its visible point (<div id="cover">)'),
    ],
    ids=["not_visible", "covered"],
)  # fmt: skip
async def test_not_clickable_words(
    monkeypatch: pytest.MonkeyPatch, error: input.NotClickableError, index_text: str, mcp_text: str
) -> None:
    # The element index: ELEMENT_NOT_INTERACTIVE.
    mapped = not_clickable(SimpleNamespace(index=3), error)  # type: ignore[arg-type]
    assert (mapped.code, mapped.message) == ("ELEMENT_NOT_INTERACTIVE", index_text)

    # MCP: interaction.on_node rewords the core pipeline's refusal (here the aim of a hover) as
    # NotInteractableError (same reason), reported as invalid_params.
    async def refuse(tab: Any, node: Any, *, check_hit: bool = True, arm: bool = False) -> tuple[float, float]:
        raise error

    monkeypatch.setattr(input, "aim", refuse)
    node = SimpleNamespace(ref="e3")
    with pytest.raises(input.NotInteractableError) as info:
        await interaction.on_node(None, Hover(node), node)  # type: ignore[arg-type]
    assert str(info.value) == mcp_text and info.value.reason == error.reason
    assert mcp_map(info.value) == ("invalid_params", mcp_text)


# ----- every other core error on the MCP surface -------------------------------------------------


@pytest.mark.parametrize(
    ("exc", "crashed", "expected"),
    [
        (PageGone(), None, ("internal_error", "The page closed or crashed during the operation.")),
        (TargetClosedError("tab T1 crashed"), None,
         ("internal_error", "The page closed or crashed during the operation: tab T1 crashed")),
        (ConnectionClosedError("gone"), False, ("internal_error", "The page closed or crashed during the operation: gone")),
        (ConnectionClosedError("gone"), True, ("instance_crashed", "Instance 'one' crashed during the operation.")),
        (CommandTimeoutError("DOM.getDocument", 5), None,
         ("internal_error", "The browser did not answer in time: DOM.getDocument got no answer within 5 s")),
        (JavaScriptError("ReferenceError: x is not defined"), None,
         ("internal_error", "Page script failed: ReferenceError: x is not defined")),
        (UnknownKeyError("unknown key 'Hyper'"), None, ("invalid_params", "unknown key 'Hyper'")),
        (input.NotInteractableError("e1 is not editable"), None, ("invalid_params", "e1 is not editable")),
        (CDPEngineError("something specific"), None, ("internal_error", "something specific")),
        (KeyError("frameId"), None, ("internal_error", "KeyError: 'frameId'")),
    ],
    ids=["page-gone", "target-closed", "connection-closed", "instance-crashed", "command-timeout", "javascript",
         "unknown-key", "not-interactable", "engine-error", "bug"],
)  # fmt: skip
def test_mcp_words_for_core_errors(exc: Exception, crashed: bool | None, expected: tuple[str, str]) -> None:
    assert mcp_map(exc, crashed=crashed) == expected
