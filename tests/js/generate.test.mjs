// tests/js/generate.test.mjs -- the contract as a schema-driven test generator takes
// it (Schemathesis' way, with a JSON Schema instance generator off the shelf):
// json-schema-faker, pinned in package-lock.json, generates POST bodies from the
// served contract's Workload schema, and each is posted to the real server on
// 127.0.0.1. The server must never answer 5xx; a 4xx must be a problem document;
// a 200 must be earned: its request valid against the Workload schema as an
// independent validator (Ajv, draft 2020-12, the cross-field rules included) reads
// it, and its response valid against the Recommendation schema.
//
// usage (through tests/js/run.sh): node generate.test.mjs BINARY [COUNT]
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import jsf from 'json-schema-faker';
import { check, startServer } from './server.mjs';

const [binary, countArg] = process.argv.slice(2);
if (!binary) {
  console.error('usage: generate.test.mjs BINARY [COUNT]');
  process.exit(2);
}
const COUNT = Number(countArg ?? 450);

// A seeded generator (Park-Miller), so a failure names a body that comes back.
function seeded(seed) {
  let s = seed;
  return () => (s = (s * 16807) % 2147483647) / 2147483647;
}

// The contract's cross-field rules as Ajv must apply them: x-cross-field-rules is
// the server's allOf (openapi.yaml, "Cross-field rules"), which Ajv, like every
// tool, ignores as an x- keyword.
function withCrossFieldRules(node) {
  if (Array.isArray(node)) return node.map(withCrossFieldRules);
  if (node === null || typeof node !== 'object') return node;
  const out = {};
  for (const [k, v] of Object.entries(node)) out[k] = withCrossFieldRules(v);
  if (out['x-cross-field-rules']) {
    out.allOf = [...(out.allOf ?? []), ...out['x-cross-field-rules']];
    delete out['x-cross-field-rules'];
  }
  return out;
}

// Ajv over the served document's components: every $ref of the contract resolves.
function validators(doc) {
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'https://accel-advisor.invalid/openapi.json', components: withCrossFieldRules(doc.components) });
  return {
    workload: ajv.compile({ $ref: 'https://accel-advisor.invalid/openapi.json#/components/schemas/Workload' }),
    recommendation: ajv.compile({ $ref: 'https://accel-advisor.invalid/openapi.json#/components/schemas/Recommendation' }),
  };
}

// Three populations, each seeded. The first from the Workload schema as served:
// the generator's defaults (a random subset of the optional fields; mostly refused,
// each refusal a problem document). The other two from the same schema with one
// cross-field rule that generators cannot read (`parameters` is required unless a
// registry `name` gives it; json-schema-faker ignores if/then) stated as a plain
// `required`, so that bodies reach the acceptance path: only the required fields,
// then those with the contract's defaults filled in.
function bodies(doc, n) {
  const served = { $ref: '#/components/schemas/Workload', components: doc.components };
  const model = doc.components.schemas.Model;
  const bySize = {
    $ref: '#/components/schemas/Workload',
    components: {
      ...doc.components,
      schemas: { ...doc.components.schemas, Model: { ...model, required: [...(model.required ?? []), 'parameters'] } },
    },
  };
  const out = [];
  const populations = [
    [1, served, { alwaysFakeOptionals: false }],
    [2, bySize, { requiredOnly: true }],
    [3, bySize, { requiredOnly: true, useDefaultValue: true }],
  ];
  for (const [seed, schema, options] of populations) {
    jsf.option({ ...options, random: seeded(seed), failOnInvalidTypes: false, maxItems: 4 });
    for (let i = 0; i < n / populations.length; i++) out.push({ seed, i, body: jsf.generate(schema) });
  }
  return out;
}

async function post(url, body) {
  const r = await fetch(new URL('v1/recommendations', url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const type = r.headers.get('content-type') ?? '';
  return { status: r.status, type, json: await r.json().catch(() => null) };
}

const server = await startServer(binary);
let failed = 0;
const counts = {};
try {
  const doc = await (await fetch(new URL('openapi.json', server.url))).json();
  const v = validators(doc);
  // The validator itself: a field-by-field valid body that breaks a cross-field
  // rule (experts on a dense transformer) is refused, a plain one accepted.
  check(v.workload({ task: 'training', model: { parameters: 7e9 } }), 'Ajv refuses a minimal workload');
  check(!v.workload({ task: 'training', model: { parameters: 7e9, experts: 8, experts_per_token: 2 } }),
    'Ajv does not apply x-cross-field-rules (experts on a transformer passed)');
  const all = bodies(doc, COUNT);
  for (const { seed, i, body } of all) {
    const r = await post(server.url, body);
    counts[r.status] = (counts[r.status] ?? 0) + 1;
    const where = `body ${seed}/${i}: ${JSON.stringify(body).slice(0, 600)}`;
    try {
      check(r.status < 500, `${where}\n  answered ${r.status}: ${JSON.stringify(r.json)}`);
      if (r.status === 200) {
        check(v.workload(body), `${where}\n  answered 200 but Ajv refuses the body: ${JSON.stringify(v.workload.errors)}`);
        check(v.recommendation(r.json), `${where}\n  the 200's body is not a Recommendation: ${JSON.stringify(v.recommendation.errors)}`);
      } else {
        check(r.status === 400 || r.status === 422, `${where}\n  answered ${r.status}`);
        check(r.type.startsWith('application/problem+json') && typeof r.json?.title === 'string',
          `${where}\n  a ${r.status} that is not a problem document (${r.type})`);
      }
    } catch (e) {
      failed++;
      if (failed <= 5) console.error(e.message);
    }
  }
  console.log(`generate: ${all.length} json-schema-faker bodies posted, answers ${JSON.stringify(counts)}, ${failed} failed`);
  // The generator must reach the server's acceptance path, or the 200 checks are empty.
  check((counts[200] ?? 0) > 0, 'no generated body was accepted (200): the 200 checks ran on nothing');
} finally {
  await server.stop();
}
if (failed > 0) process.exit(1);
