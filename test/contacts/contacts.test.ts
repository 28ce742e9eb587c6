import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestOrg, type TestServer } from '../support/server.ts';

const test = suite<{ server: TestServer; org: TestOrg; other: TestOrg }>('Contacts: create, read, update, list');
test.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.org = await ctx.server.newOrganization();
  ctx.other = await ctx.server.newOrganization();
});
test.after(async (ctx) => { await ctx.server.stop(); });

let seq = 0;
const phone = () => `+4850${String(1_000_000 + ++seq).slice(-7)}`;

test('POST /contacts stores the phone in E.164 and the e-mail lower-cased; GET and the list see it at once', async ({ server, org }) => {
  const res = await server.request('POST', '/contacts', { key: org.key, body: { name: 'Anna Nowak', phone: '601 234 567', email: '  Anna@Example.COM ', tags: ['vip', ' vip '] } });
  assert.is(res.status, 201, JSON.stringify(res.body));
  assert.is(res.body.phone, '+48601234567');
  assert.is(res.body.email, 'anna@example.com');
  assert.equal(res.body.tags, ['vip']);
  assert.equal([res.body.stage, res.body.cycle, res.body.first_source, res.body.first_ad, res.body.owner_id, res.body.sms_optout, res.body.last_activity_at], ['new', 1, 'api', null, null, false, null]);
  const list = await server.request('GET', '/contacts', { key: org.key });
  assert.is(list.status, 200);
  assert.equal(list.body.data.find((c: { id: string }) => c.id === res.body.id), res.body);
  const one = await server.request('GET', `/contacts/${res.body.id}`, { key: org.key });
  assert.equal(one.body, res.body);
  const [created] = (await server.services.store.readStream(`contact-${res.body.id}`));
  assert.is(created.type, 'ContactCreated');
  assert.is(created.metadata.correlationId, res.headers.get('x-request-id'));
});

test('POST /contacts: no field is required, a card with only a name (or nothing) is created; PATCH may then fill it in', async ({ server, org }) => {
  const named = await server.request('POST', '/contacts', { key: org.key, body: { name: 'Walk-in customer' } });
  assert.is(named.status, 201, JSON.stringify(named.body));
  assert.equal([named.body.name, named.body.phone, named.body.email, named.body.stage], ['Walk-in customer', '', '', 'new']);
  const empty = await server.request('POST', '/contacts', { key: org.key, body: {} });
  assert.is(empty.status, 201, JSON.stringify(empty.body));
  assert.equal([empty.body.name, empty.body.phone, empty.body.email], ['', '', '']);
  const filled = await server.request('PATCH', `/contacts/${named.body.id}`, { key: org.key, body: { phone: phone() } });
  assert.is(filled.status, 200, JSON.stringify(filled.body));
  const emptied = await server.request('PATCH', `/contacts/${named.body.id}`, { key: org.key, body: { phone: '' } });
  assert.is(emptied.status, 400, 'once it has a phone, one of phone and e-mail must remain');
  assert.is(emptied.body.error.code, 'validation_error');
});

test('POST /contacts refuses a bad phone, a bad e-mail, a long name and unknown fields', async ({ server, org }) => {
  const cases: [unknown, number, string][] = [
    [{ phone: '12345' }, 400, 'validation_error'],
    [{ phone: '+48 abc 123 456' }, 400, 'validation_error'],
    [{ email: 'not-an-email' }, 400, 'validation_error'],
    [{ email: `${'a'.repeat(250)}@b.pl` }, 400, 'validation_error'],
    [{ name: 'x'.repeat(201), phone: phone() }, 400, 'validation_error'],
    [{ phone: phone(), tags: ['x'.repeat(51)] }, 400, 'validation_error'],
    [{ phone: phone(), nickname: 'x' }, 400, 'invalid_json'],
  ];
  for (const [body, status, code] of cases) {
    const res = await server.request('POST', '/contacts', { key: org.key, body });
    assert.is(res.status, status, JSON.stringify(body));
    assert.is(res.body.error.code, code, JSON.stringify(body));
  }
  const res = await server.request('POST', '/contacts', { key: org.key, body: { phone: '12345' } });
  assert.equal(res.body.error.details.fields[0].field, 'phone');
});

