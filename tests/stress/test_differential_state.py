"""The incremental state equals a full capture, byte for byte (docs/incremental.md).

Random sequences of page changes (typing, value sets, inserts, removals, moves, attribute and text changes,
visibility, scrolls of the window and of an element, resizes, changes inside hidden subtrees, inside an iframe
and in a shadow root, focus and hover) are applied to large pages; after every step the state the engine serves
(cached, built on the last one, or captured in full, as it decides) must equal a full capture of the page at
that moment: the same url, page_content, element_index and state_hash (compared as canonical JSON bytes), and
the same element behind each index. Any difference fails the test; nothing is tolerated.

CI runs a few hundred steps (`-m slow`); thousands by hand: CDP_ENGINE_DIFF_STEPS=5000 pytest -m slow -n 0
tests/stress/test_differential_state.py. The seed of a failing run is in its message; CDP_ENGINE_DIFF_SEED replays it.
"""

from __future__ import annotations

import os
import random
from typing import Any

import orjson
import pytest

from cdp_engine import ElementIndex
from cdp_engine.snapshot.capture import PAGE_CONTENT_CAP, Capture

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]

STEPS = int(os.environ.get("CDP_ENGINE_DIFF_STEPS", "450"))  # over the three pages
SEED = os.environ.get("CDP_ENGINE_DIFF_SEED")
NEXT_FRAME = "new Promise(done => { requestAnimationFrame(() => done()); setTimeout(done, 100); })"

# Rules of every kind the probe judges: paint-only ones for hover, focus and values (the state stays), and ones
# that change layout or visibility for a few marked elements (the state must be captured again).
STYLE = """
body { font: 14px sans-serif; margin: 8px; }
a:hover, button:hover { color: #a00; text-decoration-line: underline; }
input:focus, textarea:focus { outline: 2px solid #06c; }
input:invalid { border-color: red; }
.grow:placeholder-shown { height: 40px; }
.reveal:focus + .tip { display: inline; }
.tip { display: none; }
li.hot:hover > .more { display: inline; }
.more { display: none; }
#scroller { height: 120px; overflow: auto; border: 1px solid #999; }
.gone { display: none; }
.faint { opacity: 0; }
.hid { visibility: hidden; }
.pad { padding: 3px 0; outline: 1px solid #c00; }
#rows > tr:last-child td { padding-bottom: 4px; }
#rows > tr:last-of-type { background: #eee; }
.block { margin: 2px 0; }
.own { display: flow-root; }
.fl { float: right; width: 40%; height: 50px; }
.pin { position: absolute; right: 8px; }
.inl { display: inline; }
.flexy { display: flex; gap: 4px; }
.stick { position: sticky; top: 0; }
.tall { height: 70px; }
.lift { position: relative; top: -40px; }
"""


