"""Bugs found once, kept found."""

from __future__ import annotations

import asyncio

from cdp_engine.util import schema


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


async def test_implicit_roles_match_chromium(tab, site):
    """Every role the engine takes from the HTML mapping equals what Chromium's accessibility tree says."""
    kinds = [
        "<button>b</button>", "<button type=reset>r</button>", "<a href='#x'>l</a>", "<textarea></textarea>",
        "<select><option>o1</option><option>o2</option></select>", "<select multiple><option>m</option></select>",
        "<select size=3><option>s</option></select>", "<label for=t>lab</label><input id=t>",
    ] + [f"<input type={t}>" for t in (
        "text", "email", "tel", "url", "password", "search", "checkbox", "radio", "number", "range",
        "button", "submit", "reset", "image", "bogus",
    )] + [f"<{tag} role='{r}'>{r}</{tag}>" for tag in ("div", "span") for r in (
        "button", "link", "menuitem", "checkbox", "radio", "switch", "textbox", "searchbox", "combobox",
        "listbox", "option",
    )] + ["<div role='Button  extra'>first token</div>"]  # fmt: skip
    cells = "".join(f"<div>{k}</div>" for k in kinds)
    url = site.add("/reg/roles", f"<div style='display:flex;flex-wrap:wrap;gap:4px'>{cells}</div>")
    await tab.goto(url)
    await tab.state(screenshot=False)
    elements = tab.element_index.current.elements
    checked = 0
    for element in elements.values():
        if not element.role_known:
            continue
        result = await element.session.send(
            "Accessibility.getPartialAXTree",
            {"backendNodeId": element.backend_node_id, "fetchRelatives": False},
        )
        role = result["nodes"][0].get("role") or {}
        chromium = role.get("value") if role.get("type") == "role" else None
        assert element.descriptor["role"] == chromium, (element.tag, element.input_type, chromium)
        checked += 1
    assert checked >= len(kinds)
