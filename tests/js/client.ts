// tests/js/client.ts -- a client as an integrator would write it: types generated
// from the served contract by openapi-typescript (schema.d.ts, made at test time by
// client.test.mjs), requests through openapi-fetch, compiled with `tsc --strict`.
// The type assertions below fail the compile when the contract regresses for
// generated clients; run() calls every operation of the contract against the real
// server and checks statuses and shapes. Returns the operationIds it called.
import createClient from 'openapi-fetch';
import type { components, paths } from './schema.js';

type Schemas = components['schemas'];
type Workload = Schemas['Workload'];
type NormalizedWorkload = Schemas['NormalizedWorkload'];
type ProblemError = Schemas['ProblemError'];
type Provider = Schemas['Provider'];

// ---- what the generated types must be --------------------------------------------

type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function assertType<T extends true>(): T | undefined {
  return undefined;
}
// A workload with only its required fields is a Workload: defaulted fields stay optional.
const minimal: Workload = { task: 'inference', model: { parameters: 7e9 } };
// The echoed workload is a type of its own, with the defaults always present.
assertType<Equals<Equals<Workload, NormalizedWorkload>, false>>();
assertType<Equals<NormalizedWorkload['framework'], Schemas['Framework']>>();
assertType<Equals<NormalizedWorkload['model']['custom_ops'], boolean>>();
// One Provider type wherever providers appear (no enum repeated inline).
assertType<Equals<NonNullable<Schemas['Constraints']['providers']>, Provider[]>>();
assertType<Equals<Schemas['Accelerator']['providers'], Provider[]>>();
assertType<Equals<Schemas['Accelerator']['vendor'], Schemas['Vendor']>>();
assertType<Equals<Schemas['Accelerator']['precisions'], Schemas['Precision'][]>>();
// ProblemError is a plain object.
const byPointer: ProblemError = { pointer: '/model/parameters', message: 'must be >= 1' };
const byParameter: ProblemError = { parameter: 'family', message: 'must be one of gpu, tpu, cpu, asic' };
// The request id header takes any string: the server never refuses one.
type RequestIdHeader = NonNullable<paths['/v1/recommendations']['post']['parameters']['header']>['X-Request-Id'];
assertType<Equals<RequestIdHeader, string | undefined>>();

// ---- calling every operation -------------------------------------------------------

function check(cond: boolean, what: string): asserts cond {
  if (!cond) throw new Error(`check failed: ${what}`);
}

// The answer's type is the union of the two views (openapi.yaml: the `view` query
// parameter); the default is the full Recommendation, told apart by having no `view`.
function fullView<T extends object>(d: T): Exclude<T, { view: 'summary' }> {
  check(!('view' in d), 'the full view');
  return d as Exclude<T, { view: 'summary' }>;
}

function mediaType(r: Response): string {
  return (r.headers.get('Content-Type') ?? '').split(';')[0]!.trim();
}

