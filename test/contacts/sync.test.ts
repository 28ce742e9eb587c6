// Incremental sync as the specification describes it: store the time a sync starts, page to the end, then use
// that time as updated_since. A change must never fall between two syncs (src/http/writesInFlight.ts).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestOrg, type TestServer } from '../support/server.ts';
import { importLead } from '../leads/support.ts';

const test = suite<{ server: TestServer; org: TestOrg }>('Contacts and leads: incremental sync with updated_since');
test.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.org = await ctx.server.newOrganization();
});
test.after(async (ctx) => { await ctx.server.stop(); });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `write` while its append is held back by a lock on the stream's row, starts a sync (its time, then `list`)
 * while the write is under way, and lets the write finish. Answers the first list and the next sync's list.
 */
async function syncDuringWrite(server: TestServer, stream: string, write: () => Promise<unknown>, list: (since?: string) => Promise<{ body: { data: { id: string; name?: string; stage?: string }[] } }>) {
  const holder = await server.services.pool.connect();
  try {
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM es_streams WHERE stream_id = $1 FOR UPDATE', [stream]);
    const written = write();
    await sleep(300); // the write has stamped its events and waits on the lock to append them
    const since = new Date().toISOString();
    const first = list();
    await sleep(300);
    await holder.query('COMMIT');
    await written;
    const firstPage = await first;
    const next = await list(since);
    return { firstPage, next };
  } finally {
    holder.release();
  }
}

test('a contact changed while a sync reads is in that sync or in the next one', async ({ server, org }) => {
  const created = await server.request('POST', '/contacts', { key: org.key, body: { name: 'Before', email: 'bbA-sync@example.com', tags: ['bbA-sync'] } });
  assert.is(created.status, 201);
  const id = created.body.id as string;
  const { firstPage, next } = await syncDuringWrite(server, `contact-${id}`,
    () => server.request('PATCH', `/contacts/${id}`, { key: org.key, body: { name: 'After' } }),
    (since) => server.request('GET', `/contacts?tag=bbA-sync${since ? `&updated_since=${encodeURIComponent(since)}` : ''}`, { key: org.key }));
  const seen = [...firstPage.body.data, ...next.body.data].filter((c) => c.id === id).map((c) => c.name);
  assert.ok(seen.includes('After'), `the rename was in neither sync: ${JSON.stringify(seen)}`);
});

test('a lead moved by a stage change while a sync reads is in that sync or in the next one', async ({ server, org }) => {
  const lead = await importLead(server, org, { id: 'bbA-sync-lead-1' });
  const contactId = lead.contactId!;
  const { firstPage, next } = await syncDuringWrite(server, `contact-${contactId}`,
    () => server.request('POST', `/contacts/${contactId}/stage`, { key: org.key, body: { stage: 'contacted' } }),
    (since) => server.request('GET', `/leads?contact=${contactId}${since ? `&updated_since=${encodeURIComponent(since)}` : ''}`, { key: org.key }));
  const seen = [...firstPage.body.data, ...next.body.data].map((l) => l.stage);
  assert.ok(seen.includes('contacted'), `the stage change was in neither sync: ${JSON.stringify(seen)}`);
});

test.run();
