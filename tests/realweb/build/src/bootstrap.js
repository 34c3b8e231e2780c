// Bootstrap 5 (no framework): a dropdown, a collapse that hides a field, a modal that confirms.
import 'bootstrap/dist/css/bootstrap.min.css';
import {Collapse, Dropdown, Modal} from 'bootstrap';
import {submit} from './common.js';

document.getElementById('root').innerHTML = `
<div class="container py-3" style="max-width: 560px">
  <h1 class="h3">Ticket (Bootstrap)</h1>
  <div class="dropdown mb-3">
    <button class="btn btn-secondary dropdown-toggle" type="button" data-bs-toggle="dropdown" aria-expanded="false">Category</button>
    <ul class="dropdown-menu">
      <li><a class="dropdown-item" href="#" data-value="billing">Billing</a></li>
      <li><a class="dropdown-item" href="#" data-value="hardware">Hardware</a></li>
      <li><a class="dropdown-item" href="#" data-value="software">Software</a></li>
    </ul>
    <span id="category" class="ms-2">none</span>
  </div>
  <p><button class="btn btn-link" type="button" data-bs-toggle="collapse" data-bs-target="#address">Add a shipping address</button></p>
  <div class="collapse" id="address"><label class="form-label" for="street">Street</label><input class="form-control" id="street"></div>
  <button type="button" class="btn btn-primary mt-3" data-bs-toggle="modal" data-bs-target="#confirm">Open ticket</button>
  <div class="modal fade" id="confirm" tabindex="-1" aria-labelledby="confirm-title" aria-hidden="true">
    <div class="modal-dialog"><div class="modal-content">
      <div class="modal-header"><h2 class="modal-title h5" id="confirm-title">Open this ticket?</h2></div>
      <div class="modal-body">Support will answer within a day.</div>
      <div class="modal-footer"><button type="button" class="btn btn-secondary" data-bs-dismiss="modal">Cancel</button>
        <button type="button" class="btn btn-primary" id="send">Send ticket</button></div>
    </div></div>
  </div>
  <p id="status" role="status"></p>
</div>`;
for (const el of document.querySelectorAll('[data-bs-toggle="dropdown"]')) Dropdown.getOrCreateInstance(el);
for (const el of document.querySelectorAll('.collapse')) Collapse.getOrCreateInstance(el, {toggle: false});
let category = null;
for (const item of document.querySelectorAll('.dropdown-item')) {
  item.addEventListener('click', (e) => {
    e.preventDefault();
    category = item.dataset.value;
    document.getElementById('category').textContent = item.textContent;
  });
}
const modal = Modal.getOrCreateInstance(document.getElementById('confirm'));
document.getElementById('send').addEventListener('click', async () => {
  modal.hide();
  const order = await submit('bootstrap', {category, street: document.getElementById('street').value});
  document.getElementById('status').textContent = `Saved order ${order}`;
});