def big_page(rows: int, *, shadow: bool, blocks: int = 0) -> str:
    """A page of `rows` table rows (links, buttons, fields), a list with hover-revealed parts, an inner scroller,
    a hidden container, a same-origin iframe and optionally a shadow root; then `blocks` rows of blocks straight
    in the body (siblings of what the viewport shows: the subtrees the probe may judge by one box), some with
    a float or a box out of flow in them."""
    body = ["<h1>Differential page</h1><p>A page the differential test changes at random.</p>"]
    body.append('<form><label for="name">Name</label><input id="name" class="field" placeholder="Your name">')
    body.append('<input id="email" class="field" type="email" placeholder="Email">')
    body.append('<input id="grow" class="field grow" placeholder="Grows when empty">')
    body.append('<input id="reveal" class="field reveal" placeholder="Focus me"><span class="tip">A tip</span>')
    body.append('<textarea id="notes" class="field" rows="2">Notes</textarea>')
    body.append('<input id="agree" type="checkbox"><label for="agree">Agree</label>')
    body.append('<input id="qty" class="field" type="number" min="1" max="9" value="1"></form>')
    body.append('<ul id="menu">' + "".join(
        f'<li class="hot">Item {i} <span class="more">more {i}</span> <a href="#i{i}">open {i}</a></li>'
        for i in range(12)
    ) + "</ul>")
    body.append('<div id="scroller">' + "".join(f'<p>Inner line {i} <button>Inner {i}</button></p>' for i in range(30)) + "</div>")
    body.append('<div id="hidden" style="display:none"><p>Hidden text</p><ul id="hidden-list">'
                + "".join(f"<li>hidden {i} <button>h{i}</button></li>" for i in range(20)) + "</ul></div>")
    body.append('<iframe id="frame" srcdoc="<p>In the frame</p><input id=inner placeholder=Inner><button>Frame button</button>"'
                ' style="width:300px;height:80px"></iframe>')
    if shadow:
        body.append('<div id="host"></div><script>const r = document.getElementById("host").attachShadow({mode: "open"});'
                    'r.innerHTML = "<p>Shadow text</p><button>Shadow button</button><input placeholder=Shadow>";</script>')
    body.append('<table id="table"><tbody id="rows">')
    for i in range(rows):
        body.append(
            f'<tr id="r{i}"><td>Row {i}</td><td><a href="#r{i}">link {i}</a></td>'
            f'<td><button type="button">go {i}</button></td><td><input class="field" placeholder="cell {i}"></td></tr>'
        )
    body.append("</tbody></table><footer><p>End of the page.</p></footer>")
    for i in range(blocks):
        extra = '<div class="fl">float</div>' if i % 7 == 3 else '<a class="pin" href="#pin">pinned</a>' if i % 11 == 5 else ""
        own = " own" if i % 2 else ""  # a formatting context of its own: floats around it cannot reach in
        body.append(f'<div class="block{own}" id="b{i}">{extra}<span>Block {i} with some words</span> '
                    f'<a href="#b{i}">block link {i}</a> <button type="button">block {i}</button></div>')
    return f"<!doctype html><html><head><title>Diff</title><style>{STYLE}</style></head><body>{''.join(body)}</body></html>"


