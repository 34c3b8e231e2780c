"""Regressions found by the 5,000-input reliability run (benchmarks/reliability.py), each failing before its fix."""

from __future__ import annotations

from typing import Any

import orjson

import cdp_engine
from cdp_engine.index.actions import ActionValidationError, json_safe, parse_action


def test_failed_action_nested_just_under_orjsons_limit_stays_writable_inside_a_state() -> None:
    # 254 levels: orjson writes the value alone, but not two levels deeper, where it sits in the state.
    raw = b'{"action": "input_text", "element_index": 1, "text": "hi", "overwrite": ' + b'{"a": ' * 254 + b"1" + b"}" * 254 + b"}"
    try:
        parse_action(raw)
    except ActionValidationError as exc:
        state = {"url": "", "error": {"code": "ACTION_VALIDATION_FAILED", "failed_action": json_safe(exc.failed_action)}}
        orjson.dumps(state)
    else:
        raise AssertionError("a boolean overwrite must be refused")


async def test_mcp_argument_nested_thousands_deep_is_invalid_params(browser: cdp_engine.Browser) -> None:
    from cdp_engine.mcp_server import BrowserTools, Config, InstanceManager

    deep: Any = "x"
    for _ in range(5000):
        deep = {"a": deep}
    manager = InstanceManager(Config(), browser=browser)
    try:
        tools = BrowserTools(manager)
        assert (await tools.call("browser_create_instance", {"name": "deep"}))["status"] == "success"
        env = await tools.call(
            "browser_set_local_storage", {"instance": "deep", "origin": "http://127.0.0.1:1", "items": {"k": deep}}
        )
        assert env["status"] == "error" and env["error_type"] == "invalid_params", env
        assert "nested more than 100 levels deep" in env["message"]
        assert env["operation"]["outcome"] == "not_started"
    finally:
        await manager.close()
