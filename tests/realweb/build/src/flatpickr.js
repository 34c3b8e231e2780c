// flatpickr: an input that opens a calendar of day spans.
import flatpickr from 'flatpickr';
import 'flatpickr/dist/flatpickr.min.css';
import {submit} from './common.js';

document.getElementById('root').innerHTML = `
<div style="padding: 16px; font-family: sans-serif">
  <h1>Booking (flatpickr)</h1>
  <label for="arrival">Arrival</label> <input id="arrival" placeholder="Arrival date">
  <p><button type="button" id="book">Book stay</button></p>
  <p id="status" role="status"></p>
</div>`;
const picker = flatpickr('#arrival', {dateFormat: 'Y-m-d'});
document.getElementById('book').addEventListener('click', async () => {
  const order = await submit('flatpickr', {arrival: picker.input.value});
  document.getElementById('status').textContent = `Saved order ${order}`;
});
