// react-window: 10,000 rows, only the visible ones in the DOM; the task picks a row far down.
import React, {useState} from 'react';
import {createRoot} from 'react-dom/client';
import {List} from 'react-window';
import {submit} from './common.js';

function Row({index, style, pick}) {
  const n = index + 1;
  return (
    <div style={{...style, display: 'flex', gap: 12, alignItems: 'center', borderBottom: '1px solid #eee'}}>
      <span>Item {n}</span>
      <button type="button" onClick={() => pick(n)}>Pick item {n}</button>
    </div>
  );
}

function App() {
  const [picked, setPicked] = useState(null);
  const [saved, setSaved] = useState(null);
  return (
    <div style={{padding: 16, fontFamily: 'sans-serif'}}>
      <h1>Inventory (react-window, 10,000 rows)</h1>
      <p>Picked: {picked ? `Item ${picked}` : 'nothing'}</p>
      <div style={{height: 400, width: 480, border: '1px solid #888'}}>
        <List rowComponent={Row} rowCount={10000} rowHeight={36} rowProps={{pick: setPicked}} />
      </div>
      <p><button type="button" onClick={async () => setSaved(await submit('virtual-list', {picked}))}>Reserve</button></p>
      {saved && <p role="status">Saved order {saved}</p>}
    </div>
  );
}

createRoot(document.getElementById('root')).render(<App />);
