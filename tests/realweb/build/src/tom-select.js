// Tom Select: a searchable dropdown over the original <select>, which it keeps visually hidden.
import TomSelect from 'tom-select';
import 'tom-select/dist/css/tom-select.css';
import {submit} from './common.js';

document.getElementById('root').innerHTML = `
<div style="padding: 16px; max-width: 420px; font-family: sans-serif">
  <h1>Shipment (Tom Select)</h1>
  <label for="carrier">Carrier</label>
  <select id="carrier" placeholder="Pick a carrier">
    <option value="">Pick a carrier</option>
    <option value="dhl">DHL</option><option value="fedex">FedEx</option><option value="ups">UPS</option>
    <option value="postnl">PostNL</option>
  </select>
  <p><button type="button" id="ship">Ship it</button></p>
  <p id="status" role="status"></p>
</div>`;
const select = new TomSelect('#carrier', {create: false});
document.getElementById('ship').addEventListener('click', async () => {
  const order = await submit('tom-select', {carrier: select.getValue()});
  document.getElementById('status').textContent = `Saved order ${order}`;
});
