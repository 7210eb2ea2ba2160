/* web/playground.js -- the playground page (GET /): a form and a JSON editor for
 * one Workload, POST v1/recommendations, the answer handed to web/answer.js,
 * and a refused workload's problems shown at their fields.
 *
 * Served by the binary under a strict Content-Security-Policy (script-src 'self',
 * no inline code), so everything is built with DOM calls (web/dom.js): text from
 * the server is only ever set as text, never parsed as HTML, and only http(s)
 * URLs become links. Every URL is relative, so the page works when a gateway mounts
 * the server under a path prefix. The form is made from the served contract
 * (openapi.json): its enums, defaults and descriptions are the server's own; the
 * model picker offers the server's model registry (v1/models). */
'use strict';

(() => {
  const API = 'v1/recommendations';
  const MODELS = 'v1/models';
  const KEY_STORE = 'accel-advisor.api-key';

  /* The form's fields, by JSON Pointer into the Workload; everything else is
   * edited in the JSON. `when` shows a group only for some tasks. */
  const GROUPS = [
    { title: 'Basics', fields: ['/name', '/task', '/framework', '/stage', '/precision', '/objective'] },
    { title: 'Model', fields: ['/model/name', '/model/parameters', '/model/architecture', '/model/layers',
                               '/model/hidden_size'] },
    { title: 'Training', when: ['training', 'fine-tuning'],
      fields: ['/training/tokens', '/training/global_batch_size', '/training/deadline_hours'] },
    { title: 'Serving', when: ['inference'],
      fields: ['/inference/requests_per_second', '/inference/latency_ms_p99',
               '/inference/context_tokens', '/inference/batch_size'] },
    { title: 'Constraints', fields: ['/constraints/deployment', '/constraints/providers',
                                    '/constraints/budget_usd', '/constraints/max_accelerators',
                                    '/constraints/pricing', '/constraints/fleet_only', '/prefer_available'] },
    { title: 'Explain', fields: ['/explain'] },
  ];

  const LABELS = {
    '/model/name': 'A public model',
    '/model/parameters': 'Parameters',
    '/model/hidden_size': 'Hidden size',
    '/training/tokens': 'Training tokens',
    '/training/deadline_hours': 'Deadline (hours)',
    '/inference/requests_per_second': 'Requests per second',
    '/inference/latency_ms_p99': 'p99 latency per step (ms)',
    '/inference/context_tokens': 'Context (tokens)',
    '/constraints/budget_usd': 'Budget (US$)',
    '/constraints/max_accelerators': 'At most this many chips',
    '/constraints/pricing': 'Price basis',
    '/explain': 'What would change the answer',
    '/constraints/fleet_only': 'Only what the fleet has free',
    '/prefer_available': 'Prefer what is free now',
  };

  /* models: the registry's entries; null until v1/models answers (it may need
   * the API key: asked again after a request with the key succeeds). */
  const { el, fill, source, safeUrl, hostOf, humanize, richText } = aaDom;
  const F = aaFormat;
  const arr = (v) => (Array.isArray(v) ? v : []);

  const state = { contract: null, workload: {}, fields: new Map(), examples: [], models: null, busy: false };
  const $ = (id) => document.getElementById(id);

  /* ---- JSON Pointers ------------------------------------------------------------ */

  function parsePointer(ptr) {
    if (ptr === '') return [];
    return ptr.slice(1).split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
  }

  function getAt(obj, ptr) {
    let cur = obj;
    for (const t of parsePointer(ptr)) {
      if (cur === null || typeof cur !== 'object') return undefined;
      cur = cur[t];
    }
    return cur;
  }

  /* Set (or with `undefined`, delete) the value at ptr, creating objects on the
   * way and dropping the ones a deletion leaves empty. */
  function setAt(obj, ptr, value) {
    const toks = parsePointer(ptr);
    const chain = [obj];
    let cur = obj;
    for (const t of toks.slice(0, -1)) {
      if (cur[t] === null || typeof cur[t] !== 'object' || Array.isArray(cur[t])) {
        if (value === undefined) return;
        cur[t] = {};
      }
      cur = cur[t];
      chain.push(cur);
    }
    const last = toks[toks.length - 1];
    if (value === undefined) delete cur[last];
    else cur[last] = value;
    for (let i = toks.length - 2; i >= 0 && value === undefined; i--) {
      if (Object.keys(chain[i + 1]).length === 0) delete chain[i][toks[i]];
    }
  }

  /* Where the value at `ptr` lies in JSON `text`: [start, end) offsets, or null
   * when the text does not parse or has no such value. A small scanner, so an
   * error can be shown at its place in the editor. */
  function locate(text, ptr) {
    const want = parsePointer(ptr);
    let i = 0;
    const ws = () => { while (i < text.length && ' \t\r\n'.includes(text[i])) i++; };
    const str = () => {
      const start = i++;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      i++;
      return JSON.parse(text.slice(start, i));
    };
    function value(path) {
      ws();
      const start = i;
      const here = path.length === want.length && path.every((t, k) => t === want[k]);
      const c = text[i];
      if (c === '{' || c === '[') {
        i++;
        let n = 0;
        for (;;) {
          ws();
          if (text[i] === '}' || text[i] === ']') { i++; break; }
          let key = String(n++);
          if (c === '{') {
            key = str();
            ws();
            i++; /* : */
          }
          const hit = value(path.concat([key]));
          if (hit) return hit;
          ws();
          if (text[i] === ',') i++;
        }
      } else if (c === '"') {
        str();
      } else {
        while (i < text.length && !',]} \t\r\n'.includes(text[i])) i++;
      }
      return here ? [start, i] : null;
    }
    try {
      JSON.parse(text);
      return value([]);
    } catch (e) {
      return null;
    }
  }

  function lineColumnOffset(text, line, column) {
    let off = 0;
    for (let l = 1; l < line; l++) {
      const nl = text.indexOf('\n', off);
      if (nl < 0) return text.length;
      off = nl + 1;
    }
    return Math.min(text.length, off + column - 1);
  }

  /* ---- the contract -------------------------------------------------------------- */

  function resolve(schema) {
    let s = schema;
    for (let n = 0; s && s.$ref && n < 16; n++) {
      const target = getAt(state.contract, s.$ref.replace(/^#/, ''));
      const { $ref, ...rest } = s;
      s = Object.assign({}, target, rest);
    }
    if (s && Array.isArray(s.allOf)) {
      s = Object.assign({}, ...s.allOf.map(resolve), s);
    }
    return s || {};
  }

  /* The schema of the Workload property at ptr, with the annotations written
   * beside its $ref (default, description) kept. */
  function propertySchema(ptr) {
    let s = resolve(getAt(state.contract, '/components/schemas/Workload'));
    for (const t of parsePointer(ptr)) {
      if (!s.properties || !s.properties[t]) return null;
      s = resolve(s.properties[t]);
    }
    return s;
  }

  /* ---- the form ------------------------------------------------------------------- */

  function defaultText(v) {
    if (Array.isArray(v) && v.length === 0) return 'none';
    return typeof v === 'string' ? v : JSON.stringify(v);
  }

  function fieldId(ptr) {
    return 'f' + ptr.replace(/[^a-z0-9]+/gi, '-');
  }

  function buildField(ptr) {
    const schema = propertySchema(ptr);
    if (schema === null) return null; /* not in this server's contract */
    const id = fieldId(ptr);
    const label = LABELS[ptr] || humanize(parsePointer(ptr).pop());
    const hint = el('p', { class: 'hint', id: id + '-hint' }, richText(schema.description),
      schema.default !== undefined ? [schema.description ? ' ' : '', 'Default: ' + defaultText(schema.default) + '.'] : null);
    const error = el('p', { class: 'field-error', id: id + '-error', 'data-pointer': ptr, hidden: true });
    const described = id + '-hint ' + id + '-error';
    let control;
    let kind;
    const items = schema.type === 'array' ? resolve(schema.items || {}) : null;
    if (items && Array.isArray(items.enum)) {
      kind = 'set';
      control = el('fieldset', { class: 'set', id, 'aria-describedby': described },
        el('legend', { text: label }),
        items.enum.map((v) => el('label', { class: 'check' },
          el('input', { type: 'checkbox', value: v, name: id }), ' ' + v)));
    } else if (Array.isArray(schema.enum)) {
      kind = 'enum';
      const first = schema.default !== undefined ? 'default (' + schema.default + ')' : 'choose…';
      control = el('select', { id, name: id, 'aria-describedby': described },
        el('option', { value: '', text: first }),
        schema.enum.map((v) => el('option', { value: v, text: v })));
    } else if (schema.type === 'boolean') {
      kind = 'boolean';
      control = el('input', { id, name: id, type: 'checkbox', 'aria-describedby': described });
    } else if (schema.type === 'number' || schema.type === 'integer') {
      kind = 'number';
      /* Text, not type=number: 7e9 and 13_000_000_000 are easier to type than
       * thirteen digits, and a browser's number box would silently drop them. */
      control = el('input', { id, name: id, type: 'text', inputmode: 'decimal', autocomplete: 'off',
                              'aria-describedby': described });
    } else {
      kind = 'text';
      control = el('input', { id, name: id, type: 'text', autocomplete: 'off', 'aria-describedby': described });
    }
    const wrap = kind === 'set'
      ? el('div', { class: 'field', 'data-pointer': ptr }, control, hint, error)
      : el('div', { class: 'field', 'data-pointer': ptr }, el('label', { for: id, text: label }), control, hint, error);
    state.fields.set(ptr, { ptr, kind, control, wrap, error });
    control.addEventListener(kind === 'text' || kind === 'number' ? 'input' : 'change', () => fieldChanged(ptr));
    return wrap;
  }

  function buildForm() {
    const box = $('fields');
    box.replaceChildren();
    for (const g of GROUPS) {
      const fields = g.fields.map(buildField).filter(Boolean);
      if (fields.length === 0) continue;
      const set = el('fieldset', { class: 'group', 'data-when': g.when ? g.when.join(' ') : null },
        el('legend', { text: g.title }), fields);
      box.append(set);
    }
  }

  function readField(f) {
    if (f.kind === 'set') {
      const on = [...f.control.querySelectorAll('input:checked')].map((i) => i.value);
      return on.length ? on : undefined;
    }
    if (f.kind === 'boolean') return f.control.checked ? true : undefined;
    const raw = f.control.value.trim();
    if (raw === '') return undefined;
    if (f.kind === 'number') {
      /* What is not a number goes as typed: the server says what is wrong with it. */
      const n = Number(raw.replace(/_/g, ''));
      return isFinite(n) ? n : raw;
    }
    return raw;
  }

  function writeField(f, v) {
    if (f.kind === 'set') {
      const on = new Set(Array.isArray(v) ? v : []);
      f.control.querySelectorAll('input').forEach((i) => { i.checked = on.has(i.value); });
    } else if (f.kind === 'boolean') {
      f.control.checked = v === true;
    } else if (v === undefined || v === null) {
      f.control.value = '';
    } else if (f.kind === 'enum') {
      const known = [...f.control.options].some((o) => o.value === String(v));
      if (!known) f.control.append(el('option', { value: String(v), text: String(v) }));
      f.control.value = String(v);
    } else {
      f.control.value = typeof v === 'object' ? JSON.stringify(v) : String(v);
    }
  }

  function fillForm() {
    for (const f of state.fields.values()) writeField(f, getAt(state.workload, f.ptr));
    showGroups();
    showModel();
  }

  function showGroups() {
    const task = state.workload && state.workload.task;
    document.querySelectorAll('fieldset.group[data-when]').forEach((g) => {
      g.hidden = !g.dataset.when.split(' ').includes(task);
    });
  }

  function fieldChanged(ptr) {
    const f = state.fields.get(ptr);
    if (state.workload === null || typeof state.workload !== 'object' || Array.isArray(state.workload))
      state.workload = {};
    setAt(state.workload, ptr, readField(f));
    clearFieldError(f);
    writeJson();
    showGroups();
    syncExample();
  }

  /* The example selector names an example only while the workload is that
   * example's: after an edit it says "Choose an example…" again. */
  function syncExample() {
    const sel = $('example');
    const ex = state.examples.find((x) => x.name === sel.value);
    if (ex && JSON.stringify(ex.workload) !== JSON.stringify(state.workload)) sel.value = '';
  }

  function writeJson() {
    $('json').value = JSON.stringify(state.workload, null, 2);
    $('json-status').textContent = '';
    $('json').removeAttribute('aria-invalid');
  }

  function jsonChanged() {
    const text = $('json').value;
    try {
      const w = JSON.parse(text);
      $('json-status').textContent = '';
      $('json').removeAttribute('aria-invalid');
      if (w && typeof w === 'object' && !Array.isArray(w)) {
        state.workload = w;
        fillForm();
      }
      syncExample();
    } catch (e) {
      $('json-status').textContent = 'Not JSON yet (' + e.message + '); the form shows the last valid workload.';
    }
  }

  function loadWorkloadText(text) {
    $('json').value = text;
    jsonChanged();
    clearProblem();
  }

  /* ---- the model picker: the registry's names, and what the chosen one sets ------- */

  /* The entry a model.name picks: its name or an alias, letter case ignored. */
  function findModel(name) {
    if (typeof name !== 'string' || !Array.isArray(state.models)) return null;
    const want = name.trim().toLowerCase();
    return state.models.find((m) => [m.name].concat(arr(m.aliases))
      .some((n) => String(n).toLowerCase() === want)) || null;
  }

  /* The name field becomes a picker: a list of the registry's models (its
   * options say what each is), and a line under it about the chosen one. */
  function buildModelPicker() {
    const f = state.fields.get('/model/name');
    if (!f) return;
    f.control.setAttribute('list', 'model-names');
    f.wrap.append(el('datalist', { id: 'model-names' }),
      el('p', { id: 'model-info', class: 'hint model-info', 'aria-live': 'polite' }));
    /* Choosing a model of the registry (not each keystroke) clears the other
     * model fields, so the registry's figures apply; what is filled in after
     * overrides them. */
    f.control.addEventListener('change', () => {
      const value = f.control.value.trim();
      if (findModel(value) === null || !state.workload || typeof state.workload !== 'object') return;
      state.workload.model = { name: value };
      writeJson();
      fillForm();
    });
  }

  function fillModelList() {
    const list = $('model-names');
    if (!list) return;
    fill(list, arr(state.models).map((m) => el('option', { value: m.name,
      label: [m.title, m.architecture, m.model && typeof m.model.parameters === 'number'
        ? F.quantity(m.model.parameters) + ' parameters' : null].filter(Boolean).join(' · ') })));
  }

  /* The line under the picker, and the registry's figures as the placeholders
   * of the other model fields. */
  function showModel() {
    const info = $('model-info');
    if (!info) return;
    const name = getAt(state.workload, '/model/name');
    const m = findModel(name);
    for (const f of state.fields.values()) {
      if (!f.ptr.startsWith('/model/') || f.ptr === '/model/name') continue;
      const v = m && m.model ? m.model[parsePointer(f.ptr).pop()] : undefined;
      if (f.kind === 'number' || f.kind === 'text')
        f.control.placeholder = v === undefined ? '' : 'from the registry: ' +
          (typeof v === 'number' ? (Number.isInteger(v) ? F.count(v) : F.number(v)) : String(v));
      else if (f.kind === 'enum') {
        const first = f.control.options[0];
        first.dataset.text = first.dataset.text || first.text;
        first.text = v === undefined ? first.dataset.text : 'from the registry (' + v + ')';
      }
    }
    if (m) {
      const urls = [...new Set(Object.values(m.sources || {}))];
      fill(info, el('strong', { text: m.title }), ' (' + m.architecture + '): every model field left ' +
        'empty is read from the registry; a field filled in overrides it. Sources: ',
        urls.map((u, i) => [i ? ', ' : '', source(u, sourceLabel(u))]), '.');
    } else if (typeof name === 'string' && name !== '' && Array.isArray(state.models)) {
      fill(info, 'Not a model of the registry: the server will name the close ones.');
    } else if (Array.isArray(state.models)) {
      fill(info, state.models.length + ' public models (GET v1/models), or leave it empty and ' +
        'describe the model with the fields below.');
    } else {
      fill(info, 'The model list could not be read yet; a name typed here is still sent.');
    }
  }

  /* A source's link text: its host and the last part of its path (a model's
   * config.json and its model page are both on huggingface.co). */
  function sourceLabel(u) {
    const href = safeUrl(u);
    if (href === null) return undefined;
    const tail = new URL(href).pathname.split('/').filter(Boolean).pop();
    return hostOf(href) + (tail ? ' ' + tail : '');
  }

  async function loadModels() {
    const headers = { Accept: 'application/json' };
    const key = apiKey();
    if (key) headers.Authorization = 'Bearer ' + key;
    try {
      const resp = await fetch(MODELS, { headers });
      /* The body is read even from an error, so the request ends (a body never
       * read keeps it open). */
      const body = await resp.json();
      if (!resp.ok) throw new Error(MODELS + ': HTTP ' + resp.status);
      state.models = arr(body.models);
    } catch (e) {
      state.models = null;
    }
    fillModelList();
    showModel();
  }

  /* ---- the permalink: the workload in the URL fragment, base64url of its UTF-8 ---- */

  function toBase64Url(text) {
    const bytes = new TextEncoder().encode(text);
    let bin = '';
    for (const b of bytes) bin += String.fromCharCode(b);
    return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }

  function fromBase64Url(s) {
    const bin = atob(s.replace(/-/g, '+').replace(/_/g, '/'));
    return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
  }

  function compactBody() {
    const text = $('json').value;
    try {
      return JSON.stringify(JSON.parse(text));
    } catch (e) {
      return text;
    }
  }

  function updatePermalink() {
    history.replaceState(null, '', '#w=' + toBase64Url(compactBody()));
  }

  function workloadFromHash() {
    const m = /^#w=([A-Za-z0-9_-]*)$/.exec(location.hash);
    if (!m) return null;
    try {
      return fromBase64Url(m[1]);
    } catch (e) {
      status('The link\'s workload could not be read: ' + e.message);
      return null;
    }
  }

  async function copyPermalink() {
    updatePermalink();
    try {
      await navigator.clipboard.writeText(location.href);
      status('Link copied: it carries the workload, so it opens with the same answer.');
    } catch (e) {
      status('The address bar now holds the link to this workload.');
    }
  }

  /* ---- talking to the server ------------------------------------------------------ */

  function status(text) {
    $('result-status').textContent = text;
  }

  function apiKey() {
    const input = $('api-key');
    return input && input.value ? input.value.trim() : '';
  }

  async function submit() {
    if (state.busy) return;
    state.busy = true;
    $('submit').disabled = true;
    $('results').setAttribute('aria-busy', 'true');
    clearProblem();
    status('Asking the server…');
    updatePermalink();
    const headers = { 'Content-Type': 'application/json', Accept: 'application/json' };
    const key = apiKey();
    if (key) {
      headers.Authorization = 'Bearer ' + key;
      sessionStorage.setItem(KEY_STORE, key);
    }
    try {
      const resp = await fetch(API, { method: 'POST', headers, body: $('json').value });
      let body = null;
      try {
        body = await resp.json();
      } catch (e) {
        body = null;
      }
      if (resp.ok && body) {
        renderResult(body);
        if (state.models === null) loadModels(); /* it may have needed this key */
      } else {
        $('result').replaceChildren();
        if (resp.status === 401) askForKey();
        showProblem(body, resp.status);
      }
    } catch (e) {
      $('result').replaceChildren();
      showProblem({ title: 'The server could not be reached', detail: String(e.message || e) }, 0);
    } finally {
      state.busy = false;
      $('submit').disabled = false;
      $('results').removeAttribute('aria-busy');
    }
  }

  function askForKey() {
    const row = $('key-row');
    const first = row.hidden;
    row.hidden = false;
    $('api-key').setAttribute('aria-invalid', 'true');
    if (first || apiKey() === '') $('api-key').focus();
  }

  /* ---- problems, field by field ---------------------------------------------------- */

  function clearFieldError(f) {
    f.error.hidden = true;
    f.error.textContent = '';
    f.wrap.classList.remove('invalid');
    f.control.removeAttribute('aria-invalid');
  }

  function clearProblem() {
    $('problem').hidden = true;
    $('problem').replaceChildren();
    $('json-errors').replaceChildren();
    $('json').removeAttribute('aria-invalid');
    for (const f of state.fields.values()) clearFieldError(f);
  }

  /* The form field for a pointer: the one at it, or the nearest one above it
   * ("/constraints/providers/1" belongs to the providers field). */
  function fieldFor(ptr) {
    for (let p = ptr; p !== ''; p = p.slice(0, p.lastIndexOf('/'))) {
      if (state.fields.has(p)) return state.fields.get(p);
    }
    return null;
  }

  function showAtField(f, message) {
    f.error.textContent = f.error.textContent ? f.error.textContent + ' ' + message : message;
    f.error.hidden = false;
    f.wrap.classList.add('invalid');
    f.control.setAttribute('aria-invalid', 'true');
    f.wrap.closest('fieldset.group').hidden = false;
  }

  function selectInEditor(ptr, detail) {
    const box = $('json');
    const text = box.value;
    let range = ptr !== null ? locate(text, ptr) : null;
    const lc = /line (\d+), column (\d+)/.exec(detail || '');
    if (range === null && lc) {
      const at = lineColumnOffset(text, Number(lc[1]), Number(lc[2]));
      range = [at, Math.min(text.length, at + 1)];
    }
    $('json-box').open = true;
    box.focus();
    if (range) box.setSelectionRange(range[0], range[1]);
  }

  function showInEditor(ptr, message, detail) {
    const lc = /line (\d+), column (\d+)/.exec(detail || '');
    const where = ptr === null || (ptr === '' && lc) ? (lc ? 'line ' + lc[1] + ', column ' + lc[2] : 'the body')
      : ptr === '' ? 'the whole workload' : ptr;
    const go = el('button', { type: 'button', class: 'link', 'data-pointer': ptr === null ? '' : ptr,
                              text: where });
    go.addEventListener('click', () => selectInEditor(ptr, detail));
    $('json-errors').append(el('li', null, go, ': ', message));
    $('json').setAttribute('aria-invalid', 'true');
    $('json-box').open = true;
  }

  function showProblem(p, httpStatus) {
    const box = $('problem');
    const problem = p && typeof p === 'object' ? p : {};
    const title = problem.title || (httpStatus ? 'HTTP ' + httpStatus : 'No answer');
    /* The type URI names the kind of problem for programs (its title says it
     * for people): kept as the meta line's tooltip, not shown raw. */
    const code = problem.status || httpStatus;
    const meta = [code ? 'HTTP ' + code : null, problem.request_id
      ? 'request id ' + problem.request_id : null].filter(Boolean).join(' · ');
    fill(box, el('h3', { text: title }),
      problem.detail ? el('p', { text: problem.detail }) : null,
      meta ? el('p', { class: 'meta', title: typeof problem.type === 'string' ? problem.type : null,
                       text: meta }) : null);
    box.hidden = false;
    box.setAttribute('role', 'alert');
    const errors = Array.isArray(problem.errors) ? problem.errors : [];
    const list = el('ul', { class: 'errors' });
    let first = null;
    for (const e of errors) {
      const message = typeof e.message === 'string' ? e.message : 'is invalid';
      if (typeof e.pointer === 'string') {
        const f = fieldFor(e.pointer);
        if (f) {
          showAtField(f, message);
          first = first || f;
        } else {
          showInEditor(e.pointer, message, problem.detail);
        }
        if (message !== problem.detail)
          list.append(el('li', null, el('code', { text: e.pointer === '' ? '(the whole body)' : e.pointer }), ' ', message));
      } else if (typeof e.parameter === 'string') {
        list.append(el('li', null, el('code', { text: e.parameter }), ' ', message));
      }
    }
    if (errors.length === 0 && /line \d+, column \d+/.test(problem.detail || ''))
      showInEditor(null, problem.detail, problem.detail);
    if (list.childElementCount) box.append(list);
    status(errors.length ? errors.length + ' problem' + (errors.length === 1 ? '' : 's') +
      ' with the workload; each is shown at its field or in the JSON.' : title);
    if (first) first.control.focus();
  }

  /* ---- the answer ---------------------------------------------------------------- */

  /* The answer laid out (web/answer.js), and its summary strip brought into
   * view: the Recommend button may be far down the form, or the answer below
   * it on a narrow screen. Focus follows when it was on the button, so a
   * screen reader reads the pick next. */
  function renderResult(r) {
    const strip = aaAnswer.render($('result'), r);
    const recs = arr(r.recommendations);
    const top = recs[0];
    const noPick = r.status !== undefined && r.status !== 'ok';
    status(noPick ? 'No pick: ' + (r.status === 'estimate_withheld' ? 'the estimate is withheld.'
      : 'nothing meets the targets; ' + recs.length + ' candidates listed, nearest first.')
      : top ? 'Ranked ' + recs.length + ' candidates; the pick is ' + (top.name || top.accelerator) + '.'
        : 'No candidate passed the hard filters.');
    const box = strip.getBoundingClientRect();
    if (box.top < 0 || box.bottom > window.innerHeight) strip.scrollIntoView({ block: 'start' });
    if (document.activeElement === $('submit') || document.activeElement === document.body)
      strip.focus({ preventScroll: true });
  }

  /* ---- start ------------------------------------------------------------------- */

  async function getJson(url) {
    const resp = await fetch(url, { headers: { Accept: 'application/json' } });
    if (!resp.ok) throw new Error(url + ': HTTP ' + resp.status);
    return resp.json();
  }

  async function loadExamples() {
    try {
      const doc = await getJson('ui/examples.json');
      state.examples = arr(doc.examples);
    } catch (e) {
      state.examples = [];
    }
    const sel = $('example');
    for (const ex of state.examples)
      sel.append(el('option', { value: ex.name, text: ex.name }));
    sel.addEventListener('change', () => {
      const ex = state.examples.find((x) => x.name === sel.value);
      if (ex) loadWorkloadText(JSON.stringify(ex.workload, null, 2));
    });
  }

  async function start() {
    $('workload-form').addEventListener('submit', (ev) => {
      ev.preventDefault();
      submit();
    });
    $('json').addEventListener('input', jsonChanged);
    $('json').addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) {
        ev.preventDefault();
        submit();
      }
    });
    $('permalink').addEventListener('click', copyPermalink);
    $('api-key').addEventListener('input', () => $('api-key').removeAttribute('aria-invalid'));
    const saved = sessionStorage.getItem(KEY_STORE);
    if (saved) {
      $('api-key').value = saved;
      $('key-row').hidden = false;
    }
    try {
      state.contract = await getJson('openapi.json');
      buildForm();
      buildModelPicker();
      $('form-status').textContent = 'Fields, choices and defaults come from the server\'s contract (version ' +
        (state.contract.info && state.contract.info.version) + ').';
    } catch (e) {
      $('form-status').textContent = 'The contract could not be read (' + e.message + '): edit the JSON below.';
    }
    await Promise.all([loadExamples(), loadModels()]);
    const linked = workloadFromHash();
    if (linked !== null) {
      let text = linked;
      try {
        text = JSON.stringify(JSON.parse(linked), null, 2);
      } catch (e) {
        /* sent as it was linked: the server will say what is wrong with it */
      }
      loadWorkloadText(text);
      submit();
    } else if (state.examples.length) {
      $('example').value = state.examples[0].name;
      loadWorkloadText(JSON.stringify(state.examples[0].workload, null, 2));
    } else {
      loadWorkloadText(JSON.stringify({ task: 'inference', model: { parameters: 7e9 } }, null, 2));
    }
    document.body.dataset.ready = 'true';
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
