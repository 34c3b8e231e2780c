// jQuery UI: an autocomplete (its suggestions are a menu of plain <li>/<div> items) and a datepicker (its days
// are links in a table), as a typical jQuery page sets them up.
import $ from './jquery-global.js';
import 'jquery-ui/ui/version.js';
import 'jquery-ui/ui/keycode.js';
import 'jquery-ui/ui/position.js';
import 'jquery-ui/ui/unique-id.js';
import 'jquery-ui/ui/widget.js';
import 'jquery-ui/ui/widgets/menu.js';
import 'jquery-ui/ui/widgets/autocomplete.js';
import 'jquery-ui/ui/widgets/datepicker.js';
import 'jquery-ui/themes/base/core.css';
import 'jquery-ui/themes/base/menu.css';
import 'jquery-ui/themes/base/autocomplete.css';
import 'jquery-ui/themes/base/datepicker.css';
import './jquery-ui-theme.css';
import {submit} from './common.js';

document.getElementById('root').innerHTML = `
<div style="padding: 16px; max-width: 420px; font-family: sans-serif">
  <h1>Delivery (jQuery UI)</h1>
  <p><label for="city">Destination city</label><br><input id="city" type="text"></p>
  <p><label for="delivery">Delivery date</label><br><input id="delivery" type="text" autocomplete="off"></p>
  <p><button type="button" id="send">Send parcel</button></p>
  <p id="status" role="status"></p>
</div>`;
$('#city').autocomplete({
  source: ['Amsterdam', 'Antwerp', 'Athens', 'Barcelona', 'Berlin', 'Bern', 'Bratislava', 'Brussels', 'Budapest',
    'Copenhagen', 'Dublin', 'Helsinki', 'Lisbon', 'Ljubljana', 'London', 'Madrid', 'Oslo', 'Paris', 'Prague',
    'Riga', 'Rome', 'Stockholm', 'Tallinn', 'Vienna', 'Vilnius', 'Warsaw', 'Zagreb'],
  minLength: 2,
});
$('#delivery').datepicker({dateFormat: 'yy-mm-dd'});
$('#send').on('click', async () => {
  const order = await submit('jquery-ui', {city: $('#city').val(), date: $('#delivery').val()});
  $('#status').text(`Saved order ${order}`);
});
