"""The project's own actionability suite: what the major automation libraries test for a click, a fill, a check
and a select, each case run on every surface (element index, browser toolset, MCP) by one scripted hand
(tests/core/surfaces.py).

A case is a page, a change the page makes after the agent looked (a target that starts moving, is covered,
hidden, removed, replaced), one action on a control named by its accessible name, and what must follow: the
action lands (the page's own record shows the effect on that element and on no other) or it is refused with an
error and the page is as it was. A success whose effect the page did not take, or an effect on another element,
fails the case.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from surfaces import Hand, hand_fixture  # noqa: F401  (the fixture "hand")

# Every trusted click the page sees, named by the closest element with a data-t (else its tag), in order.
RECORD = """<script>
window.log = [];
document.addEventListener('click', e => {
  if (!e.isTrusted) return;
  const n = e.composedPath()[0];
  const named = n.closest ? n.closest('[data-t]') : null;
  log.push(named ? named.dataset.t : n.localName);
}, true);
window.heard = 0;
document.addEventListener('input', () => { heard++; });
</script>"""


@dataclass(frozen=True)
class Case:
    id: str
    body: str
    action: str  # click | fill | type | check | select
    name: str  # the control's accessible name
    lands: bool  # True: must land; False: must be refused, nothing changed
    effect: str  # a page expression, true when the case's outcome (landed, or nothing changed) holds
    value: str | bool = ""
    after_look: str = ""  # what the page does after the agent looked
    before_look: str = ""  # what the page does before the agent looks (a scroll a person made)


BUTTON = "<button data-t=go id=b onclick=\"window.moving = document.getAnimations().some(a => a.playState === 'running')\">Go</button>"
NOTHING = "log.length === 0"

CASES = [
    # ----- click: lands -----
    Case("click-plain", BUTTON, "click", "Go", True, "log.join() === 'go'"),
    Case(
        "click-moving-then-still",
        BUTTON.replace("<button", "<button style='transition: transform 400ms linear'"),
        "click", "Go", True, "log.join() === 'go' && window.moving === false",
        after_look="b.getBoundingClientRect(); b.style.transform = 'translateX(400px)'",
    ),
    Case(
        "click-partly-visible",
        "<div style='overflow:hidden; width:140px'><button data-t=go style='margin-left:80px; width:300px'>Go</button></div>",
        "click", "Go", True, "log.join() === 'go'",
    ),
    Case("click-rotated", BUTTON.replace("<button", "<button style='margin:60px; transform: rotate(45deg)'"),
         "click", "Go", True, "log.join() === 'go'"),
    Case("click-scaled", BUTTON.replace("<button", "<button style='margin:60px; transform: scale(0.4)'"),
         "click", "Go", True, "log.join() === 'go'"),
    Case(
        "click-under-sticky-header",
        "<header style='position:sticky; top:0; height:120px; background:#fff; z-index:1'>Header</header>"
        "<div style='height:900px'></div><button data-t=go id=b style='height:40px'>Go</button><div style='height:2000px'></div>"
        "<script>addEventListener('load', () => scrollTo(0, b.offsetTop - 100))</script>",
        "click", "Go", True, "log.join() === 'go'",
    ),
    Case(
        "click-wrapped-inline-link",
        "<p style='width:170px'>Read the <a href='#' data-t=lnk onclick='return false'>full terms of the service</a> now</p>",
        "click", "full terms of the service", True, "log.join() === 'lnk'",
    ),
    Case(
        "click-svg",
        "<svg width=80 height=80><circle data-t=dot role=button aria-label=Dot cx=40 cy=40 r=30 onclick='1'></circle></svg>",
        "click", "Dot", True, "log.join() === 'dot'",
    ),
    Case(
        "click-ready-after-a-fade",
        BUTTON,
        "click", "Go", True, "log.join() === 'go'",
        after_look="const v = document.createElement('div'); v.dataset.t = 'veil';"
        " v.style.cssText = 'position:fixed; inset:0; background:#000';"
        " document.body.append(v);"
        " v.animate([{opacity: 1}, {opacity: 0}], {duration: 300, fill: 'forwards'}).finished.then(() => v.remove())",
    ),
    Case(
        "click-pointer-events-none-in-its-wrapper",
        "<div data-t=wrap onclick='window.opened = true' style='padding:6px; border:1px solid; width:200px'>"
        "<input role=combobox aria-label=Country style='pointer-events:none'></div>",
        "click", "Country", True, "log.join() === 'wrap' && window.opened === true",
    ),
    Case(
        "click-in-a-scrolled-container",
        "<div id=sc style='height:150px; width:260px; overflow:auto; border:1px solid'><div style='height:400px'></div>"
        "<button data-t=go>Go</button><div style='height:400px'></div></div>"
        "<script>addEventListener('load', () => { sc.scrollTop = 340; })</script>",
        "click", "Go", True, "log.join() === 'go' && sc.scrollTop === 340",
    ),
    Case(
        "click-in-a-frame",
        "<div style='height:60px'></div><iframe style='width:300px; height:120px; border:0; margin-left:40px' "
        "srcdoc=\"<button onclick=&quot;parent.log.push('go')&quot;>Go</button>\"></iframe>",
        "click", "Go", True, "log.join() === 'go'",
    ),
    Case(
        "click-label-whose-parts-take-no-pointer-events",
        "<label data-t=lab style='display:inline-block; padding:6px; border:1px solid'><input id=c type=checkbox>"
        "<span style='pointer-events:none'>Accept the terms</span></label>",
        "check", "Accept the terms", True, "c.checked === true", value=True,
    ),
    # ----- click: refused -----
    Case(
        "click-moving-forever",
        "<style>@keyframes wander { to { transform: translateX(300px) } }</style>"
        + BUTTON.replace("<button", "<button style='animation: wander 600ms linear infinite alternate'"),
        "click", "Go", False, NOTHING,
    ),
    Case("click-covered", BUTTON, "click", "Go", False, NOTHING,
         after_look="const v = document.createElement('div'); v.dataset.t = 'veil';"
         " v.style.cssText = 'position:fixed; inset:0; background:#000'; document.body.append(v)"),
    # A combobox's field may take a click on its own placeholder (core/aim_page.py), never on another control:
    # a clear button put over the field's input covers it.
    Case("click-combobox-under-a-control-of-its-field",
         "<div data-t=field onclick='1' style='position:relative; width:240px; height:30px; border:1px solid #999'>"
         "<input data-t=input id=wh role=combobox readonly aria-label=Warehouse style='width:200px; height:26px'></div>",
         "click", "Warehouse", False, NOTHING,
         after_look="const c = document.createElement('button'); c.dataset.t = 'clear'; c.textContent = 'Clear';"
         " c.style.cssText = 'position:absolute; left:0; top:0; width:240px; height:30px'; wh.after(c)"),
    Case("click-hidden", BUTTON, "click", "Go", False, NOTHING, after_look="b.style.display = 'none'"),
    Case("click-removed", BUTTON, "click", "Go", False, NOTHING, after_look="b.remove()"),
    Case("click-replaced", BUTTON, "click", "Go", False, NOTHING, after_look="b.replaceWith(b.cloneNode(true))"),
    Case("click-disabled", "<button data-t=go disabled>Go</button>", "click", "Go", False, NOTHING),
    # ----- fill -----
    Case("fill-text", "<input id=f aria-label=Name>", "fill", "Name", True, "f.value === 'Ada'", "Ada"),
    Case(
        "fill-in-a-shadow-root-is-heard-outside",
        "<name-field></name-field><script>customElements.define('name-field', class extends HTMLElement {"
        " connectedCallback() { this.attachShadow({mode: 'open'}).innerHTML = '<input aria-label=Name>'; } });</script>",
        "fill", "Name", True,
        "document.querySelector('name-field').shadowRoot.querySelector('input').value === 'Ada' && heard > 0", "Ada",
    ),
    Case(
        "fill-on-a-page-that-redefines-event",
        "<input id=f aria-label=Name><script>window.Event = function() { throw new Error('no'); };"
        " window.InputEvent = window.Event;</script>",
        "fill", "Name", True, "f.value === 'Ada' && heard > 0", "Ada",
    ),
    Case("fill-date", "<input id=f type=date aria-label=When>", "fill", "When", True,
         "f.value === '2026-12-06' && heard > 0", "2026-12-06"),
    Case("fill-time", "<input id=f type=time aria-label=At>", "fill", "At", True, "f.value === '13:45'", "13:45"),
    Case("fill-month", "<input id=f type=month aria-label=Month>", "fill", "Month", True,
         "f.value === '2026-12'", "2026-12"),
    Case("fill-week", "<input id=f type=week aria-label=Week>", "fill", "Week", True,
         "f.value === '2026-W49'", "2026-W49"),
    Case("fill-datetime", "<input id=f type=datetime-local aria-label=Start>", "fill", "Start", True,
         "f.value === '2026-12-06T13:45'", "2026-12-06T13:45"),
    Case("fill-colour", "<input id=f type=color aria-label=Colour>", "fill", "Colour", True,
         "f.value === '#ff8800'", "#ff8800"),
    Case("fill-range", "<input id=f type=range min=0 max=100 value=50 aria-label=Volume>", "fill", "Volume", True,
         "f.value === '30'", "30"),
    Case("fill-range-out-of-bounds", "<input id=f type=range min=0 max=100 value=50 aria-label=Volume>",
         "fill", "Volume", False, "f.value === '50' && heard === 0", "200"),
    Case("fill-number-rejects-letters", "<input id=f type=number aria-label=Count>", "fill", "Count", False,
         "f.value === '' && heard === 0", "foo"),
    Case("fill-read-only", "<input id=f aria-label=Name readonly value=x>", "fill", "Name", False,
         "f.value === 'x' && heard === 0", "Ada"),
    Case("fill-disabled", "<input id=f aria-label=Name disabled value=x>", "fill", "Name", False,
         "f.value === 'x' && heard === 0", "Ada"),
    Case(
        "fill-in-a-frame",
        "<iframe style='width:300px; height:80px' srcdoc=\"<input aria-label=City oninput=&quot;parent.heard++&quot;>\">"
        "</iframe>",
        "fill", "City", True,
        "document.querySelector('iframe').contentDocument.querySelector('input').value === 'Oslo' && heard > 0", "Oslo",
    ),
    # ----- check -----
    Case("check-plain", "<label><input id=c type=checkbox> Subscribe</label>", "check", "Subscribe", True,
         "c.checked === true", value=True),
    Case(
        "check-hidden-box-in-a-label",
        "<label data-t=lab style='display:inline-block; position:relative; padding:8px; border:1px solid'>"
        "<input id=c type=checkbox aria-label='Accept terms' style='position:absolute; opacity:0; width:1px; height:1px'>"
        "<span style='pointer-events:none'>Accept terms</span></label>",
        "check", "Accept terms", True, "c.checked === true", value=True,
    ),
    Case("check-disabled", "<label><input id=c type=checkbox disabled> Subscribe</label>", "check", "Subscribe",
         False, "c.checked === false", value=True),
    # ----- select -----
    Case(
        "select-plain",
        "<select id=s aria-label=Size><option value=Small>Small</option><option value=Large>Large</option></select>",
        "select", "Size", True, "s.value === 'Large' && heard > 0", "Large",
    ),
    Case(
        "select-disabled-option",
        "<select id=s aria-label=Size><option value=Small>Small</option><option value=Large disabled>Large</option></select>",
        "select", "Size", False, "s.value === 'Small' && heard === 0", "Large",
    ),
    Case(
        "select-option-of-a-disabled-group",
        "<select id=s aria-label=Size><option value=Small>Small</option>"
        "<optgroup label=Big disabled><option value=Large>Large</option></optgroup></select>",
        "select", "Size", False, "s.value === 'Small' && heard === 0", "Large",
    ),
]


# What the engine still gets wrong, per case (and surface, where only one does): each fails loudly (strict) the
# moment it is fixed, so its mark must then go.
KNOWN: dict[tuple[str, str | None], str] = {
}


async def act(hand: Hand, case: Case) -> str | None:
    key = hand.key(case.name)
    if case.after_look:
        await hand.evaluate(f"(() => {{ {case.after_look}; }})()")
    if case.action == "click":
        return await hand.click(key)
    if case.action == "fill":
        assert isinstance(case.value, str)
        return await hand.fill(key, case.value)
    if case.action == "type":
        assert isinstance(case.value, str)
        return await hand.type(key, case.value)
    if case.action == "check":
        return await hand.check(key, bool(case.value))
    assert isinstance(case.value, str)
    return await hand.select(key, case.value)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
async def test_actionability(hand: Hand, site: object, case: Case, request: pytest.FixtureRequest) -> None:
    known = KNOWN.get((case.id, hand.name)) or KNOWN.get((case.id, None))
    if known:
        request.applymarker(pytest.mark.xfail(strict=True, reason=known))
    url = site.add(f"/actionability/{hand.name}/{case.id}", RECORD + case.body)  # type: ignore[attr-defined]
    await hand.open(url)
    await hand.look()
    error = await act(hand, case)
    held = await hand.evaluate(case.effect)
    log = await hand.evaluate("JSON.stringify(log)")
    if case.lands:
        assert error is None, f"{hand.name} refused {case.id}: {error}"
        assert held is True, f"{hand.name} answered success for {case.id}, but the page shows otherwise (clicks: {log})"
    else:
        assert error is not None, f"{hand.name} answered success for {case.id}, which it must refuse (clicks: {log})"
        assert held is True, f"{hand.name} refused {case.id} but the page changed (clicks: {log})"


async def test_a_check_the_page_keeps_from_changing_is_refused(hand: Hand, site: object) -> None:
    # A box whose page undoes the click (preventDefault on its click): setting it checked did nothing, so the
    # surface says so. MCP's browser_fill_form answered success before (it clicked and did not look again).
    if hand.name == "index":
        pytest.skip("the element index checks by click_element, a click (its spec): the click itself landed")
    body = "<label><input id=c type=checkbox onclick='event.preventDefault()'> Subscribe</label>"
    await hand.open(site.add(f"/actionability/{hand.name}/check-kept", RECORD + body))  # type: ignore[attr-defined]
    await hand.look()
    error = await hand.check(hand.key("Subscribe"), True)
    assert error is not None, f"{hand.name} answered success, but the box is {await hand.evaluate('c.checked')}"
    assert await hand.evaluate("c.checked") is False
