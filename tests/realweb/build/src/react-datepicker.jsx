// react-datepicker: a text input that opens a calendar of day cells (role option).
import React, {useState} from 'react';
import {createRoot} from 'react-dom/client';
import DatePicker from 'react-datepicker';
import 'react-datepicker/dist/react-datepicker.css';
import {submit} from './common.js';

function App() {
  const [date, setDate] = useState(null);
  const [saved, setSaved] = useState(null);
  const iso = (d) => d && `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
  return (
    <div style={{padding: 16, fontFamily: 'sans-serif'}}>
      <h1>Delivery (react-datepicker)</h1>
      <label htmlFor="delivery">Delivery date</label>
      <DatePicker id="delivery" selected={date} onChange={setDate} placeholderText="Pick a date" />
      <p><button type="button" onClick={async () => setSaved(await submit('react-datepicker', {date: iso(date)}))}>
        Schedule delivery</button></p>
      {saved && <p role="status">Saved order {saved}</p>}
    </div>
  );
}

createRoot(document.getElementById('root')).render(<App />);
