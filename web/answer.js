/* web/answer.js -- the playground's answer: one Recommendation (the contract's
 * schema) laid out as a buyer compares quotes. First the summary strip (the
 * pick, its shape, its cost with the period and per hour, its time or latency,
 * the targets it meets, and why it is not the objective's best when it is
 * not); then every candidate in one table sortable by column, with its targets
 * as icons; the cost-time frontier with the pick marked; then the reasons, the
 * explanations and the exclusions. Every number goes through web/format.js,
 * the formatter the reason texts and the CLI table use. Defines the global
 * `aaAnswer`; needs `aaDom` (web/dom.js) and `aaFormat`. */
'use strict';

(function (root) {
  const { el, source, humanize, table, section, srOnly, safeUrl } = root.aaDom;
  const F = root.aaFormat;

  /* Members of a Recommendation laid out by hand; any other (a future
   * addition) is shown by the generic renderer. */
  const KNOWN = new Set(['request_id', 'rules_version', 'status', 'status_message', 'would_meet', 'workload',
    'families', 'recommendations', 'why', 'pick_note', 'price_note', 'defaults_note', 'frontier', 'excluded', 'warnings', 'assumptions', 'changes',
    'robustness']);
  const CANDIDATE_KNOWN = new Set(['accelerator', 'name', 'family', 'vendor', 'score', 'rule_score',
    'objective_score', 'target_met', 'targets', 'sizing', 'price', 'capped_by', 'availability', 'reasons']);

  /* Sizing fields that mean something only for serving (replicas, steps,
   * requests), only for a run with an end (hours, a deadline), or only on
   * premises: a candidate's detail leaves out those that do not apply. */
  const SERVING_ONLY = new Set(['batch_per_replica', 'prefill_ms', 'decode_ms', 'request_ms', 'throughput_rps',
    'tokens_per_second', 'bound', 'meets_latency', 'meets_rate']);
  const RUN_ONLY = new Set(['hours', 'meets_deadline']);
  /* The bands a sizing carries, in the order and units the detail shows them. */
  const BANDS = [['hours', 'run time'], ['cost_usd', 'cost'], ['throughput_rps', 'requests/s'],
    ['tokens_per_second', 'tokens/s'], ['decode_ms', 'a decode step'], ['request_ms', 'a request']];

  const OBJECTIVE = { cost: 'minimizing cost', time: 'minimizing time', balanced: 'balancing cost and time' };
  const TARGET = { deadline: 'deadline', run_time: 'run time', latency: 'latency', rate: 'rate', budget: 'budget' };
  const ICON = { met: '\u2713', missed: '\u2717', unknown: '?' };

  /* Names for the members the generic renderer shows (a candidate's selection
   * and availability), as a reader says them, not as the JSON spells them. */
  const FIELD_LABELS = {
    meets_targets: 'Meets every target', priced: 'Has a public price', gates: 'Gates holding it',
    in_band: 'In the balanced band', objective_value: 'Objective value', soft_points: 'Rules\' points',
    adjustment: 'Factor from the points', breakeven_usd_per_chip_hour: 'Break-even price',
    attached: 'Devices seen', free: 'Devices free', memory_free_gb: 'Memory free (GB)', nodes: 'Nodes',
    free_nodes: 'Nodes with one free', configuration_free: 'Configuration free now',
    age_seconds: 'Snapshot age (s)', stale: 'Stale', warming: 'Warming up',
  };

  function label(key) {
    return FIELD_LABELS[key] || humanize(key);
  }

  function arr(v) {
    return Array.isArray(v) ? v : [];
  }

  function obj(v) {
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  }

  /* What a cost covers: a month of serving, an offline job, a training run. */
  function period(r) {
    const unit = obj(r.frontier).cost_unit;
    if (unit === 'usd_per_month') return 'month';
    if (unit === 'usd_per_job') return 'job';
    if (unit === 'usd_per_run') return 'run';
    const w = obj(r.workload);
    if (w.task !== 'inference') return 'run';
    return obj(w.inference).job ? 'job' : 'month';
  }

  /* Whether the answer has a pick: `status` ok (or absent, an older server). */
  function hasPick(r) {
    return r.status === undefined || r.status === 'ok';
  }

  function chips(n) {
    return typeof n === 'number' ? F.count(n) + ' chip' + (n === 1 ? '' : 's') : null;
  }

  /* A number with no unit the key names: counts grouped, others to 3 digits. */
  function plain(v) {
    return Number.isInteger(v) ? F.count(v) : F.number(v);
  }

  /* A sizing field's value, its unit read from its name. */
  function sizingValue(key, v, per) {
    if (v === null || v === undefined) return '—';
    if (typeof v === 'boolean') return v ? 'yes' : 'no';
    if (typeof v !== 'number') return String(v).replace(/_/g, ' ');
    if (key === 'cost_per_hour_usd') return F.money(v, 'hour');
    if (key === 'cost_usd' || key === 'energy_usd') return F.money(v, per);
    if (/_usd$/.test(key)) return F.money(v, 'none');
    if (/_gb$/.test(key)) return F.number(v) + ' GB';
    if (/_ms$/.test(key)) return F.ms(v);
    if (/_rps$/.test(key)) return F.number(v) + ' requests/s';
    if (/tflops$/.test(key)) return F.number(v) + ' TFLOPS';
    if (key === 'tokens_per_second') return F.quantity(v) + ' tokens/s';
    if (key === 'hours') return F.hours(v);
    if (key === 'mfu' || key === 'scale_efficiency') return F.percent(v);
    return plain(v);
  }

  /* The p10-p90 bands of a sizing, each as a range: "cost $1.1k–$2.3k/month". */
  function uncertaintyText(u, per) {
    const fmt = { hours: F.hours, cost_usd: (v) => F.money(v, per), throughput_rps: F.number,
                  tokens_per_second: F.quantity, decode_ms: F.ms, request_ms: F.ms };
    const parts = BANDS.map(([k, words]) => {
      const b = obj(u[k]);
      if (typeof b.p10 !== 'number' || typeof b.p90 !== 'number') return null;
      const lo = k === 'cost_usd' ? F.money(b.p10) : fmt[k](b.p10), hi = fmt[k](b.p90);
      return words + ' ' + (lo === hi ? hi : lo + '\u2013' + hi);
    }).filter(Boolean);
    if (parts.length === 0) return 'no band stated';
    const rows = [u.rows, u.latency_rows].filter((n) => typeof n === 'number' && n > 0);
    return parts.join(', ') + ' (p10\u2013p90' + (u.regime ? ', ' + String(u.regime).replace(/-/g, ' ') : '') +
      (rows.length ? ', from ' + F.count(Math.max(...rows)) + ' calibration rows' : '') + ')';
  }

  /* A run's fixed costs as one line: "1.5 h (start-up 0.5 h, checkpoints ...), $120". */
  function overheadsText(o, per) {
    const parts = [['startup_hours', 'start-up'], ['checkpoint_hours', 'checkpoints'], ['eval_hours', 'evaluation'],
      ['billing_hours', 'billing rounding']].filter(([k]) => typeof o[k] === 'number' && o[k] > 0)
      .map(([k, words]) => words + ' ' + F.hours(o[k]));
    const hours = typeof o.hours === 'number' ? F.hours(o.hours) : null;
    return [hours ? hours + (parts.length ? ' (' + parts.join(', ') + ')' : '') : parts.join(', '),
      typeof o.cost_usd === 'number' ? F.money(o.cost_usd, per) : null].filter(Boolean).join(', ') || 'none';
  }

  /* Which basis sells the configuration and from whom; the asked basis's
   * limit of machines at once, and whether this configuration is past it. */
  function capacityText(c) {
    const basis = String(c.basis || '?').replace(/_/g, '-');
    const most = typeof c.max_instances === 'number' ? F.count(c.max_instances) + ' machines at once' : null;
    return basis + (c.provider ? ' from ' + c.provider : '') +
      (most ? (c.binds ? ': the asked basis sells at most ' : ', within the asked basis\'s ') + most : '') +
      (typeof c.lead_time_days === 'number' ? ', lead time ' + F.count(c.lead_time_days) + ' days' : '');
  }

  /* One sizing field in a candidate's detail; null to leave it out (it does
   * not apply to this task, or a buying field the server does not send). */
  function sizingEntry(key, v, per, inference) {
    if (!inference && SERVING_ONLY.has(key)) return null;
    if (per === 'month' && RUN_ONLY.has(key)) return null;
    if (v === null && (key === 'energy_usd' || key === 'estimate_withheld' || key === 'overheads' ||
                       key === 'capacity')) return null;
    if (key === 'machines' && !(typeof v === 'number' && v > 0)) return null;
    if (key === 'cost_unit') return null; /* the cost says its period: "$97.94/run" */
    if (key === 'uncertainty') return v && typeof v === 'object' ? uncertaintyText(v, per) : null;
    if (key === 'overheads') return v && typeof v === 'object' ? overheadsText(v, per) : null;
    if (key === 'capacity') return v && typeof v === 'object' ? capacityText(v) : null;
    if (v && typeof v === 'object') return null;
    return sizingValue(key, v, per);
  }

  function sizingLabel(key) {
    if (key === 'overheads') return 'Fixed costs';
    if (key === 'capacity') return 'Capacity';
    if (key === 'mfu') return 'MFU';
    return humanize(key.replace(/_(gb|usd|ms|rps|tflops)$/, ''));
  }

  /* ---- any JSON value -------------------------------------------------------------- */

  /* Tables for arrays of objects, lists, definition lists; strings that are
   * http(s) URLs become links. Depth-limited. */
  function renderValue(v, depth) {
    depth = depth || 0;
    if (v === null || v === undefined) return el('span', { class: 'muted', text: '—' });
    if (depth > 5) return el('code', { text: JSON.stringify(v) });
    if (Array.isArray(v)) {
      if (v.length === 0) return el('span', { class: 'muted', text: 'none' });
      if (v.every((x) => x && typeof x === 'object' && !Array.isArray(x))) {
        const cols = [...new Set(v.flatMap((x) => Object.keys(x)))];
        return table(cols.map(label), v.map((x) => cols.map((c) => renderValue(x[c], depth + 1))));
      }
      return el('ul', { class: 'plain' }, v.map((x) => el('li', null, renderValue(x, depth + 1))));
    }
    if (typeof v === 'object') {
      return el('dl', { class: 'kv' }, Object.entries(v).map(([k, x]) => [
        el('dt', { text: label(k) }),
        el('dd', null, k === 'breakeven_usd_per_chip_hour' && typeof x === 'number'
          ? F.money(x, 'chip_hour') : renderValue(x, depth + 1))]));
    }
    if (typeof v === 'string' && safeUrl(v) !== null) return source(v);
    if (typeof v === 'boolean') return document.createTextNode(v ? 'yes' : 'no');
    if (typeof v === 'number') return document.createTextNode(plain(v));
    return document.createTextNode(String(v));
  }

  /* ---- targets ----------------------------------------------------------------------- */

  /* One target as an icon and its name; the reason on hover (title) and, for
   * screen readers, in words. */
  function targetMark(t) {
    const state = ICON[t.state] ? t.state : 'unknown';
    return el('span', { class: 'target ' + state, title: t.message || null, 'data-target': t.target,
                        'data-state': state },
    el('span', { class: 'icon', 'aria-hidden': 'true', text: ICON[state] }), ' ', TARGET[t.target] || t.target,
    srOnly(' ' + state + (t.message ? ': ' + t.message : '')));
  }

  function targetMarks(c) {
    const ts = arr(c.targets);
    if (ts.length === 0) return el('span', { class: 'muted', text: 'none set' });
    return el('span', { class: 'targets' }, ts.map(targetMark));
  }

  /* Sorts by the number missed, then unknown: fewer is better. */
  function targetKey(c) {
    return arr(c.targets).reduce((k, t) => k + (t.state === 'missed' ? 100 : t.state === 'met' ? 0 : 1), 0);
  }

  /* ---- the summary strip ---------------------------------------------------------------- */

  function fact(label, ...value) {
    return el('div', { class: 'fact' }, el('dt', { text: label }), el('dd', null, value));
  }

  /* A figure's p10-p90 band, "9.8 h–15.1 h", or null without one. */
  function bandText(b, fmt, fmtLow) {
    if (!b || typeof b !== 'object' || b.p10 == null || b.p90 == null) return null;
    const lo = fmt(b.p10), hi = fmt(b.p90);
    if (lo === hi) return null;
    /* "13.7\u201326.4 ms": a unit both ends share is said once. */
    const unit = / [^\d ]+$/.exec(hi);
    const low = (fmtLow || fmt)(b.p10);
    return (unit && low.endsWith(unit[0]) ? low.slice(0, -unit[0].length) : low) + '\u2013' + hi;
  }

  /* A cost band with its period once: "$27.9k–$55.8k/month". */
  function moneyBand(b, per) {
    return band(b, (v) => F.money(v, per), (v) => F.money(v));
  }

  /* The band under a figure in a cell or a fact (p10-p90, docs/calibration.md). */
  function band(b, fmt, fmtLow) {
    const t = bandText(b, fmt, fmtLow);
    return t ? el('span', { class: 'band muted', title: 'p10\u2013p90: four times in five the real figure is in this range',
                            text: ' (' + t + ')' }) : null;
  }

  /* The band under a figure in a table cell: on a line of its own, so no
   * parentheses. */
  function cellBand(b, fmt, fmtLow) {
    const t = bandText(b, fmt, fmtLow);
    return t ? el('span', { class: 'band muted', title: 'p10\u2013p90: four times in five the real figure is in this range',
                            text: t }) : null;
  }

  function timeFact(r, s) {
    const per = period(r);
    const u = obj(s.uncertainty);
    if (per === 'month') {
      return fact('Latency', F.ms(s.decode_ms) + ' a token', band(u.decode_ms, F.ms),
        s.request_ms != null ? ', ' + F.ms(s.request_ms) + ' a request' : null);
    }
    return fact(per === 'job' ? 'Job time' : 'Run time', F.hours(s.hours), band(u.hours, F.hours));
  }

  /* Where the pick is rented or bought, from its price: provider, region,
   * instances and type, and the basis that sells them (a reservation when the
   * asked basis cannot sell that many at once). */
  function whereWords(p, s) {
    if (!p || typeof p !== 'object') return null;
    if (p.kind === 'on_prem') return 'bought for on premises (list price amortised, plus energy)';
    const cap = obj(s.capacity);
    const basis = String(cap.binds && cap.basis ? cap.basis : p.pricing || '?').replace(/_/g, '-');
    const what = (typeof p.instances === 'number' ? F.count(p.instances) + ' \u00d7 ' : '') + (p.instance_type || '?');
    return [p.provider, p.region, what].filter(Boolean).join(', ') + ', ' + basis +
      (cap.binds ? ' (the asked basis cannot sell that many at once)' : '');
  }

  function priceWords(p) {
    if (!p || typeof p !== 'object') return 'no public price on the asked basis';
    if (p.kind === 'on_prem') return 'on premises, list price as of ' + (p.as_of || '?');
    return String(p.pricing || '').replace(/_/g, '-') + ' price as of ' + (p.as_of || '?') + ', ' +
      (p.confidence || '?') + ' confidence';
  }

  /* No pick: the server's words first, then the nearest candidate and what
   * would meet the targets, or the field that would give an estimate. */
  function renderNoPick(r) {
    const m = obj(r.would_meet);
    const per = period(r);
    const withheld = r.status === 'estimate_withheld';
    const nearest = withheld ? null : arr(r.recommendations)[0];
    const fields = arr(m.fields);
    return el('section', { id: 'top-pick', class: 'summary none', 'data-accelerator': '', 'data-status': r.status,
                           tabindex: '-1', 'aria-labelledby': 'summary-title' },
    el('h3', { id: 'summary-title', class: 'label',
               text: withheld ? 'No pick: the estimate is withheld' : 'No pick: nothing meets the targets' }),
    el('p', { class: 'status-message', text: r.status_message || '' }),
    el('dl', { class: 'facts' },
      nearest ? fact('Nearest', (nearest.name || nearest.accelerator) + ', ' +
        F.percent(nearest.target_met) + ' of the targets') : null,
      typeof m.chips === 'number' ? fact('Would meet them', chips(m.chips) + ' of ' + m.accelerator) : null,
      typeof m.budget_usd === 'number' ? fact('Budget that covers it', F.money(m.budget_usd, per)) : null,
      typeof m.hours === 'number' ? fact('Deadline met within the limits', F.hours(m.hours)) : null,
      fields.length ? fact('Give', fields.map((f, i) => [i ? ' or ' : '', el('code', { text: f })])) : null));
  }

  /* What the pick buys beyond its chips: machines, fixed costs, and the basis
   * that sells it, when the server sends them. */
  function buyingFacts(s, per) {
    return [
      typeof s.machines === 'number' && s.machines > 0
        ? fact('Machines', F.count(s.machines) + ' machine' + (s.machines === 1 ? '' : 's')) : null,
      s.overheads && typeof s.overheads === 'object' ? fact('Fixed costs', overheadsText(s.overheads, per)) : null,
      s.capacity && typeof s.capacity === 'object' ? fact('Capacity', capacityText(s.capacity)) : null];
  }

  function renderSummary(r) {
    const top = arr(r.recommendations)[0];
    const objective = OBJECTIVE[obj(r.workload).objective] || 'the objective';
    if (!hasPick(r)) return renderNoPick(r);
    if (!top) {
      return el('section', { id: 'top-pick', class: 'summary none', 'data-accelerator': '', tabindex: '-1',
                             'aria-labelledby': 'summary-title' },
      el('h3', { id: 'summary-title', class: 'label', text: 'No pick' }),
      el('p', { text: 'No accelerator passed the hard filters: see the exclusions and warnings below.' }));
    }
    const s = obj(top.sizing);
    const per = period(r);
    const ts = arr(top.targets);
    const met = ts.filter((t) => t.state === 'met').length;
    return el('section', { id: 'top-pick', class: 'summary', 'data-accelerator': top.accelerator,
                           tabindex: '-1', 'aria-labelledby': 'summary-title' },
    el('h3', { id: 'summary-title', class: 'label', text: 'The pick, ' + objective }),
    el('p', { class: 'pick' }, el('strong', { class: 'name', text: top.name || top.accelerator }),
      ' ', el('span', { class: 'muted id', text: '(' + top.accelerator + ')' })),
    r.why ? el('p', { class: 'why', text: r.why }) : null,
    el('dl', { class: 'facts' },
      whereWords(top.price, s) ? fact('Where to rent it', whereWords(top.price, s)) : null,
      fact('Shape', [s.shape, chips(s.chips)].filter(Boolean).join(', ')),
      buyingFacts(s, per),
      fact('Cost', el('strong', { text: F.money(s.cost_usd, per) }),
        moneyBand(obj(s.uncertainty).cost_usd, per), ', ' + F.money(s.cost_per_hour_usd, 'hour')),
      timeFact(r, s),
      fact('Targets', ts.length ? met + ' of ' + ts.length + ' met ' : 'none set', ts.length ? targetMarks(top) : null),
      fact('Price', priceWords(top.price))),
    /* The why says what decided the pick in plain words; the pick note (which
     * names a gate by its rule id) only for a server that sends no why. */
    r.pick_note && !r.why ? el('p', { class: 'note', text: r.pick_note }) : null,
    r.price_note ? el('p', { class: 'note price-note', role: 'note', text: r.price_note }) : null,
    r.defaults_note ? el('p', { class: 'note defaults-note', role: 'note', text: r.defaults_note }) : null);
  }

  /* ---- the comparison table -------------------------------------------------------------- */

  function columns(r) {
    const per = period(r);
    const pick = hasPick(r);
    const z = (c) => obj(c.sizing);
    const u = (c) => obj(z(c).uncertainty);
    const p = (c) => obj(c.price);
    const serving = per === 'month';
    return [
      { key: 'rank', label: 'Rank', value: (c, i) => i,
        cell: (c, i) => (i === 0 && pick ? [el('span', { class: 'tick', 'aria-hidden': 'true', text: '\u2714 ' }), '1',
          srOnly(', the pick')] : String(i + 1)) },
      { key: 'part', label: 'Part', value: (c) => c.name || c.accelerator,
        cell: (c) => [el('span', { class: 'name', text: c.name || c.accelerator }), ' ',
          el('span', { class: 'muted id', text: '(' + c.accelerator + ')' })] },
      { key: 'shape', label: 'Shape', value: (c) => z(c).shape, cell: (c) => z(c).shape || '—' },
      { key: 'chips', label: 'Chips', num: true, value: (c) => z(c).chips, cell: (c) => F.count(z(c).chips) },
      serving
        ? { key: 'latency', label: 'Latency a token', num: true, value: (c) => z(c).decode_ms,
            cell: (c) => [F.ms(z(c).decode_ms), cellBand(u(c).decode_ms, F.ms)] }
        : { key: 'time', label: per === 'job' ? 'Job time' : 'Run time', num: true, value: (c) => z(c).hours,
            cell: (c) => [F.hours(z(c).hours), cellBand(u(c).hours, F.hours)] },
      /* The unit in the header, not in every cell: the table fits 1280 px. */
      { key: 'per_hour', label: '$/h', num: true, value: (c) => z(c).cost_per_hour_usd,
        cell: (c) => F.money(z(c).cost_per_hour_usd, 'none') },
      { key: 'total', label: serving ? '$/month' : per === 'job' ? '$, the job' : '$, the run', num: true,
        value: (c) => z(c).cost_usd,
        cell: (c) => [F.money(z(c).cost_usd, 'none'), cellBand(u(c).cost_usd, (v) => F.money(v, 'none'))] },
      { key: 'targets', label: 'Targets', value: targetKey, cell: targetMarks },
      /* The price's date, and its confidence under it. */
      { key: 'as_of', label: 'Price', nowrap: true, value: (c) => p(c).as_of,
        cell: (c) => (p(c).as_of ? [p(c).as_of, el('span', { class: 'band muted', 'data-confidence': p(c).confidence,
          text: (p(c).confidence || '?') + ' confidence' })] : '—') },
      { key: 'score', label: 'Score', num: true, first: -1, value: (c) => c.score, cell: (c) => String(c.score) },
    ];
  }

  /* a before b? Unknown values last whichever the direction; ties keep the rank. */
  function compare(va, vb, dir) {
    const missing = (v) => v === null || v === undefined || (typeof v === 'number' && !isFinite(v));
    if (missing(va) || missing(vb)) return missing(va) - missing(vb);
    if (typeof va === 'string' || typeof vb === 'string') return dir * String(va).localeCompare(String(vb));
    return dir * (va - vb);
  }

  /* How the caption says a column's order, ascending then descending. */
  function orderWords(col, r) {
    if (col.key === 'rank' && r.status === 'no_configuration_meets_targets')
      return ['nearest to the targets first', 'farthest first'];
    if (col.key === 'rank' && r.status === 'estimate_withheld') return ['the rules\' order', 'reversed'];
    if (col.key === 'rank') return ['best first', 'worst first'];
    if (col.key === 'targets') return ['fewest missed first', 'most missed first'];
    if (col.key === 'confidence') return ['high first', 'low first'];
    if (col.num) return ['lowest first', 'highest first'];
    return ['A to Z', 'Z to A'];
  }

  /* Every candidate, one row each, sortable by any column: a button in each
   * header (the first press sorts a column its natural way: the score highest
   * first, the rest lowest first), aria-sort on the sorted one, the caption
   * saying the order. */
  function comparisonTable(r) {
    const recs = arr(r.recommendations);
    const cols = columns(r);
    const buttons = cols.map((col) => el('button', { type: 'button', class: 'sort', 'data-sort': col.key,
                                                     text: col.label }));
    const rows = recs.map((c, i) => ({
      attrs: { 'data-accelerator': c.accelerator, class: i === 0 && hasPick(r) ? 'pick' : null },
      cells: cols.map((col) => col.cell(c, i)) }));
    const wrap = table(buttons, rows, 'Every candidate, by rank, ' + orderWords(cols[0], r)[0], {
      class: 'compare', cellClass: cols.map((col) => (col.num ? 'num' : col.nowrap ? 'nowrap' : null)) });
    const caption = wrap.querySelector('caption');
    const heads = [...wrap.querySelectorAll('thead th')];
    const trs = [...wrap.querySelectorAll('tbody tr')];
    let sorted = { key: 'rank', dir: 1 };
    function sortBy(k) {
      const col = cols[k];
      const dir = sorted.key === col.key ? -sorted.dir : col.first || 1;
      sorted = { key: col.key, dir };
      const order = recs.map((c, i) => i).sort((a, b) =>
        compare(col.value(recs[a], a), col.value(recs[b], b), dir) || a - b);
      if (trs.length) trs[0].parentNode.append(...order.map((i) => trs[i]));
      heads.forEach((h, i) => (i === k ? h.setAttribute('aria-sort', dir > 0 ? 'ascending' : 'descending')
        : h.removeAttribute('aria-sort')));
      caption.textContent = 'Every candidate, by ' + col.label.toLowerCase() + ', ' +
        orderWords(col, r)[dir > 0 ? 0 : 1];
    }
    buttons.forEach((b, k) => b.addEventListener('click', () => sortBy(k)));
    if (heads.length) heads[0].setAttribute('aria-sort', 'ascending');
    return wrap;
  }

  /* Every target a candidate misses or cannot be checked against, in words. */
  function renderMissed(recs) {
    const missed = recs.flatMap((c) => arr(c.targets).filter((t) => t.state !== 'met').map((t) => [c, t]));
    if (missed.length === 0) return el('p', { class: 'muted', text: 'Every candidate meets every target.' });
    return [el('h4', { text: 'Targets not met or not known (' + missed.length + ')' }),
      el('ul', { class: 'missed' }, missed.map(([c, t]) => el('li', { 'data-accelerator': c.accelerator },
        targetMark(t), ' ', el('strong', { text: c.name || c.accelerator }), ': ', t.message || '')))];
  }

  function renderComparison(r) {
    const recs = arr(r.recommendations);
    if (recs.length === 0) return null;
    return el('section', { class: 'block', id: 'compare' },
      el('h3', { text: 'Candidates compared (' + recs.length + ')' }),
      el('p', { class: 'hint', text: 'Press a column\'s name to sort by it. A tick meets the target, a cross ' +
        'misses it, a question mark cannot be checked; hover a target for why.' }),
      comparisonTable(r), renderMissed(recs));
  }

  /* ---- the frontier ------------------------------------------------------------------------ */

  /* Cost across (log scale), time up (log scale), one dot a configuration, the
   * pick ringed and named. A table under it says the same in numbers. */
  const SVG = 'http://www.w3.org/2000/svg';
  function svg(tag, attrs, ...children) {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v !== undefined && v !== null) node.setAttribute(k, String(v));
    }
    for (const c of children.flat()) {
      if (c != null) node.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
    }
    return node;
  }

  function frontierChart(points, per, time) {
    const W = 560, H = 260, L = 74, R = 16, T = 14, B = 40;
    const lc = points.map((p) => Math.log10(Math.max(p.cost_usd, 1e-9)));
    const lt = points.map((p) => Math.log10(Math.max(p.time, 1e-9)));
    const span = (v) => {
      const lo = Math.min(...v), hi = Math.max(...v);
      return hi - lo < 1e-9 ? [lo - 0.5, hi + 0.5] : [lo - 0.05 * (hi - lo), hi + 0.05 * (hi - lo)];
    };
    const [c0, c1] = span(lc), [t0, t1] = span(lt);
    const x = (v) => L + (v - c0) / (c1 - c0) * (W - L - R);
    const y = (v) => H - B - (v - t0) / (t1 - t0) * (H - T - B);
    const dots = points.map((p, i) => svg('circle', {
      cx: x(lc[i]).toFixed(1), cy: y(lt[i]).toFixed(1), r: p.pick ? 7 : 4,
      class: p.pick ? 'pick' : 'point', 'data-accelerator': p.accelerator },
    svg('title', null, p.shape + ': ' + F.money(p.cost_usd, per) + ', ' + time(p.time) +
        (p.pick ? ' (the pick)' : ''))));
    const line = svg('polyline', { class: 'front', fill: 'none',
      points: points.map((p, i) => x(lc[i]).toFixed(1) + ',' + y(lt[i]).toFixed(1)).join(' ') });
    const pick = points.findIndex((p) => p.pick);
    const right = pick >= 0 && x(lc[pick]) > W / 2;
    const label = pick < 0 ? null : svg('text', { x: (x(lc[pick]) + (right ? -10 : 10)).toFixed(1),
      y: (y(lt[pick]) - 8).toFixed(1), class: 'pick-label', 'text-anchor': right ? 'end' : 'start' },
    'pick: ' + points[pick].shape);
    const serving = per === 'month';
    return svg('svg', { viewBox: '0 0 ' + W + ' ' + H, class: 'frontier', role: 'img',
      'aria-label': 'Cost against ' + (serving ? 'request time' : 'run time') + ' for the ' + points.length +
        ' configurations no other beats on both; the pick is ' + (pick < 0 ? 'not among them' : points[pick].shape) },
    svg('line', { x1: L, y1: H - B, x2: W - R, y2: H - B, class: 'axis' }),
    svg('line', { x1: L, y1: T, x2: L, y2: H - B, class: 'axis' }),
    svg('text', { x: (L + W - R) / 2, y: H - 8, class: 'axis-label', 'text-anchor': 'middle' },
      'cost per ' + per + ' (log scale)'),
    svg('text', { x: 14, y: (T + H - B) / 2, class: 'axis-label', 'text-anchor': 'middle',
      transform: 'rotate(-90 14 ' + (T + H - B) / 2 + ')' }, (serving ? 'request time' : 'time') + ' (log scale)'),
    svg('text', { x: L, y: H - B + 16, class: 'tick', 'text-anchor': 'start' }, F.money(10 ** c0, 'none')),
    svg('text', { x: W - R, y: H - B + 16, class: 'tick', 'text-anchor': 'end' }, F.money(10 ** c1, 'none')),
    svg('text', { x: L - 6, y: H - B, class: 'tick', 'text-anchor': 'end' }, time(10 ** t0)),
    svg('text', { x: L - 6, y: T + 10, class: 'tick', 'text-anchor': 'end' }, time(10 ** t1)),
    line, dots, label);
  }

  function renderFrontier(r) {
    const fr = obj(r.frontier);
    const points = arr(fr.points);
    if (points.length === 0) return null;
    const per = period(r);
    const time = fr.time_unit === 'ms' ? F.ms : F.hours;
    return section('Cost against time',
      el('p', { class: 'muted', text: 'Every configuration sized (each part, chip count and ' +
        'serving layout) that meets every target and has a price, keeping those no other is ' +
        'both cheaper and faster than. The ringed dot is the pick.' }),
      el('figure', { class: 'frontier' }, frontierChart(points, per, time)),
      table(['Configuration', 'Cost', '$/h', fr.time_unit === 'ms' ? 'Request time' : 'Time', ''],
        points.map((p) => ({ attrs: { class: p.pick ? 'pick' : null }, cells: [p.shape, F.money(p.cost_usd, per),
          F.money(p.cost_per_hour_usd, 'hour'), time(p.time), p.pick ? 'the pick' : ''] })),
        'The frontier, cheapest first'));
  }

  /* ---- each candidate in detail ------------------------------------------------------------- */

  function renderFamilies(families) {
    return section('Families', el('ol', { class: 'families' }, families.map((f) =>
      el('li', { class: f.excluded ? 'excluded' : null, 'data-family': f.family },
        el('span', { class: 'fam', text: String(f.family).toUpperCase() }),
        el('meter', { min: 0, max: 100, low: 40, high: 70, optimum: 100, value: f.score,
                      'aria-label': f.family + ' score' }),
        el('span', { class: 'score', text: String(f.score) }),
        el('span', { class: 'best', text: f.excluded ? 'every candidate excluded'
          : f.best ? 'best: ' + f.best : '' })))));
  }

  function renderReasons(reasons) {
    if (!Array.isArray(reasons) || reasons.length === 0) return el('p', { class: 'muted', text: 'No reasons given.' });
    return el('ul', { class: 'reasons' }, reasons.map((r) => {
      const impact = typeof r.impact === 'number' ? r.impact : 0;
      return el('li', { class: impact > 0 ? 'up' : impact < 0 ? 'down' : 'info' },
        el('span', { class: 'impact', 'aria-label': 'impact ' + impact,
                     text: impact > 0 ? '+' + impact : impact < 0 ? '\u2212' + -impact : 'info' }),
        el('span', { class: 'msg' }, r.message || '', ' ',
          el('code', { class: 'rule', text: r.rule_id || '' }),
          r.fact ? [' ', el('span', { class: 'fact', text: 'fact ' + r.fact })] : null,
          r.counted_with ? [' ', el('span', { class: 'muted', text: '(same fact as ' + r.counted_with + ', counted once)' })] : null,
          ' ', source(r.source)));
    }));
  }

  /* The price behind a candidate's cost (Price in the contract); null: unknown. */
  function renderPrice(p) {
    if (!p || typeof p !== 'object')
      return el('p', { class: 'muted', text: 'No public price on the asked basis: the cost is not estimated.' });
    const rate = F.money(p.usd_per_chip_hour, 'chip_hour');
    if (p.kind === 'on_prem')
      return el('p', { class: 'price' }, rate + ' on premises (energy plus the list price amortised), list price as of ' +
        (p.as_of || '?') + ' ', source(p.source));
    const where = [p.provider, p.region].filter(Boolean).join(' ');
    return el('p', { class: 'price' },
      rate + ', ' + String(p.pricing || '').replace(/_/g, '-') + (where ? ' on ' + where : '') +
      (p.offer ? ' (' + p.offer + ')' : p.instance_type ? ' (' + p.instance_type + ')' : '') +
      ', as of ' + (p.as_of || '?') + ', ' + (p.confidence || '?') + ' confidence ', source(p.source),
      p.via ? [' via ', source(p.via)] : null);
  }

  function renderCandidate(r, c, rank) {
    const per = period(r);
    const sizing = obj(c.sizing);
    const extra = Object.keys(c).filter((k) => !CANDIDATE_KNOWN.has(k));
    const headline = [sizing.shape, sizing.cost_usd != null ? F.money(sizing.cost_usd, per) : 'cost unknown',
      sizing.fits === false ? 'does not fit' : null].filter(Boolean).join(' · ');
    return el('li', { class: 'candidate', 'data-accelerator': c.accelerator },
      el('details', { open: rank <= 1 },
        el('summary', null,
          el('span', { class: 'rank', text: '#' + rank }),
          el('span', { class: 'name' }, el('strong', { text: c.name || c.accelerator }),
            ' ', el('span', { class: 'muted id', text: '(' + [c.accelerator, c.family, c.vendor].join(', ') + ')' })),
          el('meter', { min: 0, max: 100, low: 40, high: 70, optimum: 100, value: c.score,
                        'aria-label': 'score' }),
          el('span', { class: 'score', text: String(c.score) }),
          el('span', { class: 'headline', text: headline })),
        el('div', { class: 'body' },
          el('p', { class: 'scores', text: 'Score ' + c.score + ' (rules ' + c.rule_score +
            ', objective ' + c.objective_score + ')' +
            (!hasPick(r) && typeof c.target_met === 'number' ? '; meets ' + F.percent(c.target_met) + ' of the targets' : '') +
            (c.capped_by ? '; held below others by ' + c.capped_by : '') }),
          el('h4', { text: 'Targets' }),
          arr(c.targets).length
            ? el('ul', { class: 'plain targets-said' }, arr(c.targets).map((t) =>
              el('li', null, targetMark(t), ': ', t.message || '')))
            : el('p', { class: 'muted', text: 'The workload sets none.' }),
          el('h4', { text: 'Sizing' }),
          el('dl', { class: 'kv sizing' }, Object.entries(sizing)
            .map(([k, v]) => [k, sizingEntry(k, v, per, obj(r.workload).task === 'inference')]).filter(([, text]) => text !== null)
            .map(([k, text]) => [el('dt', { text: sizingLabel(k) }), el('dd', { text })])),
          el('h4', { text: 'Price' }), renderPrice(c.price),
          c.availability
            ? [el('h4', { text: c.availability.source === 'prometheus' ? 'Across the fleet' : 'On this host' }),
              renderValue(c.availability)]
            : null,
          el('h4', { text: 'Reasons' }), renderReasons(c.reasons),
          extra.map((k) => [el('h4', { text: humanize(k) }), renderValue(c[k])]))));
  }

  /* ---- explanations, exclusions, the rest ----------------------------------------------------- */

  function renderExcluded(list) {
    return section('Excluded (' + list.length + ')', list.length === 0
      ? el('p', { class: 'muted', text: 'Nothing was excluded.' })
      : table(['Accelerator', 'Family', 'Why', 'Rule', 'Source'], list.map((x) => [
        el('span', null, el('span', { class: 'name', text: x.name || x.accelerator }), ' ',
          el('span', { class: 'muted id', text: '(' + x.accelerator + ')' })),
        x.family || '', x.message || '', el('code', { text: x.rule_id || '' }), source(x.source)]),
      null, { class: 'excluded' }));
  }

  function renderWarnings(list) {
    if (list.length === 0) return null;
    return section('Warnings', el('ul', { class: 'warnings' }, list.map((w) =>
      el('li', null, el('code', { text: w.code || '' }), ' ', w.message || ''))));
  }

  function renderAssumptions(list) {
    if (list.length === 0) return null;
    return el('details', { class: 'block' }, el('summary', { text: 'Assumptions (' + list.length + ')' }),
      table(['Name', 'Value', 'Unit', 'Source'], list.map((a) => [
        el('code', { text: a.name || '' }), typeof a.value === 'number' ? plain(a.value) : String(a.value),
        a.unit || '', source(a.source)])));
  }

  /* robustness: the verdict, the margin, and each check in the server's words. */
  function renderRobustness(rb) {
    if (!rb || typeof rb !== 'object') return null;
    return section('How robust the answer is',
      el('p', { class: 'verdict ' + (rb.verdict === 'robust' ? 'up' : 'down') },
        el('strong', { text: String(rb.verdict || '') }), ' · ' + (rb.top || '') + ' leads ' +
        (rb.runner_up ? rb.runner_up + ' by ' + rb.margin + ' points' : 'with no runner-up')),
      el('ul', { class: 'plain' }, arr(rb.checks).map((c) =>
        el('li', { class: c.robust ? 'up' : 'down' }, c.summary || ''))),
      rb.stopped ? el('p', { class: 'muted', text: 'Stopped early: ' + rb.stopped + '.' }) : null);
  }

  /* changes: per target (the pick, the runner-up, other families' best,
   * excluded parts), the smallest verified changes that would make it the pick. */
  function renderChanges(ch) {
    if (!ch || typeof ch !== 'object') return null;
    const targets = arr(ch.targets);
    return section('What would change the answer',
      targets.length === 0 ? el('p', { class: 'muted', text: 'No single change found within the search.' }) : null,
      el('ul', { class: 'changes' }, targets.map((t) => el('li', { 'data-accelerator': t.accelerator },
        el('p', null, el('strong', { text: t.name || t.accelerator }),
          ' ', el('span', { class: 'muted', text: '(' + [t.accelerator, String(t.role || '').replace(/_/g, ' '),
            t.excluded_by ? 'excluded by ' + t.excluded_by : null].filter(Boolean).join(', ') + ')' })),
        arr(t.changes).length
          ? el('ul', { class: 'plain' }, arr(t.changes).map((c) => el('li', null, c.summary || '',
            ' ', el('code', { class: 'rule', text: c.field || '' }))))
          : el('p', { class: 'muted', text: 'No change of one field the search tried makes it the pick.' })))),
      el('p', { class: 'muted', text: (ch.evaluations != null ? F.count(ch.evaluations) + ' runs of the decision' : '') +
        (ch.stopped ? '; stopped early (' + ch.stopped + ')' : '') + '. Every change was run and gives the pick it names.' }));
  }

  /* The whole answer, in the order a buyer reads it, into `box`. */
  function render(box, r) {
    const recs = arr(r.recommendations);
    const others = Object.keys(r).filter((k) => !KNOWN.has(k));
    root.aaDom.fill(box,
      renderSummary(r),
      el('p', { class: 'meta', text: [obj(r.workload).name, 'request ' + r.request_id,
        'rules ' + String(r.rules_version || '').slice(0, 12)].filter(Boolean).join(' · ') }),
      renderComparison(r),
      renderWarnings(arr(r.warnings)),
      renderFrontier(r),
      arr(r.families).length ? renderFamilies(arr(r.families)) : null,
      section('Each candidate: targets, sizing, price and reasons', el('ol', { class: 'candidates' },
        recs.map((c, i) => renderCandidate(r, c, i + 1)))),
      renderRobustness(r.robustness),
      renderChanges(r.changes),
      others.map((k) => section(humanize(k), renderValue(r[k]))),
      renderExcluded(arr(r.excluded)),
      renderAssumptions(arr(r.assumptions)),
      el('details', { class: 'block raw' }, el('summary', { text: 'The response as JSON' }),
        el('pre', { tabindex: '0', 'aria-label': 'The response as JSON', text: JSON.stringify(r, null, 2) })));
    return box.querySelector('#top-pick');
  }

  root.aaAnswer = { render, period };
})(typeof window !== 'undefined' ? window : globalThis);
