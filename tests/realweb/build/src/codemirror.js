// CodeMirror 6: a code editor whose content is a contenteditable CodeMirror keeps in sync itself.
import {EditorView, basicSetup} from 'codemirror';
import {submit} from './common.js';

document.getElementById('root').innerHTML = `
<div style="padding: 16px; max-width: 640px; font-family: sans-serif">
  <h1>Query (CodeMirror)</h1>
  <div id="editor" style="border: 1px solid #999"></div>
  <p><button type="button" id="run">Run query</button></p>
  <p id="status" role="status"></p>
</div>`;
const view = new EditorView({doc: '', extensions: [basicSetup, EditorView.contentAttributes.of({'aria-label': 'Query'})],
  parent: document.getElementById('editor')});
document.getElementById('run').addEventListener('click', async () => {
  const order = await submit('codemirror', {query: view.state.doc.toString()});
  document.getElementById('status').textContent = `Saved order ${order}`;
});