# Each change: a script run in the page (the argument is a random number in [0, 1)), or a CDP input step.
CHANGES: dict[str, str] = {
    "set value": "(r) => { const f = pick('.field'); f.value = 'v' + Math.floor(r * 1000); f.dispatchEvent(new Event('input', {bubbles: true})); }",
    "clear value": "(r) => { const f = pick('.field'); f.value = ''; f.dispatchEvent(new Event('input', {bubbles: true})); }",
    "insert row": "(r) => { const rows = document.getElementById('rows'); const tr = document.createElement('tr'); tr.innerHTML = `<td>New ${r}</td><td><a href='#n'>new link</a></td><td><button>new</button></td>`; rows.insertBefore(tr, pick('#rows > tr') || null); }",
    "append row": "(r) => { const tr = document.createElement('tr'); tr.innerHTML = `<td>Appended ${r}</td><td><button>appended</button></td>`; document.getElementById('rows').append(tr); }",
    "remove row": "(r) => { const tr = pick('#rows > tr'); if (tr) tr.remove(); }",
    "move row": "(r) => { const a = pick('#rows > tr'), b = pick('#rows > tr'); if (a && b && a !== b) b.before(a); }",
    "set title": "(r) => { pick('a, button').title = 'title ' + Math.floor(r * 100); }",
    "set aria-label": "(r) => { pick('button').setAttribute('aria-label', 'label ' + Math.floor(r * 100)); }",
    "toggle class": "(r) => { pick('tr, li, p, button, a').classList.toggle(['gone', 'faint', 'hid', 'plain'][Math.floor(r * 4)]); }",
    "toggle disabled": "(r) => { const b = pick('button, input'); b.disabled = !b.disabled; }",
    "toggle hidden attr": "(r) => { const e = pick('tr, li, p'); e.hidden = !e.hidden; }",
    "edit text": "(r) => { const td = pick('td, li, p'); if (td.firstChild && td.firstChild.nodeType === 3) td.firstChild.data = 'edited ' + Math.floor(r * 100); }",
    "style visibility": "(r) => { const e = pick('tr, button, a, p'); e.style.visibility = r < 0.5 ? 'hidden' : 'visible'; }",
    "style display": "(r) => { const e = pick('tr, li, p'); e.style.display = r < 0.5 ? 'none' : ''; }",
    "cover": "(r) => { let c = document.getElementById('cover'); if (c) { c.remove(); return; } c = document.createElement('div'); c.id = 'cover'; c.style.cssText = `position:fixed;left:0;top:${Math.floor(r * 400)}px;width:100%;height:150px;background:#fff`; document.body.append(c); }",
    "scroll window": "(r) => { window.scrollTo(0, Math.floor(r * document.body.scrollHeight / 2)); }",
    "scroll element": "(r) => { document.getElementById('scroller').scrollTop = Math.floor(r * 600); }",
    "hidden text": "(r) => { pick('#hidden li').firstChild.data = 'hidden edit ' + Math.floor(r * 100); }",
    "hidden insert": "(r) => { const li = document.createElement('li'); li.innerHTML = '<button>hidden new</button>'; document.getElementById('hidden-list').append(li); }",
    "hidden remove": "(r) => { const li = pick('#hidden li'); if (li && document.querySelectorAll('#hidden li').length > 3) li.remove(); }",
    "hidden attribute": "(r) => { pick('#hidden button').setAttribute('aria-label', 'x' + Math.floor(r * 10)); }",
    "show hidden": "(r) => { const h = document.getElementById('hidden'); h.style.display = h.style.display === 'none' ? '' : 'none'; }",
    "frame change": "(r) => { const d = document.getElementById('frame').contentDocument; if (d && d.body) d.body.insertAdjacentHTML('beforeend', `<p>frame ${Math.floor(r * 100)}</p>`); }",
    "frame value": "(r) => { const d = document.getElementById('frame').contentDocument; const f = d && d.getElementById('inner'); if (f) { f.value = 'in' + Math.floor(r * 10); f.dispatchEvent(new Event('input', {bubbles: true})); } }",
    "shadow change": "(r) => { const h = document.getElementById('host'); if (h && h.shadowRoot) h.shadowRoot.append(Object.assign(document.createElement('button'), {textContent: 'shadow ' + Math.floor(r * 10)})); }",
    "focus": "(r) => { pick('.field, button, a').focus(); }",
    "blur": "(r) => { if (document.activeElement) document.activeElement.blur(); }",
    "check": "(r) => { document.getElementById('agree').click(); }",
    "pad": "(r) => { pick('tr, td, p, li, a').classList.toggle('pad'); }",
    "grow row": "(r) => { const td = pick('#rows td'); td.style.height = td.style.height ? '' : `${20 + Math.floor(r * 40)}px`; }",
    "append text": "(r) => { pick('#rows td').append(` more ${Math.floor(r * 100)}`); }",
    "insert after": "(r) => { const tr = pick('#rows > tr'); tr.insertAdjacentHTML('afterend', `<tr><td>After ${Math.floor(r * 100)}</td><td><a href='#a'>after</a></td></tr>`); }",
}
# Changes to the rows of blocks (the truncated page has them): classes that float, pin, inline, stack or grow
# a block or a part of it, blocks inserted, text edited.
BLOCK_CHANGES: dict[str, str] = {
    "block class": "(r) => { pick('.block, .block > *').classList.toggle(['pad', 'fl', 'pin', 'inl', 'flexy', 'stick', 'tall', 'lift', 'gone', 'own'][Math.floor(r * 10)]); }",
    "block insert": "(r) => { pick('.block').insertAdjacentHTML(r < 0.5 ? 'afterend' : 'beforeend', `<div class='block'><span>New block ${Math.floor(r * 100)}</span> <a href='#nb'>new block link</a></div>`); }",
    "block text": "(r) => { const s = pick('.block > span'); if (s.firstChild) s.firstChild.data = 'Block edited ' + 'word '.repeat(Math.floor(r * 30)); }",
}
# Changes that reach beyond what a state shows when page_content stops early (the truncated page's run).
STRUCTURAL = ("insert row", "append row", "insert after", "toggle class", "pad", "grow row", "append text", "edit text",
              "set title", "set aria-label", "style display", "style visibility", "toggle hidden attr")
INPUT_CHANGES = ("type", "hover", "resize")
HELPERS = "const pick = (s) => { const all = document.querySelectorAll(s); return all[Math.floor(ARG * all.length)] || all[0]; };"


