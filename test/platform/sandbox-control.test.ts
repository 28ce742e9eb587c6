import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sendConversionBatch } from '../../src/platform/conversions.ts';
import { fetchLead } from '../../src/platform/leads.ts';
import { sandboxContext, serverEvent, type SandboxContext } from './helpers.ts';

const test = suite<SandboxContext>('Sandbox control over HTTP: another process seeds and drives it');
test.before((ctx) => sandboxContext(ctx));
test.after(({ sandbox }) => sandbox.stop());
test.before.each(({ sandbox }) => sandbox.reset());

async function control(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${base}/__sandbox${path}`, { method, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
}

test('a dataset behaviour set over HTTP applies, and what it received is readable over HTTP', async ({ sandbox, cfg }) => {
  assert.is((await control(sandbox.url, 'PUT', '/datasets/ds1/behaviour', { mode: 'flaky', failures: 1 })).status, 200);
  const batch = { datasetId: 'ds1', accessToken: 'tok', testEventCode: 'T9', events: [serverEvent(1)] };
  assert.is((await sendConversionBatch(cfg, batch)).kind, 'transient');
  assert.is((await sendConversionBatch(cfg, batch)).kind, 'accepted');
  const { json } = await control(sandbox.url, 'GET', '/datasets/ds1/received');
  assert.is(json.requests, 2);
  assert.is(json.acceptedEvents, 1);
  assert.equal(json.batches.map((b: { status: number; testEventCode: string }) => [b.status, b.testEventCode]), [[500, 'T9'], [200, 'T9']]);
});

test('leads seeded over HTTP are served by the Graph endpoints', async ({ sandbox, cfg }) => {
  await control(sandbox.url, 'POST', '/forms', { id: 'f1', pageId: 'p1', name: 'Form' });
  const seeded = await control(sandbox.url, 'POST', '/leads', [{ id: 'l1', formId: 'f1', createdTime: 1740824430, answers: { email: 'a@b.pl' } }]);
  assert.is(seeded.json.leads[0].created_time, '2025-03-01T10:20:30+0000');
  const lead = await fetchLead(cfg, 'l1', 'tok');
  assert.is(lead.kind === 'ok' && lead.value.email, 'a@b.pl');
});

test('a wrong seed is a 400 naming the field; an unknown control route is a 404', async ({ sandbox }) => {
  const bad = await control(sandbox.url, 'POST', '/forms', { id: 'f1', name: 'Form' });
  assert.is(bad.status, 400);
  assert.match(bad.json.error.message, /pageId/);
  assert.is((await control(sandbox.url, 'POST', '/nothing', {})).status, 404);
});

test('a sheet seeded over HTTP is served as published CSV, can be made to fail once, and reset forgets it', async ({ sandbox }) => {
  const csv = 'external_id,status,email\n1,paid,a@b.pl\n';
  assert.is((await control(sandbox.url, 'PUT', '/sheets/orders', csv)).status, 200);
  const res = await fetch(`${sandbox.url}/sheets/orders.csv`);
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /text\/csv/);
  assert.is(await res.text(), csv);
  await control(sandbox.url, 'POST', '/failures', { match: '/sheets/orders', count: 1 });
  assert.is((await fetch(`${sandbox.url}/sheets/orders.csv`)).status, 500);
  assert.is((await fetch(`${sandbox.url}/sheets/orders.csv`)).status, 200);
  await control(sandbox.url, 'POST', '/reset');
  assert.is((await fetch(`${sandbox.url}/sheets/orders.csv`)).status, 404);
});

test('generated insights report their totals and are served', async ({ sandbox }) => {
  const { json } = await control(sandbox.url, 'POST', '/ad-accounts/act_5/insights/generate', { ads: 3, days: 2, since: '2025-01-30' });
  assert.is(json.rows, 6);
  assert.is(json.until, '2025-01-31');
  const range = encodeURIComponent(JSON.stringify({ since: '2025-01-30', until: '2025-01-31' }));
  const res = await fetch(`${sandbox.url}/v21.0/act_5/insights?access_token=t&level=ad&time_increment=1&time_range=${range}&fields=spend,ad_id`);
  const body = (await res.json()) as { data: Array<{ spend: string; ad_id: string; date_start: string }> };
  assert.is(body.data.length, 6);
  assert.equal(Object.keys(body.data[0]).sort(), ['ad_id', 'date_start', 'date_stop', 'spend']);
  const cents = body.data.reduce((sum, r) => sum + Math.round(Number(r.spend) * 100), 0);
  assert.is(cents / 100, json.spend);
});

test('Graph paths without a version or with an unknown edge answer the platform error shape', async ({ sandbox }) => {
  const res = await fetch(`${sandbox.url}/nothing/here?access_token=t`);
  const body = (await res.json()) as { error: { code: number; type: string; fbtrace_id: string; is_transient: boolean } };
  assert.is(res.status, 400);
  assert.is(body.error.code, 2500);
  assert.is(body.error.is_transient, false);
  assert.ok(body.error.fbtrace_id);
});

test.run();
