// Shared by every page of the real-web suite: a recorder of what reached the page, and the submit that
// sends the form's values to the test server (the suite checks them there, not in the DOM).

// Every trusted input event the page received, with the text of the element it reached (the suite counts
// wrong-element actions and silent no-ops from it). A plain property the suite reads with evaluate.
window.__events = [];
const describe = (el) => {
  if (!el || el.nodeType !== 1) return '';
  const label = el.getAttribute('aria-label') || el.getAttribute('name') || el.getAttribute('placeholder') || '';
  return `${el.localName}|${label}|${(el.textContent || '').trim().slice(0, 60)}`;
};
for (const type of ['pointerdown', 'click', 'keydown', 'input', 'change']) {
  window.addEventListener(type, (ev) => {
    if (!ev.isTrusted && type !== 'input' && type !== 'change') return;
    const path = ev.composedPath().filter((n) => n.nodeType === 1).slice(0, 8).map(describe);
    window.__events.push({type, path, trusted: ev.isTrusted});
  }, {capture: true});
}

export async function submit(page, values) {
  const response = await fetch(`/realweb/submit/${page}`, {
    method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify(values),
  });
  const {order} = await response.json();
  return order;
}
