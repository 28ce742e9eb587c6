import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestOrg, type TestServer } from '../support/server.ts';
import { configureRoundRobin } from '../../commands/owners/handlers.ts';
import { mergeContacts } from '../../commands/contact/merge.ts';
import { importLead } from '../leads/support.ts';

const run = promisify(execFile);
const test = suite<{ server: TestServer; org: TestOrg; other: TestOrg }>('Contacts: stage, notes, tags, SMS block, merge, owners');
test.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.org = await ctx.server.newOrganization();
  ctx.other = await ctx.server.newOrganization();
});
test.after(async (ctx) => { await ctx.server.stop(); });

let seq = 0;
const phone = () => `+4851${String(1_000_000 + ++seq).slice(-7)}`;
async function contact(server: TestServer, org: TestOrg, body: Record<string, unknown> = {}) {
  const res = await server.request('POST', '/contacts', { key: org.key, body: { phone: phone(), ...body } });
  assert.is(res.status, 201, JSON.stringify(res.body));
  return res.body as { id: string; phone: string; updated_at: string; owner_id: string | null; sms_optout: boolean };
}

test('a stage change without leads moves the contact; asking for the current stage is 409 stage_conflict', async ({ server, org }) => {
  const c = await contact(server, org);
  const moved = await server.request('POST', `/contacts/${c.id}/stage`, { key: org.key, body: { stage: 'contacted' } });
  assert.is(moved.status, 200, JSON.stringify(moved.body));
  assert.equal([moved.body.contact.stage, moved.body.platform_events_queued, moved.body.leads_without_send], ['contacted', 0, 0]);
  assert.ok(moved.body.contact.last_activity_at);
  const again = await server.request('POST', `/contacts/${c.id}/stage`, { key: org.key, body: { stage: 'contacted' } });
  assert.is(again.status, 409);
  assert.is(again.body.error.code, 'stage_conflict');
  const bad = await server.request('POST', `/contacts/${c.id}/stage`, { key: org.key, body: { stage: 'won' } });
  assert.is(bad.body.error.code, 'validation_error');
  const badCurrency = await server.request('POST', `/contacts/${c.id}/stage`, { key: org.key, body: { stage: 'sold', value: 10, currency: 'XYZ' } });
  assert.is(badCurrency.body.error.code, 'validation_error');
  // Bounded like POST /events' value: a sum of sales must stay a finite number in the reports.
  const huge = await server.request('POST', `/contacts/${c.id}/stage`, { key: org.key, body: { stage: 'sold', value: 1e308, currency: 'PLN' } });
  assert.is(huge.body.error.code, 'validation_error');
  const listed = await server.request('GET', '/contacts?stage=contacted', { key: org.key });
  assert.ok(listed.body.data.some((x: { id: string }) => x.id === c.id));
  const missing = await server.request('POST', '/contacts/00000000-0000-0000-0000-000000000000/stage', { key: org.key, body: { stage: 'sold' } });
  assert.is(missing.status, 404);
});

test('a sale\'s currency is read as POST /events reads one: spaces around ignored, a blank one is the organisation\'s', async ({ server, org }) => {
  const currencyOf = async (body: Record<string, unknown>) => {
    const c = await contact(server, org);
    const res = await server.request('POST', `/contacts/${c.id}/stage`, { key: org.key, body: { stage: 'sold', value: 10, ...body } });
    assert.is(res.status, 200, JSON.stringify(res.body));
    const stream = await server.services.store.readStream(`contact-${c.id}`);
    return (stream[stream.length - 1].data as { currency: string }).currency;
  };
  // ' usd ' and '' were 400 validation_error here while POST /events took them.
  assert.is(await currencyOf({ currency: ' usd ' }), 'USD');
  assert.is(await currencyOf({ currency: '' }), await currencyOf({}));
});

test('notes: kinds, 1-5000 characters, time defaults to now and may not be in the future; last_activity_at follows', async ({ server, org }) => {
  const c = await contact(server, org);
  const note = await server.request('POST', `/contacts/${c.id}/notes`, { key: org.key, body: { text: 'Called back' } });
  assert.is(note.status, 201);
  assert.equal([note.body.contact_id, note.body.kind, note.body.text], [c.id, 'note', 'Called back']);
  assert.ok(Math.abs(Date.parse(note.body.time) - Date.now()) < 60_000);
  const call = await server.request('POST', `/contacts/${c.id}/notes`, { key: org.key, body: { kind: 'call', text: 'x', time: '2030-01-01T10:00:00+02:00' } });
  assert.is(call.status, 400, 'in the future');
  const past = await server.request('POST', `/contacts/${c.id}/notes`, { key: org.key, body: { kind: 'meeting', text: 'Met', time: '2024-01-01T10:00:00+02:00' } });
  assert.is(past.status, 201);
  assert.is(past.body.time, '2024-01-01T08:00:00.000Z');
  for (const body of [{ text: '' }, { text: 'x'.repeat(5001) }, { text: '   ' }, { kind: 'sms', text: 'x' }, {}]) {
    const res = await server.request('POST', `/contacts/${c.id}/notes`, { key: org.key, body });
    assert.is(res.status, 400, JSON.stringify(body).slice(0, 40));
  }
  const max = await server.request('POST', `/contacts/${c.id}/notes`, { key: org.key, body: { text: 'y'.repeat(5000) } });
  assert.is(max.status, 201);
  const read = await server.request('GET', `/contacts/${c.id}`, { key: org.key });
  assert.is(read.body.last_activity_at, note.body.time > max.body.time ? note.body.time : max.body.time);
});

