// Ant Design: Select, Tabs and DatePicker (its calendar's day cells are plain table cells).
import React, {useState} from 'react';
import {createRoot} from 'react-dom/client';
import {Button, DatePicker, Form, Input, Select, Tabs} from 'antd';
import {submit} from './common.js';

function App() {
  const [department, setDepartment] = useState(null);
  const [date, setDate] = useState(null);
  const [vat, setVat] = useState('');
  const [saved, setSaved] = useState(null);
  return (
    <div style={{padding: 16, maxWidth: 560}}>
      <h1>Expense (Ant Design)</h1>
      <Form layout="vertical">
        <Form.Item label="Department" htmlFor="department">
          <Select id="department" value={department} onChange={setDepartment} placeholder="Select a department"
            options={['Sales', 'Research', 'Support'].map((d) => ({value: d, label: d}))} />
        </Form.Item>
        <Form.Item label="Expense date" htmlFor="expense-date">
          <DatePicker id="expense-date" onChange={(d) => setDate(d ? d.format('YYYY-MM-DD') : null)} />
        </Form.Item>
        <Tabs items={[
          {key: 'general', label: 'General', children: <p>General settings</p>},
          {key: 'billing', label: 'Billing', children: (
            <Form.Item label="VAT number" htmlFor="vat"><Input id="vat" value={vat} onChange={(e) => setVat(e.target.value)} /></Form.Item>
          )},
        ]} />
        <Button type="primary" onClick={async () => setSaved(await submit('antd', {department, date, vat}))}>Submit expense</Button>
      </Form>
      {saved && <p role="status">Saved order {saved}</p>}
    </div>
  );
}

createRoot(document.getElementById('root')).render(<App />);
