/* web/format.js -- numbers as people read them, for the playground page: the
 * same formatting as the reason texts and the CLI table, step for step the
 * JavaScript of core/src/base/numfmt.c (read that file's header for the rules).
 * Both are held to the cases of tests/fixtures/numfmt.json
 * (tests/js/format.test.mjs runs this file on them in node).
 *
 * Every step is an IEEE operation that C and JavaScript perform alike: powers
 * of ten by repeated multiplication, one multiplication or division per
 * scale, and toFixed only on a value already rounded to the digits printed.
 * Defines the global `aaFormat` (the page loads it before playground.js). */
'use strict';

(function (root) {
  const JSON_SIGNIFICANT = 4;

  function p10(i) {
    let r = 1;
    for (let k = 0; k < i; k++) r *= 10;
    return r;
  }

  function exponent10(a) {
    let k = 0;
    if (a >= 1) {
      while (k < 308 && a >= p10(k + 1)) k++;
      return k;
    }
    while (k < 330 && a * p10(k) < 1) k++;
    return -k;
  }

  /* C's round(): half away from zero (callers pass values >= 0). */
  function roundHalfUp(x) {
    return Math.round(x);
  }

  function roundSig(v, digits) {
    if (!Number.isFinite(v) || v === 0 || digits < 1) return v;
    const a = Math.abs(v);
    const s = digits - 1 - exponent10(a);
    let r;
    if (s >= 0) {
      const p = p10(s);
      if (!Number.isFinite(p) || !Number.isFinite(a * p)) return v;
      r = roundHalfUp(a * p) / p;
    } else {
      const p = p10(-s);
      r = roundHalfUp(a / p) * p;
    }
    return v < 0 ? -r : r;
  }

  function putFixed(a, decimals, keep, group) {
    let digits = a.toFixed(Math.min(decimals, 20));
    const dot = digits.indexOf('.');
    if (dot >= 0) {
      let end = digits.length;
      while (end > dot + 1 + keep && digits[end - 1] === '0') end--;
      if (end === dot + 1) end = dot;
      digits = digits.slice(0, end);
    }
    if (!group) return digits;
    const cut = digits.indexOf('.');
    const intPart = cut >= 0 ? digits.slice(0, cut) : digits;
    const rest = cut >= 0 ? digits.slice(cut) : '';
    return intPart.replace(/\B(?=(\d{3})+(?!\d))/g, ',') + rest;
  }

  function putSig3(r, group) {
    const d = 2 - exponent10(r);
    return putFixed(r, d < 0 ? 0 : d, 0, group);
  }

  function shortScale(r) {
    const names = ['k', 'M', 'B', 'T'];
    let i = 0;
    while (i < 3 && r >= p10(3 * (i + 2))) i++;
    return [names[i], r / p10(3 * (i + 1))];
  }

  function putScaled(r) {
    const [suffix, m] = shortScale(r);
    return putSig3(roundSig(m, 3), true) + suffix;
  }

  const PERIODS = { none: '', hour: '/h', chip_hour: '/chip-hour', month: '/month', run: '/run', job: '/job' };

  /* Dollars with their period (`per`: a key of PERIODS). */
  function money(usd, per) {
    if (typeof usd !== 'number' || !Number.isFinite(usd)) return 'unknown';
    const r = roundSig(Math.abs(usd), JSON_SIGNIFICANT);
    const cents = roundHalfUp(r * 100) / 100;
    const whole = roundHalfUp(r);
    let body;
    if (r === 0) {
      body = '0';
    } else if (r < 1) {
      const t = roundSig(r, 3);
      const d = 2 - exponent10(t);
      body = putFixed(t, d < 2 ? 2 : d, 2, false);
    } else if (cents < 100) {
      body = putFixed(cents, 2, 2, false);
    } else if (whole < 1000) {
      body = putFixed(whole, 0, 0, false);
    } else {
      body = putScaled(roundSig(r, 3));
    }
    return (usd < 0 && r > 0 ? '-' : '') + '$' + body + (PERIODS[per] || '');
  }

  const UNITS = [[0.001, 'ms', 'ms'], [1, 's', 's'], [60, 'min', 'min'], [3600, 'h', 'h'],
    [86400, 'day', 'days'], [31536000, 'year', 'years']];

  function durationSeconds(secs) {
    let u = 0;
    while (u + 1 < UNITS.length && secs >= UNITS[u + 1][0]) u++;
    let v = roundSig(secs / UNITS[u][0], 3);
    if (u + 1 < UNITS.length && v * UNITS[u][0] >= UNITS[u + 1][0]) {
      u++;
      v = roundSig(secs / UNITS[u][0], 3);
    }
    const body = v === 0 ? '0' : putSig3(v, true);
    return body + ' ' + (v === 1 ? UNITS[u][1] : UNITS[u][2]);
  }

  function durationIn(v, unitSeconds) {
    if (typeof v !== 'number' || !Number.isFinite(v)) return 'unknown';
    if (v < 0) return '-' + durationIn(-v, unitSeconds);
    return durationSeconds(roundSig(v, JSON_SIGNIFICANT) * unitSeconds);
  }

  function shown(v) {
    return roundSig(roundSig(Math.abs(v), JSON_SIGNIFICANT), 3);
  }

  function sign(v, r) {
    return v < 0 && r > 0 ? '-' : '';
  }

  function count(n) {
    if (typeof n !== 'number' || !Number.isFinite(n)) return 'unknown';
    const a = roundHalfUp(Math.abs(n));
    if (a >= 1e21) return quantity(n);
    return sign(n, a) + putFixed(a, 0, 0, true);
  }

  function quantity(v) {
    if (typeof v !== 'number' || !Number.isFinite(v)) return 'unknown';
    const r = shown(v);
    const body = r === 0 ? '0' : r < 1000 ? putSig3(r, true) : putScaled(r);
    return sign(v, r) + body;
  }

  function number(v) {
    if (typeof v !== 'number' || !Number.isFinite(v)) return 'unknown';
    const r = shown(v);
    return sign(v, r) + (r === 0 ? '0' : putSig3(r, true));
  }

  function percent(ratio) {
    if (typeof ratio !== 'number' || !Number.isFinite(ratio)) return 'unknown';
    return number(roundSig(ratio, JSON_SIGNIFICANT) * 100) + '%';
  }

  function flop(f) {
    if (typeof f !== 'number' || !Number.isFinite(f)) return 'unknown';
    const prefix = ['', 'k', 'M', 'G', 'T', 'P', 'E', 'Z', 'Y'];
    const r = shown(f);
    let i = 0;
    while (i < 8 && r >= p10(3 * (i + 1))) i++;
    const body = r === 0 ? '0' : putSig3(roundSig(r / p10(3 * i), 3), true);
    return sign(f, r) + body + ' ' + prefix[i] + 'FLOP';
  }

  root.aaFormat = {
    roundSig,
    money,
    duration: (seconds) => durationIn(seconds, 1),
    hours: (h) => durationIn(h, 3600),
    ms: (ms) => durationIn(ms, 0.001),
    count,
    quantity,
    number,
    percent,
    flop,
  };
})(typeof window !== 'undefined' ? window : globalThis);
