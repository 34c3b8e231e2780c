// Radix UI: Select, Tabs, Accordion, Dialog (unstyled primitives with minimal CSS so they are visible).
import React, {useState} from 'react';
import {createRoot} from 'react-dom/client';
import * as Accordion from '@radix-ui/react-accordion';
import * as Dialog from '@radix-ui/react-dialog';
import * as RSelect from '@radix-ui/react-select';
import * as Tabs from '@radix-ui/react-tabs';
import {submit} from './common.js';

const item = {padding: '4px 8px', cursor: 'default', outline: 'none'};

function App() {
  const [plan, setPlan] = useState('');
  const [seats, setSeats] = useState('1');
  const [coupon, setCoupon] = useState('');
  const [open, setOpen] = useState(false);
  const [saved, setSaved] = useState(null);
  const confirm = async () => { setOpen(false); setSaved(await submit('radix', {plan, seats, coupon})); };
  return (
    <div style={{padding: 16, maxWidth: 520, fontFamily: 'sans-serif'}}>
      <h1>Subscription (Radix)</h1>
      <label id="plan-label">Plan</label>{' '}
      <RSelect.Root value={plan} onValueChange={setPlan}>
        <RSelect.Trigger aria-labelledby="plan-label" style={{minWidth: 160}}>
          <RSelect.Value placeholder="Choose a plan" />
        </RSelect.Trigger>
        <RSelect.Portal>
          <RSelect.Content position="popper" style={{background: 'white', border: '1px solid #888'}}>
            <RSelect.Viewport>
              {['Starter', 'Team', 'Enterprise'].map((p) => (
                <RSelect.Item key={p} value={p.toLowerCase()} style={item}><RSelect.ItemText>{p}</RSelect.ItemText></RSelect.Item>
              ))}
            </RSelect.Viewport>
          </RSelect.Content>
        </RSelect.Portal>
      </RSelect.Root>
      <Tabs.Root defaultValue="basic" style={{marginTop: 16}}>
        <Tabs.List aria-label="Settings">
          <Tabs.Trigger value="basic">Basic</Tabs.Trigger>
          <Tabs.Trigger value="team">Team size</Tabs.Trigger>
        </Tabs.List>
        <Tabs.Content value="basic"><p>Basic settings</p></Tabs.Content>
        <Tabs.Content value="team">
          <label>Seats <input type="number" value={seats} onChange={(e) => setSeats(e.target.value)} /></label>
        </Tabs.Content>
      </Tabs.Root>
      <Accordion.Root type="single" collapsible style={{marginTop: 16}}>
        <Accordion.Item value="coupon">
          <Accordion.Header><Accordion.Trigger>Have a coupon?</Accordion.Trigger></Accordion.Header>
          <Accordion.Content>
            <label>Coupon code <input value={coupon} onChange={(e) => setCoupon(e.target.value)} /></label>
          </Accordion.Content>
        </Accordion.Item>
      </Accordion.Root>
      <Dialog.Root open={open} onOpenChange={setOpen}>
        <Dialog.Trigger style={{marginTop: 16}}>Subscribe</Dialog.Trigger>
        <Dialog.Portal>
          <Dialog.Overlay style={{position: 'fixed', inset: 0, background: 'rgba(0,0,0,.3)'}} />
          <Dialog.Content style={{position: 'fixed', top: '30%', left: '30%', background: 'white', padding: 24}}>
            <Dialog.Title>Confirm subscription</Dialog.Title>
            <Dialog.Description>You will be charged monthly.</Dialog.Description>
            <Dialog.Close>Cancel</Dialog.Close>{' '}
            <button type="button" onClick={confirm}>Confirm</button>
          </Dialog.Content>
        </Dialog.Portal>
      </Dialog.Root>
      {saved && <p role="status">Saved order {saved}</p>}
    </div>
  );
}

createRoot(document.getElementById('root')).render(<App />);
