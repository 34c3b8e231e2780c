// Plain Vue 3, no component library: a hand-written form with v-model bindings (written as render functions,
// what a template compiles to) over a text input, a native <select>, radio buttons and a button.
import {createApp, h, ref} from 'vue';
import {submit} from './common.js';

const App = {
  setup() {
    const name = ref('');
    const size = ref('');
    const crust = ref('thin');
    const saved = ref(null);
    const send = async () => {
      saved.value = await submit('vue-form', {name: name.value, size: size.value, crust: crust.value});
    };
    const crusts = [['thin', 'Thin crust'], ['thick', 'Thick crust'], ['stuffed', 'Stuffed crust']];
    return () => h('div', {style: 'padding: 16px; max-width: 420px; font-family: sans-serif'}, [
      h('h1', 'Pizza order (Vue)'),
      h('form', {onSubmit: (e) => { e.preventDefault(); send(); }}, [
        h('p', [
          h('label', {for: 'name'}, 'Your name'), h('br'),
          h('input', {id: 'name', type: 'text', value: name.value, onInput: (e) => { name.value = e.target.value; }}),
        ]),
        h('p', [
          h('label', {for: 'size'}, 'Pizza size'), h('br'),
          h('select', {id: 'size', value: size.value, onChange: (e) => { size.value = e.target.value; }}, [
            h('option', {value: ''}, 'Choose a size'),
            h('option', {value: 'small'}, 'Small'),
            h('option', {value: 'medium'}, 'Medium'),
            h('option', {value: 'large'}, 'Large'),
          ]),
        ]),
        h('fieldset', [
          h('legend', 'Crust'),
          ...crusts.map(([value, text]) => h('div', [
            h('input', {type: 'radio', id: `crust-${value}`, name: 'crust', value, checked: crust.value === value,
              onChange: () => { crust.value = value; }}),
            h('label', {for: `crust-${value}`}, text),
          ])),
        ]),
        h('p', [h('button', {type: 'submit'}, 'Order pizza')]),
      ]),
      h('p', {role: 'status'}, saved.value ? `Saved order ${saved.value}` : ''),
    ]);
  },
};

createApp(App).mount('#root');
