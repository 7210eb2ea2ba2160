// tests/js/playground.test.mjs -- the playground page (GET /) in a real browser:
// Debian's chromium driven by puppeteer-core, against the real server on
// 127.0.0.1. It fills the form, submits, reads the top pick from the page and
// compares it with what the API answers; picks a model of the registry (the
// list fed by GET v1/models) and gets the API's answer for that name; opens the
// permalink; submits a bad workload and finds each error at its field or at its
// place in the JSON; asks
// for an API key on 401; and works through a gateway that mounts the server
// under a path prefix. Screenshots are kept in OUTDIR as test artefacts. Any
// Content-Security-Policy violation, script error or unexpected failed request
// fails the test.
//
// At a laptop's 1366 x 900 and a phone's 390 x 844 it checks what a buyer
// reads: the summary strip is in view after every submit, the comparison
// table lists every candidate with its targets and sorts by column, nothing
// scrolls sideways on the phone, and an axe-core audit (pinned in
// package-lock.json) finds no serious or critical violation, in light and
// dark. At 1280 x 800 and 390 x 844 the pick card's why and where to rent it
// are in view after Recommend, the candidates table does not scroll sideways at
// 1280, and no word of a candidate's summary is broken on the phone.
//
// usage (through tests/js/run.sh): node playground.test.mjs BINARY OUTDIR
// Exit 77 (ctest: skipped) only when chromium cannot run on this machine.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import puppeteer from 'puppeteer-core';
import { check, startServer } from './server.mjs';

const [binary, outDir] = process.argv.slice(2);
if (!binary || !outDir) {
  console.error('usage: playground.test.mjs BINARY OUTDIR');
  process.exit(2);
}
mkdirSync(outDir, { recursive: true });
const SKIP = 77;
const KEY = 'playground-test-key';
// How long a step waits for what it needs (a page loaded, an answer laid out)
// before the test fails: a bound for a hang, never a timing assertion, as
// HANG_MS is for the C tests (tests/integration/harness.h). Puppeteer's default
// of 30 s, and the 20 s this test had, are within reach of a loaded machine: the
// whole test takes 29 s alone and took 117 s beside an ASan build and other work.
const HANG_MS = 120000;

// ---- the browser ------------------------------------------------------------------

function chromiumPath() {
  const candidates = [process.env.AA_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  return candidates.find((p) => p && existsSync(p)) || null;
}

// Headless (the new mode). The sandbox needs user namespaces and is refused to
// root, so as root, or where the sandboxed launch fails (a container without
// namespaces), the browser runs with --no-sandbox: it only ever loads our page.
async function launch() {
  const executablePath = chromiumPath();
  if (executablePath === null) {
    console.log('SKIP: chromium is not installed (scripts/deps.sh test installs Debian\'s chromium)');
    process.exit(SKIP);
  }
  const common = ['--disable-gpu', '--disable-dev-shm-usage', '--no-first-run',
    '--no-default-browser-check', '--disable-extensions', '--lang=en-US'];
  const attempts = process.getuid && process.getuid() === 0 ? [['--no-sandbox']] : [[], ['--no-sandbox']];
  const errors = [];
  for (const extra of attempts) {
    try {
      return await puppeteer.launch({ executablePath, headless: true, args: [...common, ...extra],
                                      timeout: HANG_MS });
    } catch (e) {
      errors.push(`${[executablePath, ...extra].join(' ')}: ${e.message.split('\n')[0]}`);
    }
  }
  console.log(`SKIP: chromium cannot run here:\n  ${errors.join('\n  ')}`);
  process.exit(SKIP);
}

// A page that records what must not happen: script errors, CSP violations,
// console errors and failed requests, except the HTTP statuses a step expects.
async function openPage(browser, width = 1280, height = 900) {
  const page = await browser.newPage();
  page.setDefaultTimeout(HANG_MS);
  page.setDefaultNavigationTimeout(HANG_MS);
  await page.setViewport({ width, height });
  const trouble = [];
  page.expected = new Set();
  page.on('pageerror', (e) => trouble.push(`script error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    const status = /status of (\d+)/.exec(m.text());
    if (status && page.expected.has(Number(status[1]))) return;
    trouble.push(`console error: ${m.text()}`);
  });
  page.on('requestfailed', (r) => trouble.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  await page.evaluateOnNewDocument(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  page.trouble = trouble;
  return page;
}

function noTrouble(page, what) {
  check(page.trouble.length === 0, `${what}: ${page.trouble.join('; ')}`);
}

async function ready(page, url) {
  const resp = await page.goto(url, { waitUntil: 'networkidle0' });
  // 304 once the browser holds the page: it revalidates by ETag.
  check(resp.status() === 200 || resp.status() === 304, `GET ${url}: ${resp.status()}`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: HANG_MS });
}

// Press Recommend; return once the answer to that POST is laid out (the results
// are aria-busy from the click until then).
// Submit and wait until the answer is laid out; returns the response the page got.
async function submitAndWait(page) {
  const answered = page.waitForResponse((r) => r.request().method() === 'POST' &&
    new URL(r.url()).pathname.endsWith('/v1/recommendations'), { timeout: HANG_MS });
  await page.click('#submit');
  const response = await answered;
  await page.waitForFunction(() => !document.querySelector('#results').hasAttribute('aria-busy'),
    { timeout: HANG_MS });
  return response;
}

async function topPick(page) {
  return page.$eval('#top-pick', (e) => e.dataset.accelerator);
}

async function api(base, workloadText, key) {
  const headers = { 'Content-Type': 'application/json' };
  if (key) headers.Authorization = `Bearer ${key}`;
  const resp = await fetch(new URL('v1/recommendations', base), { method: 'POST', headers, body: workloadText });
  return { status: resp.status, body: await resp.json() };
}

async function setText(page, selector, value) {
  await page.$eval(selector, (e) => { e.value = ''; });
  await page.type(selector, value);
}

async function shot(page, name) {
  const file = path.join(outDir, name);
  await page.screenshot({ path: file, fullPage: true });
  console.log(`screenshot: ${file}`);
}

// ---- a gateway that mounts the server under /advisor/ ---------------------------------

function startGateway(target) {
  const seen = [];
  const server = http.createServer((req, res) => {
    seen.push(req.url);
    if (!req.url.startsWith('/advisor/')) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not behind /advisor/\n');
      return;
    }
    const up = http.request(new URL(req.url.slice('/advisor'.length), target),
      { method: req.method, headers: req.headers }, (r) => {
        res.writeHead(r.statusCode, r.headers);
        r.pipe(res);
      });
    up.on('error', (e) => res.writeHead(502).end(String(e)));
    req.pipe(up);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    url: `http://127.0.0.1:${server.address().port}/advisor/`,
    seen,
    close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(r); }),
  })));
}