// The OpenAPI document published the offset-with-colon date-time pattern for a note's time, refusing there the
// forms (+0200, +02, no seconds, a space) the service takes.
test('notes: the time forms POST /contacts/{id}/notes accepts are the ones the OpenAPI document\'s pattern allows', async ({ server, org }) => {
  const c = await contact(server, org);
  const document = (await server.request('GET', '/openapi.json')).body;
  const notes = Object.entries(document.paths).find(([path]) => path.endsWith('/notes'))![1] as any;
  const schema = notes.post.requestBody.content['application/json'].schema.properties.time;
  const pattern = new RegExp(schema.pattern, 'u');
  const accepted = ['2024-01-01T10:00:00Z', '2024-01-01T10:00:00.5+02:00', '2024-01-01T10:00:00+0200', '2024-01-01T10:00+02', '2024-01-01 10:00:00z'];
  const refused = ['2024-01-01T10:00:00', '2024-01-01', 'yesterday', '2024-01-01T10Z'];
  for (const value of [...accepted, ...refused]) {
    const res = await server.request('POST', `/contacts/${c.id}/notes`, { key: org.key, body: { text: 'x', time: value } });
    assert.is(res.status, accepted.includes(value) ? 201 : 400, `${value}: ${JSON.stringify(res.body)}`);
    assert.is(pattern.test(value), accepted.includes(value), `${value} against ${schema.pattern}`);
  }
});

test('tags: add and remove in one call, trimmed, 1-50 characters, at most 50 on a contact', async ({ server, org }) => {
  const c = await contact(server, org, { tags: ['a', 'b'] });
  const res = await server.request('POST', `/contacts/${c.id}/tags`, { key: org.key, body: { add: [' c ', 'a'], remove: ['b'] } });
  assert.is(res.status, 200);
  assert.equal(res.body.tags, ['a', 'c']);
  const empty = await server.request('POST', `/contacts/${c.id}/tags`, { key: org.key, body: {} });
  assert.is(empty.body.error.code, 'validation_error');
  const long = await server.request('POST', `/contacts/${c.id}/tags`, { key: org.key, body: { add: ['x'.repeat(51)] } });
  assert.is(long.body.error.code, 'validation_error');
  const many = await server.request('POST', `/contacts/${c.id}/tags`, { key: org.key, body: { add: Array.from({ length: 49 }, (_, i) => `t${i}`) } });
  assert.is(many.body.error.code, 'validation_error');
  const byTag = await server.request('GET', '/contacts?tag=c', { key: org.key });
  assert.ok(byTag.body.data.some((x: { id: string }) => x.id === c.id));
  // The filter is read as tags are written, trimmed: ' c ' was stored as 'c' and finds it.
  const spaced = await server.request('GET', '/contacts?tag=%20c%20', { key: org.key });
  assert.ok(spaced.body.data.some((x: { id: string }) => x.id === c.id));
});

test('SMS block: every contact with the phone follows, and the do-not-send list keeps in step; a later contact starts blocked', async ({ server, org }) => {
  const p = phone();
  const a = await contact(server, org, { phone: p });
  const blocked = await server.request('POST', `/contacts/${a.id}/sms-optout`, { key: org.key, body: { sms_optout: true } });
  assert.is(blocked.status, 200);
  assert.is(blocked.body.sms_optout, true);
  const hash = (await server.services.pool.query('SELECT phone_hash FROM contacts WHERE id = $1', [a.id])).rows[0].phone_hash;
  const listed = await server.services.pool.query('SELECT 1 FROM sms_do_not_send WHERE organization_id = $1 AND phone_hash = $2', [org.organizationId, hash]);
  assert.is(listed.rowCount, 1);
  // The phone moves to another card: it starts blocked, because the list says so.
  await server.request('PATCH', `/contacts/${a.id}`, { key: org.key, body: { phone: '', email: `a${seq}@example.com` } });
  const b = await server.request('POST', '/contacts', { key: org.key, body: { phone: p } });
  assert.is(b.body.sms_optout, true);
  const allowed = await server.request('POST', `/contacts/${b.body.id}/sms-optout`, { key: org.key, body: { sms_optout: false } });
  assert.is(allowed.body.sms_optout, false);
  const gone = await server.services.pool.query('SELECT 1 FROM sms_do_not_send WHERE organization_id = $1 AND phone_hash = $2', [org.organizationId, hash]);
  assert.is(gone.rowCount, 0);
  const missing = await server.request('POST', `/contacts/${b.body.id}/sms-optout`, { key: org.key, body: {} });
  assert.is(missing.body.error.code, 'validation_error');
});

