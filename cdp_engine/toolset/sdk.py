"""cdp-engine behind the official SDK: a `BetaAsyncAbstractBrowserToolset20260801` subclass.

Needs the optional extra `cdp-engine[anthropic]`. The SDK's pipeline (`call`) resolves the member,
parses the input, runs the URL and file policies and `confirm`, then calls a member method here;
each method hands the input, as the model sent it, to `BrowserToolset.execute`, which validates it
exactly (ranges and unknown fields included) and runs it. `_browser_state` reports the tab
inventory and drains the queued changes after every call; the SDK carries a failed call's
changes to the next result and renders dismissed dialogs as text.

    browser_tools = CdpEngineBrowserToolset(browser)
    runner = client.beta.messages.tool_runner(model=..., max_tokens=..., tools=[browser_tools], messages=[...])
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

try:
    from anthropic import NOT_GIVEN, NotGiven
    from anthropic.tools import ToolError
    from anthropic.tools.browser import (
        BetaAsyncAbstractBrowserToolset20260801,
        BetaAsyncConfirmCallable,
        BetaAsyncURLPolicy,
        BetaBrowserNavigateResult,
        BetaBrowserState,
        BetaDialogDismissed,
        BetaFilePolicy,
        BetaLocalFilePolicy,
        BetaScreenshotResult,
        BetaToolConfigs,
        BetaToolsetCallContext,
    )
    from anthropic.types.beta import (
        BetaBrowserCloseTabInput,
        BetaBrowserDoubleClickInput,
        BetaBrowserFileUploadInput,
        BetaBrowserFindInput,
        BetaBrowserFormInputInput,
        BetaBrowserGetPageTextInput,
        BetaBrowserHoldKeyInput,
        BetaBrowserHoverInput,
        BetaBrowserJavascriptExecInput,
        BetaBrowserKeyInput,
        BetaBrowserLeftClickDragInput,
        BetaBrowserLeftClickInput,
        BetaBrowserLeftMouseDownInput,
        BetaBrowserLeftMouseUpInput,
        BetaBrowserListTabsInput,
        BetaBrowserMiddleClickInput,
        BetaBrowserMouseMoveInput,
        BetaBrowserNavigateInput,
        BetaBrowserNewTabInput,
        BetaBrowserReadConsoleInput,
        BetaBrowserReadNetworkInput,
        BetaBrowserReadPageInput,
        BetaBrowserRightClickInput,
        BetaBrowserScreenshotInput,
        BetaBrowserScrollInput,
        BetaBrowserScrollToInput,
        BetaBrowserStateTabEntryParam,
        BetaBrowserSwitchTabInput,
        BetaBrowserToolsetConfigsParam,
        BetaBrowserTripleClickInput,
        BetaBrowserTypeInput,
        BetaBrowserWaitInput,
        BetaBrowserZoomInput,
    )
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "cdp_engine.toolset.sdk needs the anthropic package: pip install 'cdp-engine[anthropic]'"
    ) from exc

from dataclasses import replace

from .driver_config import ImageOutcome, MemberError, NavigateOutcome, Outcome, ToolsetConfig
from .executor import BrowserToolset

if TYPE_CHECKING:
    from ..core.browser import Browser, BrowserContext

__all__ = ["CdpEngineBrowserToolset"]


class CdpEngineBrowserToolset(BetaAsyncAbstractBrowserToolset20260801):
    """All 31 members on a cdp-engine browser, for `AsyncAnthropic().beta.messages.tool_runner`.

    `config` carries cdp-engine's own options (upload folders, image limits, timeouts); `configs`,
    `confirm`, `url_policy`, `file_policy` and `tool_configs` are the SDK's. Without a `file_policy`,
    one is built from `config.upload_roots` (with the downloads folder refused as a root).
    """

    def __init__(
        self,
        browser: Browser,
        *,
        context: BrowserContext | None = None,
        config: ToolsetConfig | None = None,
        configs: BetaBrowserToolsetConfigsParam | None = None,
        confirm: BetaAsyncConfirmCallable | None = None,
        url_policy: BetaAsyncURLPolicy | NotGiven = NOT_GIVEN,
        file_policy: BetaFilePolicy | None = None,
        tool_configs: BetaToolConfigs | None = None,
    ) -> None:
        config = config or ToolsetConfig()
        if configs is None:
            configs = config.configs  # type: ignore[assignment]
        else:
            config = replace(config, configs=configs)  # type: ignore[arg-type]
        if file_policy is None and (config.upload_roots or config.upload_documents):
            file_policy = BetaLocalFilePolicy(
                upload_roots=tuple(str(r) for r in config.upload_roots),
                upload_document_ids=tuple(config.upload_documents),
                download_dir=str(browser.downloads_dir),
                expose_download_paths=config.expose_download_paths,
            )
        super().__init__(
            configs=configs,
            confirm=confirm,
            url_policy=url_policy,
            file_policy=file_policy,
            tool_configs=tool_configs,
        )
        self.executor = BrowserToolset(browser, context=context, config=config)
        self._started = False
        self._call_ok: bool | None = None

    # ----- lifecycle --------------------------------------------------------------------------

    async def start(self) -> CdpEngineBrowserToolset:
        """Adopt (or create) the browser context and its first tab; done on first use otherwise."""
        if not self._started:
            self._started = True
            await self.executor.start()
        return self

    async def __aenter__(self) -> CdpEngineBrowserToolset:
        await super().__aenter__()
        return await self.start()

    async def close(self) -> None:
        await super().close()  # waits for calls in flight
        if self._started:
            await self.executor.close()

    # ----- the pipeline hooks -----------------------------------------------------------------

    async def execute(self, context: BetaToolsetCallContext, name: Any, input: Any) -> Any:
        """Record whether the member ran to success, so a failed call reports no tab_opened."""
        self._call_ok = False
        result = await super().execute(context, name, input)
        self._call_ok = True
        return result

    async def _browser_state(self, context: BetaToolsetCallContext) -> BetaBrowserState:
        try:
            if not self._started:
                return BetaBrowserState(tabs=[])
            ok = self._call_ok is True
            self._call_ok = None
            try:
                tabs, changes, dialogs = await self.executor.report(success=ok)
            except Exception:
                tabs, changes, dialogs = self.executor.collect(success=ok)  # last-known state; never raise
            state_changes: list[Any] = [
                *changes,
                *[BetaDialogDismissed(kind=d.kind, message=d.message) for d in dialogs],
            ]
            return BetaBrowserState(tabs=tabs, state_changes=state_changes)  # type: ignore[arg-type]
        except Exception:
            return BetaBrowserState(tabs=[])

    async def _run(self, name: str, input: Any) -> Outcome:
        await self.start()
        raw = input.model_dump(by_alias=True, exclude_unset=True)
        try:
            return await self.executor.execute(name, raw)
        except MemberError as exc:
            raise ToolError(exc.text) from None

    async def _action(self, name: str, input: Any) -> str | None:
        outcome = await self._run(name, input)
        return outcome if isinstance(outcome, str) and outcome else None

    async def _text(self, name: str, input: Any) -> str:
        return str(await self._run(name, input))

    # ----- navigation and capture -------------------------------------------------------------

    async def navigate(
        self, context: BetaToolsetCallContext, input: BetaBrowserNavigateInput
    ) -> BetaBrowserNavigateResult:
        outcome = await self._run("navigate", input)
        assert isinstance(outcome, NavigateOutcome)
        return BetaBrowserNavigateResult(url=outcome.url, status=outcome.status, title=outcome.title)

    async def _image(self, name: str, input: Any) -> BetaScreenshotResult:
        outcome = await self._run(name, input)
        assert isinstance(outcome, ImageOutcome)
        return BetaScreenshotResult(data=outcome.data, media_type=outcome.media_type)  # type: ignore[arg-type]

    async def screenshot(
        self, context: BetaToolsetCallContext, input: BetaBrowserScreenshotInput
    ) -> BetaScreenshotResult:
        return await self._image("screenshot", input)

    async def zoom(
        self, context: BetaToolsetCallContext, input: BetaBrowserZoomInput
    ) -> BetaScreenshotResult:
        return await self._image("zoom", input)

    # ----- pointer ----------------------------------------------------------------------------

    async def left_click(
        self, context: BetaToolsetCallContext, input: BetaBrowserLeftClickInput
    ) -> str | None:
        return await self._action("left_click", input)

    async def right_click(
        self, context: BetaToolsetCallContext, input: BetaBrowserRightClickInput
    ) -> str | None:
        return await self._action("right_click", input)

    async def middle_click(
        self, context: BetaToolsetCallContext, input: BetaBrowserMiddleClickInput
    ) -> str | None:
        return await self._action("middle_click", input)

    async def double_click(
        self, context: BetaToolsetCallContext, input: BetaBrowserDoubleClickInput
    ) -> str | None:
        return await self._action("double_click", input)

    async def triple_click(
        self, context: BetaToolsetCallContext, input: BetaBrowserTripleClickInput
    ) -> str | None:
        return await self._action("triple_click", input)

    async def hover(self, context: BetaToolsetCallContext, input: BetaBrowserHoverInput) -> str | None:
        return await self._action("hover", input)

    async def left_click_drag(
        self, context: BetaToolsetCallContext, input: BetaBrowserLeftClickDragInput
    ) -> str | None:
        return await self._action("left_click_drag", input)

    async def left_mouse_down(
        self, context: BetaToolsetCallContext, input: BetaBrowserLeftMouseDownInput
    ) -> str | None:
        return await self._action("left_mouse_down", input)

    async def left_mouse_up(
        self, context: BetaToolsetCallContext, input: BetaBrowserLeftMouseUpInput
    ) -> str | None:
        return await self._action("left_mouse_up", input)

    async def mouse_move(
        self, context: BetaToolsetCallContext, input: BetaBrowserMouseMoveInput
    ) -> str | None:
        return await self._action("mouse_move", input)

    async def scroll(self, context: BetaToolsetCallContext, input: BetaBrowserScrollInput) -> str | None:
        return await self._action("scroll", input)

    async def scroll_to(self, context: BetaToolsetCallContext, input: BetaBrowserScrollToInput) -> str | None:
        return await self._action("scroll_to", input)

    # ----- keyboard, timing, forms, files -----------------------------------------------------

    async def type(self, context: BetaToolsetCallContext, input: BetaBrowserTypeInput) -> str | None:
        return await self._action("type", input)

    async def key(self, context: BetaToolsetCallContext, input: BetaBrowserKeyInput) -> str | None:
        return await self._action("key", input)

    async def hold_key(self, context: BetaToolsetCallContext, input: BetaBrowserHoldKeyInput) -> str | None:
        return await self._action("hold_key", input)

    async def wait(self, context: BetaToolsetCallContext, input: BetaBrowserWaitInput) -> str | None:
        return await self._action("wait", input)

    async def form_input(
        self, context: BetaToolsetCallContext, input: BetaBrowserFormInputInput
    ) -> str | None:
        return await self._action("form_input", input)

    async def file_upload(
        self, context: BetaToolsetCallContext, input: BetaBrowserFileUploadInput
    ) -> str | None:
        return await self._action("file_upload", input)

    # ----- reading and scripting --------------------------------------------------------------

    async def read_page(self, context: BetaToolsetCallContext, input: BetaBrowserReadPageInput) -> str:
        return await self._text("read_page", input)

    async def find(self, context: BetaToolsetCallContext, input: BetaBrowserFindInput) -> str:
        return await self._text("find", input)

    async def get_page_text(self, context: BetaToolsetCallContext, input: BetaBrowserGetPageTextInput) -> str:
        return await self._text("get_page_text", input)

    async def read_console(self, context: BetaToolsetCallContext, input: BetaBrowserReadConsoleInput) -> str:
        return await self._text("read_console", input)

    async def read_network(self, context: BetaToolsetCallContext, input: BetaBrowserReadNetworkInput) -> str:
        return await self._text("read_network", input)

    async def javascript_exec(
        self, context: BetaToolsetCallContext, input: BetaBrowserJavascriptExecInput
    ) -> str:
        return await self._text("javascript_exec", input)

    # ----- tabs -------------------------------------------------------------------------------

    async def new_tab(
        self, context: BetaToolsetCallContext, input: BetaBrowserNewTabInput
    ) -> BetaBrowserStateTabEntryParam:
        return await self._run("new_tab", input)  # type: ignore[return-value]

    async def list_tabs(
        self, context: BetaToolsetCallContext, input: BetaBrowserListTabsInput
    ) -> list[BetaBrowserStateTabEntryParam]:
        return await self._run("list_tabs", input)  # type: ignore[return-value]

    async def switch_tab(
        self, context: BetaToolsetCallContext, input: BetaBrowserSwitchTabInput
    ) -> BetaBrowserStateTabEntryParam:
        return await self._run("switch_tab", input)  # type: ignore[return-value]

    async def close_tab(self, context: BetaToolsetCallContext, input: BetaBrowserCloseTabInput) -> None:
        await self._run("close_tab", input)
