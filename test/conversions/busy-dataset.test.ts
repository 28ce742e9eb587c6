import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../support/server.ts';
import { DeliveryWorker, deliveryWorkerOptions } from '../../src/processes/deliveries/worker.ts';
import { acceptConversion } from '../../commands/conversion/handlers.ts';
import { setupConversions, waitForDeliveries, waitForQueued, type Setup } from './support.ts';

// A platform that holds every request for one dataset until told to answer, and answers the others at once.
interface HoldingPlatform {
  url: string;
  held: ServerResponse[];
  mostHeldAtOnce: number;
  answerHeld(): void;
  stop(): Promise<void>;
}

async function holdingPlatform(slowDataset: string): Promise<HoldingPlatform> {
  let holding = true;
  const platform: HoldingPlatform = {
    url: '', held: [], mostHeldAtOnce: 0,
    answerHeld() {
      holding = false;
      for (const res of platform.held.splice(0)) accept(res);
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const accept = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ events_received: 1, messages: [], fbtrace_id: 'x' }));
  const server = createServer(async (req, res) => {
    for await (const _ of req);
    if (!holding || !req.url?.includes(`/${slowDataset}/events`)) return accept(res);
    platform.held.push(res);
    platform.mostHeldAtOnce = Math.max(platform.mostHeldAtOnce, platform.held.length);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  platform.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return platform;
}

const test = suite<{ server: TestServer }>('Deliveries: a dataset whose platform stops answering holds at most half the loops');
test.before(async (ctx) => {
  ctx.server = await startTestServer({ PLATFORM_SENDING: 'off' });
});
test.after(async (ctx) => {
  await ctx.server.stop();
});

async function queue(server: TestServer, s: Setup, prefix: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const accepted = await acceptConversion(server.services, { organizationId: s.organizationId, sourceId: s.sourceId, trigger: { kind: 'status', status: 'won' }, externalId: `${prefix}-${i}`, email: `${prefix}${i}@example.com` }, { organizationId: s.organizationId, actor: 'test' });
    ids.push(accepted.eventId);
  }
  await waitForQueued(server, ids, count);
  return ids;
}

test('another dataset is sent while two of the four loops wait on the silent one; the silent one never takes more', async ({ server }) => {
  const slow = await setupConversions(server, { targets: [{ datasetId: '5101', mode: 'live' }] });
  const quick = await setupConversions(server, { targets: [{ datasetId: '5102', mode: 'live' }] });
  // The silent dataset's deliveries wait longest, so every loop would take one of its six batches first.
  const slowIds = await queue(server, slow, 'silent', 30);
  const quickIds = await queue(server, quick, 'answered', 3);
  const platform = await holdingPlatform('5101');
  const worker = new DeliveryWorker(server.services, deliveryWorkerOptions(server.services, {
    sending: true, loops: 4, batchSize: 5, timeoutMs: 60_000, platform: { apiUrl: platform.url, apiVersion: 'v21.0' },
  })).start();
  try {
    const answered = await waitForDeliveries(server, quick.key, quickIds, 15_000);
    assert.equal(answered.map((d) => d.status), ['accepted', 'accepted', 'accepted']);
    assert.is(platform.held.length, 2, 'the silent dataset holds two loops, no more, while the other is sent');

    platform.answerHeld();
    const rest = await waitForDeliveries(server, slow.key, slowIds, 15_000);
    assert.ok(rest.every((d) => d.status === 'accepted' && d.attempts === 1));
    assert.is(platform.mostHeldAtOnce, 2);
  } finally {
    platform.answerHeld();
    await worker.stop();
    await platform.stop();
  }
});

test.run();
