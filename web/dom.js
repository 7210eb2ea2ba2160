/* web/dom.js -- the playground page's DOM helpers, shared by web/answer.js (the
 * answer) and web/playground.js (the form). Defines the global `aaDom`.
 *
 * The page runs under a strict Content-Security-Policy (script-src 'self', no
 * inline code), so everything is built with DOM calls: text from the server is
 * only ever set as text, never parsed as HTML, and only http(s) URLs become
 * links. */
'use strict';

(function (root) {
  /* Append children: nested arrays flattened, null and false left out, anything
   * that is not a node as text. */
  function append(node, children) {
    for (const c of children.flat(Infinity)) {
      if (c === null || c === undefined || c === false) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }

  function fill(node, ...children) {
    node.replaceChildren();
    return append(node, children);
  }

  /* Attributes set as attributes (the rest are properties: className, ...). */
  const ATTRIBUTES = new Set(['role', 'for', 'type', 'id', 'name', 'value', 'inputmode', 'min', 'max',
    'low', 'high', 'optimum', 'scope', 'title', 'autocomplete', 'hidden', 'list', 'label',
    'placeholder', 'tabindex', 'colspan']);

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'class') node.className = v;
      else if (k === 'text') node.textContent = v;
      else if (k.startsWith('data-') || k.startsWith('aria-') || ATTRIBUTES.has(k))
        node.setAttribute(k, v === true ? '' : String(v));
      else node[k] = v;
    }
    return append(node, children);
  }

  function safeUrl(s) {
    if (typeof s !== 'string') return null;
    try {
      const u = new URL(s);
      return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
    } catch (e) {
      return null;
    }
  }

  function hostOf(href) {
    try {
      return new URL(href).host.replace(/^www\./, '');
    } catch (e) {
      return href;
    }
  }

  /* A source: a link when it is an http(s) URL, plain text otherwise ("probe"). */
  function source(s, label) {
    const href = safeUrl(s);
    if (href === null) return el('span', { class: 'source', text: s == null ? '' : String(s) });
    return el('a', { class: 'source', href, rel: 'noopener noreferrer', target: '_blank',
                     text: label || hostOf(href) });
  }

  function humanize(key) {
    const s = String(key).replace(/_/g, ' ');
    return s.charAt(0).toUpperCase() + s.slice(1);
  }

  /* Prose from the contract with its `code` spans as <code>, never as raw
   * backticks: the descriptions are Markdown, the page is not. */
  function richText(s) {
    const parts = String(s == null ? '' : s).split('`');
    return parts.map((p, i) => (i % 2 === 1 && i < parts.length - 1 ? el('code', { text: p }) : p));
  }

  /* Text only screen readers read (the visual is an icon or a position). */
  function srOnly(text) {
    return el('span', { class: 'sr-only', text });
  }

  /* A table that becomes a list of cards where its box is narrow (CSS): each
   * cell carries its column's name for the card. Roles are explicit, so the
   * cards keep the table's meaning for screen readers. `cells` are nodes or
   * text, each wrapped in one span (a card lays a cell out as its label and
   * that span); a row may be {cells, attrs}. */
  function table(head, rows, caption, opts) {
    const o = opts || {};
    return el('div', { class: 'table-wrap' }, el('table', { class: 'cards' + (o.class ? ' ' + o.class : ''),
      role: 'table' },
    caption ? el('caption', { text: caption }) : null,
    el('thead', { role: 'rowgroup' }, el('tr', { role: 'row' }, head.map((h, i) =>
      el('th', { scope: 'col', role: 'columnheader', class: o.headClass ? o.headClass[i] : null }, h)))),
    el('tbody', { role: 'rowgroup' }, rows.map((r) => {
      const row = Array.isArray(r) ? { cells: r } : r;
      return el('tr', Object.assign({ role: 'row' }, row.attrs || {}), row.cells.map((c, i) =>
        el('td', { role: 'cell', 'data-label': labelOf(head[i]),
                   class: o.cellClass ? o.cellClass[i] : null }, el('span', { class: 'v' }, c))));
    }))));
  }

  function labelOf(h) {
    return typeof h === 'string' ? h : h && h.textContent ? h.textContent : '';
  }

  function section(title, ...body) {
    return el('section', { class: 'block' }, el('h3', { text: title }), body);
  }

  root.aaDom = { append, fill, el, safeUrl, hostOf, source, humanize, richText, srOnly, table, section };
})(typeof window !== 'undefined' ? window : globalThis);
