// Vue 3 + Element Plus: el-form with el-select (its options are drawn in a popper appended to <body>),
// el-input, el-checkbox and el-button, as render functions (h()), so no single-file-component compiler.
import {createApp, h, ref} from 'vue';
// Element Plus's on-demand import (what its unplugin-vue-components resolver writes): each component and its
// styles from its own module, so the bundle holds only these.
import {ElButton} from 'element-plus/es/components/button/index.mjs';
import {ElCheckbox} from 'element-plus/es/components/checkbox/index.mjs';
import {ElForm, ElFormItem} from 'element-plus/es/components/form/index.mjs';
import {ElInput} from 'element-plus/es/components/input/index.mjs';
import {ElOption, ElSelect} from 'element-plus/es/components/select/index.mjs';
import 'element-plus/es/components/button/style/css.mjs';
import 'element-plus/es/components/checkbox/style/css.mjs';
import 'element-plus/es/components/form/style/css.mjs';
import 'element-plus/es/components/form-item/style/css.mjs';
import 'element-plus/es/components/input/style/css.mjs';
import 'element-plus/es/components/select/style/css.mjs';
import 'element-plus/es/components/option/style/css.mjs';
import {submit} from './common.js';

const App = {
  setup() {
    const warehouse = ref('');
    const contact = ref('');
    const fragile = ref(false);
    const saved = ref(null);
    const send = async () => {
      saved.value = await submit('element-plus', {warehouse: warehouse.value, contact: contact.value, fragile: fragile.value});
    };
    const warehouses = [['rotterdam', 'Rotterdam'], ['hamburg', 'Hamburg'], ['antwerp', 'Antwerp'], ['gdansk', 'Gdansk']];
    return () => h('div', {style: 'padding: 16px; max-width: 480px'}, [
      h('h1', 'Pickup (Element Plus)'),
      h(ElForm, {labelPosition: 'top'}, () => [
        h(ElFormItem, {label: 'Warehouse'}, () => h(ElSelect, {
          modelValue: warehouse.value, 'onUpdate:modelValue': (v) => { warehouse.value = v; },
          placeholder: 'Select a warehouse',
        }, () => warehouses.map(([value, label]) => h(ElOption, {value, label})))),
        h(ElFormItem, {label: 'Contact person'}, () => h(ElInput, {
          modelValue: contact.value, 'onUpdate:modelValue': (v) => { contact.value = v; },
        })),
        h(ElFormItem, null, () => h(ElCheckbox, {
          modelValue: fragile.value, 'onUpdate:modelValue': (v) => { fragile.value = v; }, label: 'Fragile goods',
        })),
        h(ElFormItem, null, () => h(ElButton, {type: 'primary', onClick: send}, () => 'Request pickup')),
      ]),
      h('p', {role: 'status'}, saved.value ? `Saved order ${saved.value}` : ''),
    ]);
  },
};

createApp(App).mount('#root');