// ---- what a buyer reads, at two sizes -----------------------------------------------------

// A serving workload where every part is sized and one (the CPU) misses the
// rate: the table has ticks and a cross, priced and unpriced rows.
const COMPARED = JSON.stringify({ name: 'compare', task: 'inference', model: { parameters: 70e9 },
                                  inference: { requests_per_second: 20 }, objective: 'cost' }, null, 2);

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

// axe-core run in the page (through the DevTools protocol, so the page's CSP
// stays as served): the serious and critical violations, one line each.
async function audit(page) {
  await page.evaluate(AXE);
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
}

async function stripInView(page) {
  return page.$eval('#top-pick', (e) => {
    const r = e.getBoundingClientRect();
    return r.top >= 0 && r.bottom <= window.innerHeight && r.height > 0 ? null
      : `top ${Math.round(r.top)}, bottom ${Math.round(r.bottom)}, view ${window.innerHeight}`;
  });
}

// Anything wider than the view, or scrolling sideways inside it (the
// screen-reader-only words are 1 px boxes by design and left out).
async function sideways(page) {
  return page.evaluate(() => {
    const view = document.documentElement.clientWidth;
    const out = [];
    if (document.documentElement.scrollWidth > view) out.push(`the page is ${document.documentElement.scrollWidth} px wide`);
    for (const e of document.querySelectorAll('body *')) {
      if (e.closest('.sr-only') || e.closest('[hidden]')) continue;
      const r = e.getBoundingClientRect();
      if (r.width > 0 && r.right > view + 0.5)
        out.push(`${e.tagName.toLowerCase()}.${e.className} ends at ${Math.round(r.right)}`);
      const ox = getComputedStyle(e).overflowX;
      if ((ox === 'auto' || ox === 'scroll') && e.scrollWidth > e.clientWidth + 1)
        out.push(`${e.tagName.toLowerCase()}.${e.className} scrolls sideways (${e.scrollWidth} in ${e.clientWidth})`);
    }
    return out.slice(0, 8);
  });
}

async function tableRows(page) {
  return page.$$eval('#compare tbody tr', (rs) => rs.map((r) => ({
    accelerator: r.dataset.accelerator,
    targets: [...r.querySelectorAll('.target')].map((t) => [t.dataset.target, t.dataset.state, t.title,
      t.querySelector('.sr-only').textContent]),
  })));
}

async function sortedBy(page, key) {
  await page.click(`#compare button.sort[data-sort="${key}"]`);
  return {
    order: await page.$$eval('#compare tbody tr', (rs) => rs.map((r) => r.dataset.accelerator)),
    sort: await page.$eval(`#compare button.sort[data-sort="${key}"]`, (b) => b.closest('th').getAttribute('aria-sort')),
  };
}

// Ascending by `value`, the unknown (null) last; ties keep the API's rank.
function expectedOrder(recs, value, dir) {
  return recs.map((c, i) => [c, i]).sort(([a, i], [b, j]) => {
    const va = value(a), vb = value(b);
    if (va === null || vb === null) return (va === null) - (vb === null) || i - j;
    return dir * (va - vb) || i - j;
  }).map(([c]) => c.accelerator);
}

