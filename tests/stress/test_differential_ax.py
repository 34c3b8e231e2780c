"""The accessibility tree the surfaces read (read_page, find, the MCP snapshot) equals a full capture, node for node
(snapshot/ax_capturer.py, docs/incremental.md).

The state's differential test (test_differential_state.py) drives the changes: the same random sequences on the
same large page, plus what only the tree shows: names that hold a field's value (a cell, a button, a label around
it, an aria-labelledby that names it or hidden content), and the page losing and regaining focus as another tab
comes to the front. After every step the tree served (cached, built on the last one, or captured in full) must
equal a full capture: every node's role, name, properties, value, DOM node, frame, box, visibility, tag,
attributes and place in the tree. Any difference fails the test. The state is read on the same page at random
between steps: both views share the page's change probe, and neither may make it forget what the other needs.

CI runs a few hundred steps (`-m slow`); thousands by hand: CDP_ENGINE_DIFF_STEPS=5000 pytest -m slow -n 0
tests/stress/test_differential_ax.py. The seed of a failing run is in its message; CDP_ENGINE_DIFF_SEED replays it.
"""

from __future__ import annotations

import os
import random
from typing import Any

import pytest
from test_differential_state import CHANGES, INPUT_CHANGES, apply, big_page

from cdp_engine import ElementIndex
from cdp_engine.snapshot.ax_capturer import AXTreeCapturer
from cdp_engine.snapshot.ax_tree import tree_bytes

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]

STEPS = int(os.environ.get("CDP_ENGINE_DIFF_STEPS", "250"))
SEED = os.environ.get("CDP_ENGINE_DIFF_SEED")

# Names that hold a field's value beyond the field's ancestors, and a field inside names from content.
NAMING = """
<span id="lbl-hidden" hidden>Hidden label</span><span id="lbl-shown">Shown label</span>
<input id="named" class="field" aria-labelledby="lbl-hidden lbl-shown wrap" placeholder="Named">
<span id="wrap">Wrapped <input class="field" placeholder="Inside a name"></span>
<label>Pick <input type="checkbox" id="pick"> <input class="field" placeholder="In a label"></label>
<button type="button">Button with <input class="field" placeholder="In a button"></button>
"""
TREE_CHANGES = {
    "hidden label": "(r) => { document.getElementById('lbl-hidden').textContent = 'Hidden ' + Math.floor(r * 100); }",
}


async def test_the_served_tree_equals_a_full_capture(site: Any, tab: Any, context: Any) -> None:
    seed = int(SEED) if SEED else random.randrange(1 << 30)
    rng = random.Random(seed)
    page = big_page(100, shadow=False).replace("<footer>", NAMING + "<footer>")
    await tab.goto(site.add("/diff-ax.html", page))
    other = await context.new_tab()
    capturer = AXTreeCapturer.of(tab)
    await capturer.tree()
    state = ElementIndex.of(tab).capturer
    state.increment_worth_ms = 0.0
    names = [*CHANGES, *TREE_CHANGES, *INPUT_CHANGES, "other tab"]
    weights = [8 if n in ("type", "hover", "focus", "blur") else 1 for n in names]
    kinds: dict[str, int] = {}
    for step in range(STEPS):
        name = rng.choices(names, weights)[0]
        # The page is in front at every step (as a harness brings its tab back), whatever put another tab there:
        # the new tab at the start, the last step, or the worker's earlier tests; a hidden page is never served
        # from the last tree, so a page left behind would test only full captures.
        await tab.session.send("Page.bringToFront")
        if name == "other tab":  # the page is hidden behind another tab (and loses focus) for one step
            await other.session.send("Page.bringToFront")
        elif name in TREE_CHANGES:
            await tab.evaluate(f"({TREE_CHANGES[name]})({rng.random()})")
        else:
            await apply(tab, rng, name)
        if rng.random() < 0.5:  # the state, read on the same page, shares the change probe with the tree
            await state.capture(screenshot=False)
        served = tree_bytes(await capturer.tree())
        how = capturer.served
        kinds[how] = kinds.get(how, 0) + 1
        full = tree_bytes(await capturer.capture_full())
        if served != full:
            mine, theirs = served.decode(), full.decode()
            at = next((i for i, (a, b) in enumerate(zip(mine, theirs, strict=False)) if a != b), min(len(mine), len(theirs)))
            pytest.fail(
                f"step {step} ({name}, served {how}) differs from a full capture (seed {seed}) at character {at}:\n"
                f"served: …{mine[max(0, at - 300):at + 300]}…\nfull:   …{theirs[max(0, at - 300):at + 300]}…"
            )
    print(f"served {kinds} (seed {seed})")
    await tab.session.send("Emulation.clearDeviceMetricsOverride")
    assert kinds.get("incremental", 0) >= STEPS // 10, f"served: {kinds} (seed {seed})"
    assert kinds.get("cached", 0) >= 1, f"served: {kinds} (seed {seed})"