test('an e-mail in brackets, with a separator after it or an empty part of its domain is refused, not stored as another address of the person', async ({ server }) => {
  const org = await server.newOrganization(); // its own key: the suite's would pass the rate limit
  const created = await server.request('POST', '/contacts', { key: org.key, body: { email: 'ada.kowalska@example.com' } });
  assert.is(created.status, 201);
  const bad = ['<ada.kowalska@example.com>', 'ada.kowalska@example.com;', 'ada.kowalska@example.com>', 'mailto:ada.kowalska@example.com',
    '"ada"@example.com', 'ada.kowalska@example..com', 'ada.kowalska@.example.com', 'ada.kowalska@example.com.', '.ada@example.com', 'ada.@example.com',
    'ada..kowalska@example.com', 'ada(x)@example.com', 'ada@exa[mple].com', 'ada\\@example.com'];
  for (const email of bad) {
    const res = await server.request('POST', '/contacts', { key: org.key, body: { email } });
    assert.equal([res.status, res.body.error?.code, res.body.error?.details?.fields], [400, 'validation_error', [{ field: 'email', message: 'not an e-mail address' }]], email);
    const patched = await server.request('PATCH', `/contacts/${created.body.id}`, { key: org.key, body: { email } });
    assert.is(patched.status, 400, `PATCH ${email}`);
  }
  for (const email of ['ada+news@example.com', "o'brien@example.ie", 'zofia@żółw.pl', 'a_b-c@mail-1.example.co.uk', 'root@localhost']) {
    const res = await server.request('POST', '/contacts', { key: org.key, body: { email } });
    assert.is(res.status, 201, `${email}: ${JSON.stringify(res.body)}`);
  }
  const list = await server.request('GET', '/contacts?limit=100', { key: org.key });
  assert.not.ok(list.body.data.some((c: { email: string }) => /[<>;:"()\[\]\\]|\.\.|@\.|\.$/.test(c.email)), 'no refused spelling was stored');
});

test('lengths count characters, not UTF-16 units: 200 emoji are a name, a 50-emoji tag and 5000 in a note pass, one more is refused', async ({ server, org }) => {
  const emoji = (n: number) => '😀'.repeat(n);
  const created = await server.request('POST', '/contacts', { key: org.key, body: { name: emoji(200), phone: phone(), tags: [emoji(50)] } });
  assert.is(created.status, 201, JSON.stringify(created.body));
  assert.is(created.body.name, emoji(200));
  const id = created.body.id as string;
  assert.is((await server.request('GET', `/contacts?tag=${encodeURIComponent(emoji(50))}`, { key: org.key })).body.data.length, 1);
  assert.is((await server.request('POST', `/contacts/${id}/notes`, { key: org.key, body: { text: emoji(5000).slice(0, 9000) + 'x'.repeat(500) } })).status, 201);
  const refused: [string, string, unknown][] = [
    ['POST', '/contacts', { name: emoji(201), phone: phone() }],
    ['PATCH', `/contacts/${id}`, { name: emoji(201) }],
    ['POST', `/contacts/${id}/tags`, { add: [emoji(51)] }],
    ['POST', `/contacts/${id}/notes`, { text: emoji(5001) }],
  ];
  for (const [method, path, body] of refused) {
    const res = await server.request(method, path, { key: org.key, body });
    assert.is(res.status, 400, `${method} ${path}`);
    assert.is(res.body.error.code, 'validation_error');
  }
});

test('the same phone or e-mail again is 409 contact_exists naming the contact; another organisation may have it', async ({ server, org, other }) => {
  const p = phone();
  const first = await server.request('POST', '/contacts', { key: org.key, body: { phone: p, email: 'dup@example.com' } });
  assert.is(first.status, 201);
  // The same number as 9 national digits, or after the country code written without + (as hashing reads it).
  for (const body of [{ phone: p.replace('+48', '') }, { phone: p.replace('+', '') }, { email: 'DUP@example.com ' }, { phone: phone(), email: 'dup@example.com' }]) {
    const again = await server.request('POST', '/contacts', { key: org.key, body });
    assert.is(again.status, 409, JSON.stringify(body));
    assert.is(again.body.error.code, 'contact_exists');
    assert.equal(again.body.error.details, { contact_id: first.body.id });
  }
  const elsewhere = await server.request('POST', '/contacts', { key: other.key, body: { phone: p, email: 'dup@example.com' } });
  assert.is(elsewhere.status, 201);
});

test('two concurrent creates with the same phone give one 201 and one 409', async ({ server, org }) => {
  for (let round = 0; round < 5; round++) {
    const p = phone();
    const answers = await Promise.all([1, 2].map((n) => server.request('POST', '/contacts', { key: org.key, body: { name: `racer ${n}`, phone: p } })));
    const statuses = answers.map((a) => a.status).sort();
    assert.equal(statuses, [201, 409]);
    const winner = answers.find((a) => a.status === 201)!;
    const loser = answers.find((a) => a.status === 409)!;
    assert.is(loser.body.error.details.contact_id, winner.body.id);
  }
});

test('PATCH changes fields with one history line each; empty removes; one of phone and e-mail must remain', async ({ server, org }) => {
  const p = phone();
  const created = await server.request('POST', '/contacts', { key: org.key, body: { name: 'Ewa', phone: p, tags: ['a'] } });
  const id = created.body.id;
  const patched = await server.request('PATCH', `/contacts/${id}`, { key: org.key, body: { name: 'Ewa Kowalska', email: 'ewa@example.com', tags: ['b', 'c'] } });
  assert.is(patched.status, 200, JSON.stringify(patched.body));
  assert.equal([patched.body.name, patched.body.email, patched.body.tags], ['Ewa Kowalska', 'ewa@example.com', ['b', 'c']]);
  const events = await server.services.store.readStream(`contact-${id}`);
  const update = events[events.length - 1].data as { history: string[] };
  assert.equal(update.history, ['name changed', 'e-mail added', 'tags set to [b, c]']);
  const noPhone = await server.request('PATCH', `/contacts/${id}`, { key: org.key, body: { phone: '' } });
  assert.is(noPhone.body.phone, '');
  const none = await server.request('PATCH', `/contacts/${id}`, { key: org.key, body: { email: '' } });
  assert.is(none.status, 400);
  assert.is(none.body.error.code, 'validation_error');
  // The released phone can be taken by another contact, and this one cannot take a phone someone holds.
  const taker = await server.request('POST', '/contacts', { key: org.key, body: { phone: p } });
  assert.is(taker.status, 201);
  const clash = await server.request('PATCH', `/contacts/${id}`, { key: org.key, body: { phone: p } });
  assert.is(clash.status, 409);
  assert.equal(clash.body.error.details, { contact_id: taker.body.id });
  const same = await server.request('PATCH', `/contacts/${id}`, { key: org.key, body: { name: 'Ewa Kowalska' } });
  assert.is(same.status, 200);
  assert.is(same.body.updated_at, noPhone.body.updated_at);
});

test('lists filter by stage, tag, e-mail and phone (matched by hash), page with cursors, and refuse foreign cursors', async ({ server, org, other }) => {
  const p = phone();
  const tagged = await server.request('POST', '/contacts', { key: org.key, body: { name: 'Filter me', phone: p, email: 'filter@example.com', tags: ['filter-tag'] } });
  const byTag = await server.request('GET', '/contacts?tag=filter-tag', { key: org.key });
  assert.equal(byTag.body.data.map((c: { id: string }) => c.id), [tagged.body.id]);
  const byEmail = await server.request('GET', `/contacts?email=${encodeURIComponent(' FILTER@example.com')}`, { key: org.key });
  assert.equal(byEmail.body.data.map((c: { id: string }) => c.id), [tagged.body.id]);
  const byPhone = await server.request('GET', `/contacts?phone=${encodeURIComponent(p.slice(3))}`, { key: org.key });
  assert.equal(byPhone.body.data.map((c: { id: string }) => c.id), [tagged.body.id]);
  const byStage = await server.request('GET', '/contacts?stage=sold', { key: org.key });
  assert.equal(byStage.body.data, []);
  const badStage = await server.request('GET', '/contacts?stage=won', { key: org.key });
  assert.is(badStage.status, 400);
  const first = await server.request('GET', '/contacts?limit=2', { key: org.key });
  assert.is(first.body.data.length, 2);
  assert.is(first.body.has_more, true);
  const second = await server.request('GET', `/contacts?limit=2&cursor=${first.body.next_cursor}`, { key: org.key });
  assert.is(second.status, 200);
  assert.not.ok(second.body.data.some((c: { id: string }) => first.body.data.some((f: { id: string }) => f.id === c.id)));
  const filtered = await server.request('GET', `/contacts?limit=2&tag=x&cursor=${first.body.next_cursor}`, { key: org.key });
  assert.is(filtered.body.error.code, 'invalid_cursor');
  const foreign = await server.request('GET', `/contacts?limit=2&cursor=${first.body.next_cursor}`, { key: other.key });
  assert.is(foreign.body.error.code, 'invalid_cursor');
});

test('the tag filter meets the tag rule: trimmed, then 1-50 characters; a blank or longer one is refused like a tag in a body', async ({ server, org }) => {
  const tag = 't'.repeat(50);
  const tagged = await server.request('POST', '/contacts', { key: org.key, body: { phone: phone(), tags: [tag] } });
  assert.is(tagged.status, 201, JSON.stringify(tagged.body));
  const spaced = await server.request('GET', `/contacts?tag=${encodeURIComponent(` ${tag} `)}`, { key: org.key });
  assert.is(spaced.status, 200, JSON.stringify(spaced.body));
  assert.equal(spaced.body.data.map((c: { id: string }) => c.id), [tagged.body.id]);
  for (const bad of ['', '   ', `${tag}t`]) {
    const res = await server.request('GET', `/contacts?tag=${encodeURIComponent(bad)}`, { key: org.key, headers: { 'accept-language': 'en' } });
    assert.is(res.status, 400, JSON.stringify(bad));
    assert.is(res.body.error.code, 'validation_error');
    assert.equal(res.body.error.details.fields, [{ field: 'tag', message: 'a tag is 1-50 characters after trimming' }], JSON.stringify(bad));
  }
});

test('a tag over 200 characters or over 100 tags is refused with the tag rule, not the looser bounds the schema checks first', async ({ server, org }) => {
  const long = 'x'.repeat(201);
  const many = Array.from({ length: 101 }, (_, i) => `t${i}`);
  const card = await server.request('POST', '/contacts', { key: org.key, body: { phone: phone() } });
  const cases: [string, string, Record<string, unknown> | undefined, string, string][] = [
    ['POST', '/contacts', { phone: phone(), tags: [long] }, 'tags.0', 'a tag is 1-50 characters after trimming'],
    ['PATCH', `/contacts/${card.body.id}`, { tags: [long] }, 'tags.0', 'a tag is 1-50 characters after trimming'],
    ['POST', `/contacts/${card.body.id}/tags`, { add: [long] }, 'add.0', 'a tag is 1-50 characters after trimming'],
    ['GET', `/contacts?tag=${long}`, undefined, 'tag', 'a tag is 1-50 characters after trimming'],
    ['POST', '/contacts', { phone: phone(), tags: many }, 'tags', 'at most 50 tags on a contact'],
    ['POST', `/contacts/${card.body.id}/tags`, { add: many }, 'add', 'at most 50 tags on a contact'],
  ];
  for (const [method, path, body, field, message] of cases) {
    const res = await server.request(method, path, { key: org.key, body });
    assert.is(res.status, 400, `${method} ${path}`);
    assert.equal(res.body.error.details.fields, [{ field, message }], `${method} ${path}`);
  }
});

test('a + the caller did not encode in the phone or e-mail filter (a space once decoded) is read as +', async ({ server, org }) => {
  const made = await server.request('POST', '/contacts', { key: org.key, body: { phone: '+1 202 555 0143', email: 'plus+tag@example.com' } });
  assert.is(made.status, 201, JSON.stringify(made.body));
  // Written into the query string as they are, as a template string would: the '+' arrives as a space.
  for (const query of ['phone=+12025550143', 'phone=+1 202 555 0143', 'email=plus+tag@example.com', 'phone=%2B12025550143', 'email=plus%2Btag%40example.com']) {
    const res = await server.request('GET', `/contacts?${query}`, { key: org.key });
    assert.is(res.status, 200, query);
    assert.equal(res.body.data.map((c: { id: string }) => c.id), [made.body.id], query);
  }
});

test('times take the ISO 8601 forms event_time takes: an offset as +0200 or +02, no seconds, a space or a lower-case t and z', async ({ server, org }) => {
  const c = await server.request('POST', '/contacts', { key: org.key, body: { phone: phone() } });
  const forms = ['2024-01-01T10:00:00+0200', '2024-01-01T10:00:00+02', '2024-01-01T10:00+02:00', '2024-01-01T08:00Z', '2024-01-01 08:00:00Z', '2024-01-01t08:00:00z'];
  for (const time of forms) {
    const note = await server.request('POST', `/contacts/${c.body.id}/notes`, { key: org.key, body: { text: 'Met', time } });
    assert.is(note.status, 201, `${time}: ${JSON.stringify(note.body)}`);
    assert.is(note.body.time, '2024-01-01T08:00:00.000Z', time);
  }
  for (const time of forms) {
    const since = await server.request('GET', `/contacts?updated_since=${encodeURIComponent(time)}`, { key: org.key });
    assert.is(since.status, 200, `updated_since=${time}: ${JSON.stringify(since.body)}`);
    assert.ok(since.body.data.some((x: { id: string }) => x.id === c.body.id), time);
    const later = await server.request('GET', `/contacts?updated_since=${encodeURIComponent(time.replace('2024', '2999'))}`, { key: org.key });
    assert.equal(later.body.data, [], time);
    const window = await server.request('GET', `/leads?from=${encodeURIComponent(time)}&to=${encodeURIComponent(time.replace('2024', '2025'))}`, { key: org.key });
    assert.is(window.status, 200, `from/to ${time}: ${JSON.stringify(window.body)}`);
  }
});

test('another organisation sees nothing: list, GET, PATCH and every action answer as if the contact did not exist', async ({ server, org, other }) => {
  const mine = await server.request('POST', '/contacts', { key: org.key, body: { phone: phone(), email: 'private@example.com', tags: ['secret'] } });
  const id = mine.body.id;
  const list = await server.request('GET', '/contacts?tag=secret', { key: other.key });
  assert.equal(list.body.data, []);
  const byEmail = await server.request('GET', '/contacts?email=private@example.com', { key: other.key });
  assert.equal(byEmail.body.data, []);
  const attempts: [string, string, unknown][] = [
    ['GET', `/contacts/${id}`, undefined],
    ['PATCH', `/contacts/${id}`, { name: 'hijack' }],
    ['POST', `/contacts/${id}/stage`, { stage: 'sold' }],
    ['POST', `/contacts/${id}/notes`, { text: 'hi' }],
    ['POST', `/contacts/${id}/tags`, { add: ['x'] }],
    ['POST', `/contacts/${id}/sms-optout`, { sms_optout: true }],
  ];
  for (const [method, path, body] of attempts) {
    const res = await server.request(method, path, { key: other.key, body });
    assert.is(res.status, 404, `${method} ${path}`);
    assert.is(res.body.error.code, 'not_found');
  }
  const still = await server.request('GET', `/contacts/${id}`, { key: org.key });
  assert.equal(still.body, mine.body);
});

test('scopes: contacts:read cannot write, and a key without contacts scopes cannot read', async ({ server, org }) => {
  const reader = await server.newKey(org.organizationId, ['contacts:read']);
  const write = await server.request('POST', '/contacts', { key: reader.key, body: { phone: phone() } });
  assert.is(write.status, 403);
  assert.equal(write.body.error.details, { required_scope: 'contacts:write' });
  const none = await server.newKey(org.organizationId, ['leads:read']);
  const read = await server.request('GET', '/contacts', { key: none.key });
  assert.is(read.status, 403);
  const unknown = await server.request('GET', '/contacts/nope', { key: reader.key });
  assert.is(unknown.status, 404);
});

test.run();
