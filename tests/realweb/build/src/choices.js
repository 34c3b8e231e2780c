// Choices.js (vanilla): a dropdown over the original <select>, which it keeps visually hidden, beside a plain
// text input.
import Choices from 'choices.js';
import 'choices.js/public/assets/styles/choices.css';
import {submit} from './common.js';

document.getElementById('root').innerHTML = `
<div style="padding: 16px; max-width: 420px; font-family: sans-serif">
  <h1>Support request (Choices.js)</h1>
  <p><label for="email">Email address</label><br><input id="email" type="email" style="width: 100%; box-sizing: border-box"></p>
  <label for="topic">Topic</label>
  <select id="topic">
    <option value="">Pick a topic</option>
    <option value="billing">Billing</option><option value="shipping">Shipping</option>
    <option value="returns">Returns</option><option value="account">Account</option>
  </select>
  <p><button type="button" id="request">Send request</button></p>
  <p id="status" role="status"></p>
</div>`;
const topic = new Choices('#topic', {searchEnabled: true, shouldSort: false, itemSelectText: ''});
document.getElementById('request').addEventListener('click', async () => {
  const values = {email: document.getElementById('email').value, topic: topic.getValue(true)};
  const order = await submit('choices', values);
  document.getElementById('status').textContent = `Saved order ${order}`;
});
