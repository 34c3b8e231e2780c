"""The target suite of the extended interactive set (issue 18): pages with known targets and decoys.

Every element a user would click or type into carries `data-t="<name>"` (the known targets); decoys carry
`data-decoy` (only for reading the pages: they are never targets). A tool's interactive set is scored by
LABEL_JS on each of its elements: the target it names is the nearest `data-t` element at or above it
(across shadow roots), else the one `data-t` element inside it; none is a false positive, and a second
element naming the same target is a duplicate (counted as a false positive: one target, one entry).
Recall = targets named / targets; precision = entries naming a new target / entries. Only targets that are
visible in the 1280x720 viewport count (every page fits in it).

Imported by path by tests/index/test_extended.py and benchmarks/extended.py (so both score the same pages the
same way); peers (benchmarks/others/extended_peers.py) run LABEL_JS in their own pages.
"""

from __future__ import annotations

from typing import Any, NamedTuple

_HEAD = (
    "<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>{title}</title><style>"
    "body{{font:14px sans-serif;margin:8px}} .ptr{{cursor:pointer}} .row:hover{{background:#eef}}"
    ".menu{{border:1px solid #999;display:inline-block;padding:2px}} .hide{{display:none}}"
    ".vh{{position:absolute;opacity:0;width:1px;height:1px;overflow:hidden}}"
    "</style></head><body>"
)
_TAIL = "</body></html>"


def _page(title: str, body: str, script: str = "") -> str:
    return _HEAD.format(title=title) + body + (f"<script>{script}</script>" if script else "") + _TAIL


# Helpers the pages' scripts share: bind a click listener to every match (as jQuery's .on does).
_BIND = "const on = (sel, type, fn) => document.querySelectorAll(sel).forEach((e) => e.addEventListener(type, fn));"

DROPDOWN = _page(
    "dropdowns",
    """
<h3>Custom dropdowns</h3>
<div class=menu data-t=fruit-toggle aria-haspopup=listbox aria-expanded=true tabindex=0>Fruit ▾</div>
<ul role=listbox id=fruits data-t=fruits>
  <li role=option data-t=opt-apple>Apple</li><li role=option data-t=opt-pear>Pear</li>
  <li role=option data-t=opt-plum>Plum</li>
</ul>
<div class="select ptr" data-t=color-toggle id=color>Pick a colour</div>
<div id=colors><div class=item data-t=col-red>Red</div><div class=item data-t=col-green>Green</div>
  <div class=item data-t=col-blue>Blue</div></div>
<p data-decoy>Plain text that explains the dropdowns above and is never a target.</p>
<div class=ptr data-decoy=wrapper><button data-t=apply>Apply</button></div>
""",
    _BIND + """
on('#color', 'click', () => {});
on('.item', 'click', (e) => { document.getElementById('color').textContent = e.target.textContent; });
on('[role=option]', 'click', () => {});
document.body.addEventListener('click', () => {});
""",
)

TABS = _page(
    "tabs",
    """
<h3>Tabs</h3>
<div role=tablist><div role=tab data-t=tab-a aria-selected=true>Overview</div>
  <div role=tab data-t=tab-b>Details</div><div role=tab data-t=tab-c aria-disabled=false>Reviews</div>
  <div role=tab aria-disabled=true data-decoy=disabled>Archived</div></div>
<ul class=ui-tabs><li role=tab><a href=#p1 data-t=ui-tab-1>Tab 1</a></li>
  <li role=tab><a href=#p2 data-t=ui-tab-2>Tab 2</a></li></ul>
<div class=plain-tabs><span class=tabx data-t=plain-1>Monthly</span> <span class=tabx data-t=plain-2>Yearly</span></div>
<div id=p1><p>Panel one text. <span class=alink data-t=alink-1>ultrices</span> and more words.</p></div>
<div class="btn disabled" aria-disabled=true style="cursor:not-allowed" data-decoy=disabled>Export</div>
""",
    _BIND + """
on('.tabx', 'click', () => {});
on('.alink', 'click', () => {});
on('[role=tab]', 'click', () => {});
""",
)

ACCORDION = _page(
    "accordions",
    """
<h3>Accordions</h3>
<div id=acc><h4 aria-expanded=false data-t=sec-1 tabindex=0>Section 1</h4><div class=hide>one</div>
  <h4 aria-expanded=true data-t=sec-2 tabindex=0>Section 2</h4><div>Body text of section two.</div></div>
<details><summary data-t=summary>More options</summary><p>Hidden content</p></details>
<div class=faq><div class="q ptr" data-t=faq-1>How do I pay?</div><div class="q ptr" data-t=faq-2>Can I return?</div></div>
<div data-decoy=listener-container id=app>
  <p>Some introduction text in a big container that has a click listener for delegation.</p>
  <button data-t=save>Save</button> <a href=#x data-t=help>Help</a> <input data-t=search placeholder=Search>
</div>
""",
    _BIND + """
document.addEventListener('click', (e) => { const q = e.target.closest('.q'); if (q) q.classList.toggle('open'); });
on('#app', 'click', () => {});
on('h4', 'click', (e) => e.target.setAttribute('aria-expanded', 'true'));
""",
)

