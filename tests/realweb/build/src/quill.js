// Quill: a rich-text editor (a contenteditable the library owns).
import Quill from 'quill';
import 'quill/dist/quill.snow.css';
import {submit} from './common.js';

document.getElementById('root').innerHTML = `
<div style="padding: 16px; max-width: 560px; font-family: sans-serif">
  <h1>Note (Quill)</h1>
  <div id="editor" style="height: 120px"></div>
  <p><button type="button" id="save">Save note</button></p>
  <p id="status" role="status"></p>
</div>`;
const quill = new Quill('#editor', {theme: 'snow', placeholder: 'Write the delivery note'});
quill.root.setAttribute('aria-label', 'Delivery note');
document.getElementById('save').addEventListener('click', async () => {
  const order = await submit('quill', {note: quill.getText().trim()});
  document.getElementById('status').textContent = `Saved order ${order}`;
});
