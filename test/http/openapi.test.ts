import { Validator } from '@seriousme/openapi-schema-validator';
import http from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { ERROR_STATUS } from '../../commands/shared/errors.ts';
import { buildOpenApi, errorCodesOf, openApiPath } from '../../src/http/openapi.ts';
import { objectShape } from '../../src/http/openapi-schemas.ts';
import { routes } from '../../src/http/routes.ts';
import { fatigueOf, momentumOf } from '../../queries/reports/fatigue.ts';
import type { RouteDef } from '../../src/http/route.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { startApp, type ExtraApp } from './support/app.ts';
import { newProbe, testRoutes } from './support/routes.ts';

interface Ctx { server: TestServer; app: ExtraApp }
const test = suite<Ctx>('OpenAPI 3.1 document and reference page');

test.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.app = await startApp(ctx.server.services, { extraRoutes: testRoutes(newProbe()) });
});
test.after(async (ctx) => { await ctx.app.stop(); await ctx.server.stop(); });

async function validate(document: unknown): Promise<void> {
  const validator = new Validator();
  // The validator resolves references in place: give it a copy.
  const result = await validator.validate(structuredClone(document) as Parameters<Validator["validate"]>[0]);
  assert.equal(result.errors ?? [], [], JSON.stringify(result.errors, null, 1)?.slice(0, 2000));
  assert.ok(result.valid);
  assert.is(validator.version, '3.1');
  // Every $ref resolves.
  validator.resolveRefs();
}

test('GET /v1/openapi.json needs no key and is a valid OpenAPI 3.1 document', async ({ server }) => {
  const res = await server.request('GET', '/openapi.json');
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.is(res.body.openapi, '3.1.0');
  assert.is(res.body.info.version, '1.0.0');
  assert.equal(res.body.servers, [{ url: '/v1' }]);
  assert.equal(res.body.components.securitySchemes.bearerAuth, { type: 'http', scheme: 'bearer', description: res.body.components.securitySchemes.bearerAuth.description });
  await validate(res.body);
});

