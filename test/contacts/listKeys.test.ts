// The tag, campaign, ad set and ad filters of GET /contacts walk contact_list_keys (projections/contacts/0006):
// the keys follow every change of a contact (create, PATCH, tags, stage, leads, merge), so the filtered
// lists answer exactly what the contacts' own arrays say, in list order, page after page; a rebuild keeps them.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mergeContacts } from '../../commands/contact/merge.ts';
import { contactsProjector } from '../../projections/contacts/projector.ts';
import { rebuildProjector } from '../../src/projections/rebuild.ts';
import { startTestServer, type TestOrg, type TestServer } from '../support/server.ts';
import { importLead } from '../leads/support.ts';

const test = suite<{ server: TestServer; org: TestOrg }>('Contacts by tag, campaign, ad set and ad: the list keys follow every change');
test.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.org = await ctx.server.newOrganization();
});
test.after(async (ctx) => { await ctx.server.stop(); });

type Contact = { id: string; tags: string[]; stage: string; updated_at: string };
const FILTERS = [['tag', 'tags'], ['campaign', 'campaign_ids'], ['adset', 'adset_ids'], ['ad', 'ad_ids']] as const;
/** One value per filter that several contacts carry. */
const SAMPLE = ['tag=blue', 'campaign=camp-1', 'adset=as-2', 'ad=ad-1'];

/** Every page of a list, limit 2, following next_cursor. */
async function walk(server: TestServer, org: TestOrg, query: string): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const res: { status: number; body: { data: Contact[]; next_cursor: string | null } } =
      await server.request('GET', `/contacts?limit=2&${query}${cursor ? `&cursor=${cursor}` : ''}`, { key: org.key });
    assert.is(res.status, 200, JSON.stringify(res.body));
    seen.push(...res.body.data.map((c) => c.id));
    cursor = res.body.next_cursor;
  } while (cursor);
  return seen;
}

/** The live contacts whose array column holds the value, in list order, straight from the contacts table. */
async function expected(server: TestServer, org: TestOrg, column: string, value: string, order: 'asc' | 'desc', stage?: string): Promise<string[]> {
  const dir = order === 'desc' ? 'DESC' : 'ASC';
  const { rows } = await server.services.pool.query<{ id: string }>(
    `SELECT id FROM contacts WHERE organization_id = $1 AND merged_into IS NULL AND $2 = ANY(${column}) AND ($3::text IS NULL OR stage = $3)
     ORDER BY updated_at ${dir}, id ${dir}`, [org.organizationId, value, stage ?? null]);
  return rows.map((r) => r.id);
}

