"""The page changes of the incremental-state benchmark (benchmarks/incremental.py), shared with the peers'
adapters: each is run in the page, the same script for every system, before the state is read again.

SETUP runs once per page before anything is measured: a style rule for the toggled class (a real change:
an outline and padding, so boxes move), the element in the middle of the body, the first visible text field
(focused, so typing needs no click), and where rows go (the generated pages' list, the docs' body text).
"""

from __future__ import annotations

SETUP = """(() => {
  if (window.__bench) return true;
  const style = document.createElement('style');
  style.textContent = '.cdp-bench-toggled { outline: 3px solid #c00; padding: 2px; }';
  document.head.append(style);
  const all = document.body.querySelectorAll('*');
  const field = [...document.querySelectorAll('input, textarea')].find(
    (e) => ['text', 'search', 'textarea'].includes(e.type) && e.checkVisibility());
  const host = document.getElementById('rows') || document.querySelector('div.body') || document.body;
  window.__bench = {middle: all[Math.floor(all.length / 2)], field, host, n: 0};
  if (field) field.focus();
  return !!field;
})()"""

# name -> (what it is, the script; "insertText" means one trusted character typed into the focused field)
CHANGES = {
    "type": ("one character typed into a focused text field", "insertText"),
    "class": ("one class toggled on the element in the middle of the body (outline and padding)",
              "(() => { window.__bench.middle.classList.toggle('cdp-bench-toggled'); })()"),
    "row": ("one row appended at the end of the main content (a row of the list, a paragraph of the docs)",
            """(() => { const b = window.__bench; b.n++;
              const html = b.host.id === 'rows'
                ? `<div class="row"><span>Appended ${b.n}</span> <button type="button">Appended ${b.n}</button></div>`
                : `<p>Appended ${b.n} <a href="#appended-${b.n}">a link</a></p>`;
              b.host.insertAdjacentHTML('beforeend', html); })()"""),
    "large": ("every other child of the main content hidden or shown again (a large change)",
              """(() => { const kids = window.__bench.host.children;
              for (let i = 0; i < kids.length; i += 2) kids[i].hidden = !kids[i].hidden; })()"""),
}
NEXT_FRAME = "new Promise(done => { requestAnimationFrame(() => done()); setTimeout(done, 100); })"
