import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestOrg, type TestServer } from '../support/server.ts';
import { contactStream } from '../../commands/contact/contact.ts';
import { configureRoundRobin } from '../../commands/owners/handlers.ts';
import { receiveLead } from '../../commands/lead/intake.ts';
import { platformLead } from '../leads/support.ts';

const test = suite<{ server: TestServer; org: TestOrg }>('Contacts: concurrent writes (to one card, or round-robin creates) each land once, none answers 500');
test.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.org = await ctx.server.newOrganization();
});
test.after(async (ctx) => { await ctx.server.stop(); });

const N = 40;
let seq = 0;

/** A fresh key per burst: the bursts together are over one key's 120 requests a minute. */
async function burstKey(server: TestServer, org: TestOrg): Promise<string> {
  return (await server.newKey(org.organizationId, ['contacts:write'])).key;
}

async function contact(server: TestServer, org: TestOrg): Promise<string> {
  const res = await server.request('POST', '/contacts', { key: org.key, body: { phone: `+4852${String(1_000_000 + ++seq).slice(-7)}` } });
  assert.is(res.status, 201, JSON.stringify(res.body));
  return res.body.id;
}

function statuses(answers: { status: number; body: any }[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const a of answers) {
    const k = `${a.status}${a.body?.error ? ` ${a.body.error.code}` : ''}`;
    counts[k] = (counts[k] ?? 0) + 1;
  }
  return counts;
}

test(`${N} notes at once: ${N} 201s and ${N} notes in the card's history`, async ({ server, org }) => {
  const id = await contact(server, org);
  const key = await burstKey(server, org);
  const answers = await Promise.all(Array.from({ length: N }, (_, i) =>
    server.request('POST', `/contacts/${id}/notes`, { key, body: { text: `note ${i}` } })));
  assert.equal(statuses(answers), { 201: N });
  const events = await server.services.store.readStream(contactStream(id));
  assert.is(events.filter((e) => e.type === 'NoteAdded').length, N);
});

test(`${N} tag additions at once: every one answers 200 and every tag is kept`, async ({ server, org }) => {
  const id = await contact(server, org);
  const key = await burstKey(server, org);
  const answers = await Promise.all(Array.from({ length: N }, (_, i) =>
    server.request('POST', `/contacts/${id}/tags`, { key, body: { add: [`t${i}`] } })));
  assert.equal(statuses(answers), { 200: N });
  const read = await server.request('GET', `/contacts/${id}`, { key: org.key });
  assert.is(read.body.tags.length, N);
});

test(`${N} PATCHes, stage changes and tag changes at once: only 200s and 409 stage_conflict`, async ({ server, org }) => {
  const id = await contact(server, org);
  const key = await burstKey(server, org);
  const stages = ['contacted', 'qualified', 'sold', 'rejected', 'new'];
  const answers = await Promise.all(Array.from({ length: N }, (_, i) =>
    i % 3 === 0 ? server.request('POST', `/contacts/${id}/stage`, { key, body: { stage: stages[i % 5] } })
      : i % 3 === 1 ? server.request('PATCH', `/contacts/${id}`, { key, body: { name: `name ${i}` } })
        : server.request('POST', `/contacts/${id}/tags`, { key, body: { add: [`m${i}`] } })));
  const counts = statuses(answers);
  assert.equal(Object.keys(counts).filter((k) => k !== '200' && k !== '409 stage_conflict'), [], JSON.stringify(counts));
  assert.is(answers.filter((a, i) => i % 3 !== 0 && a.status === 200).length, answers.filter((_, i) => i % 3 !== 0).length);
});

test(`round robin on: ${N} creates at once are ${N} 201s, the owners taking turns evenly`, async ({ server }) => {
  const org = await server.newOrganization();
  await configureRoundRobin(server.services.store, { organizationId: org.organizationId, users: ['u1', 'u2', 'u3', 'u4'] }, new Date());
  const answers = await Promise.all(Array.from({ length: N }, (_, i) =>
    server.request('POST', '/contacts', { key: org.key, body: { email: `rr${i}@example.com` } })));
  assert.equal(statuses(answers), { 201: N });
  const owners: Record<string, number> = {};
  for (const a of answers) owners[a.body.owner_id] = (owners[a.body.owner_id] ?? 0) + 1;
  assert.equal(owners, { u1: N / 4, u2: N / 4, u3: N / 4, u4: N / 4 });
});

test(`round robin on: ${N} leads of new people and ${N} creates at once all land, the owners taking turns evenly`, async ({ server }) => {
  const org = await server.newOrganization();
  await configureRoundRobin(server.services.store, { organizationId: org.organizationId, users: ['u1', 'u2', 'u3', 'u4'] }, new Date());
  const metadata = { organizationId: org.organizationId, actor: 'test' };
  const created = new Date(Date.now() - 60_000).toISOString();
  // The intake once retried the owners' turn a few times only: racing creates, a lead was lost (wrong expected version).
  const [leads, creates] = await Promise.all([
    Promise.all(Array.from({ length: N }, (_, i) => receiveLead(server.services, {
      organizationId: org.organizationId, via: 'import', lead: platformLead({ id: `rr-lead-${i}`, formId: 'form-rr', email: `rr.lead${i}@example.com`, created }),
    }, metadata))),
    Promise.all(Array.from({ length: N }, (_, i) => server.request('POST', '/contacts', { key: org.key, body: { email: `rr.create${i}@example.com` } }))),
  ]);
  assert.is(new Set(leads.map((l) => l.contactId)).size, N);
  assert.equal(statuses(creates), { 201: N });
  await server.settle();
  const owners: Record<string, number> = {};
  for (const { rows } of [await server.services.pool.query('SELECT owner_id FROM contacts WHERE organization_id = $1', [org.organizationId])]) {
    for (const r of rows) owners[r.owner_id] = (owners[r.owner_id] ?? 0) + 1;
  }
  assert.equal(owners, { u1: N / 2, u2: N / 2, u3: N / 2, u4: N / 2 });
});

test.run();
