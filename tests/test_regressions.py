"""Bugs found once, kept found."""

from __future__ import annotations

import asyncio

from cdp_engine import schema


async def test_nested_out_of_process_frames_survive_renavigation(tab, site):
    """Nested OOPIF sessions go away with their parent's: the next capture must not wait on them."""
    inner = site.add("/reg/inner", "<button>inner</button>")
    middle_path = "/reg/middle"
    site.add(middle_path, f"<p>middle</p><iframe src='{inner}'></iframe>")
    page = site.add("/reg/outer", f"<h1>outer</h1><iframe src='{site.other_url}{middle_path}'></iframe>")
    for _ in range(3):
        await tab.goto(page)
        async with asyncio.timeout(10):
            await tab.wait_for_condition(lambda: len(tab.frame_sessions) >= 2, 10)
            state = await tab.state(screenshot=False)
        assert schema.validate("state", state) == []
        assert "inner" in state["page_content"]
    assert all(not s.closed for s in tab.frame_sessions.values())


async def test_empty_attribute_values_are_empty_strings(tab, site):
    url = site.add(
        "/reg/empty-attrs", "<a href=''>here</a><input placeholder='' name=''><input type=checkbox checked>"
    )
    await tab.goto(url)
    state = await tab.state(screenshot=False)
    link, field, box = (state["element_index"][k] for k in ("1", "2", "3"))
    assert link["attributes"]["href"] == ""
    assert field["attributes"]["placeholder"] == "" and field["attributes"]["name"] == ""
    assert box["attributes"]["checked"] is True
