// tests/js/format.test.mjs -- web/format.js, the page's number formatter, on
// every golden case of tests/fixtures/numfmt.json: the same table that
// tests/unit/core/test_numfmt.c holds core/src/base/numfmt.c to, so the page, the
// CLI table and the reason texts write every number alike. Plain node, no
// packages: node format.test.mjs SOURCE_DIR
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import vm from 'node:vm';

const src = process.argv[2];
if (!src) {
  console.error('usage: node format.test.mjs SOURCE_DIR');
  process.exit(2);
}
// The file as the browser runs it: a classic script defining a global.
const sandbox = {};
vm.runInNewContext(readFileSync(join(src, 'web/format.js'), 'utf8'), sandbox, { filename: 'web/format.js' });
const f = sandbox.aaFormat;
if (!f) throw new Error('web/format.js defined no aaFormat');

const run = {
  money: (c) => f.money(c.value ?? NaN, c.per),
  hours: (c) => f.hours(c.value ?? NaN),
  ms: (c) => f.ms(c.value ?? NaN),
  duration: (c) => f.duration(c.value ?? NaN),
  count: (c) => f.count(c.value ?? NaN),
  quantity: (c) => f.quantity(c.value ?? NaN),
  number: (c) => f.number(c.value ?? NaN),
  percent: (c) => f.percent(c.value ?? NaN),
  flop: (c) => f.flop(c.value ?? NaN),
};

const cases = JSON.parse(readFileSync(join(src, 'tests/fixtures/numfmt.json'), 'utf8'));
let failed = 0;
for (const c of cases) {
  if (!run[c.kind]) throw new Error(`unknown kind ${c.kind} in numfmt.json`);
  const got = run[c.kind](c);
  if (got !== c.expect) {
    failed++;
    console.error(`FAIL ${JSON.stringify(c)}: got "${got}"`);
  }
}
// Anything but a number is unknown, as the C formatters say of NaN.
for (const name of Object.keys(run)) {
  if (run[name]({ value: 'x', per: 'none' }) !== 'unknown') {
    failed++;
    console.error(`FAIL ${name}: a string is not "unknown"`);
  }
}
console.log(`format.js: ${cases.length} cases, ${failed} failed`);
if (cases.length < 50 || failed > 0) process.exit(1);
