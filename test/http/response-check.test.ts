// The tests' response check (src/http/responseCheck.ts) itself: an answer that differs from its route's success
// schema, by a value or by a field the schema does not declare at any depth, is answered 500 and reported with
// the route, the path and the issue; an answer that matches goes out as it is.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { defineRoute } from '../../src/http/route.ts';
import type { ResponseMismatch } from '../../src/http/responseCheck.ts';
import { startTestServer, type TestOrg, type TestServer } from '../support/server.ts';
import { startApp, type ExtraApp } from './support/app.ts';

const Answer = z.object({ name: z.string(), items: z.array(z.object({ id: z.string() })), note: z.string().nullable() });

/** Answers what the query asks for: the declared shape, or one that drifted from it. */
const drifting = defineRoute({
  method: 'get', path: '/test/drift', scope: null, summary: 'Answers as declared or not', tag: 'Test',
  query: z.object({ drift: z.enum(['none', 'nested-field', 'value', 'raw-top-field', 'status']) }).strict(),
  success: { status: 200, schema: Answer, description: 'An answer' }, errors: [],
  handler: async ({ query }) => {
    const declared = { name: 'a', items: [{ id: '1' }], note: null };
    switch (query.drift) {
      case 'none': return { status: 200, body: declared };
      case 'nested-field': return { status: 200, body: { ...declared, items: [{ id: '1', secret: 'x' }] } };
      case 'value': return { status: 200, body: { ...declared, note: 7 } };
      case 'raw-top-field': return { status: 200, rawBody: ['{"name":"a","items":[],"note":null,', '"extra":true}'] };
      case 'status': return { status: 201, body: declared };
      default: { const _never: never = query.drift; return _never; }
    }
  },
});

interface Ctx { server: TestServer; app: ExtraApp; org: TestOrg; reported: ResponseMismatch[] }
const test = suite<Ctx>('Response check: an answer its success schema does not declare fails the test that caused it');

test.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.reported = [];
  // Its own report, in place of the harness's (which would fail the whole run on purpose).
  ctx.app = await startApp(ctx.server.services, { extraRoutes: [drifting], onResponseMismatch: (m) => { ctx.reported.push(m); } });
  ctx.org = await ctx.server.newOrganization();
});
test.after(async (ctx) => { await ctx.app.stop(); await ctx.server.stop(); });
test.before.each((ctx) => { ctx.reported = []; });

const ask = (ctx: Ctx, drift: string) => ctx.app.request('GET', `/test/drift?drift=${drift}`, { key: ctx.org.key });

test('an answer as declared goes out unchanged, and nothing is reported', async (ctx) => {
  const res = await ask(ctx, 'none');
  assert.is(res.status, 200);
  assert.equal(res.body, { name: 'a', items: [{ id: '1' }], note: null });
  assert.equal(ctx.reported, []);
});

test('a field the schema does not declare, deep in an array item, is a 500 naming the route, the path and the field', async (ctx) => {
  const res = await ask(ctx, 'nested-field');
  assert.is(res.status, 500);
  assert.is(res.body.error.code, 'internal_error');
  assert.equal(ctx.reported, [{
    route: 'GET /test/drift', path: '/v1/test/drift?drift=nested-field', status: 200,
    issues: ['items.0: Unrecognized key: "secret"'],
  }]);
  assert.equal(res.body.error.details.response_mismatch, ctx.reported[0]);
});

test('a value of the wrong type is reported with its field', async (ctx) => {
  const res = await ask(ctx, 'value');
  assert.is(res.status, 500);
  assert.is(ctx.reported.length, 1);
  assert.is(ctx.reported[0].issues.length, 1);
  assert.match(ctx.reported[0].issues[0], /^note: /);
});

test('an answer sent as JSON text is read back and checked too', async (ctx) => {
  const res = await ask(ctx, 'raw-top-field');
  assert.is(res.status, 500);
  assert.equal(ctx.reported.map((m) => m.issues), [['(body): Unrecognized key: "extra"']]);
});

test('a success status other than the declared one is reported', async (ctx) => {
  const res = await ask(ctx, 'status');
  assert.is(res.status, 500);
  assert.equal(ctx.reported.map((m) => m.issues), [['status 201, but the route declares 200']]);
});

test('every route of the table has a success schema the check can make strict', async () => {
  const { routes } = await import('../../src/http/routes.ts');
  const { strictSchema } = await import('../../src/http/responseCheck.ts');
  for (const route of routes) if (route.success.schema) strictSchema(route.success.schema);
});

test.run();