AUTOCOMPLETE = _page(
    "autocomplete",
    """
<h3>Autocomplete</h3>
<input id=city data-t=city value=Par placeholder=City>
<ul id=sugg class=menu><li data-t=s-paris>Paris</li><li data-t=s-parma>Parma</li><li data-t=s-paraty>Paraty</li></ul>
<div role=combobox aria-expanded=true data-t=combo tabindex=0>Country</div>
<div role=listbox id=countries data-t=countries><div role=option data-t=c-fr>France</div><div role=option data-t=c-it>Italy</div></div>
<div id=sugg2><div class=s2 data-t=s2-1><b>Lon</b>don</div><div class=s2 data-t=s2-2><b>Lon</b>ghua</div></div>
""",
    _BIND + """
on('#sugg', 'click', (e) => { document.getElementById('city').value = e.target.textContent; });
on('.s2', 'mousedown', () => {});
""",
)

ROWS = _page(
    "rows",
    """
<h3>Inbox</h3>
<div id=inbox>
  <div class=email data-t=mail-1><span class=from>Ann</span> <span class=subj>Lunch?</span>
    <span class=star data-t=star-1>☆</span></div>
  <div class=email data-t=mail-2><span class=from>Bob</span> <span class=subj>Report</span>
    <span class=star data-t=star-2>☆</span></div>
  <div class=email data-t=mail-3><span class=from>Cid</span> <span class=subj>Hello</span>
    <span class=star data-t=star-3>☆</span></div>
</div>
<table><tr class="row ptr" data-t=row-1><td>Order 1</td><td>$10</td></tr>
  <tr class="row ptr" data-t=row-2><td>Order 2</td><td>$12</td></tr></table>
<div class=card style="cursor:pointer" data-decoy=wrapper><a href=#c data-t=card-link>Read the article</a></div>
""",
    _BIND + """
on('.email', 'click', () => {});
on('.star', 'click', (e) => { e.stopPropagation(); e.target.textContent = '★'; });
on('tr.row', 'click', () => {});
""",
)

EDITOR = _page(
    "editor",
    """
<h3>Editors</h3>
<div class=toolbar><span class="tb ptr" data-t=bold>B</span> <span class="tb ptr" data-t=italic>I</span>
  <span class=tb data-t=underline>U</span></div>
<div contenteditable=true data-t=rich style="border:1px solid #999;min-height:40px">Hello <b>world</b></div>
<div contenteditable=plaintext-only data-t=plain style="border:1px solid #999;min-height:20px">plain</div>
<label class=switch data-t=dark><input type=checkbox class=vh> Dark mode</label>
<div class=ptr data-decoy=wrapper><span class=icon data-decoy=icon>⚙</span><button data-t=settings>Settings</button></div>
""",
    _BIND + """
on('.tb', 'mousedown', (e) => e.preventDefault());
""",
)

SHADOW = _page(
    "shadow",
    """
<h3>Shadow DOM widgets</h3>
<x-toggle data-t=open-toggle></x-toggle>
<x-closed></x-closed>
<x-stepper></x-stepper>
<x-disabled data-decoy=disabled></x-disabled>
""",
    """
customElements.define('x-toggle', class extends HTMLElement { constructor() { super();
  const r = this.attachShadow({mode: 'open'}); r.innerHTML = '<span part=t>Toggle</span>';
  this.addEventListener('click', () => {}); } });
customElements.define('x-closed', class extends HTMLElement { constructor() { super();
  const r = this.attachShadow({mode: 'closed'});
  r.innerHTML = '<div class=opt data-t=closed-a style="cursor:pointer">Alpha</div><div class=opt data-t=closed-b style="cursor:pointer">Beta</div>'; } });
customElements.define('x-stepper', class extends HTMLElement { constructor() { super();
  const r = this.attachShadow({mode: 'open'});
  r.innerHTML = '<span class=minus data-t=minus>−</span> <b>1</b> <span class=plus data-t=plus>+</span>';
  r.querySelectorAll('span').forEach((s) => s.addEventListener('click', () => {})); } });
customElements.define('x-disabled', class extends HTMLElement { constructor() { super();
  const r = this.attachShadow({mode: 'open'});
  r.innerHTML = '<div aria-disabled=true style="cursor:not-allowed">Locked</div>'; } });
""",
)