async function readAtSize(browser, srv, [width, height]) {
  const page = await openPage(browser, width, height);
  await ready(page, srv.url);
  const tag = `${width}x${height}`;
  await page.$eval('#json', (e, text) => { e.value = text; e.dispatchEvent(new Event('input')); }, COMPARED);
  // Press Recommend where it is (sticky at the bottom of the form): the page
  // is scrolled to the bottom first, far from the answer on either size.
  await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
  const got = await (await submitAndWait(page)).json();
  const direct = await api(srv.url, COMPARED);
  check(direct.status === 200 && got.recommendations.length >= 10, `${tag}: the API answered ${direct.status}`);
  const notInView = await stripInView(page);
  check(notInView === null, `${tag}: the summary strip is not in view after submit: ${notInView}`);
  check(await page.$eval('#top-pick', (e) => e === document.activeElement), `${tag}: focus on the summary`);
  await page.screenshot({ path: path.join(outDir, `answer-${tag}.png`) });
  console.log(`screenshot: ${path.join(outDir, `answer-${tag}.png`)}`);

  // The strip: the pick, its shape, its cost per month and per hour, its
  // latency, the targets it meets, in the formatter's words.
  const top = got.recommendations[0];
  const strip = await page.$eval('#top-pick', (e) => e.textContent);
  for (const want of [top.name, top.sizing.shape, '/month', '/h', ' ms a token', '1 of 1 met',
    top.price.as_of, `${top.price.confidence} confidence`])
    check(strip.includes(want), `${tag}: the strip says "${want}": ${strip}`);
  check(/\$[0-9.]+k\/month/.test(strip) && !/\$\d{5}/.test(strip), `${tag}: money as people read it: ${strip}`);
  // Price confidence in the decision: the result's price_note on the pick
  // card, word for word, or no note when the result has none.
  const priceNote = await page.$eval('#top-pick', (e) => {
    const n = e.querySelector('.price-note');
    return n ? n.textContent : null;
  });
  check(priceNote === (got.price_note || null), `${tag}: the pick card's price note: ${priceNote}`);
  const defaultsNote = await page.$eval('#top-pick', (e) => {
    const n = e.querySelector('.defaults-note');
    return n ? n.textContent : null;
  });
  check(defaultsNote === (got.defaults_note || null), `${tag}: the pick card's defaults note: ${defaultsNote}`);
  // The p10-p90 band beside the cost and the latency (docs/calibration.md).
  const u = top.sizing.uncertainty;
  check(u && u.cost_usd && u.decode_ms && /\([^)]*\u2013[^)]*\)/.test(strip),
    `${tag}: the strip shows the bands: ${strip}`);
  const banded = got.recommendations.filter((c) => c.sizing.uncertainty && c.sizing.uncertainty.decode_ms).length;
  const bands = await page.$$eval('#compare td .band', (b) => b.length);
  check(bands >= banded, `${tag}: a band under each figure that has one: ${bands} for ${banded} candidates`);

  // The table: every candidate in the API's order, each target as the API
  // states it, the reason on hover (title) and in words.
  const rows = await tableRows(page);
  check(JSON.stringify(rows.map((r) => r.accelerator)) === JSON.stringify(got.recommendations.map((c) => c.accelerator)),
    `${tag}: the table's rows ${rows.map((r) => r.accelerator)}`);
  let missed = 0;
  got.recommendations.forEach((c, i) => {
    const want = c.targets.map((t) => [t.target, t.state, t.message]);
    const shown = rows[i].targets.map(([t, st, title]) => [t, st, title]);
    check(JSON.stringify(shown) === JSON.stringify(want), `${tag}: ${c.accelerator}'s targets ${JSON.stringify(shown)}`);
    for (const [, st, title, words] of rows[i].targets)
      check(words.includes(st) && words.includes(title), `${tag}: the targets in words: ${words}`);
    missed += c.targets.filter((t) => t.state !== 'met').length;
  });
  check(missed > 0, `${tag}: the workload has a missed target to show`);
  const missedList = await page.$$eval('#compare ul.missed li', (ls) => ls.map((l) => l.textContent));
  check(missedList.length === missed, `${tag}: the missed targets listed in text: ${missedList.length} of ${missed}`);

  // Sorting: by $/h (unpriced last), again for the reverse; by the score.
  const perHour = (c) => c.sizing.cost_per_hour_usd;
  let s = await sortedBy(page, 'per_hour');
  check(s.sort === 'ascending' && JSON.stringify(s.order) === JSON.stringify(expectedOrder(got.recommendations, perHour, 1)),
    `${tag}: sorted by $/h: ${s.sort} ${s.order}`);
  s = await sortedBy(page, 'per_hour');
  check(s.sort === 'descending' && JSON.stringify(s.order) === JSON.stringify(expectedOrder(got.recommendations, perHour, -1)),
    `${tag}: sorted by $/h, highest first: ${s.order}`);
  s = await sortedBy(page, 'score');
  check(s.sort === 'descending' && JSON.stringify(s.order) === JSON.stringify(expectedOrder(got.recommendations, (c) => c.score, -1)),
    `${tag}: sorted by the score: ${s.order}`);
  const rank = await page.$eval('#compare th button.sort[data-sort="rank"]', (b) => b.closest('th').hasAttribute('aria-sort'));
  check(!rank, `${tag}: only the sorted column has aria-sort`);

  // Everything opened (each candidate's details, the assumptions, the raw
  // JSON): nothing is wider than the view on the phone.
  await page.$$eval('#result details', (ds) => ds.forEach((d) => { d.open = true; }));
  if (width <= 400) {
    const wide = await sideways(page);
    check(wide.length === 0, `${tag}: sideways: ${wide.join('; ')}`);
  }
  await shot(page, `answer-${tag}-full.png`);
  const violations = await audit(page);
  check(violations.length === 0, `${tag}: axe-core: ${violations.join('\n  ')}`);
  if (width > 400) {
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);
    const dark = await audit(page);
    check(dark.length === 0, `${tag}, dark: axe-core: ${dark.join('\n  ')}`);
    await page.emulateMediaFeatures([]);
  }

  // A second submit, from the bottom of the page, brings the
  // strip back into view from wherever the reader scrolled to.
  await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
  await submitAndWait(page);
  const again = await stripInView(page);
  check(again === null, `${tag}: the strip after a second submit: ${again}`);
  noTrouble(page, `the answer at ${tag}`);
  await page.close();
}

// ---- the steps -------------------------------------------------------------------------

