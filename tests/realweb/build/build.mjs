// Bundles each page of src/ into ../pages/<name>.html + chunks (one shared copy of React and friends).
// Run by tools/build-realweb-pages.sh; the output is committed so the suite needs no npm at test time.
import {build} from 'esbuild';
import {existsSync, mkdirSync, readdirSync, rmSync, writeFileSync} from 'node:fs';

const PAGES = ['mui', 'react-select', 'radix', 'headless', 'virtual-list', 'shoelace', 'antd', 'react-datepicker',
  'bootstrap', 'tom-select', 'flatpickr', 'quill', 'codemirror', 'element-plus', 'vue-form', 'material-web', 'jquery-ui',
  'select2', 'choices'];
const out = new URL('../pages/', import.meta.url).pathname;
rmSync(out, {recursive: true, force: true});
mkdirSync(out, {recursive: true});
const entries = Object.fromEntries(PAGES.map((p) => {
  const file = readdirSync('src').find((f) => f.startsWith(p + '.'));
  return [p, `src/${file}`];
}));
await build({
  entryPoints: entries, bundle: true, splitting: true, format: 'esm', minify: true, outdir: out,
  jsx: 'automatic', loader: {'.js': 'jsx'}, define: {'process.env.NODE_ENV': '"production"'},
  chunkNames: 'chunks/[name]-[hash]', legalComments: 'none', logLevel: 'warning',
});
for (const page of PAGES) {
  const css = existsSync(`${out}${page}.css`) ? `<link rel="stylesheet" href="./${page}.css">` : '';
  writeFileSync(`${out}${page}.html`, `<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>${page}</title><meta name="viewport" content="width=device-width, initial-scale=1">${css}</head>
<body><div id="root"></div><script type="module" src="./${page}.js"></script></body></html>
`);
}
console.log(`built ${PAGES.length} pages into ${out}`);
