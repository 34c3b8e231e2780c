"""The manager of the MCP server's browser instances: creates, finds and destroys them under one cap, owns the
shared Chromium unless given one, and evicts crashed instances (mcp_server/instances.py is the instance itself).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from ..core.browser import Browser
from ..core.policies import FilePolicy, Policies
from ..core.tab import Tab
from ..errors import BrowserNotFoundError, CDPEngineError
from ..index.agent_tab import connect, launch
from .envelope import ToolError
from .instances import Instance, InstanceOptions, iso_now
from .server_config import ATTACHED_NO_PROCESS, CAMOUFOX_OPTIONS, SESSIONLESS, Config

log = logging.getLogger("cdp_engine.mcp")

def _owned(record: dict[str, Any], owner: str | None) -> dict[str, Any]:
    """A health record, tagged with its session under per-session ownership (so only that session lists it)."""
    return record if owner is None else {**record, "session": owner}


def _parse_options(options: dict[str, Any], files: FilePolicy) -> InstanceOptions:
    """browser_create_instance's options, checked: invalid_params or unsupported_capability; a profile_dir
    becomes the real folder inside the profile folder (PolicyError otherwise, the tools' invalid_params)."""
    headless = options.get("headless")
    if headless == "virtual":
        raise ToolError(
            "unsupported_capability", "headless='virtual' (a virtual X display) is not supported."
        )
    proxy = options.get("proxy")
    if proxy is not None:
        if not isinstance(proxy, dict) or not proxy.get("server"):
            raise ToolError(
                "invalid_params", "proxy needs a 'server', e.g. {'server': 'http://host:3128'}."
            )
        unknown = set(proxy) - {"server", "username", "password", "bypass"}
        if unknown:
            raise ToolError("invalid_params", f"Unknown proxy field(s): {', '.join(sorted(unknown))}.")
        if proxy.get("username") or proxy.get("password"):
            raise ToolError(
                "unsupported_capability",
                "Proxy credentials are not supported; use a proxy without authentication.",
            )
    window = options.get("window")
    if window is not None:
        if len(window) != 2 or not all(isinstance(v, int) and 100 <= v <= 10000 for v in window):
            raise ToolError("invalid_params", "window must be [width, height] in CSS pixels (100-10000).")
        window = (int(window[0]), int(window[1]))
    return InstanceOptions(
        headless=headless,
        proxy=proxy,
        window=window,
        block_images=bool(options.get("block_images")),
        locale=options.get("locale"),
        # "" is none given, as upstream reads it
        profile_dir=str(files.profile_path(options["profile_dir"])) if options.get("profile_dir") else None,
    )


def make_profile(profile: Path, root: Path | None) -> None:
    """The profile folder (the file policy checked it is inside root) and the root, readable by this user
    only: a profile holds cookies and saved logins."""
    try:
        if root is not None:
            root.mkdir(mode=0o700, parents=True, exist_ok=True)
        profile.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        caller = exc.errno in (errno.ENOTDIR, errno.EEXIST, errno.ENAMETOOLONG, errno.EINVAL)
        raise ToolError(
            "invalid_params" if caller else "internal_error",
            f"Profile directory '{profile}' could not be made: {exc.strerror or exc}.",
        ) from None


def instance_key(name: str, owner: str | None) -> str:
    """The registry key of a name: the name itself, or the name in its owner's namespace (per-session ownership)."""
    return name if owner is None else f"{owner}\x00{name}"


class InstanceManager:
    """Creates, finds and destroys instances under one cap; owns the shared Chromium unless given one.

    Names are looked up in the caller's view: `owner` is None for server-level instances (the reference's
    semantics), else the MCP session the caller speaks for (`owner_for`); an instance of another owner is
    `instance_not_found`, exactly as if it did not exist. The cap is server-wide either way.
    """

    def __init__(self, config: Config | None = None, *, browser: Browser | None = None) -> None:
        self.config = config or Config()
        self._shared: Browser | None = browser
        self._owns_shared = browser is None
        self._shared_lock = asyncio.Lock()
        self.instances: dict[str, Instance] = {}
        self._reserved: dict[str, str] = {}  # key -> "launching" | "closing"
        self._profiles: dict[str, tuple[str, str | None]] = {}  # resolved profile dir -> (name, owner)
        self._evicting: dict[str, asyncio.Task[None]] = {}
        self._unsubscribe: dict[int, Callable[[], None]] = {}
        self.failed_launches: list[dict[str, Any]] = []
        self.close_failed: list[dict[str, Any]] = []
        self._reaper: asyncio.Task[None] | None = None
        self._policies: Policies | None = None
        self.default_reserved = False  # a default-context instance is being created
        if browser is not None:
            self._watch(browser)

    @property
    def policies(self) -> Policies:
        """The server's policies; its output folder (a temporary one unless configured) is made on first use."""
        if self._policies is None:
            output = self.config.output_dir or tempfile.mkdtemp(prefix="cdp-engine-mcp-output-")
            Path(output).mkdir(parents=True, exist_ok=True)
            self._policies = self.config.policies(output)
        return self._policies

    # ----- browsers -----------------------------------------------------------------------------

    def _watch(self, browser: Browser) -> None:
        if id(browser) not in self._unsubscribe:
            self._unsubscribe[id(browser)] = browser.on_tab(self._route_tab)

    def _route_tab(self, tab: Tab) -> None:
        for instance in list(self.instances.values()):
            if instance.owns_tab(tab) and not instance.closing:
                if instance.suppress_blank and not tab.opener_id:
                    return
                instance.adopt(tab)
                return

    async def _launch(
        self, *, headless: bool, extra_args: list[str], window: tuple[int, int] | None, user_data_dir: str | None = None
    ) -> Browser:
        return await _start_browser(self.config, headless, extra_args, window, user_data_dir)

    async def shared_browser(self) -> Browser:
        async with self._shared_lock:
            if self._shared is not None and not self._shared.closed:
                return self._shared
            if self._shared is not None and not self._owns_shared:
                raise ToolError("instance_crashed", "The browser this server was given has closed.")
            self._shared = await self._launch(
                headless=self.config.headless, extra_args=[], window=None, user_data_dir=self.config.user_data_dir
            )
            self._watch(self._shared)
            return self._shared

    def _start_reaper(self) -> None:
        if self.config.reap_after > 0 and self._reaper is None:
            self._reaper = asyncio.get_running_loop().create_task(self._reap())

    async def _reap(self) -> None:
        """Every reaper_interval: destroy idle (past the TTL) and crashed instances that no call is using."""
        ttl = self.config.reap_after
        while True:
            await asyncio.sleep(self.config.reaper_interval)
            now = time.monotonic()
            for key, inst in list(self.instances.items()):
                idle = now - inst.last_used > ttl
                if inst.busy == 0 and not inst.lock.locked() and (idle or inst.crashed):
                    try:
                        await self._destroy(key)
                    except ToolError:
                        pass
                    except Exception:  # the reaper outlives any one failed teardown
                        log.exception("reaping instance %r failed", inst.name)

    # ----- ownership ----------------------------------------------------------------------------

    def owner_for(self, session: str | None) -> str | None:
        """The owner a call from this transport session acts as: None (server-level) unless ownership is on."""
        if not self.config.session_ownership:
            return None
        return session or SESSIONLESS

    def get(self, name: str, owner: str | None = None) -> Instance | None:
        """The instance called `name` in the owner's view, without touching it."""
        return self.instances.get(instance_key(name, owner))

    async def end_session(self, session: str) -> int:
        """The session ended: destroy every instance it owns (per-session ownership only). Returns how many."""
        if not self.config.session_ownership:
            return 0
        keys = [key for key, inst in self.instances.items() if inst.owner == session]
        for key in keys:
            with contextlib.suppress(ToolError):
                await self._destroy(key)
        return len(keys)

    # ----- lifecycle ----------------------------------------------------------------------------

    async def create(self, name: str, *, owner: str | None = None, **options: Any) -> Instance:
        """A new instance; raises instance_already_exists, instance_limit_exceeded, profile_dir_in_use, ..."""
        for option in CAMOUFOX_OPTIONS:
            value = options.pop(option, None)
            if value is not None and value is not False:
                raise ToolError(
                    "unsupported_capability",
                    f"'{option}' is a Camoufox (Firefox) option; this server drives Chromium and does not support it.",
                )
        if not name:
            raise ToolError("invalid_params", "Instance name must be a non-empty string.")
        key = instance_key(name, owner)
        if key in self.instances or key in self._reserved:
            raise ToolError("instance_already_exists", f"Instance '{name}' already exists.")
        if len(self.instances) + len(self._reserved) >= self.config.max_instances:
            raise ToolError(
                "instance_limit_exceeded",
                f"Instance limit of {self.config.max_instances} reached; destroy an instance first.",
            )  # server-wide, also under per-session ownership
        opts = _parse_options(options, self.policies.files)
        profile_key = opts.profile_dir  # resolved: one folder however it is spelled
        if profile_key is not None and profile_key in self._profiles:
            holder, holder_owner = self._profiles[profile_key]
            by = f"instance '{holder}'" if holder_owner == owner else "another session's instance"
            raise ToolError("profile_dir_in_use", f"Profile directory '{opts.profile_dir}' is in use by {by}.")
        self._reserved[key] = "launching"
        if profile_key is not None:
            self._profiles[profile_key] = (name, owner)
        try:
            instance = await self._start_instance(name, opts)
        except BaseException as exc:
            self._reserved.pop(key, None)
            if profile_key is not None:
                self._profiles.pop(profile_key, None)
            self.failed_launches.append(_owned({"name": name, "error": str(exc), "at": iso_now()}, owner))
            del self.failed_launches[:-20]
            if isinstance(exc, ToolError | asyncio.CancelledError):
                raise
            if isinstance(exc, CDPEngineError):
                raise ToolError("internal_error", f"Could not start the instance: {exc}") from exc
            raise
        self._reserved.pop(key, None)
        instance.owner = owner
        self.instances[key] = instance
        self._start_reaper()
        return instance

    async def _start_instance(self, name: str, opts: InstanceOptions) -> Instance:
        headless = self.config.headless if opts.headless is None else bool(opts.headless)
        dedicated = self.config.isolation == "process" or opts.profile_dir is not None or headless != self.config.headless
        if dedicated and self.config.cdp_url is not None:
            raise ToolError("unsupported_capability", ATTACHED_NO_PROCESS)
        if not dedicated and self.config.in_default_context:
            return await _default_context_instance(self, name, opts)
        if not dedicated:
            browser = await self.shared_browser()
            proxy = opts.proxy or {}
            context = await browser.new_context(
                proxy_server=proxy.get("server"), proxy_bypass_list=proxy.get("bypass"), dialog_policy="hold",
                navigation_policy=self.policies.navigation.request_guard, storage_state=self.config.storage_state,
            )  # fmt: skip
            return Instance(self, name, browser, context, owns_browser=False, options=opts)
        args: list[str] = []
        if opts.profile_dir:
            make_profile(Path(opts.profile_dir), self.policies.files.profile_root)
            args.append(f"--user-data-dir={opts.profile_dir}")
        if opts.proxy:
            args.append(f"--proxy-server={opts.proxy['server']}")
            if opts.proxy.get("bypass"):
                args.append(f"--proxy-bypass-list={opts.proxy['bypass']}")
        browser = await self._launch(headless=headless, extra_args=args, window=opts.window)
        try:
            browser.dialog_policy = "hold"
            browser.navigation_policy = self.policies.navigation.request_guard  # the start-up tab is closed below
            context = browser.default_context
            instance = Instance(self, name, browser, context, owns_browser=True, options=opts)
            # No page exists right after creation: close the start-up tab.
            for tab in list(browser.tabs.values()):
                await tab.close(timeout=self.config.close_timeout)
            self._watch(browser)
            return instance
        except BaseException:
            await browser.close()
            raise

    def resolve(self, name: str, owner: str | None = None) -> Instance:
        """The live instance called `name`; instance_not_found or instance_crashed (evicted in the background)."""
        key = instance_key(name, owner)
        instance = self.instances.get(key)
        if instance is None:
            raise ToolError("instance_not_found", f"Instance '{name}' not found.")
        if instance.crashed:
            if key not in self._evicting:
                self._evicting[key] = asyncio.get_running_loop().create_task(self._evict(key))
            raise ToolError(
                "instance_crashed",
                f"Instance '{name}' crashed (its browser disconnected or all its pages crashed); it is being removed. "
                "Create a new instance.",
            )
        instance.last_used = time.monotonic()
        return instance

    async def _evict(self, key: str) -> None:
        try:
            with contextlib.suppress(ToolError):
                await self._destroy(key)
        finally:
            self._evicting.pop(key, None)

    async def destroy(self, name: str, owner: str | None = None) -> None:
        """Remove the instance from listings, stop its work and close its context or process."""
        await self._destroy(instance_key(name, owner), name)

    async def _destroy(self, key: str, name: str | None = None) -> None:
        instance = self.instances.get(key)
        if instance is None:
            evicting = self._evicting.get(key)
            if evicting is not None and evicting is not asyncio.current_task():
                await evicting  # a crashed instance being evicted: destroying it succeeds
                return
            raise ToolError("instance_not_found", f"Instance '{name or key}' not found.")
        name = instance.name
        del self.instances[key]
        self._reserved[key] = "closing"
        instance.closing = True
        try:
            for task in list(instance.background):
                task.cancel()
            try:
                async with asyncio.timeout(self.config.close_timeout):
                    if instance.owns_browser:
                        self._unsubscribe.pop(id(instance.browser), lambda: None)()
                        await instance.browser.close()
                    elif instance.shares_default_context:
                        await _leave_default_context(instance, self.config.close_timeout)
                    else:
                        await instance.context.close()
            except (TimeoutError, CDPEngineError) as exc:
                self.close_failed.append(
                    _owned(
                        {"name": name, "instance_id": instance.instance_id, "error": str(exc) or "timeout"},
                        instance.owner,
                    )
                )
                del self.close_failed[:-20]
        finally:
            self._reserved.pop(key, None)
            if instance.options.profile_dir:
                self._profiles.pop(instance.options.profile_dir, None)

    def summaries(self, owner: str | None = None) -> list[dict[str, Any]]:
        """The instances the owner sees (all of them when ownership is off: every owner is None)."""
        return [inst.summary() for inst in self.instances.values() if inst.owner == owner]

    def records(
        self, kind: Literal["failed_launches", "close_failed"], owner: str | None = None
    ) -> list[dict[str, Any]]:
        """Failed launches or teardowns the owner may see (its own under per-session ownership)."""
        records = self.failed_launches if kind == "failed_launches" else self.close_failed
        return [dict(r) for r in records if r.get("session") == owner]

    async def close(self) -> None:
        """Destroy every instance and close the shared browser if this manager launched it."""
        if self._reaper is not None:
            self._reaper.cancel()
        for key in list(self.instances):
            with contextlib.suppress(ToolError):
                await self._destroy(key)
        for task in list(self._evicting.values()):
            with contextlib.suppress(BaseException):
                await task
        for unsubscribe in self._unsubscribe.values():
            unsubscribe()
        self._unsubscribe.clear()
        if self._owns_shared and self._shared is not None:
            await self._shared.close()
            self._shared = None
        if self._policies is not None and self.config.output_dir is None:
            output = self._policies.files.output_dir
            if output is not None:
                with contextlib.suppress(OSError):
                    output.rmdir()  # the temporary output folder, when nothing was written to it

    async def __aenter__(self) -> InstanceManager:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


async def _default_context_instance(manager: InstanceManager, name: str, opts: InstanceOptions) -> Instance:
    """An instance in the shared browser's own context: its tabs (the user's, when attached) are its pages from
    the start; one such instance at a time, as they would share every tab."""
    if opts.proxy:
        raise ToolError("unsupported_capability", "A proxy needs a fresh context; this server works in the browser's own.")
    holder = next((i.name for i in manager.instances.values() if i.shares_default_context), None)
    if holder is not None or manager.default_reserved:
        raise ToolError(
            "profile_dir_in_use",
            f"The browser's own context is in use by instance '{holder or 'being created'}' (one instance works there "
            "at a time); destroy it first.",
        )
    manager.default_reserved = True
    try:
        browser = await manager.shared_browser()
        context = browser.default_context
        if context.navigation_policy is None:
            await context.set_navigation_policy(manager.policies.navigation.request_guard)
        instance = Instance(manager, name, browser, context, owns_browser=False, options=opts)
        for tab in context.tabs:
            if not tab.closed:
                instance.adopt(tab)
        instance.selected = instance.pages[0] if instance.pages else None
        await asyncio.gather(*[page.ready for page in instance.pages])
        return instance
    finally:
        manager.default_reserved = False


async def _leave_default_context(instance: Instance, timeout: float) -> None:
    """Destroying a default-context instance: close the tabs it opened; the user's stay, as they were."""
    for page in list(instance.pages):
        page.tab.dialog_policy = instance.browser.dialog_policy
    mine = [tab for tab in instance.context.tabs if tab.target_id in instance.opened and not tab.closed]
    await asyncio.gather(*[tab.close(timeout=timeout) for tab in mine], return_exceptions=True)


async def _start_browser(
    config: Config, headless: bool, extra_args: list[str], window: tuple[int, int] | None, user_data_dir: str | None
) -> Browser:
    """The shared browser (attached to config.cdp_url when set, else launched) or an instance's own Chromium."""
    navigation, command = config.navigation_timeout, config.command_timeout
    try:
        if config.cdp_url is not None and user_data_dir is None and not extra_args:
            return await connect(
                config.cdp_url, headers=config.cdp_headers, window_size=window or config.window,
                navigation_timeout=navigation, command_timeout=command,
            )  # fmt: skip
        return await launch(
            config.executable, headless=headless, args=extra_args, window_size=window or config.window,
            user_data_dir=user_data_dir, navigation_timeout=navigation, command_timeout=command,
        )  # fmt: skip
    except BrowserNotFoundError as exc:
        raise ToolError("binary_not_found", f"Chromium could not be found: {exc}") from None
