// The contact and lead JSON kept in the read model (projections/contacts/0004) equals the resource mapped
// from the typed columns, the way the routes built it before; lists, GETs and answers read it; a rebuild
// of the contacts projector keeps it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { contactsProjector } from '../../projections/contacts/projector.ts';
import { rebuildProjector } from '../../src/projections/rebuild.ts';
import { startTestServer, type TestOrg, type TestServer } from '../support/server.ts';
import { importLead } from '../leads/support.ts';

const test = suite<{ server: TestServer; org: TestOrg }>('Contacts and leads: the API form kept as JSON in the read model');
test.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.org = await ctx.server.newOrganization();
});
test.after(async (ctx) => { await ctx.server.stop(); });

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** The Contact resource from the typed columns, as toContact mapped it. */
async function contactsFromColumns(server: TestServer, organizationId: string) {
  const { rows } = await server.services.pool.query(
    `SELECT id, name, phone, email, stage, cycle, tags, sms_optout, first_source, first_ad, owner_id, last_activity_at, created_at, updated_at
     FROM contacts WHERE organization_id = $1 AND merged_into IS NULL ORDER BY updated_at DESC, id DESC`, [organizationId]);
  return rows.map((r) => ({ ...r, last_activity_at: iso(r.last_activity_at), created_at: iso(r.created_at), updated_at: iso(r.updated_at) }));
}

/** The Lead resource from the typed columns, as toLead mapped it (answers for keys that may see them). */
async function leadsFromColumns(server: TestServer, organizationId: string, withAnswers: boolean) {
  const { rows } = await server.services.pool.query(
    `SELECT id, platform_lead_id, source_id, form_name, platform_form_id, platform_page_id, stage, cycle, contact_id, fetch_status, ad,
       stages, answers, submitted_at, updated_at FROM leads WHERE organization_id = $1 ORDER BY updated_at DESC, id DESC`, [organizationId]);
  return rows.map(({ source_id, answers, submitted_at, updated_at, ...r }) => ({
    ...r, form_id: source_id ?? '', ...(withAnswers ? { answers } : {}), created_at: iso(submitted_at), updated_at: iso(updated_at),
  }));
}

async function seed(server: TestServer, org: TestOrg): Promise<void> {
  // Text that JSON must escape, non-ASCII, an empty phone, tags, an ad, notes (last_activity_at) and stage moves.
  const odd = await server.request('POST', '/contacts', { key: org.key, body: { name: 'Zażółć "gęślą" \\ jaźń\t</script>', email: 'odd@example.com', tags: ['a "b"', 'ż'] } });
  assert.is(odd.status, 201);
  await server.request('POST', `/contacts/${odd.body.id}/notes`, { key: org.key, body: { text: 'called' } });
  const lead = await importLead(server, org, { id: '1001', name: 'Ann "Lead"', email: 'ann@example.com', phone: '600100900', ad: 'ad-9', budget: 'ok\nnew line' });
  await importLead(server, org, { id: '1002', email: 'organic@example.com' });
  const moved = await server.request('POST', `/contacts/${lead.contactId}/stage`, { key: org.key, body: { stage: 'sold', value: 10 } });
  assert.is(moved.status, 200);
}

test('lists and GETs answer what the typed columns map to, answers only with leads:answers', async ({ server, org }) => {
  await seed(server, org);
  await server.settle();
  const contacts = await server.request('GET', '/contacts?limit=100', { key: org.key });
  assert.equal(contacts.body, { data: await contactsFromColumns(server, org.organizationId), next_cursor: null, has_more: false });
  for (const item of contacts.body.data) assert.equal((await server.request('GET', `/contacts/${item.id}`, { key: org.key })).body, item);

  const leads = await server.request('GET', '/leads?limit=100', { key: org.key });
  assert.equal(leads.body, { data: await leadsFromColumns(server, org.organizationId, true), next_cursor: null, has_more: false });
  assert.is(leads.headers.get('content-type'), 'application/json; charset=utf-8');
  const reader = await server.newKey(org.organizationId, ['leads:read']);
  const withoutAnswers = await server.request('GET', '/leads?limit=100', { key: reader.key });
  assert.equal(withoutAnswers.body.data, await leadsFromColumns(server, org.organizationId, false));
  for (const item of withoutAnswers.body.data) {
    assert.equal((await server.request('GET', `/leads/${item.id}`, { key: reader.key })).body, item);
    assert.ok(!('answers' in item));
  }
});