export async function run(base: string, key: string): Promise<string[]> {
  const called: string[] = [];
  const api = createClient<paths>({ baseUrl: base, headers: { Authorization: `Bearer ${key}` } });
  const anon = createClient<paths>({ baseUrl: base });
  check(byPointer.message.length > 0 && byParameter.parameter === 'family', 'ProblemError values');

  // recommend: 200, the echoed request id, a ranked answer.
  {
    const { data, response } = await api.POST('/v1/recommendations', {
      body: minimal,
      params: { header: { 'X-Request-Id': 'ts-client-1' } },
    });
    check(response.status === 200 && data !== undefined, `recommend: ${response.status}`);
    check(data.request_id === 'ts-client-1' && response.headers.get('X-Request-Id') === 'ts-client-1', 'request id');
    check(/^[0-9a-f]{64}$/.test(data.rules_version), 'rules_version');
    const full = fullView(data);
    const w: NormalizedWorkload = full.workload;
    check(w.task === 'inference' && w.inference !== undefined && w.training === undefined, 'normalized workload');
    check(full.families.length === 4, 'four families');
    const top = full.recommendations[0];
    check(top !== undefined && top.score >= 0 && top.score <= 100, 'a top candidate');
    check(top.sizing.chips >= 1 && typeof top.sizing.fits === 'boolean', 'sizing');
    for (const r of top.reasons) check(r.rule_id.length > 0 && typeof r.impact === 'number', 'reasons');
    called.push('recommend');
  }
  // recommend, asking for less: the summary view of the first two candidates.
  {
    const { data, response } = await api.POST('/v1/recommendations', {
      body: minimal,
      params: { query: { view: 'summary', candidates: 2, frontier: false } },
    });
    check(response.status === 200 && data !== undefined, `summary: ${response.status}`);
    check('view' in data && data.view === 'summary', 'the summary view');
    check(data.recommendations.length === 2 && data.frontier === undefined, 'two candidates, no frontier');
    const top = data.recommendations[0];
    check(top !== undefined && top.targets !== undefined && top.sizing.chips >= 1, 'the table of the summary');
    const bad = await api.POST('/v1/recommendations', { body: minimal, params: { query: { candidates: 0 } } });
    check(bad.response.status === 400 && bad.error?.errors?.some((e) => e.parameter === 'candidates') === true,
      'a bad candidates value is a problem naming it');
  }
  // recommend: a refused workload is a typed Problem with pointers.
  {
    const { data, error, response } = await api.POST('/v1/recommendations', {
      body: { task: 'inference', model: { parameters: -1 } },
    });
    check(response.status === 400 && data === undefined && error !== undefined, `400: ${response.status}`);
    check(mediaType(response) === 'application/problem+json', 'problem media type');
    check(error.type === 'tag:accel-advisor,2025:validation', `problem type ${error.type}`);
    check(error.errors?.some((e) => e.pointer === '/model/parameters') === true, 'pointer of the violation');
  }
  // Without the key: 401.
  {
    const { error, response } = await anon.POST('/v1/recommendations', { body: minimal });
    check(response.status === 401 && error?.type === 'tag:accel-advisor,2025:unauthorized', `401: ${response.status}`);
    check((response.headers.get('WWW-Authenticate') ?? '').startsWith('Bearer'), 'WWW-Authenticate');
  }
  // recommendBatch: results in order, failures per item (the items need not be
  // Workloads: BatchItem accepts any value, and the contract says so).
  {
    const { data, response } = await api.POST('/v1/recommendations:batch', {
      body: { workloads: [minimal, { task: 'nap', model: { parameters: 1 } }, 5] },
    });
    check(response.status === 200 && data !== undefined, `batch: ${response.status}`);
    check(data.results.length === 3, 'three results');
    const [ok, bad, five] = data.results;
    check(ok !== undefined && ok.status === 200, 'first item answered');
    check(ok.result.recommendations.length > 0, 'first item ranked');
    check(bad !== undefined && bad.status === 400, 'second item refused');
    check(bad.problem.errors?.some((e) => e.pointer === '/workloads/1/task') === true, 'pointer into the batch');
    check(five !== undefined && five.status === 400, 'a number is refused per item');
    called.push('recommendBatch');
  }
  // listAccelerators, with filters the contract types.
  {
    const { data, response } = await api.GET('/v1/accelerators', { params: { query: { family: 'tpu' } } });
    check(response.status === 200 && data !== undefined, `accelerators: ${response.status}`);
    check(data.accelerators.length > 0 && data.accelerators.every((a) => a.family === 'tpu'), 'family filter');
    const onPrem = await api.GET('/v1/accelerators', { params: { query: { provider: 'on-prem' } } });
    check(onPrem.data !== undefined && onPrem.data.accelerators.every((a) => a.on_prem), 'on-prem filter');
    const gcp = await api.GET('/v1/accelerators', { params: { query: { provider: 'gcp', vendor: 'google' } } });
    check(gcp.data !== undefined && gcp.data.accelerators.every((a) => a.providers.includes('gcp')), 'provider filter');
    called.push('listAccelerators');
  }
  // listRules.
  {
    const { data, response } = await api.GET('/v1/rules');
    check(response.status === 200 && data !== undefined, `rules: ${response.status}`);
    check(data.count === data.rules.length && data.count > 0, 'rule count');
    // Any request id is accepted (the contract sets no pattern): a malformed one
    // is replaced by a generated id, never refused.
    const odd = await api.GET('/v1/rules', { params: { header: { 'X-Request-Id': 'not a valid id!' } } });
    check(odd.response.status === 200 && /^[0-9a-f]{32}$/.test(odd.response.headers.get('X-Request-Id') ?? ''),
      'a malformed request id is replaced');
    called.push('listRules');
  }
  // listModels: the registry, each entry a Workload model a request can post as is.
  {
    const { data, response } = await api.GET('/v1/models');
    check(response.status === 200 && data !== undefined, `models: ${response.status}`);
    check(data.count === data.models.length && data.count >= 40, 'model count');
    const llama = data.models.find((m) => m.name === 'llama-3.1-70b');
    check(llama !== undefined && llama.sources['kv_heads']!.startsWith('https://'), 'a field and its source');
    const named = await api.POST('/v1/recommendations', {
      body: { task: 'inference', model: { name: 'meta-llama/Llama-3.1-70B' } },
    });
    check(named.response.status === 200 && named.data !== undefined &&
      fullView(named.data).workload.model.name === 'llama-3.1-70b',
      'an alias is answered with the canonical name');
    called.push('listModels');
  }
  // getInventory: the probe's first snapshot may still be coming (503 until then).
  {
    let status = 0;
    for (let i = 0; i < 100; i++) {
      const { data, response } = await api.GET('/v1/inventory');
      status = response.status;
      if (status === 200) {
        check(data !== undefined && data.devices.length > 0 && data.counts.devices === data.devices.length,
          'inventory devices');
        break;
      }
      check(status === 503, `inventory: ${status}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    check(status === 200, 'an inventory snapshot');
    called.push('getInventory');
  }
  // getFleet: this server reads no fleet (no --fleet-prometheus), so the contract's
  // 404 problem; tests/integration/test_fleet.c calls it against a real Prometheus.
  {
    const { data, error, response } = await api.GET('/v1/fleet');
    check(response.status === 404 && data === undefined, `fleet: ${response.status}`);
    check(error?.type === 'tag:accel-advisor,2025:fleet-disabled', 'fleet: fleet-disabled');
    called.push('getFleet');
  }
  // liveness and readiness (open).
  {
    const live = await anon.GET('/healthz');
    check(live.response.status === 200 && live.data?.status === 'ok', 'liveness');
    const ready = await anon.GET('/readyz');
    check(ready.response.status === 200 && ready.data?.status === 'ready', 'readiness');
    called.push('liveness', 'readiness');
  }
  // metrics, the contract and the page: not JSON, read as text.
  {
    const m = await anon.GET('/metrics', { parseAs: 'text' });
    check(m.response.status === 200 && (m.data ?? '').includes('accel_advisor_http_requests_total'), 'metrics');
    const y = await anon.GET('/openapi.yaml', { parseAs: 'text' });
    check(y.response.status === 200 && mediaType(y.response) === 'application/yaml', 'contract YAML media type');
    check((y.data ?? '').startsWith('openapi: 3.1'), 'contract YAML');
    const j = await anon.GET('/openapi.json');
    check(j.response.status === 200 && (j.data as { openapi?: string } | undefined)?.openapi === '3.1.0', 'contract JSON');
    const page = await anon.GET('/', { parseAs: 'text' });
    check(page.response.status === 200 && mediaType(page.response) === 'text/html', 'page media type');
    check((page.data ?? '').includes('<script src="ui/playground.js"'), 'the page');
    called.push('metrics', 'contractYaml', 'contractJson', 'playground');
  }
  // HEAD of every GET: the GET's status and headers, no body.
  {
    const heads = [
      ['/v1/accelerators', 'listAccelerators', 200], ['/v1/rules', 'listRules', 200],
      ['/v1/models', 'listModels', 200], ['/v1/inventory', 'getInventory', 200],
      ['/v1/fleet', 'getFleet', 404], ['/healthz', 'liveness', 200], ['/readyz', 'readiness', 200],
      ['/metrics', 'metrics', 200], ['/openapi.yaml', 'contractYaml', 200],
      ['/openapi.json', 'contractJson', 200], ['/', 'playground', 200],
    ] as const;
    for (const [p, id, want] of heads) {
      const { response } = await api.HEAD(p, { parseAs: 'text' });
      const body = await response.clone().text();
      check(response.status === want && body === '' && response.headers.get('X-Request-Id') !== null,
        `HEAD ${p}: ${response.status}, ${body.length} bytes of body`);
      called.push(`${id}Head`);
    }
  }
  // OPTIONS of every path: 204 and Allow, with no key.
  {
    const options = [
      ['/v1/recommendations', 'recommend', 'POST'], ['/v1/recommendations:batch', 'recommendBatch', 'POST'],
      ['/v1/accelerators', 'listAccelerators', 'GET'], ['/v1/rules', 'listRules', 'GET'],
      ['/v1/models', 'listModels', 'GET'], ['/v1/inventory', 'getInventory', 'GET'],
      ['/v1/fleet', 'getFleet', 'GET'], ['/healthz', 'liveness', 'GET'], ['/readyz', 'readiness', 'GET'],
      ['/metrics', 'metrics', 'GET'], ['/openapi.yaml', 'contractYaml', 'GET'],
      ['/openapi.json', 'contractJson', 'GET'], ['/', 'playground', 'GET'],
    ] as const;
    for (const [p, id, method] of options) {
      const { response } = await anon.OPTIONS(p, { parseAs: 'text' });
      const allow = response.headers.get('Allow') ?? '';
      check(response.status === 204 && allow.split(/,\s*/).includes(method) && allow.includes('OPTIONS'),
        `OPTIONS ${p}: ${response.status}, Allow: ${allow}`);
      called.push(`${id}Options`);
    }
  }
  return called;
}