test('SMS block follows a phone taken by PATCH: a listed phone blocks the card, a blocked card lists its new phone', async ({ server, org }) => {
  const listedPhone = phone();
  const a = await contact(server, org, { phone: listedPhone });
  await server.request('POST', `/contacts/${a.id}/sms-optout`, { key: org.key, body: { sms_optout: true } });
  await server.request('PATCH', `/contacts/${a.id}`, { key: org.key, body: { phone: '', email: `sms-a${seq}@example.com` } });
  // A card created with the listed phone starts blocked; one that takes it by PATCH is blocked as well.
  const b = await contact(server, org, { phone: undefined, email: `sms-b${seq}@example.com` });
  const took = await server.request('PATCH', `/contacts/${b.id}`, { key: org.key, body: { phone: listedPhone } });
  assert.is(took.status, 200, JSON.stringify(took.body));
  assert.is(took.body.sms_optout, true);
  assert.is((await server.request('GET', `/contacts/${b.id}`, { key: org.key })).body.sms_optout, true);
  // A blocked card that changes its phone keeps its block, and the list holds the new phone too.
  const newPhone = phone();
  const moved = await server.request('PATCH', `/contacts/${b.id}`, { key: org.key, body: { phone: newPhone } });
  assert.is(moved.body.sms_optout, true);
  const c = await contact(server, org, { phone: listedPhone });
  assert.is(c.sms_optout, true, 'the old phone stays listed');
  await server.request('PATCH', `/contacts/${b.id}`, { key: org.key, body: { phone: '' } });
  const d = await contact(server, org, { phone: newPhone });
  assert.is(d.sms_optout, true, 'the new phone was listed');
});

test('merge (ops contacts merge ID --into ID): the merged card leaves lists and answers 409 contact_merged everywhere', async ({ server, org, other }) => {
  const email = `merge${seq}@example.com`;
  const from = await contact(server, org, { tags: ['from-tag'], email });
  const into = await contact(server, org, { tags: ['into-tag'] });
  await server.request('POST', `/contacts/${from.id}/notes`, { key: org.key, body: { text: 'moves along' } });
  const cli = await run(process.execPath, ['--import', 'tsx', 'ops/cli.ts', 'contacts', 'merge', from.id, '--into', into.id, '--json'], {
    env: { ...process.env, DATABASE_URL: server.db.url, LOG_LEVEL: 'silent' },
  });
  assert.equal(JSON.parse(cli.stdout), { id: from.id, merged_into: into.id });
  await server.settle();
  const survivor = await server.request('GET', `/contacts/${into.id}`, { key: org.key });
  assert.equal(survivor.body.tags, ['into-tag', 'from-tag']);
  const notes = await server.services.pool.query('SELECT contact_id FROM contact_notes WHERE organization_id = $1 AND text = $2', [org.organizationId, 'moves along']);
  assert.is(notes.rows[0].contact_id, into.id);
  const list = await server.request('GET', '/contacts?limit=100', { key: org.key });
  assert.not.ok(list.body.data.some((c: { id: string }) => c.id === from.id));
  const attempts: [string, string, unknown][] = [
    ['GET', `/contacts/${from.id}`, undefined], ['PATCH', `/contacts/${from.id}`, { name: 'x' }], ['POST', `/contacts/${from.id}/stage`, { stage: 'sold' }],
    ['POST', `/contacts/${from.id}/notes`, { text: 'x' }], ['POST', `/contacts/${from.id}/tags`, { add: ['x'] }], ['POST', `/contacts/${from.id}/sms-optout`, { sms_optout: true }],
  ];
  for (const [method, path, body] of attempts) {
    const res = await server.request(method, path, { key: org.key, body });
    assert.is(res.status, 409, `${method} ${path}`);
    assert.equal(res.body.error, { ...res.body.error, code: 'contact_merged', details: { merged_into: into.id } });
  }
  // Its e-mail still belongs to the person: a new card with it is refused, naming the survivor.
  const dup = await server.request('POST', '/contacts', { key: org.key, body: { email } });
  assert.equal(dup.body.error.details, { contact_id: into.id });
  const foreign = await server.request('GET', `/contacts/${from.id}`, { key: other.key });
  assert.is(foreign.status, 404);
  const bad = await run(process.execPath, ['--import', 'tsx', 'ops/cli.ts', 'contacts', 'merge', into.id, '--into', from.id], {
    env: { ...process.env, DATABASE_URL: server.db.url, LOG_LEVEL: 'silent' },
  }).catch((error: { code: number; stderr: string }) => error);
  assert.is((bad as { code: number }).code, 2);
  assert.match((bad as { stderr: string }).stderr, /contact_merged/);
});