// Asked without a key, the document is counted per client address: its answer carries the rate-limit headers
// and may be 429 like any other, so its own entry says so.
test('GET /openapi.json documents the headers it answers with, and its 429 and 500', async ({ server }) => {
  const res = await server.request('GET', '/openapi.json');
  const op = res.body.paths['/openapi.json'].get;
  const documented = Object.keys(op.responses['200'].headers ?? {});
  for (const name of ['X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) {
    assert.ok(res.headers.get(name), name);
    assert.ok(documented.includes(name), `${name} documented`);
  }
  assert.ok(Object.keys(op.responses['429'].headers).includes('Retry-After'));
  assert.equal(op.responses['429'].content['application/json'].schema.allOf[1].properties.error.properties.code.enum, ['rate_limited']);
  assert.ok(op.responses['500']);
});

// Every route answers with a trailing slash too (Express's non-strict routing); the key check took
// /v1/openapi.json/ for an API path and asked for a key.
test('GET /v1/openapi.json/ (trailing slash) needs no key either; /v1/me/ still does', async ({ server }) => {
  const res = await server.request('GET', '/openapi.json/');
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.is(res.body.openapi, '3.1.0');
  assert.is((await server.request('GET', '/me/')).status, 401);
});

test('the document of the route table and of the test routes validates too (lists, params, bodies, 204)', async ({ app }) => {
  const res = await app.request('GET', '/openapi.json');
  await validate(res.body);
  const list = res.body.paths['/test/items'].get;
  assert.equal(list.parameters.filter((p: { in: string }) => p.in === 'query').map((p: { name: string }) => p.name), ['limit', 'cursor', 'order', 'updated_since', 'name']);
  assert.ok(list.responses['400'].description.includes('invalid_cursor'));
  const rename = res.body.paths['/test/items/{id}/rename'].post;
  assert.equal(rename.parameters[0], { name: 'id', in: 'path', required: true, schema: { type: 'string' } });
  assert.ok(rename.parameters.some((p: { $ref?: string }) => p.$ref === '#/components/parameters/IdempotencyKey'));
  assert.is(rename.responses['204'].content, undefined);
  assert.equal(rename.responses['422'].content['application/json'].schema.allOf[1].properties.error.properties.code.enum, ['idempotency_key_reused']);
  assert.equal(rename.responses['409'].content['application/json'].schema.allOf[1].properties.error.properties.code.enum, ['idempotency_in_progress', 'conflict']);
  assert.is(rename['x-required-scope'], 'contacts:write');
  assert.is(rename.requestBody.content['application/json'].schema.additionalProperties, false);
  assert.ok(res.body.components.schemas.TestItem);
});

test('every route is documented with its scope, parameters, body, success and every error code', async ({ server }) => {
  const document = (await server.request('GET', '/openapi.json')).body;
  for (const route of routes) {
    const op = document.paths[openApiPath(route.path)]?.[route.method];
    assert.ok(op, `${route.method} ${route.path} is missing`);
    assert.is(op['x-required-scope'], route.scope ?? undefined);
    assert.ok(op.description.includes(route.scope ?? 'No scope'));
    assert.ok(op.responses[String(route.success.status)], `${route.path}: success response`);
    for (const code of errorCodesOf(route)) {
      const response = op.responses[String(ERROR_STATUS[code])];
      assert.ok(response?.description.includes(code), `${route.path}: ${code}`);
    }
    for (const status of ['400', '401', '403', '429', '500']) assert.ok(op.responses[status], `${route.path}: ${status}`);
    assert.equal(Object.keys(op.responses['429'].headers).sort(), ['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-Request-Id']);
  }
  assert.equal(document.security, [{ bearerAuth: [] }]);
  assert.equal(document.paths['/openapi.json'].get.security, []);
});

test('every answer of every operation declares X-Request-Id and the three rate-limit headers, the document itself included', async ({ server }) => {
  const document = (await server.request('GET', '/openapi.json')).body;
  const real = await server.request('GET', '/openapi.json');
  assert.ok(real.headers.get('x-ratelimit-limit') && real.headers.get('x-ratelimit-remaining') && real.headers.get('x-ratelimit-reset'));
  for (const [path, operations] of Object.entries<Record<string, { responses: Record<string, { headers?: object }> }>>(document.paths)) {
    for (const [method, op] of Object.entries(operations)) {
      for (const [status, response] of Object.entries(op.responses)) {
        const headers = Object.keys(response.headers ?? {});
        for (const name of ['X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) {
          assert.ok(headers.includes(name), `${method} ${path} ${status}: ${name}`);
        }
      }
    }
  }
  assert.ok(document.paths['/openapi.json'].get.responses['429'].headers['Retry-After']);
});

// A repeat of a POST whose first answer was an error replays that error with Idempotent-Replayed: true, so the
// document lists the header on those error answers too, not only on the success.
test('Idempotent-Replayed is documented on the error answers of a POST that a repeat replays (400, 404, 409)', async ({ server }) => {
  const org = await server.newOrganization();
  const headers = { 'idempotency-key': 'replayed-error' };
  await server.request('POST', '/contacts', { key: org.key, body: { email: 'twice@example.com' } });
  const first = await server.request('POST', '/contacts', { key: org.key, body: { email: 'twice@example.com' }, headers });
  const again = await server.request('POST', '/contacts', { key: org.key, body: { email: 'twice@example.com' }, headers });
  assert.is(first.status, 409);
  assert.is(again.status, 409);
  assert.is(again.headers.get('idempotent-replayed'), 'true');
  const document = (await server.request('GET', '/openapi.json')).body;
  const documented = (path: string, method: string, status: string) => Object.keys(document.paths[path][method].responses[status]?.headers ?? {});
  assert.ok(documented('/contacts', 'post', '409').includes('Idempotent-Replayed'));
  for (const [path, status] of [['/contacts', '400'], ['/contacts/{id}/notes', '404'], ['/events', '409'], ['/webhooks/{id}/test', '404']]) {
    assert.ok(documented(path, 'post', status).includes('Idempotent-Replayed'), `POST ${path} ${status}`);
  }
  // Not on the answers given before the key is claimed, nor on the key's own answers, nor on other methods.
  for (const status of ['401', '403', '413', '422', '429', '500']) assert.not.ok(documented('/contacts', 'post', status).includes('Idempotent-Replayed'), status);
  assert.not.ok(documented('/contacts/{id}', 'patch', '409').includes('Idempotent-Replayed'));
});

// The schema takes tags of up to 200 characters (they are trimmed first), so the limits the server then applies
// (DESIGN.md: 1-50 characters after trimming, at most 50 on a contact) must be said in words; so must the stage
// currency's rule, which a bare `type: string` did not show.
test('the contact bodies document the tag limits and the stage currency rule that the server applies', async ({ server }) => {
  const org = await server.newOrganization();
  const refused = await server.request('POST', '/contacts', { key: org.key, body: { email: 'tags@example.com', tags: ['x'.repeat(51)] } });
  assert.is(refused.status, 400);
  const wrongCurrency = await server.request('POST', '/contacts/any/stage', { key: org.key, body: { stage: 'sold', value: 1, currency: 'ZZZ' } });
  assert.is(wrongCurrency.body.error.details.field, 'currency');
  const document = (await server.request('GET', '/openapi.json')).body;
  const body = (path: string, method: string) => document.paths[path][method].requestBody.content['application/json'].schema.properties;
  for (const [path, method, field] of [['/contacts', 'post', 'tags'], ['/contacts/{id}', 'patch', 'tags'], ['/contacts/{id}/tags', 'post', 'add']]) {
    const tags = body(path, method)[field];
    assert.match(tags.description, /at most 50 tags on a contact/, `${method} ${path} ${field}`);
    assert.match(tags.items.description, /1-50 characters after trimming/, `${method} ${path} ${field}[]`);
  }
  assert.match(body('/contacts/{id}/tags', 'post').remove.items.description, /1-50 characters after trimming/);
  assert.match(body('/contacts/{id}/stage', 'post').currency.description, /ISO 4217.*a value without it \(or with a blank one\) is in the organisation currency/);
});

// The report parameters said their defaults in words only (level and weeks had no `default`, as limit has), `to`
// left out that a later `from` is its default, momentum counted "from the first active week" (an active week is
// one of 1,000 impressions; momentum starts at the first week with any), and the fatigue rule read "cost per lead
// or frequency rose as much" (frequency's threshold is 10%, not 20%) and "fresh when cost per lead did not rise"
// (a rise under 20% is still fresh).
test('the reports document their parameter defaults as answered, and momentum and the fatigue rule as computed', async ({ server }) => {
  const org = await server.newOrganization();
  const document = (await server.request('GET', '/openapi.json')).body;
  const param = (path: string, name: string) => (document.paths[path].get.parameters as any[]).find((p) => p.name === name);
  const campaign = (await server.request('GET', '/campaigns/report', { key: org.key })).body;
  const creative = (await server.request('GET', '/creatives/report', { key: org.key })).body;
  assert.is(param('/campaigns/report', 'level').schema.default, campaign.level);
  assert.is(campaign.level, 'campaign');
  assert.is(param('/creatives/report', 'weeks').schema.default, creative.weeks.length);
  assert.is(creative.weeks.length, 4);
  assert.is(creative.from, creative.weeks[0].from);
  const days = (from: string, to: string) => (Date.parse(to) - Date.parse(from)) / 864e5;
  assert.is(days(campaign.from, campaign.to), 30);
  assert.match(param('/campaigns/report', 'from').description, /\(default: 30 days before `to`/);
  assert.match(param('/creatives/report', 'from').description, /\(default: the first day of the first week, 7 × `weeks` - 1 days before `to`/);
  for (const path of ['/campaigns/report', '/creatives/report']) {
    assert.match(param(path, 'to').description, /\(default: today, or `from` when that is later\)/, path);
    const future = (await server.request('GET', `${path}?from=2999-01-01`, { key: org.key })).body;
    assert.equal([future.from, future.to], ['2999-01-01', '2999-01-01'], path);
  }

  const schemas = document.components.schemas;
  // Momentum starts at the first week with impressions, active (1,000) or not: (2 + 4) / 2 earlier, 6 last.
  const week = (impressions: number, leads: number, clicks = impressions / 50, reach = impressions, spend = 100) => ({ impressions, clicks, reach, spend, leads });
  assert.is(momentumOf([week(0, 0), week(500, 2), week(10_000, 4), week(10_000, 6)]), 1);
  assert.match(schemas.CreativeReportRow.properties.momentum.description, /first week with impressions or leads: last \/ mean\(earlier\) - 1/);
  const rule = schemas.CreativeFatigue.description;
  // CTR down 25%, frequency up 10%, cost per lead flat: fatiguing on the frequency signal alone.
  assert.is(fatigueOf([week(10_000, 10), week(10_000, 10), week(10_000, 10, 150, 10_000 / 1.1)]).verdict, 'fatiguing');
  assert.match(rule, /the frequency signal is last week's frequency at least 10% above the best week's/);
  assert.match(rule, /fatiguing when the CTR signal and the cost or the frequency signal hold/);
  // Cost per lead up 10% with CTR as good: still fresh (the cost signal is 20%).
  assert.is(fatigueOf([week(10_000, 10), week(10_000, 10), week(10_000, 10, 200, 10_000, 110)]).verdict, 'fresh');
  assert.match(rule, /the cost signal is last week's cost per lead at least 20% above that of the earlier active weeks pooled/);
  assert.match(rule, /fresh when last week's CTR is at least 90% of the best week's \(or the best week had no click\) and there is no cost signal/);
  assert.match(rule, /fatigued when CTR fell at least 35% AND the cost signal AND the frequency signal hold/);
  assert.match(rule, /An active week has at least 1000 impressions\. insufficient_data: the last week is not active or fewer than 3 weeks are/);
});

/** METHOD /v1{path} with a raw body, whatever the method (fetch sends no body with a GET). */
function rawRequest(origin: string, method: string, path: string, key: string, body: string): Promise<{ status: number; code?: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${origin}/v1${path}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.on('data', (chunk) => { text += chunk; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, code: text ? JSON.parse(text).error?.code : undefined }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

// The body parser reads the body of every route but the two POSTs that take none (test, rotate-secret), so a body
// over 64 KB sent with a GET or a DELETE is 413 too (the spec: 413 on requests with bodies); the document listed 413
// only on the routes that declare a body, so those answers were undocumented.
test('every operation that reads a body documents the 413 it answers to one over 64 KB, GET and DELETE included', async ({ server }) => {
  const org = await server.newOrganization();
  const document = (await server.request('GET', '/openapi.json')).body;
  const big = JSON.stringify({ padding: 'x'.repeat(64 * 1024) });
  const undocumented: string[] = [];
  for (const route of routes) {
    const path = route.path.replace(':id', 'no-such-id').replace(':number', '1');
    const res = await rawRequest(server.origin, route.method.toUpperCase(), path, org.key, big);
    const documented = document.paths[openApiPath(route.path)][route.method].responses[String(res.status)];
    if (!documented?.description.includes(res.code ?? '')) undocumented.push(`${route.method.toUpperCase()} ${route.path}: ${res.status} ${res.code}`);
    if (route.method !== 'post' || route.body) assert.is(res.status, 413, `${route.method} ${route.path}`);
  }
  assert.equal(undocumented, []);
  // The two POSTs without a body: such a body is not {} (invalid_json), and the spec keeps 413 off them.
  assert.not.ok(document.paths['/webhooks/{id}/test'].post.responses['413']);
  assert.not.ok(document.paths['/webhooks/{id}/rotate-secret'].post.responses['413']);
});

// POST /contacts takes a request without a body (no field of it is required) and so does PATCH /contacts/{id} (no
// change), but the document marked every request body required, so a client following it could not know that.
test('a request body is documented as required exactly where a request without one is refused', async ({ server }) => {
  const org = await server.newOrganization();
  const contact = await server.request('POST', '/contacts', { key: org.key, body: { email: 'nobody@example.com' } });
  const hook = await server.request('POST', '/webhooks', { key: org.key, body: { url: 'https://example.com/nobody', events: ['lead.created'] } });
  const document = (await server.request('GET', '/openapi.json')).body;
  const differs: string[] = [];
  for (const route of routes.filter((r) => r.body)) {
    const path = route.path.replace(':id', route.path.startsWith('/webhooks') ? hook.body.id : contact.body.id);
    const res = await server.request(route.method.toUpperCase(), path, { key: org.key });
    const required = document.paths[openApiPath(route.path)][route.method].requestBody.required;
    if (required !== (res.status === 400)) differs.push(`${route.method.toUpperCase()} ${route.path}: ${res.status}, required ${required}`);
  }
  assert.equal(differs, []);
});

/** What every route declaration must carry so that the document is complete. */
function missingSchemas(route: RouteDef): string[] {
  const missing: string[] = [];
  if (route.success.status !== 204 && !route.success.schema) missing.push('success schema');
  if (route.method === 'get' && !route.query) missing.push('query schema');
  const declared = Object.keys(objectShape(route.params));
  for (const name of [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1])) if (!declared.includes(name)) missing.push(`params schema for :${name}`);
  // Strict: a field the schema does not know is refused, not dropped.
  for (const [where, schema] of [['body', route.body], ['query', route.query]] as const) {
    const result = schema?.safeParse({ zz_unknown_field: '1' });
    if (schema && !result?.error?.issues.some((i) => i.code === 'unrecognized_keys')) missing.push(`strict ${where} schema`);
  }
  return missing;
}

test('no route lacks a schema: success (unless 204), query for GET, params for each path parameter', () => {
  const problems = routes.flatMap((route) => missingSchemas(route).map((m) => `${route.method.toUpperCase()} ${route.path}: ${m}`));
  assert.equal(problems, []);
});

test('the schema check does fail for a route without schemas', () => {
  const bare = { method: 'get', path: '/things/:id', scope: null, summary: '', tag: '', success: { status: 200, schema: null, description: '' }, errors: [], handler: async () => ({ status: 200 }) } as RouteDef;
  assert.equal(missingSchemas(bare), ['success schema', 'query schema', 'params schema for :id']);
  const loose = { ...bare, method: 'post', path: '/things', body: z.object({ name: z.string() }), success: { status: 201, schema: z.object({}), description: '' } } as RouteDef;
  assert.equal(missingSchemas(loose), ['strict body schema']);
});

test('the document is built from the same zod schemas the routes use', () => {
  const document = buildOpenApi(routes) as { components: { schemas: Record<string, { properties?: Record<string, unknown> }> } };
  assert.ok(document.components.schemas.KeyDescription?.properties?.rate_limit);
  assert.ok(document.components.schemas.Error?.properties?.error);
});

test('GET /v1/docs is a reference page rendered from the document by bundled Swagger UI (no CDN, no key)', async ({ server }) => {
  const page = await fetch(`${server.origin}/v1/docs`);
  assert.is(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
  const html = await page.text();
  assert.not.match(html, /https?:\/\//);
  assert.match(html, /\/v1\/docs\/swagger-ui-bundle\.js/);
  const init = await (await fetch(`${server.origin}/v1/docs/init.js`)).text();
  assert.match(init, /url: '\/v1\/openapi\.json'/);
  for (const asset of ['swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'swagger-ui.css']) {
    const res = await fetch(`${server.origin}/v1/docs/${asset}`);
    assert.is(res.status, 200, asset);
    assert.ok((await res.arrayBuffer()).byteLength > 1000, asset);
  }
});

test.run();
