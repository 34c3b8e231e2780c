// Headless UI: Combobox (type to filter, then pick) and Listbox.
import React, {useState} from 'react';
import {createRoot} from 'react-dom/client';
import {Combobox, ComboboxInput, ComboboxOption, ComboboxOptions, Field, Label, Listbox, ListboxButton,
  ListboxOption, ListboxOptions} from '@headlessui/react';
import {submit} from './common.js';

const PEOPLE = ['Wade Cooper', 'Arlene Mccoy', 'Devon Webb', 'Tom Cook', 'Tanya Fox', 'Hellen Schmidt'];
const PRIORITIES = ['Low', 'Normal', 'Urgent'];
const list = {background: 'white', border: '1px solid #888', padding: 4, margin: 0, listStyle: 'none'};

function App() {
  const [person, setPerson] = useState(null);
  const [query, setQuery] = useState('');
  const [priority, setPriority] = useState(null);
  const [saved, setSaved] = useState(null);
  const filtered = PEOPLE.filter((p) => p.toLowerCase().includes(query.toLowerCase()));
  return (
    <div style={{padding: 16, maxWidth: 480, fontFamily: 'sans-serif'}}>
      <h1>Ticket (Headless UI)</h1>
      <Field>
        <Label>Assignee</Label>
        <Combobox value={person} onChange={setPerson} onClose={() => setQuery('')}>
          <ComboboxInput displayValue={(p) => p || ''} onChange={(e) => setQuery(e.target.value)} />
          <ComboboxOptions anchor="bottom start" style={list}>
            {filtered.map((p) => <ComboboxOption key={p} value={p} style={{padding: 4}}>{p}</ComboboxOption>)}
          </ComboboxOptions>
        </Combobox>
      </Field>
      <Field style={{marginTop: 16}}>
        <Label>Priority</Label>
        <Listbox value={priority} onChange={setPriority}>
          <ListboxButton style={{minWidth: 120}}>{priority || 'Pick one'}</ListboxButton>
          <ListboxOptions anchor="bottom start" style={list}>
            {PRIORITIES.map((p) => <ListboxOption key={p} value={p} style={{padding: 4}}>{p}</ListboxOption>)}
          </ListboxOptions>
        </Listbox>
      </Field>
      <p><button type="button" onClick={async () => setSaved(await submit('headless', {person, priority}))}>
        Create ticket</button></p>
      {saved && <p role="status">Saved order {saved}</p>}
    </div>
  );
}

createRoot(document.getElementById('root')).render(<App />);
