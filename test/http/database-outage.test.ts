// The database goes away and comes back while the service runs. A process serving the API only (WORKERS=off)
// learns that its writes are visible from the projectors' NOTIFYs (read-your-writes): pg-listen gave up
// reconnecting 3 s into an outage, silently, and from then on every write waited out its 5 s bound.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestOrg, type TestServer } from '../support/server.ts';
import { createListener } from '../../src/db/listen.ts';
import { eventually } from '../support/eventually.ts';
import { startDatabaseProxy, type DatabaseProxy } from '../support/proxy.ts';
import { DeliveryWorker, deliveryWorkerOptions } from '../../src/processes/deliveries/worker.ts';
import { leadFetchProcess } from '../../src/processes/leadFetch.ts';
import { startApiOnly, type ApiOnly } from './support/apiOnly.ts';

interface Ctx { server: TestServer; proxy: DatabaseProxy; api: ApiOnly; org: TestOrg; logged: string[] }
const test = suite<Ctx>('Database outage: the service answers in the error shape and recovers by itself');

test.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.proxy = await startDatabaseProxy(ctx.server.db.url);
  ctx.logged = [];
  ctx.api = await startApiOnly(ctx.proxy.url, ctx.logged);
  ctx.org = await ctx.server.newOrganization();
});
test.after(async (ctx) => {
  await ctx.api.stop();
  await ctx.proxy.close();
  await ctx.server.stop();
});

async function timedCreate(ctx: Ctx, email: string): Promise<number> {
  const started = Date.now();
  const res = await ctx.api.request('POST', '/contacts', { key: ctx.org.key, body: { name: 'Outage', email } });
  assert.is(res.status, 201, JSON.stringify(res.body));
  return Date.now() - started;
}

test('an API-only process: 500 internal_error while the database is away, and writes visible at once after it returns', async (ctx) => {
  assert.ok(await timedCreate(ctx, 'before@x.pl') < 4000, 'read-your-writes through NOTIFY before the outage');

  await ctx.proxy.down();
  const during = await ctx.api.request('GET', '/contacts', { key: ctx.org.key });
  assert.is(during.status, 500);
  assert.is(during.body.error.code, 'internal_error');
  // Longer than pg-listen's default reconnection time-out (3 s).
  await new Promise((resolve) => setTimeout(resolve, 4500));
  await ctx.proxy.up();

  // The first request after the outage may meet a pooled connection that died with it; then it is fine.
  for (let i = 0; i < 2; i++) await ctx.api.request('GET', '/contacts', { key: ctx.org.key });
  const took = await timedCreate(ctx, 'after@x.pl');
  assert.ok(took < 4000, `a write after the outage waited ${took} ms for its read models (the checkpoint listener never came back)`);
  const listed = await ctx.api.request('GET', '/contacts?email=after@x.pl', { key: ctx.org.key });
  assert.is(listed.body.data.length, 1);
});

// Each loop used to try again at its idle rate (deliveries every 200 ms per loop, lead fetches every 200 ms): some
// 40 error lines a second, each with its stack, for as long as the database was away.
test('while the database is away, the delivery and lead-fetch loops back off instead of logging at their idle rate', async (ctx) => {
  const worker = new DeliveryWorker(ctx.api.services, deliveryWorkerOptions(ctx.api.services, { sending: true, loops: 4 })).start();
  const fetcher = leadFetchProcess.start(ctx.api.services);
  await new Promise((resolve) => setTimeout(resolve, 300));
  ctx.logged.length = 0;
  await ctx.proxy.down();
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const count = (msg: string) => ctx.logged.filter((line) => line.includes(`"msg":"${msg}"`)).length;
  const deliveries = count('delivery batch failed');
  const fetches = count('lead fetch pass failed');
  await ctx.proxy.up();
  await worker.stop();
  await fetcher.stop();
  // 3 s away: 4 delivery loops each at 200 ms, 400 ms, 800 ms, 1.6 s (was 15 tries per loop); lead fetches likewise.
  assert.ok(deliveries >= 4 && deliveries <= 20, `${deliveries} delivery failures logged`);
  assert.ok(fetches >= 1 && fetches <= 6, `${fetches} lead fetch failures logged`);
});

// With retries for as long as the database is away, pg-listen's close() must end a reconnection under way: it did not,
// so a process stopped during an outage (the CLI, a test, a worker) kept trying, and kept its event loop alive, forever.
test('a listener closed while the database is away stops reconnecting', async (ctx) => {
  const listener = createListener(ctx.proxy.url);
  await listener.connect();
  let attempts = 0;
  let connected = 0;
  listener.events.on('reconnect', () => attempts++);
  listener.events.on('connected', () => connected++);
  await ctx.proxy.down();
  await eventually('a reconnection attempt', () => attempts > 0, 5000);
  await listener.close();
  const atClose = attempts;
  await new Promise((resolve) => setTimeout(resolve, 1500));
  await ctx.proxy.up();
  await new Promise((resolve) => setTimeout(resolve, 700));
  assert.ok(attempts <= atClose + 1, `${attempts - atClose} attempts after close()`);
  assert.is(connected, 0);
});

test.run();