async def apply(tab: Any, rng: random.Random, name: str) -> None:
    """One change, then a frame: scroll events come with it, as after the engine's own actions."""
    session = tab.session
    if name == "type":  # trusted typing into the focused field (focus one first when none is)
        await tab.evaluate("(() => { const a = document.activeElement; if (!a || !a.matches('.field')) { const f = document.querySelectorAll('.field'); f[Math.floor(Math.random() * f.length)].focus(); } })()")
        await session.send("Input.insertText", {"text": rng.choice("abcxyz 19")})
    elif name == "hover":
        await session.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": rng.uniform(0, 800), "y": rng.uniform(0, 700)})
    elif name == "resize":
        width = rng.choice((1280, 1100, 900))
        await session.send("Emulation.setDeviceMetricsOverride", {"width": width, "height": 720, "deviceScaleFactor": 1, "mobile": False})
    else:
        arg = rng.random()
        script = CHANGES.get(name) or BLOCK_CHANGES[name]
        await tab.evaluate(f"(() => {{ const ARG = {arg}; {HELPERS} ({script})({arg}); }})()")
    await tab.evaluate(NEXT_FRAME)


def canonical(capture: Capture) -> tuple[bytes, list[tuple[int, int, tuple[float, ...]]]]:
    """The state's bytes (screenshot aside) and the element behind each index (backend node id, box)."""
    state = {key: capture.state[key] for key in ("url", "page_content", "element_index", "state_hash")}
    elements = [(i, el.backend_node_id, tuple(el.box)) for i, el in sorted(capture.elements.items())]
    return orjson.dumps(state, option=orjson.OPT_SORT_KEYS), elements


@pytest.mark.parametrize("page", ["light", "shadow", "truncated"])
async def test_incremental_state_equals_a_full_capture(site: Any, tab: Any, page: str) -> None:
    """`truncated`: a page_content window of 3,000 characters, so page_content stops in the table and the
    structural changes below it (insertions, classes, text) are judged against what the state shows."""
    seed = int(SEED) if SEED else random.randrange(1 << 30)
    rng = random.Random(seed)
    shadow = page == "shadow"
    blocks = 300 if page == "truncated" else 0
    url = site.add(f"/diff-{page}.html", big_page(400, shadow=shadow, blocks=blocks))
    window = (0, 3_000) if page == "truncated" else (0, PAGE_CONTENT_CAP)
    await tab.goto(url)
    capturer = ElementIndex.of(tab).capturer
    capturer.increment_worth_ms = 0.0  # build on the last state whenever the probe allows, whatever it saves
    await capturer.capture(screenshot=False, content=window)
    changes = {**CHANGES, **BLOCK_CHANGES} if blocks else CHANGES
    names = [*changes, *INPUT_CHANGES]
    # Typing and hidden changes are what the increment is for: weighted so a run exercises it often; on the
    # truncated page, the changes beyond what the state shows.
    often = (*STRUCTURAL, *BLOCK_CHANGES) if page == "truncated" else ("type", "hover", "focus", "hidden text", "hidden insert",
                                                      "hidden remove", "hidden attribute")
    weights = [6 if n in often else 1 for n in names]
    kinds: dict[str, int] = {}
    steps = max(STEPS // 3, 10)  # per page
    for step in range(steps):
        name = rng.choices(names, weights)[0]
        await apply(tab, rng, name)
        served = await capturer.capture(screenshot=False, content=window)
        full = await capturer.capture_full(content=window)
        how = next((k for k in ("incremental", "cached") if served.timings.get(k)), "full")
        kinds[how] = kinds.get(how, 0) + 1
        if canonical(served) != canonical(full):
            mine, theirs = canonical(served)[0].decode(), canonical(full)[0].decode()
            at = next((i for i, (a, b) in enumerate(zip(mine, theirs, strict=False)) if a != b), min(len(mine), len(theirs)))
            pytest.fail(
                f"step {step} ({name}, served {how}) differs from a full capture (seed {seed}) at character {at}:\n"
                f"served: …{mine[max(0, at - 200):at + 200]}…\nfull:   …{theirs[max(0, at - 200):at + 200]}…"
                if mine != theirs else f"step {step} ({name}, {how}): the same state, other elements (seed {seed})"
            )
    print(f"served {kinds} (seed {seed})")
    await tab.session.send("Emulation.clearDeviceMetricsOverride")
    if not shadow:  # a page without shadow content: the increment must have been taken, and often
        assert kinds.get("incremental", 0) >= steps // 10, f"served: {kinds} (seed {seed})"