test('the survivor of a merge may take the phone and e-mail of the card merged into it (they are its own now, not another person\'s)', async ({ server, org }) => {
  const merged = await contact(server, org, { email: `absorbed${seq}@example.com` });
  const survivor = await server.request('POST', '/contacts', { key: org.key, body: { email: `survivor${seq}@example.com` } });
  await mergeContacts(server.services, { fromId: merged.id, intoId: survivor.body.id }, new Date());
  await server.settle();
  const took = await server.request('PATCH', `/contacts/${survivor.body.id}`, { key: org.key, body: { phone: merged.phone } });
  assert.is(took.status, 200, JSON.stringify(took.body));
  assert.is(took.body.phone, merged.phone);
  const byPhone = await server.request('GET', `/contacts?phone=${encodeURIComponent(merged.phone)}`, { key: org.key });
  assert.equal(byPhone.body.data.map((c: { id: string }) => c.id), [survivor.body.id]);
  const email = await server.request('PATCH', `/contacts/${survivor.body.id}`, { key: org.key, body: { email: `absorbed${seq}@example.com` } });
  assert.is(email.status, 200, JSON.stringify(email.body));
  // The value is the survivor's now: giving it up frees it for a new card, as for any other value.
  await server.request('PATCH', `/contacts/${survivor.body.id}`, { key: org.key, body: { phone: '' } });
  const fresh = await server.request('POST', '/contacts', { key: org.key, body: { phone: merged.phone } });
  assert.is(fresh.status, 201, JSON.stringify(fresh.body));
  // A lead with the phone of a card merged into a person without a phone gives that person the phone.
  const absorbedAgain = await contact(server, org);
  const withoutPhone = await server.request('POST', '/contacts', { key: org.key, body: { email: `nophone${seq}@example.com` } });
  await mergeContacts(server.services, { fromId: absorbedAgain.id, intoId: withoutPhone.body.id }, new Date());
  const lead = await importLead(server, org, { id: `merged-phone-${seq}`, phone: absorbedAgain.phone });
  assert.is(lead.contactId, withoutPhone.body.id);
  const filled = await server.request('GET', `/contacts/${withoutPhone.body.id}`, { key: org.key });
  assert.is(filled.body.phone, absorbedAgain.phone);
  const other = await contact(server, org);
  const taken = await server.request('PATCH', `/contacts/${survivor.body.id}`, { key: org.key, body: { phone: other.phone } });
  assert.equal([taken.status, taken.body.error.code, taken.body.error.details], [409, 'contact_exists', { contact_id: other.id }]);
});

test('a long chain of merges (each survivor merged on) still names the live card: contact_exists and a lead find it, no 500', async ({ server, org }) => {
  // A merge needs both cards live, so a chain has no loop; it used to be followed for 20 hops only.
  const cards = [await contact(server, org)];
  for (let i = 0; i < 22; i++) {
    const next = await contact(server, org);
    await mergeContacts(server.services, { fromId: cards[cards.length - 1].id, intoId: next.id }, new Date());
    cards.push(next);
  }
  const live = cards[cards.length - 1].id;
  const again = await server.request('POST', '/contacts', { key: org.key, body: { phone: cards[0].phone } });
  assert.equal([again.status, again.body.error?.code, again.body.error?.details], [409, 'contact_exists', { contact_id: live }], JSON.stringify(again.body));
  const lead = await importLead(server, org, { id: `chain-${seq}`, phone: cards[0].phone });
  assert.is(lead.contactId, live);
});

test('round robin: each new contact gets the next owner in turn; off again means no owner', async ({ server, other }) => {
  await configureRoundRobin(server.services.store, { organizationId: other.organizationId, users: ['u1', 'u2', 'u3'] }, new Date());
  const owners: (string | null)[] = [];
  for (let i = 0; i < 4; i++) owners.push((await contact(server, other)).owner_id);
  assert.equal(owners, ['u1', 'u2', 'u3', 'u1']);
  await configureRoundRobin(server.services.store, { organizationId: other.organizationId, users: [] }, new Date());
  assert.is((await contact(server, other)).owner_id, null);
});

test.run();
