import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { startTestServer, type TestServer } from '../support/server.ts';
import { startSandbox, type Sandbox } from '../../ops/sandbox/server.ts';
import { DeliveryWorker, deliveryWorkerOptions } from '../../src/processes/deliveries/worker.ts';
import { setupConversions, waitForDeliveries } from './support.ts';

const test = suite<{ server: TestServer; sandbox: Sandbox; children: ChildProcess[] }>('Deliveries: a worker killed mid-batch');
// The server only queues; the workers of this test are started by hand.
test.before(async (ctx) => {
  ctx.children = [];
  ctx.sandbox = await startSandbox();
  ctx.server = await startTestServer({ PLATFORM_SENDING: 'off', PLATFORM_API_URL: ctx.sandbox.url });
});
test.after(async (ctx) => {
  for (const child of ctx.children) child.kill('SIGKILL');
  await ctx.server.stop();
  await ctx.sandbox.stop();
});

/** Forwards the first events request to the sandbox but never answers it; tells when it arrived. */
async function holdingProxy(target: string): Promise<{ url: string; held: Promise<string[]>; close(): void }> {
  let arrived: (ids: string[]) => void = () => {};
  const held = new Promise<string[]>((resolve) => { arrived = resolve; });
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString();
    await fetch(`${target}${req.url}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    arrived((JSON.parse(body).data as { event_id: string }[]).map((e) => e.event_id));
    void res; // the answer never comes: the worker dies waiting for it
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, held, close: () => { server.closeAllConnections(); server.close(); } };
}

function startChild(server: TestServer, apiUrl: string): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'worker-child.ts')], {
    env: { ...process.env, DATABASE_URL: server.db.url, PLATFORM_API_URL: apiUrl, LOG_LEVEL: 'silent', BATCH_SIZE: '10', LEASE_MS: '4000', TIMEOUT_MS: '1500' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

test('every delivery ends accepted, and only the batch in flight reached the platform twice', async ({ server, sandbox, children }) => {
  const s = await setupConversions(server, { targets: [{ datasetId: '3001', mode: 'live' }] });
  const eventIds: string[] = [];
  for (let i = 0; i < 25; i++) {
    const res = await server.request('POST', '/events', { key: s.key, body: { source: s.sourceId, status: 'won', consent: true, external_id: `k-${i}`, email: `k${i}@x.pl` } });
    assert.is(res.status, 202, JSON.stringify(res.body));
    eventIds.push(res.body.event_id);
  }
  await server.settle();
  const proxy = await holdingProxy(sandbox.url);
  const child = startChild(server, proxy.url);
  children.push(child);
  const heldIds = await proxy.held;
  assert.is(heldIds.length, 10);

  // While the first worker holds its claim, a second worker sends everything else but never the held batch.
  const worker = new DeliveryWorker(server.services, deliveryWorkerOptions(server.services, { sending: true, batchSize: 10, loops: 2 })).start();
  const ledger = sandbox.ledger;
  const deadline = Date.now() + 20_000;
  while (sandbox.received('3001').acceptedEvents < 25 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.is(sandbox.received('3001').acceptedEvents, 25, 'the other 15 were sent while the claim was held');
  assert.ok(heldIds.every((id) => ledger.timesAccepted('3001', id) === 1), 'the held batch was not sent by the second worker while claimed');

  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));
  proxy.close();
  const deliveries = await waitForDeliveries(server, s.key, eventIds, 30_000);
  await worker.stop();

  assert.is(deliveries.length, 25);
  assert.ok(deliveries.every((d) => d.status === 'accepted'), JSON.stringify(deliveries.map((d) => d.status)));
  const platformIds = deliveries.map((d) => d.platform_event_id);
  for (const id of platformIds) assert.is(ledger.timesAccepted('3001', id), heldIds.includes(id) ? 2 : 1, id);
  // The killed attempt counts: the held deliveries were attempted twice.
  for (const d of deliveries) assert.is(d.attempts, heldIds.includes(d.platform_event_id) ? 2 : 1);
});

test.run();
