// jQuery on window before any plugin runs: jQuery UI's widgets and Select2 look for the global (ESM imports
// hoist, so the pages import this module first).
import jquery from 'jquery';

window.jQuery = window.$ = jquery;
export default jquery;
