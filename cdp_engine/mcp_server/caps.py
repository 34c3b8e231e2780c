"""The MCP tool sets a server can offer: the capability groups and the default selection.

A plain table with no imports, so the configuration (instances.Config) and the registry share it.
"""

from __future__ import annotations

# Capability groups (docs/mcp.md "Tool sets"): a server offers `core` plus the groups it is started with
# (Config.caps, BROWSER_MCP_CAPS); `all` is every tool with every reference parameter, as the reference lists
# them. `core` holds what any task needs: the instance tools (every other tool takes an instance), navigation,
# the snapshot and its ref-based input, the screenshot, waits, and the recovery of dialogs and file choosers.
CAPS: dict[str, tuple[str, ...]] = {
    "core": (
        "browser_create_instance", "browser_destroy_instance", "browser_list_instances", "browser_health",
        "browser_navigate", "browser_navigate_back", "browser_wait_for", "browser_click", "browser_type",
        "browser_fill_form", "browser_select_option", "browser_hover", "browser_press_key",
        "browser_handle_dialog", "browser_file_upload", "browser_snapshot", "browser_screenshot",
    ),
    "tabs": ("browser_tabs", "browser_close", "browser_frames", "browser_resize"),
    "mouse": (
        "browser_drag", "browser_mouse_click_xy", "browser_mouse_move_xy", "browser_mouse_down",
        "browser_mouse_up", "browser_mouse_drag_xy", "browser_mouse_wheel",
    ),
    "files": ("browser_pdf_save", "browser_downloads", "browser_download_save"),
    "devtools": ("browser_console_messages", "browser_network_requests", "browser_evaluate"),
    "storage": (
        "browser_get_cookies", "browser_set_cookies", "browser_clear_cookies", "browser_get_local_storage",
        "browser_set_local_storage", "browser_clear_local_storage", "browser_save_storage_state",
        "browser_load_storage_state",
    ),
    "testing": (
        "browser_verify_element_visible", "browser_verify_list_visible", "browser_verify_text_visible",
        "browser_verify_value", "browser_generate_locator",
    ),
    # Never works in this engine (no Playwright objects to run Python against): offered by `all` (or by name).
    "unsupported": ("browser_run_code",),
}  # fmt: skip
CAP_OF: dict[str, str] = {name: cap for cap, names in CAPS.items() for name in names}
DEFAULT_CAPS: tuple[str, ...] = ("core",)


def parse_caps(value: str | tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """The cap names of a comma-separated string or a sequence, checked; `core` is always included."""
    names = [n.strip().lower() for n in (value.split(",") if isinstance(value, str) else value) if n.strip()]
    unknown = [n for n in names if n != "all" and n not in CAPS]
    if unknown:
        raise ValueError(f"unknown MCP caps {', '.join(unknown)}; known: {', '.join([*CAPS, 'all'])}")
    if "all" in names:
        return ("all",)
    return tuple(dict.fromkeys(["core", *names]))