// jsonb's own text puts keys shortest first: an ad read {"ad_id": ..., "ad_name": ..., "adset_id": ..., "platform": ...}
// and a stage entry {"at": ..., "stage": ...}, not in the order the specification lists the fields.
test('an ad (first_ad, ad) and a lead\'s stages show their fields in the specification\'s order, by GET, list and list key', async ({ server, org }) => {
  const adOrder = ['platform', 'campaign_id', 'campaign_name', 'adset_id', 'adset_name', 'ad_id', 'ad_name'];
  const leads = (await server.request('GET', '/leads?limit=100', { key: org.key })).body.data;
  const withAd = leads.filter((l: { ad: unknown }) => l.ad !== null);
  assert.ok(withAd.length > 0 && withAd.some((l: { stages: unknown[] }) => l.stages.length > 1));
  for (const lead of withAd) {
    assert.equal(Object.keys(lead.ad), adOrder);
    for (const entry of lead.stages) assert.equal(Object.keys(entry), ['stage', 'at', 'platform_event_queued']);
    const one = await server.request('GET', `/leads/${lead.id}`, { key: org.key });
    assert.equal(Object.keys(one.body.ad), adOrder);
    const contact = await server.request('GET', `/contacts/${lead.contact_id}`, { key: org.key });
    assert.equal(Object.keys(contact.body.first_ad), adOrder);
    const byAd = await server.request('GET', `/contacts?ad=${lead.ad.ad_id}`, { key: org.key });
    assert.equal(byAd.body.data.map((c: { first_ad: object }) => Object.keys(c.first_ad)), [adOrder]);
  }
});

test('paging with limit 1 walks every contact and lead once, in either order; an empty list is the plain envelope', async ({ server, org }) => {
  const walk = async (list: string, query: string) => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: { data: { id: string }[]; next_cursor: string | null } } =
        await server.request('GET', `/${list}?limit=1${query}${cursor ? `&cursor=${cursor}` : ''}`, { key: org.key });
      assert.is(page.status, 200);
      seen.push(...page.body.data.map((c) => c.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    return seen;
  };
  const contacts = (await contactsFromColumns(server, org.organizationId)).map((c) => c.id);
  const leads = (await leadsFromColumns(server, org.organizationId, false)).map((l) => l.id);
  assert.equal(await walk('contacts', ''), contacts);
  assert.equal(await walk('contacts', '&order=asc'), [...contacts].reverse());
  assert.equal(await walk('leads', '&order=asc&updated_since=2000-01-01T00:00:00Z'), [...leads].reverse());
  const empty = await server.request('GET', '/leads?stage=rejected', { key: org.key });
  assert.equal(empty.body, { data: [], next_cursor: null, has_more: false });
});

test('a list is written in parts: Content-Length counts its UTF-8 bytes (non-ASCII names), HEAD answers the headers alone', async ({ server, org }) => {
  for (const path of ['/contacts?limit=100', '/leads?limit=100']) {
    const res = await fetch(`${server.origin}/v1${path}`, { headers: { authorization: `Bearer ${org.key}` } });
    const bytes = Buffer.from(await res.arrayBuffer());
    assert.is(res.status, 200);
    assert.is(Number(res.headers.get('content-length')), bytes.length);
    if (path.startsWith('/contacts')) assert.ok(bytes.length > bytes.toString('utf8').length, 'the seeded name makes the page longer in bytes than in characters');
    assert.is(JSON.parse(bytes.toString('utf8')).has_more, false);
    assert.ok(res.headers.get('x-request-id'));
    assert.ok(res.headers.get('x-ratelimit-limit'));
    const head = await fetch(`${server.origin}/v1${path}`, { method: 'HEAD', headers: { authorization: `Bearer ${org.key}` } });
    assert.is(head.status, 200);
    assert.is(head.headers.get('content-length'), res.headers.get('content-length'));
    assert.is((await head.arrayBuffer()).byteLength, 0);
  }
});

test('a rebuild of the contacts read model keeps the JSON columns (their functions live outside the side schema)', async ({ server, org }) => {
  const before = await server.request('GET', '/leads?limit=100', { key: org.key });
  await rebuildProjector(server.services.pool, server.services.store, contactsProjector);
  const after = await server.request('GET', '/leads?limit=100', { key: org.key });
  assert.equal(after.body, before.body);
  const contacts = await server.request('GET', '/contacts?limit=100', { key: org.key });
  assert.equal(contacts.body.data, await contactsFromColumns(server, org.organizationId));
});

test.run();