/** Every (kind, value, updated_at, id) the arrays of live contacts imply, against the key table itself. */
async function assertKeysMatchArrays(server: TestServer): Promise<void> {
  const sql = (from: string) => `SELECT organization_id, kind, value, updated_at, id FROM ${from} ORDER BY 1, 2, 3, 4, 5`;
  const keys = await server.services.pool.query(sql('contact_list_keys'));
  const implied = await server.services.pool.query(sql(`(SELECT organization_id, 'tag' AS kind, unnest(tags) AS value, updated_at, id FROM contacts WHERE merged_into IS NULL
    UNION SELECT organization_id, 'campaign', unnest(campaign_ids), updated_at, id FROM contacts WHERE merged_into IS NULL
    UNION SELECT organization_id, 'adset', unnest(adset_ids), updated_at, id FROM contacts WHERE merged_into IS NULL
    UNION SELECT organization_id, 'ad', unnest(ad_ids), updated_at, id FROM contacts WHERE merged_into IS NULL) AS implied`));
  assert.ok(keys.rows.length > 0);
  assert.equal(keys.rows, implied.rows);
  // Each key carries its contact's text as it is now (projections/contacts/0008).
  const stale = await server.services.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM contact_list_keys k
    LEFT JOIN contacts c ON c.organization_id = k.organization_id AND c.id = k.id WHERE k.item IS DISTINCT FROM c.api_json`);
  assert.is(stale.rows[0].n, 0);
}

/** A filtered page shows each contact exactly as GET /contacts/{id} does. */
async function assertItemsAsRead(server: TestServer, org: TestOrg, query: string): Promise<void> {
  // A key of its own: the walks of these tests take most of what one key may ask in a minute.
  const { key } = await server.newKey(org.organizationId, ['contacts:read']);
  const page = await server.request('GET', `/contacts?limit=100&${query}`, { key });
  assert.ok(page.body.data.length > 0, query);
  for (const item of page.body.data as Contact[]) {
    const one = await server.request('GET', `/contacts/${item.id}`, { key });
    assert.equal(item, one.body, `${query}: ${item.id}`);
  }
}

async function create(server: TestServer, org: TestOrg, body: Record<string, unknown>): Promise<Contact> {
  const res = await server.request('POST', '/contacts', { key: org.key, body });
  assert.is(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

test('tags set by create, PATCH and POST tags; leads add campaigns, ad sets and ads; a merge moves them to the survivor', async ({ server, org }) => {
  const a = await create(server, org, { email: 'a@keys.example', tags: ['red', 'blue'] });
  const b = await create(server, org, { email: 'b@keys.example', tags: ['red'] });
  const c = await create(server, org, { email: 'c@keys.example' });
  await server.request('PATCH', `/contacts/${c.id}`, { key: org.key, body: { tags: ['blue', 'green'] } });
  await server.request('POST', `/contacts/${a.id}/tags`, { key: org.key, body: { add: ['green'], remove: ['red'] } });
  await server.request('POST', `/contacts/${b.id}/stage`, { key: org.key, body: { stage: 'contacted' } });
  await importLead(server, org, { id: '880001', email: 'a@keys.example', campaign: 'camp-1', adset: 'as-1', ad: 'ad-1' });
  await importLead(server, org, { id: '880002', email: 'b@keys.example', campaign: 'camp-1', adset: 'as-2', ad: 'ad-2' });
  const d = await importLead(server, org, { id: '880003', email: 'd@keys.example', campaign: 'camp-2', adset: 'as-2', ad: 'ad-3' });
  await server.request('POST', `/contacts/${c.id}/notes`, { key: org.key, body: { text: 'moves c to the top' } });

  assert.equal(await walk(server, org, 'tag=red'), [b.id]);
  assert.equal(await walk(server, org, 'tag=green'), [c.id, a.id]);
  assert.equal(await walk(server, org, 'campaign=camp-1'), [b.id, a.id]);
  for (const [filter, column] of FILTERS) {
    for (const value of ['red', 'blue', 'green', 'camp-1', 'camp-2', 'as-1', 'as-2', 'ad-1', 'ad-2', 'ad-3', 'none']) {
      for (const order of ['desc', 'asc'] as const) {
        assert.equal(await walk(server, org, `${filter}=${value}&order=${order}`), await expected(server, org, column, value, order), `${filter}=${value} ${order}`);
      }
    }
  }

  // A merged card leaves every filtered list; the survivor carries its tags and ads from then on.
  await mergeContacts(server.services, { fromId: d.contactId!, intoId: b.id }, new Date());
  await server.settle();
  assert.equal(await walk(server, org, 'campaign=camp-2'), [b.id]);
  assert.equal(await walk(server, org, 'ad=ad-3'), [b.id]);
  await assertKeysMatchArrays(server);
  // A change that keeps every key value (a name) is shown on the filtered pages too.
  await server.request('PATCH', `/contacts/${a.id}`, { key: org.key, body: { name: 'Renamed A' } });
  for (const query of ['tag=green', 'campaign=camp-1', 'adset=as-1', 'ad=ad-1', 'tag=blue&campaign=camp-1']) await assertItemsAsRead(server, org, query);
  await assertKeysMatchArrays(server);
  // A write straight into the read model (the benchmark's bulk loader) may repeat a value in an array: one key.
  const { pool } = server.services;
  const { rows: [row] } = await pool.query<{ tags: string[] }>('SELECT tags FROM contacts WHERE organization_id = $1 AND id = $2', [org.organizationId, a.id]);
  await pool.query('UPDATE contacts SET tags = tags || tags WHERE organization_id = $1 AND id = $2', [org.organizationId, a.id]);
  await assertKeysMatchArrays(server);
  await pool.query('UPDATE contacts SET tags = $3 WHERE organization_id = $1 AND id = $2', [org.organizationId, a.id, row.tags]);
  await assertKeysMatchArrays(server);
});

test('a keyed filter combines with the others (a second array filter, stage, updated_since), and a cursor stays bound to its filters', async ({ server, org }) => {
  const camp1 = new Set(await expected(server, org, 'campaign_ids', 'camp-1', 'desc'));
  const both = (await expected(server, org, 'tags', 'blue', 'desc')).filter((id) => camp1.has(id));
  assert.ok(both.length > 0);
  assert.equal(await walk(server, org, 'tag=blue&campaign=camp-1'), both);
  assert.equal(await walk(server, org, 'campaign=camp-1&stage=contacted'), await expected(server, org, 'campaign_ids', 'camp-1', 'desc', 'contacted'));

  const all = await server.request('GET', '/contacts?limit=100&tag=green', { key: org.key });
  const newest = all.body.data[0] as Contact;
  const since = await server.request('GET', `/contacts?limit=100&tag=green&updated_since=${newest.updated_at}`, { key: org.key });
  assert.equal(since.body.data.map((x: Contact) => x.id), [newest.id]);

  const first = await server.request('GET', '/contacts?limit=1&tag=green', { key: org.key });
  assert.ok(first.body.next_cursor);
  const elsewhere = await server.request('GET', `/contacts?limit=1&tag=blue&cursor=${first.body.next_cursor}`, { key: org.key });
  assert.is(elsewhere.status, 400);
  assert.is(elsewhere.body.error.code, 'invalid_cursor');
});

test('a rebuild of the contacts read model gives the same keys and the same filtered lists', async ({ server, org }) => {
  const before = await Promise.all(SAMPLE.map((query) => walk(server, org, query)));
  await rebuildProjector(server.services.pool, server.services.store, contactsProjector);
  const after = await Promise.all(SAMPLE.map((query) => walk(server, org, query)));
  assert.equal(after, before);
  await assertKeysMatchArrays(server);
  // Live writes after the swap still move the keys.
  const e = await create(server, org, { email: 'e@keys.example', tags: ['blue'] });
  assert.equal((await walk(server, org, 'tag=blue'))[0], e.id);
  await assertKeysMatchArrays(server);
});

test.run();