async function fillAndCompare(browser, srv) {
  const page = await openPage(browser);
  await ready(page, srv.url);
  const examples = await (await fetch(new URL('ui/examples.json', srv.url))).json();
  const offered = await page.$$eval('#example option', (os) => os.filter((o) => o.value).map((o) => o.value));
  check(JSON.stringify(offered) === JSON.stringify(examples.examples.map((e) => e.name)),
    `examples offered ${offered}`);

  // The contract's descriptions as hints: their code spans as <code>, never
  // as raw Markdown backticks.
  const hints = await page.$$eval('#fields .hint', (hs) => hs.map((h) => [h.textContent, h.querySelectorAll('code').length]));
  check(hints.length > 10 && hints.every(([t]) => !t.includes('`')), `hints with backticks: ${hints.filter(([t]) => t.includes('`'))}`);
  check(hints.some(([, codes]) => codes > 0), 'code spans in the hints');

  // Fill the form: the JSON beside it must follow.
  await page.select('#f-task', 'inference');
  await setText(page, '#f-name', 'browser-test');
  await setText(page, '#f-model-parameters', '70e9');
  await page.select('#f-precision', 'fp8');
  await page.select('#f-objective', 'cost');
  await setText(page, '#f-inference-requests-per-second', '20');
  await page.click('#f-constraints-providers input[value="gcp"]');
  await page.click('#f-constraints-providers input[value="aws"]');
  await page.click('#f-explain input[value="changes"]');
  await page.click('#f-explain input[value="robustness"]');
  const sent = await page.$eval('#json', (e) => e.value);
  const w = JSON.parse(sent);
  check(w.task === 'inference' && w.model.parameters === 70e9 && w.precision === 'fp8' &&
        w.objective === 'cost' && w.inference.requests_per_second === 20 && w.name === 'browser-test' &&
        JSON.stringify(w.constraints.providers) === '["aws","gcp"]' &&
        JSON.stringify(w.explain) === '["changes","robustness"]', `the form's workload: ${sent}`);

  const got = await (await submitAndWait(page)).json();
  const pick = await topPick(page);
  const direct = await api(srv.url, sent);
  check(direct.status === 200, `the API answered ${direct.status}`);
  const want = direct.body.recommendations[0].accelerator;
  check(pick === want, `top pick on the page ${pick}, from the API ${want}`);
  const cards = await page.$$eval('li.candidate', (ls) => ls.map((l) => l.dataset.accelerator));
  check(JSON.stringify(cards) === JSON.stringify(direct.body.recommendations.map((c) => c.accelerator)),
    `candidates on the page ${cards}`);
  const families = await page.$$eval('ol.families li', (ls) => ls.map((l) => l.dataset.family));
  check(JSON.stringify(families) === JSON.stringify(direct.body.families.map((f) => f.family)),
    `families on the page ${families}`);
  // Every reason's source: a link only when it is http(s), opened safely.
  const links = await page.$$eval('#result a.source', (as) => as.map((a) => [a.href, a.rel, a.target]));
  check(links.length > 0, 'reasons link their sources');
  for (const [href, rel] of links)
    check(/^https?:\/\//.test(href) && rel.includes('noopener'), `source link ${href} ${rel}`);
  const excluded = await page.$$eval('#result table tbody tr', (rs) => rs.length);
  check(excluded >= direct.body.excluded.length, 'exclusions are listed');
  // The explanation, in the server's own sentences: every target's changes and
  // every robustness check of the answer the page got.
  const headings = await page.$$eval('#result h3', (hs) => hs.map((h) => h.textContent));
  for (const h of ['What would change the answer', 'How robust the answer is'])
    check(headings.includes(h), `section "${h}" in ${headings}`);
  const shown = await page.$eval('#result', (e) => e.textContent);
  const sentences = got.robustness.checks.map((c) => c.summary)
    .concat(got.changes.targets.flatMap((t) => t.changes.map((c) => c.summary)));
  check(sentences.length > 0, 'the API explained the answer');
  for (const line of sentences)
    check(shown.includes(line), `explanation shown: ${line}`);
  // The frontier: an inline SVG, a dot per point the API gave, the pick ringed
  // on the top pick's part, and the same points in a table.
  const dots = await page.$$eval('#result svg.frontier circle', (cs) =>
    cs.map((c) => [c.dataset.accelerator, c.getAttribute('class')]));
  check(dots.length === got.frontier.points.length && dots.length > 0,
    `frontier dots ${dots.length}, points ${got.frontier.points.length}`);
  const ringed = dots.filter(([, cls]) => cls === 'pick');
  check(ringed.length === 1 && ringed[0][0] === got.recommendations[0].accelerator,
    `the pick on the frontier: ${JSON.stringify(ringed)}`);
  check(headings.includes('Cost against time'), 'the frontier has its section');
  const targets = await page.$$eval('ul.changes > li', (ls) => ls.map((l) => l.dataset.accelerator));
  check(JSON.stringify(targets) === JSON.stringify(got.changes.targets.map((t) => t.accelerator)),
    `explained candidates on the page ${targets}`);
  await shot(page, 'playground.png');

  // The permalink: the workload in the fragment; opening it answers the same.
  const link = page.url();
  check(/#w=[A-Za-z0-9_-]+$/.test(link), `permalink ${link}`);
  const again = await openPage(browser, 800);
  await again.goto(link, { waitUntil: 'networkidle0' });
  await again.waitForSelector('#top-pick', { timeout: HANG_MS });
  check(await topPick(again) === want, 'the permalink gives the same top pick');
  check(JSON.parse(await again.$eval('#json', (e) => e.value)).name === 'browser-test', 'the permalink carries the workload');
  await shot(again, 'playground-permalink-narrow.png');
  noTrouble(page, 'fill and submit');
  noTrouble(again, 'permalink');
  await again.close();
  return page;
}

async function badWorkloads(page, srv) {
  page.expected.add(400);
  // A value the schema refuses: the error appears at the form field.
  await setText(page, '#f-model-parameters', '-5');
  await submitAndWait(page);
  const sent = await page.$eval('#json', (e) => e.value);
  const direct = await api(srv.url, sent);
  check(direct.status === 400, `the API answered ${direct.status}`);
  const apiError = direct.body.errors.find((e) => e.pointer === '/model/parameters');
  check(apiError, `the API's errors ${JSON.stringify(direct.body.errors)}`);
  await page.waitForSelector('.field.invalid[data-pointer="/model/parameters"]');
  const shown = await page.$eval('.field-error[data-pointer="/model/parameters"]', (e) => e.textContent);
  check(shown === apiError.message, `at the field: "${shown}", from the API: "${apiError.message}"`);
  check(await page.$eval('#f-model-parameters', (e) => e.getAttribute('aria-invalid')) === 'true', 'aria-invalid');
  check(await page.$eval('#f-model-parameters', (e) => e === document.activeElement), 'focus on the bad field');
  check(await page.$('#top-pick') === null, 'no answer is shown for a refused workload');
  await shot(page, 'playground-field-error.png');
  // Editing the field clears its error.
  await setText(page, '#f-model-parameters', '7e9');
  check(await page.$('.field.invalid[data-pointer="/model/parameters"]') === null, 'the error clears on edit');

  // A field the form does not have: shown in the JSON, where clicking selects it.
  await page.$eval('#json', (e) => {
    e.value = '{\n  "task": "inference",\n  "model": {"parameters": 7e9},\n  "colour": "red"\n}';
    e.dispatchEvent(new Event('input'));
  });
  await submitAndWait(page);
  const at = await page.waitForSelector('#json-errors button[data-pointer="/colour"]');
  await at.click();
  const selected = await page.$eval('#json', (e) => e.value.slice(e.selectionStart, e.selectionEnd));
  check(selected === '"red"', `clicking the error selects "${selected}"`);

  // Not JSON at all: the server's line and column are shown in the editor.
  await page.$eval('#json', (e) => {
    e.value = '{\n  "task": "inference",\n  "model": {"parameters": 7e9},\n}';
    e.dispatchEvent(new Event('input'));
  });
  await submitAndWait(page);
  const title = await page.$eval('#problem h3', (e) => e.textContent);
  check(title === 'The request body is not valid JSON', `problem title "${title}"`);
  const go = await page.waitForSelector('#json-errors button');
  await go.click();
  const caret = await page.$eval('#json', (e) => e.value.slice(e.selectionStart, e.selectionStart + 1));
  check(caret === '}', `the malformed spot is selected ("${caret}")`);
  await shot(page, 'playground-json-error.png');
  noTrouble(page, 'bad workloads');
}

// The model picker: the registry's names (GET v1/models); choosing one leaves
// model.name alone in the workload (the registry's figures apply, shown as the
// other fields' placeholders, with their sources), and the page's answer is the
// API's for that name; an unknown name's 400 lists the close names at the field.
async function pickModel(browser, srv) {
  const page = await openPage(browser);
  page.expected.add(400);
  await ready(page, srv.url);
  const registry = await (await fetch(new URL('v1/models', srv.url))).json();
  const offered = await page.$$eval('#model-names option', (os) => os.map((o) => o.value));
  check(registry.count >= 40 && JSON.stringify(offered) === JSON.stringify(registry.models.map((m) => m.name)),
    `models offered: ${offered.length} of ${registry.count}`);
  await setText(page, '#f-model-name', 'meta-llama/Llama-3.1-70B');
  await page.keyboard.press('Tab'); /* the choice is made: the change event */
  const w = JSON.parse(await page.$eval('#json', (e) => e.value));
  check(JSON.stringify(w.model) === '{"name":"meta-llama/Llama-3.1-70B"}', `the picked model: ${JSON.stringify(w.model)}`);
  const info = await page.$eval('#model-info', (e) => e.textContent);
  check(info.includes('Llama 3.1 70B'), `the picked model's line: ${info}`);
  const links = await page.$$eval('#model-info a', (as) => as.map((a) => a.href));
  check(links.some((h) => h.startsWith('https://huggingface.co/')), `its sources: ${links}`);
  const layers = await page.$eval('#f-model-layers', (e) => e.placeholder);
  check(layers.includes('80'), `the registry's layers as the placeholder: "${layers}"`);
  await submitAndWait(page);
  const sent = await page.$eval('#json', (e) => e.value);
  const direct = await api(srv.url, sent);
  check(direct.status === 200 && direct.body.workload.model.name === 'llama-3.1-70b' &&
        direct.body.workload.model.layers === 80, `the API for the name: ${direct.status}`);
  check(await topPick(page) === direct.body.recommendations[0].accelerator, 'the picked model\'s top pick');
  await shot(page, 'playground-model-picker.png');

  await setText(page, '#f-model-name', 'lama-3.1-70b');
  await submitAndWait(page);
  await page.waitForSelector('.field.invalid[data-pointer="/model/name"]');
  const shown = await page.$eval('.field-error[data-pointer="/model/name"]', (e) => e.textContent);
  check(shown.includes('close names: llama-3.1-70b'), `the unknown name at its field: "${shown}"`);
  noTrouble(page, 'model picker');
  await page.close();
}

// A result with what this server does not send yet (new sections, new fields)
// and with hostile text: the page shows the new sections, ignores nothing it
// can lay out, and never turns server text into markup or a non-http(s) link.
async function futureFields(browser, srv) {
  const page = await openPage(browser);
  await ready(page, srv.url);
  const sent = await page.$eval('#json', (e) => e.value);
  const real = (await api(srv.url, sent)).body;
  const hostile = '<img src=x onerror="window.pwned=1">';
  const future = structuredClone(real);
  future.provenance = [{ change: 'precision fp8', top: 'h100', score_delta: 7, source: 'https://example.org/fp8' }];
  future.audit_trail = { stable: true, runner_up_margin: 4 };
  future.recommendations[0].sizing.tensor_parallel = 8;
  future.recommendations[0].shape = { nodes: 2, per_node: 4 };
  future.recommendations[0].reasons[0].message = hostile;
  future.recommendations[0].reasons[0].source = 'javascript:window.pwned=1';
  future.warnings.push({ code: 'new_kind', message: hostile });
  await page.setRequestInterception(true);
  page.on('request', (req) => {
    if (req.method() === 'POST' && req.url().endsWith('/v1/recommendations'))
      req.respond({ status: 200, contentType: 'application/json', body: JSON.stringify(future) });
    else req.continue();
  });
  await submitAndWait(page);
  const headings = await page.$$eval('#result h3', (hs) => hs.map((h) => h.textContent));
  for (const h of ['Provenance', 'Audit trail'])
    check(headings.includes(h), `section "${h}" in ${headings}`);
  const text = await page.$eval('#result', (e) => e.textContent);
  check(text.includes('precision fp8') && text.includes('Runner up margin') && text.includes('Tensor parallel') &&
        text.includes('Per node'), 'the new fields are shown');
  check(text.includes(hostile), 'hostile text shown as text');
  check(await page.$('#result img') === null, 'no markup made from server text');
  check(await page.evaluate(() => window.pwned === undefined), 'no script ran');
  const hrefs = await page.$$eval('#result a', (as) => as.map((a) => a.getAttribute('href')));
  check(hrefs.every((h) => /^https?:\/\//.test(h)), `links: ${hrefs.filter((h) => !/^https?:/.test(h))}`);
  check(hrefs.includes('https://example.org/fp8'), 'a URL in a new section is a link');
  noTrouble(page, 'future fields');
  await page.close();
}

// ---- no pick, and what a pick buys (issue 27) --------------------------------------------

const INFEASIBLE = JSON.stringify({ name: 'infeasible', task: 'training', model: { parameters: 1e12 },
  training: { tokens: 2e13, deadline_hours: 720 }, constraints: { max_accelerators: 1024 } }, null, 2);
const WITHHELD = JSON.stringify({ name: 'withheld', task: 'training',
  model: { architecture: 'cnn', parameters: 2.5e7 }, training: { samples: 1.28e7 } }, null, 2);
const TRAINING = JSON.stringify({ name: 'train', task: 'fine-tuning', model: { name: 'llama-3.1-8b' },
  training: { tokens: 1e9 } }, null, 2);

async function submitText(page, text) {
  await page.$eval('#json', (e, t) => { e.value = t; e.dispatchEvent(new Event('input')); }, text);
  return (await submitAndWait(page)).json();
}

async function stripText(page) {
  return page.$eval('#top-pick', (e) => e.textContent);
}

// Without a pick the strip says so first, in the server's words, and no row
// is ticked; a withheld estimate names the field to give.
async function noPick(browser, srv) {
  const page = await openPage(browser);
  await ready(page, srv.url);
  let got = await submitText(page, INFEASIBLE);
  check(got.status === 'no_configuration_meets_targets', `infeasible: status ${got.status}`);
  let strip = await stripText(page);
  check(strip.startsWith('No pick: nothing meets the targets') && strip.includes(got.status_message),
    `infeasible: the strip says so first: ${strip}`);
  check(strip.includes('Nearest') && strip.includes('Deadline met within the limits'),
    `infeasible: the nearest and what would meet it: ${strip}`);
  check(await topPick(page) === '', 'infeasible: no accelerator is the pick');
  check(await page.$('#compare .tick') === null && await page.$('#compare tr.pick') === null,
    'infeasible: no row is ticked');
  const caption = await page.$eval('#compare caption', (e) => e.textContent);
  check(caption.includes('nearest to the targets first'), `infeasible: the table's order: ${caption}`);
  const said = await page.$eval('#result-status', (e) => e.textContent);
  check(said.startsWith('No pick: nothing meets the targets') && !said.includes('the pick is'),
    `infeasible: the status line: ${said}`);
  await shot(page, 'playground-no-pick.png');

  got = await submitText(page, WITHHELD);
  check(got.status === 'estimate_withheld' && got.recommendations.every((c) => c.score === 0),
    `withheld: status ${got.status}`);
  strip = await stripText(page);
  check(strip.startsWith('No pick: the estimate is withheld') && strip.includes('model.flops_per_sample'),
    `withheld: the strip names the field: ${strip}`);
  check(await page.$('#compare .tick') === null, 'withheld: no row is ticked');
  noTrouble(page, 'no pick');
  await page.close();
}

// A training run's detail: the bands as ranges, nothing that applies only to
// serving; the buying fields (machines, fixed costs, capacity) shown when the
// server sends them and left out when it does not.
async function whatAPickBuys(browser, srv) {
  const page = await openPage(browser);
  await ready(page, srv.url);
  const got = await submitText(page, TRAINING);
  check(got.status === 'ok', `training: status ${got.status}`);
  await page.$$eval('#result details', (ds) => ds.forEach((d) => { d.open = true; }));
  const detail = await page.$eval('#result ol.candidates li.candidate', (e) => e.textContent);
  check(!detail.includes('[object Object]'), `training: no raw object in the detail: ${detail}`);
  check(!detail.includes('Batch per replica') && !detail.includes('Decode') && !detail.includes('Prefill'),
    `training: nothing that applies only to serving: ${detail}`);
  check(/Uncertainty[^]*run time [^,]*\u2013[^]*\(p10\u2013p90/.test(detail), `training: the band as a range: ${detail}`);
  const sent = got.recommendations[0].sizing;
  const before = await stripText(page);
  for (const [key, words] of [['machines', 'Machines'], ['overheads', 'Fixed costs'], ['capacity', 'Capacity']])
    if (sent[key] === undefined || sent[key] === null)
      check(!before.includes(words), `training: no ${words} without sizing.${key}`);
    else
      check(before.includes(words), `training: ${words} from sizing.${key}: ${before}`);
  if (typeof sent.machines === 'number')
    check(before.includes(`${sent.machines} machine`), `training: the pick's machines: ${before}`);

  const future = structuredClone(got);
  Object.assign(future.recommendations[0].sizing, {
    machines: 11,
    overheads: { startup_hours: 0.25, checkpoint_hours: 0.1, eval_hours: 0.05, billing_hours: 0.6, hours: 1,
                 cost_usd: 430 },
    capacity: { provider: 'aws', basis: 'reserved', max_instances: 64, binds: true, lead_time_days: null,
                source: 'https://example.org/capacity' },
  });
  await page.setRequestInterception(true);
  page.on('request', (req) => {
    if (req.method() === 'POST' && req.url().endsWith('/v1/recommendations'))
      req.respond({ status: 200, contentType: 'application/json', body: JSON.stringify(future) });
    else req.continue();
  });
  await submitAndWait(page);
  const said = await stripText(page);
  for (const want of ['11 machines', 'Fixed costs', '1 h (start-up 15 min, checkpoints 6 min',
    'billing rounding 36 min), $430', 'reserved from aws: the asked basis sells at most 64 machines at once'])
    check(said.includes(want), `buying fields: the strip says "${want}": ${said}`);
  await page.$$eval('#result details', (ds) => ds.forEach((d) => { d.open = true; }));
  const shown = await page.$eval('#result ol.candidates li.candidate', (e) => e.textContent);
  check(shown.includes('Fixed costs') && shown.includes('Capacity') && !shown.includes('[object Object]'),
    `buying fields in the detail: ${shown}`);
  const strip = path.join(outDir, 'playground-buying-strip.png'), card = path.join(outDir, 'playground-buying-detail.png');
  await (await page.$('#top-pick')).screenshot({ path: strip });
  await (await page.$('#result ol.candidates li.candidate')).screenshot({ path: card });
  console.log(`screenshot: ${strip}\nscreenshot: ${card}`);
  noTrouble(page, 'what a pick buys');
  await page.close();
}

// ---- the why and the where in view; the page's leftovers (issue 34, item 5) -----------------

// Words a line break cuts in two inside `selector` (a word's boxes on more than
// one line): "Inferentia2" split as "Inferen-" / "tia2" by a narrow column.
async function brokenWords(page, selector) {
  return page.$$eval(selector, (els) => {
    const out = [];
    for (const e of els) {
      const walker = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        for (const m of n.textContent.matchAll(/\S+/g)) {
          const r = document.createRange();
          r.setStart(n, m.index);
          r.setEnd(n, m.index + m[0].length);
          const lines = new Set([...r.getClientRects()].filter((x) => x.width > 0).map((x) => Math.round(x.top)));
          if (lines.size > 1) out.push(m[0]);
        }
      }
    }
    return out;
  });
}

// The pick card says why in one sentence and where the pick is rented, in
// view right after Recommend; at 1280 px the candidates table does not scroll
// sideways; on a phone no candidate's summary breaks a word.
async function whyAndWhere(browser, srv, [width, height]) {
  const tag = `${width}x${height}`;
  const page = await openPage(browser, width, height);
  await ready(page, srv.url);
  for (const [name, text] of [['serving', COMPARED], ['training', TRAINING]]) {
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    const got = await submitText(page, text);
    check(got.status === 'ok' && typeof got.why === 'string' && got.why.length > 20, `${tag} ${name}: why ${got.why}`);
    const ids = new Set(got.recommendations.flatMap((c) => c.reasons.map((r) => r.rule_id).concat(c.capped_by || [])));
    const named = [...ids].filter((id) => got.why.includes(id));
    check(named.length === 0, `${tag} ${name}: rule ids ${named} in the why: ${got.why}`);
    const why = await page.$eval('#top-pick .why', (e) => {
      const r = e.getBoundingClientRect();
      return { text: e.textContent, inView: r.top >= 0 && r.bottom <= window.innerHeight && r.height > 0,
               at: `${Math.round(r.top)}-${Math.round(r.bottom)} of ${window.innerHeight}` };
    });
    check(why.text === got.why, `${tag} ${name}: the card's why "${why.text}"`);
    check(why.inView, `${tag} ${name}: the why is not in view without scrolling: ${why.at}`);
    const p = got.recommendations[0].price;
    const strip = await stripText(page);
    check(strip.includes('Where to rent it'), `${tag} ${name}: no "Where to rent it": ${strip}`);
    for (const want of [p.provider, p.region, p.instance_type])
      check(strip.includes(want), `${tag} ${name}: where to rent it says "${want}": ${strip}`);
    await page.screenshot({ path: path.join(outDir, `why-${name}-${tag}.png`) });
    console.log(`screenshot: ${path.join(outDir, `why-${name}-${tag}.png`)}`);
    if (width >= 1280) {
      const table = await page.$eval('#compare .table-wrap', (e) => [e.scrollWidth, e.clientWidth]);
      check(table[0] <= table[1], `${tag} ${name}: the candidates table scrolls sideways (${table[0]} in ${table[1]})`);
      const wide = await sideways(page);
      check(wide.length === 0, `${tag} ${name}: sideways: ${wide.join('; ')}`);
    } else {
      const broken = await brokenWords(page, 'ol.candidates summary .name, #top-pick .pick');
      check(broken.length === 0, `${tag} ${name}: words broken mid-word: ${broken.join(' ')}`);
    }
  }
  // Field names are not labels: a candidate's selection reads as words.
  await page.$$eval('#result details', (ds) => ds.forEach((d) => { d.open = true; }));
  const detail = await page.$eval('#result ol.candidates', (e) => e.textContent);
  check(!/usd|Breakeven|per chip hour/i.test(detail.replace(/\$[\d.,]+[kMB]?\/chip-hour/g, '')),
    `${tag}: field names as labels: ${(/.{30}(usd|Breakeven|per chip hour).{30}/i.exec(detail) || [''])[0]}`);
  await shot(page, `why-${tag}-full.png`);
  noTrouble(page, `why and where at ${tag}`);
  await page.close();
}

// The example selector names an example only while the workload is that
// example; a refused workload's box shows no raw type URI and no 9e+09; the
// contract's hints do not say "`changes` adds `changes`".
async function leftovers(browser, srv) {
  const page = await openPage(browser);
  page.expected.add(400);
  await ready(page, srv.url);
  const first = await page.$eval('#example', (e) => e.value);
  check(first !== '', 'an example is chosen at first');
  await setText(page, '#f-name', 'edited');
  check(await page.$eval('#example', (e) => e.value) === '', 'the example selector still names an edited example');
  await page.select('#example', first);
  check(JSON.parse(await page.$eval('#json', (e) => e.value)).name !== 'edited', 'choosing the example again loads it');
  check(await page.$eval('#example', (e) => e.value) === first, 'the chosen example stays named');
  await page.$eval('#json', (e) => { e.value = e.value.replace(/"name"/, '"nam"'); e.dispatchEvent(new Event('input')); });
  check(await page.$eval('#example', (e) => e.value) === '', 'an edit in the JSON unnames the example');

  await submitText(page, JSON.stringify({ task: 'training', model: { parameters: 9e9, active_parameters: 2e10 } }));
  const box = await page.$eval('#problem', (e) => e.textContent);
  const said = box + ' ' + await page.$eval('#json-errors', (e) => e.textContent);
  check(!said.includes('tag:') && !/\de[+-]\d/.test(said), `the problem box: ${said}`);
  check(said.includes('20B') && said.includes('9B') && box.includes('HTTP 400'), `the problem box's numbers: ${said}`);
  await shot(page, 'leftover-problem.png');

  const hints = await page.$$eval('#fields .hint', (hs) => hs.map((h) => h.textContent));
  const echo = hints.filter((h) => /\b(\w+) adds \1\b/.test(h));
  check(echo.length === 0, `a hint says a thing adds itself: ${echo}`);
  noTrouble(page, 'leftovers');
  await page.close();
}

async function throughGateway(browser, srv) {
  const gw = await startGateway(srv.url);
  try {
    const page = await openPage(browser);
    await ready(page, gw.url);
    await submitAndWait(page);
    const pick = await topPick(page);
    const sent = await page.$eval('#json', (e) => e.value);
    const direct = await api(srv.url, sent);
    check(pick === direct.body.recommendations[0].accelerator, `behind the gateway: ${pick}`);
    const outside = gw.seen.filter((u) => !u.startsWith('/advisor/'));
    check(outside.length === 0, `requests outside the prefix: ${outside}`);
    check(gw.seen.some((u) => u.startsWith('/advisor/v1/recommendations')), 'the API was called through the prefix');
    noTrouble(page, 'gateway');
    await page.close();
  } finally {
    await gw.close();
  }
}

async function withApiKey(browser, binary) {
  const dir = mkdtempSync(path.join(tmpdir(), 'aa-playground-'));
  const keys = path.join(dir, 'keys');
  writeFileSync(keys, createHash('sha256').update(KEY).digest('hex') + '\n');
  const srv = await startServer(binary, ['--api-keys-file', keys]);
  try {
    const page = await openPage(browser);
    page.expected.add(401);
    await ready(page, srv.url);
    check(await page.$eval('#key-row', (e) => e.hidden), 'no key field before the API asks');
    await submitAndWait(page);
    check(!(await page.$eval('#key-row', (e) => e.hidden)), 'the key field appears on 401');
    check(await page.$eval('#api-key', (e) => e === document.activeElement), 'the key field has focus');
    await shot(page, 'playground-api-key.png');
    await page.type('#api-key', KEY);
    await submitAndWait(page);
    const pick = await topPick(page);
    const sent = await page.$eval('#json', (e) => e.value);
    const direct = await api(srv.url, sent, KEY);
    check(direct.status === 200 && pick === direct.body.recommendations[0].accelerator,
      `with the key: ${pick}`);
    /* The model list needed the key too: it is read once a request with it succeeds. */
    await page.waitForFunction(() => document.querySelectorAll('#model-names option').length > 0,
      { timeout: HANG_MS });
    noTrouble(page, 'API key');
    await page.close();
  } finally {
    await srv.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  const browser = await launch();
  const srv = await startServer(binary);
  try {
    for (const size of [[1366, 900], [390, 844]]) await readAtSize(browser, srv, size);
    const page = await fillAndCompare(browser, srv);
    await badWorkloads(page, srv);
    await page.close();
    await pickModel(browser, srv);
    await futureFields(browser, srv);
    await noPick(browser, srv);
    await whatAPickBuys(browser, srv);
    for (const size of [[1280, 800], [390, 844]]) await whyAndWhere(browser, srv, size);
    await leftovers(browser, srv);
    await throughGateway(browser, srv);
    await withApiKey(browser, binary);
  } finally {
    await browser.close();
    await srv.stop();
  }
  console.log('playground: all browser checks passed');
}

main().catch((e) => {
  console.error(e.stack || String(e));
  process.exit(1);
});
