// Rows written with the events: POST /events writes its conversion's `conversions` and `delivery_queue`
// rows in the transaction of its append and marks the events, so those projectors pass over them live
// (a delivery sent and deleted meanwhile is never queued again), while a rebuild applies every event,
// also with conversions being accepted during it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { acceptConversion } from '../../commands/conversion/handlers.ts';
import { conversionsProjector } from '../../projections/conversions/projector.ts';
import { deliveryQueueProjector } from '../../projections/delivery_queue/projector.ts';
import { rebuildProjector } from '../../src/projections/rebuild.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { setupConversions, type Setup } from './support.ts';

const test = suite<{ server: TestServer; s: Setup }>('Conversions: rows written with their events');
test.before(async (ctx) => {
  ctx.server = await startTestServer({ PLATFORM_SENDING: 'off' });
  ctx.s = await setupConversions(ctx.server, { targets: [{ datasetId: '3001', mode: 'live' }, { datasetId: '3002', mode: 'live' }] });
});
test.after(async (ctx) => { await ctx.server.stop(); });

const queued = async (server: TestServer, eventIds: string[]) => {
  const { rows } = await server.services.pool.query<{ n: string }>('SELECT count(*) AS n FROM delivery_queue WHERE event_id = ANY($1)', [eventIds]);
  return Number(rows[0].n);
};
const shown = async (server: TestServer, eventIds: string[]) => {
  const { rows } = await server.services.pool.query<{ n: string }>('SELECT count(*) AS n FROM events_view WHERE id = ANY($1)', [eventIds]);
  return Number(rows[0].n);
};

test('a 202 has queued its deliveries; a delivery gone from the queue is not queued again live, and comes back in a rebuild', async ({ server, s }) => {
  const res = await server.request('POST', '/events', { key: s.key, body: { source: s.sourceId, external_id: 'live-1', status: 'won', consent: true, email: 'a@example.com' } });
  assert.is(res.status, 202);
  const id = res.body.event_id as string;
  assert.is(await queued(server, [id]), 2, 'queued with the append, before any projector ran');
  const { rows } = await server.services.pool.query<{ metadata: { projected?: string[] } }>(`SELECT metadata FROM es_events WHERE event_type = 'ConversionAccepted' AND data->>'eventId' = $1`, [id]);
  assert.equal(rows[0].metadata.projected, ['conversions', 'delivery_queue']);
  // As a worker would after sending (its outcome events left out: the store still calls them open).
  await server.services.pool.query('DELETE FROM delivery_queue WHERE event_id = $1', [id]);
  await server.settle();
  assert.is(await queued(server, [id]), 0, 'the projector passed over the conversion');
  await rebuildProjector(server.services.pool, server.services.store, deliveryQueueProjector);
  assert.is(await queued(server, [id]), 2, 'a rebuild applies every event');
});

test('conversions accepted while the two read models are rebuilt are all in the rebuilt tables', async ({ server, s }) => {
  const ids: string[] = [];
  let stop = false;
  const lane = async (lane: number) => {
    for (let i = 0; !stop; i++) {
      const accepted = await acceptConversion(server.services, {
        organizationId: s.organizationId, sourceId: s.sourceId, trigger: { kind: 'status', status: 'won' }, externalId: `race-${lane}-${i}`, email: `r${lane}.${i}@example.com`,
      }, { organizationId: s.organizationId, actor: 'test' });
      ids.push(accepted.eventId);
    }
  };
  const lanes = Array.from({ length: 6 }, (_, i) => lane(i));
  await new Promise((r) => setTimeout(r, 200));
  await rebuildProjector(server.services.pool, server.services.store, conversionsProjector);
  await rebuildProjector(server.services.pool, server.services.store, deliveryQueueProjector);
  await new Promise((r) => setTimeout(r, 200));
  stop = true;
  await Promise.all(lanes);
  await server.settle();
  assert.ok(ids.length > 50, `${ids.length} conversions accepted during the rebuilds`);
  assert.is(await shown(server, ids), ids.length);
  assert.is(await queued(server, ids), ids.length * 2);
});

test.run();
