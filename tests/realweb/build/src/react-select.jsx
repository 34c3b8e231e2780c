// react-select: a searchable select and a non-searchable one (its keyboard target is a 1 px transparent input,
// its control a plain div with a mouse-down handler).
import React, {useState} from 'react';
import {createRoot} from 'react-dom/client';
import Select from 'react-select';
import {submit} from './common.js';

const CITIES = ['Amsterdam', 'Berlin', 'Copenhagen', 'Dublin', 'Edinburgh', 'Florence', 'Geneva', 'Helsinki']
  .map((c) => ({value: c.toLowerCase(), label: c}));
const SIZES = ['Small', 'Medium', 'Large'].map((s) => ({value: s.toLowerCase(), label: s}));

function App() {
  const [city, setCity] = useState(null);
  const [size, setSize] = useState(null);
  const [saved, setSaved] = useState(null);
  return (
    <div style={{padding: 16, maxWidth: 480, fontFamily: 'sans-serif'}}>
      <h1>Order (react-select)</h1>
      <label id="city-label" htmlFor="city-input">City</label>
      <Select inputId="city-input" aria-labelledby="city-label" options={CITIES} value={city} onChange={setCity} />
      <p id="size-label">Size</p>
      <Select aria-label="Size" options={SIZES} value={size} onChange={setSize} isSearchable={false} />
      <p><button type="button" onClick={async () => setSaved(await submit('react-select',
        {city: city && city.value, size: size && size.value}))}>Place order</button></p>
      {saved && <p role="status">Saved order {saved}</p>}
    </div>
  );
}

createRoot(document.getElementById('root')).render(<App />);
