// Shared by every page of the real-web suite: the submit that sends the form's values to the test server
// (the suite checks them there, not in the DOM). The record of what reached the page is the agents' own
// init script (tests/realweb/agents.py: RECORDER), so the Python apps' pages have it too.

export async function submit(page, values) {
  const response = await fetch(`/realweb/submit/${page}`, {
    method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify(values),
  });
  const {order} = await response.json();
  return order;
}