# Written after the detector was tuned on the pages above, as a held-out check. Its first run found three
# faults that were then fixed (a listener on a big root split into its children, a horizontal pager kept as
# one target, an svg icon never indexed), so it is no longer held out. It keeps one target the detector is
# known to miss: a drag handle with only a pointerdown listener and cursor: grab.
MISC = _page(
    "misc",
    """
<h3>Misc</h3>
<nav class=crumbs><span class=crumb data-t=crumb-home>Home</span> / <span class=crumb data-t=crumb-docs>Docs</span></nav>
<div id=root>
  <div class=toolbar><svg data-t=icon-gear width=20 height=20 viewBox="0 0 20 20"><circle cx=10 cy=10 r=8 /></svg>
    <span class=close data-t=close>×</span></div>
  <div class=cards>
    <div class=card data-t=card-1><h4>Alpha plan</h4><p>For small teams.</p></div>
    <div class=card data-t=card-2><h4>Beta plan</h4><p>For growing teams.</p></div>
  </div>
  <div class=pager><span class=pg data-t=pg-1>1</span> <span class=pg data-t=pg-2>2</span> <span class=pg data-t=pg-3>3</span></div>
  <div tabindex=0 data-t=focus-card>Keyboard-focusable card</div>
  <div tabindex=-1 data-decoy=programmatic-focus>Dialog content that only scripts focus.</div>
  <div class=handle data-t=handle style="cursor:grab">⠿ drag</div>
  <p data-decoy>Long explanatory paragraph with <b>bold</b> words and no handler at all.</p>
  <a href=#more data-t=more>More</a>
</div>
""",
    _BIND + """
on('#root', 'click', () => {});
on('.crumb', 'click', () => {});
on('svg', 'click', () => {});
on('.close', 'click', () => {});
on('.card', 'click', () => {});
on('.pager', 'click', () => {});
on('.handle', 'pointerdown', () => {});
""",
)


class SuitePage(NamedTuple):
    name: str
    html: str


SUITE = tuple(
    SuitePage(name, html)
    for name, html in (
        ("dropdown", DROPDOWN),
        ("tabs", TABS),
        ("accordion", ACCORDION),
        ("autocomplete", AUTOCOMPLETE),
        ("rows", ROWS),
        ("editor", EDITOR),
        ("shadow", SHADOW),
        ("misc", MISC),
    )
)

# `this`: an element of a tool's interactive set. The target it names, or null (see the module docstring).
LABEL_JS = """function() {
  const up = (n) => n.parentElement || (n.parentNode instanceof ShadowRoot ? n.parentNode.host : null);
  for (let e = this; e; e = up(e)) if (e.dataset && e.dataset.t) return e.dataset.t;
  const inner = this.querySelectorAll ? this.querySelectorAll('[data-t]') : [];
  if (inner.length === 1) return inner[0].dataset.t;
  return null;
}"""

# In the page: every visible target's name (open and closed shadow roots are walked by the page's own
# script through the hosts' shadowRoot where open; closed ones are listed by TARGETS_IN_CLOSED below).
TARGETS_JS = """() => {
  const out = [];
  const visit = (root) => {
    for (const e of root.querySelectorAll('*')) {
      if (e.dataset && e.dataset.t) {
        const r = e.getBoundingClientRect();
        if (r.width > 0 && r.height > 0 && r.bottom > 0 && r.top < innerHeight) out.push(e.dataset.t);
      }
      if (e.shadowRoot) visit(e.shadowRoot);
    }
  };
  visit(document);
  return out;
}"""
TARGETS_IN_CLOSED = ("closed-a", "closed-b")  # inside x-closed's closed shadow root (always visible)


def score(targets: list[str], labels: list[str | None]) -> dict[str, Any]:
    """Recall and precision of one tool on one page: `labels` is LABEL_JS's answer for each entry."""
    known = set(targets)
    named: set[str] = set()
    good = 0
    false: list[str | None] = []
    for label in labels:
        if label in known and label not in named:
            named.add(label)
            good += 1
        else:
            false.append(label)
    return {
        "targets": len(known),
        "entries": len(labels),
        "hits": len(named),
        "recall": len(named) / len(known) if known else 1.0,
        "precision": good / len(labels) if labels else 1.0,
        "missed": sorted(known - named),
        "false": [f if f is not None else "-" for f in false],
    }


def totals(per_page: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Suite totals: recall and precision over all targets and entries (micro averages)."""
    targets = sum(p["targets"] for p in per_page.values())
    entries = sum(p["entries"] for p in per_page.values())
    hits = sum(p["hits"] for p in per_page.values())
    return {
        "targets": targets,
        "entries": entries,
        "hits": hits,
        "recall": hits / targets if targets else 1.0,
        "precision": hits / entries if entries else 1.0,
    }
