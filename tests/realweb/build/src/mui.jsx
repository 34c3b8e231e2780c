// MUI: Select, Autocomplete, Tabs, Accordion, Dialog, a styled Checkbox (its real input is transparent on top).
import React, {useState} from 'react';
import {createRoot} from 'react-dom/client';
import {
  Accordion, AccordionDetails, AccordionSummary, Autocomplete, Box, Button, Checkbox, Dialog, DialogActions,
  DialogContent, DialogTitle, FormControl, FormControlLabel, InputLabel, MenuItem, Select, Tab, Tabs, TextField,
  Typography,
} from '@mui/material';
import {submit} from './common.js';

const COUNTRIES = ['Argentina', 'Belgium', 'Canada', 'Denmark', 'France', 'Germany', 'Japan', 'Norway', 'Portugal'];

function App() {
  const [name, setName] = useState('');
  const [color, setColor] = useState('');
  const [country, setCountry] = useState(null);
  const [tab, setTab] = useState(0);
  const [express, setExpress] = useState(false);
  const [notes, setNotes] = useState('');
  const [gift, setGift] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [saved, setSaved] = useState(null);
  const confirm = async () => {
    setConfirming(false);
    setSaved(await submit('mui', {name, color, country, express, notes, gift}));
  };
  return (
    <Box sx={{p: 2, maxWidth: 640}}>
      <Typography variant="h5">Order (MUI)</Typography>
      <TextField label="Customer name" value={name} onChange={(e) => setName(e.target.value)} margin="normal" fullWidth />
      <FormControl fullWidth margin="normal">
        <InputLabel id="color-label">Color</InputLabel>
        <Select labelId="color-label" label="Color" value={color} onChange={(e) => setColor(e.target.value)}>
          {['Red', 'Green', 'Blue'].map((c) => <MenuItem key={c} value={c}>{c}</MenuItem>)}
        </Select>
      </FormControl>
      <Autocomplete options={COUNTRIES} value={country} onChange={(_e, v) => setCountry(v)}
        renderInput={(params) => <TextField {...params} label="Country" margin="normal" />} />
      <Tabs value={tab} onChange={(_e, v) => setTab(v)}>
        <Tab label="Standard" />
        <Tab label="Shipping" />
      </Tabs>
      {tab === 1 && (
        <FormControlLabel control={<Checkbox checked={express} onChange={(e) => setExpress(e.target.checked)} />}
          label="Express delivery" />
      )}
      <Accordion>
        <AccordionSummary>More details</AccordionSummary>
        <AccordionDetails>
          <TextField label="Notes" multiline minRows={2} value={notes} onChange={(e) => setNotes(e.target.value)} fullWidth />
        </AccordionDetails>
      </Accordion>
      <FormControlLabel control={<Checkbox checked={gift} onChange={(e) => setGift(e.target.checked)} />} label="Gift wrap" />
      <Box sx={{mt: 2}}><Button variant="contained" onClick={() => setConfirming(true)}>Place order</Button></Box>
      <Dialog open={confirming} onClose={() => setConfirming(false)}>
        <DialogTitle>Confirm the order?</DialogTitle>
        <DialogContent>The order will be sent.</DialogContent>
        <DialogActions>
          <Button onClick={() => setConfirming(false)}>Cancel</Button>
          <Button onClick={confirm}>Confirm</Button>
        </DialogActions>
      </Dialog>
      {saved && <Typography role="status">Saved order {saved}</Typography>}
    </Box>
  );
}

createRoot(document.getElementById('root')).render(<App />);
