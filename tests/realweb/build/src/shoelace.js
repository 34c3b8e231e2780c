// Shoelace: web components whose controls live in shadow DOM (input, select, checkbox, button).
import '@shoelace-style/shoelace/dist/components/input/input.js';
import '@shoelace-style/shoelace/dist/components/select/select.js';
import '@shoelace-style/shoelace/dist/components/option/option.js';
import '@shoelace-style/shoelace/dist/components/checkbox/checkbox.js';
import '@shoelace-style/shoelace/dist/components/button/button.js';
import {submit} from './common.js';

document.getElementById('root').innerHTML = `
  <h1>Booking (Shoelace)</h1>
  <sl-input id="guest" label="Guest name"></sl-input>
  <sl-select id="room" label="Room" placeholder="Choose a room">
    <sl-option value="single">Single</sl-option>
    <sl-option value="double">Double</sl-option>
    <sl-option value="suite">Suite</sl-option>
  </sl-select>
  <p><sl-checkbox id="breakfast">Breakfast included</sl-checkbox></p>
  <sl-button id="book" variant="primary">Book room</sl-button>
  <p id="status" role="status"></p>`;
document.getElementById('book').addEventListener('click', async () => {
  const values = {
    guest: document.getElementById('guest').value,
    room: document.getElementById('room').value,
    breakfast: document.getElementById('breakfast').checked,
  };
  const order = await submit('shoelace', values);
  // Shown inside the button's own shadow root too: a change only a shadow root holds.
  document.getElementById('status').textContent = `Saved order ${order}`;
});
