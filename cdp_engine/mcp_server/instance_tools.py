"""Lifecycle and server tools: create, destroy and list instances; health."""

from __future__ import annotations

from typing import Any

from .registry import Ctx, tool


@tool(
    scope="lifecycle",
    docs={
        "name": "Instance name (case-sensitive); other tools take it as `instance`.",
        "profile_dir": "Persistent profile folder under BROWSER_MCP_PROFILE_ROOT (own Chromium process; kept).",
        "headless": "Run headless (default: the server's; another mode gets its own Chromium process).",
        "proxy": "{'server': 'http://host:port', 'bypass': 'a.com,b.com'}; credentials are not supported.",
        "window": "Viewport [width, height] in CSS pixels for this instance's pages.",
        "block_images": "Fail image requests (saves bandwidth and time).",
        "locale": "Locale override for this instance's pages, e.g. 'de-DE'.",
        "humanize": "Camoufox only: unsupported here (any value other than null/false is refused).",
        "block_webrtc": "Camoufox only: unsupported here.",
        "block_webgl": "Camoufox only: unsupported here.",
        "camoufox_os": "Camoufox only: unsupported here.",
        "geoip": "Camoufox only: unsupported here.",
        "firefox_user_prefs": "Camoufox only: unsupported here.",
        "camoufox_args": "Camoufox only: unsupported here.",
        "enable_cache": "Camoufox only: unsupported here.",
        "ff_version": "Camoufox only: unsupported here.",
    },
)
async def browser_create_instance(
    ctx: Ctx,
    name: str,
    *,
    profile_dir: str | None = None,
    headless: bool | str | None = None,
    proxy: dict[str, Any] | None = None,
    humanize: bool | float | None = None,
    window: list[int] | None = None,
    block_images: bool | None = None,
    block_webrtc: bool | None = None,
    block_webgl: bool | None = None,
    camoufox_os: str | list[str] | None = None,
    locale: str | None = None,
    geoip: bool | str | None = None,
    firefox_user_prefs: dict[str, Any] | None = None,
    camoufox_args: list[str] | None = None,
    enable_cache: bool | None = None,
    ff_version: int | None = None,
) -> dict[str, Any]:
    """Create a named, isolated browser instance (its own cookies, storage and cache). No page exists until a
    tool needs one."""
    instance = await ctx.manager.create(
        name,
        owner=ctx.owner,
        profile_dir=profile_dir,
        headless=headless,
        proxy=proxy,
        humanize=humanize,
        window=window,
        block_images=block_images,
        block_webrtc=block_webrtc,
        block_webgl=block_webgl,
        camoufox_os=camoufox_os,
        locale=locale,
        geoip=geoip,
        firefox_user_prefs=firefox_user_prefs,
        camoufox_args=camoufox_args,
        enable_cache=enable_cache,
        ff_version=ff_version,
    )
    ctx.touch()
    ctx.op.instance_id = instance.instance_id
    return instance.summary()


@tool(scope="lifecycle", docs={"name": "Instance name."})
async def browser_destroy_instance(ctx: Ctx, name: str) -> dict[str, Any]:
    """Destroy an instance: close its pages and context (or process). Works on a crashed instance too."""
    instance = ctx.manager.get(name, ctx.owner)
    if instance is not None:
        ctx.op.instance_id = instance.instance_id
    await ctx.manager.destroy(name, ctx.owner)
    ctx.touch()
    return {}


@tool(scope="server", read_only=True)
async def browser_list_instances(ctx: Ctx) -> dict[str, Any]:
    """List instances with their status, page count and active URL."""
    return {"instances": ctx.manager.summaries(ctx.owner)}


@tool(scope="server", read_only=True)
async def browser_health(ctx: Ctx) -> dict[str, Any]:
    """Server health: instance count and limits, instances, configuration, failed launches and teardowns.
    Never launches a browser."""
    manager = ctx.manager
    config = manager.config
    visible = manager.summaries(ctx.owner)
    return {
        "instance_count": len(visible),
        "max_instances": config.max_instances,
        "instances": visible,
        "config": {
            "idle_ttl_seconds": config.reap_after,
            "reaper_interval_seconds": config.reaper_interval,
            "session_ownership": config.session_ownership,
            "transport": config.transport,
            "host": config.host,
            "port": config.port,
            "max_instances": config.max_instances,
            "isolation": config.isolation,
            "operation_timeout_seconds": config.operation_timeout,
            "max_result_bytes": config.max_result_bytes,
            "event_buffer_size": config.event_buffer_size,
            "modal_grace_seconds": config.modal_grace,
        },
        "close_failed": manager.records("close_failed", ctx.owner),
        "failed_launches": manager.records("failed_launches", ctx.owner),
    }
