// Select2: a searchable dropdown over the original <select>, which it keeps visually hidden; its options are
// drawn in a list appended to <body> once the selection box is opened.
import $ from './jquery-global.js';
import select2 from 'select2';
import 'select2/dist/css/select2.css';
import {submit} from './common.js';

select2(window, $);
document.getElementById('root').innerHTML = `
<div style="padding: 16px; max-width: 420px; font-family: sans-serif">
  <h1>Transfer (Select2)</h1>
  <p><label for="country">Destination country</label><br>
  <select id="country" style="width: 100%">
    <option value="">Pick a country</option>
    <option value="AT">Austria</option><option value="BE">Belgium</option><option value="DK">Denmark</option>
    <option value="FI">Finland</option><option value="FR">France</option><option value="DE">Germany</option>
    <option value="GR">Greece</option><option value="IE">Ireland</option><option value="IT">Italy</option>
    <option value="NL">Netherlands</option><option value="NO">Norway</option><option value="PL">Poland</option>
    <option value="PT">Portugal</option><option value="ES">Spain</option><option value="SE">Sweden</option>
  </select></p>
  <p><button type="button" id="transfer">Send transfer</button></p>
  <p id="status" role="status"></p>
</div>`;
$('#country').select2({placeholder: 'Pick a country'});
$('#transfer').on('click', async () => {
  const order = await submit('select2', {country: $('#country').val()});
  $('#status').text(`Saved order ${order}`);
});
