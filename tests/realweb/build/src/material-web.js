// Google's Material Web (@material/web, Lit): text field, select, checkbox and button, each a web component whose
// control lives in its shadow root; the select's options are md-select-option elements in its menu.
import '@material/web/textfield/outlined-text-field.js';
import '@material/web/select/outlined-select.js';
import '@material/web/select/select-option.js';
import '@material/web/checkbox/checkbox.js';
import '@material/web/button/filled-button.js';
import {submit} from './common.js';

document.getElementById('root').innerHTML = `
<div style="padding: 16px; max-width: 420px; font-family: Roboto, sans-serif; display: flex; flex-direction: column; gap: 16px">
  <h1>Library card (Material Web)</h1>
  <md-outlined-text-field id="reader" label="Reader name"></md-outlined-text-field>
  <md-outlined-select id="branch" label="Branch">
    <md-select-option value="central"><div slot="headline">Central</div></md-select-option>
    <md-select-option value="harbour"><div slot="headline">Harbour</div></md-select-option>
    <md-select-option value="university"><div slot="headline">University</div></md-select-option>
  </md-outlined-select>
  <label style="display: flex; align-items: center; gap: 8px">
    <md-checkbox id="newsletter" touch-target="wrapper"></md-checkbox>Send me the newsletter
  </label>
  <div><md-filled-button id="apply">Apply for card</md-filled-button></div>
  <p id="status" role="status"></p>
</div>`;
document.getElementById('apply').addEventListener('click', async () => {
  const values = {
    reader: document.getElementById('reader').value,
    branch: document.getElementById('branch').value,
    newsletter: document.getElementById('newsletter').checked,
  };
  const order = await submit('material-web', values);
  document.getElementById('status').textContent = `Saved order ${order}`;
});
