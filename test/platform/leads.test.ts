import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { fetchAllFormLeads, fetchLead, listFormLeads, listPageForms } from '../../src/platform/leads.ts';
import type { Sandbox } from '../../ops/sandbox/server.ts';
import { sandboxContext, type SandboxContext } from './helpers.ts';

const test = suite<SandboxContext>('Platform leads: fetched and listed from the sandbox');
test.before((ctx) => sandboxContext(ctx));
test.after(({ sandbox }) => sandbox.stop());
test.before.each(({ sandbox }) => sandbox.reset());

const AD = { ad_id: '601', ad_name: 'Spring video', adset_id: '501', adset_name: 'Warsaw 25-45', campaign_id: '401', campaign_name: 'Spring' };
const BASE = Date.parse('2025-03-01T10:00:00Z') / 1000;

/** Five leads of form f1, one a minute from BASE + 60 (lead l1 oldest), and one of another form. */
function seedForm(sandbox: Sandbox): void {
  sandbox.seedForm({ id: 'f1', pageId: 'p1', name: 'Spring form' });
  sandbox.seedForm({ id: 'f2', pageId: 'p1', name: 'Other form', status: 'ARCHIVED' });
  for (let i = 1; i <= 5; i++) {
    sandbox.seedLead({ id: `l${i}`, formId: 'f1', createdTime: BASE + i * 60, ad: i % 2 === 1 ? AD : undefined, answers: { email: `p${i}@example.com` } });
  }
  sandbox.seedLead({ id: 'x1', formId: 'f2', createdTime: BASE, answers: {} });
}

test('a fetched lead carries its ad, placement and answers in the service terms', async ({ sandbox, cfg }) => {
  sandbox.seedForm({ id: 'f1', pageId: 'p1', name: 'Spring form' });
  sandbox.seedLead({
    id: '9001',
    formId: 'f1',
    createdTime: '2025-03-01T10:20:30Z',
    platform: 'ig',
    ad: AD,
    answers: { email: 'Anna@Example.com', phone_number: '+48601234567', first_name: 'Anna', last_name: 'Nowak', budget: ['10k', '20k'] },
  });
  const result = await fetchLead(cfg, '9001', 'page-token');
  assert.is(result.kind, 'ok');
  if (result.kind !== 'ok') return;
  const lead = result.value;
  assert.is(lead.platformLeadId, '9001');
  assert.is(lead.createdTime, '2025-03-01T10:20:30.000Z');
  assert.is(lead.formId, 'f1');
  assert.is(lead.pageId, null);
  assert.is(lead.platform, 'instagram');
  assert.equal(lead.ad, { platform: 'instagram', ...AD });
  assert.is(lead.email, 'Anna@Example.com');
  assert.is(lead.phone, '+48601234567');
  assert.is(lead.fullName, 'Anna Nowak');
  assert.equal(lead.answers.find((a) => a.key === 'budget'), { key: 'budget', label: 'Budget', values: ['10k', '20k'] });
});

test('an organic lead has no ad', async ({ sandbox, cfg }) => {
  sandbox.seedForm({ id: 'f1', pageId: 'p1', name: 'Spring form' });
  sandbox.seedLead({ id: '9002', formId: 'f1', createdTime: BASE, answers: { full_name: 'Jan Kowalski' } });
  const result = await fetchLead(cfg, '9002', 'page-token');
  assert.is(result.kind === 'ok' && result.value.ad, null);
  assert.is(result.kind === 'ok' && result.value.platform, 'facebook');
  assert.is(result.kind === 'ok' && result.value.fullName, 'Jan Kowalski');
});

test('an unknown lead is a permanent failure with code 100 and subcode 33', async ({ cfg }) => {
  const result = await fetchLead(cfg, '404404', 'page-token');
  assert.is(result.kind, 'permanent');
  assert.is(result.kind !== 'ok' && result.code, 100);
  assert.is(result.kind !== 'ok' && result.subcode, 33);
});

test('a bad page token is a permanent failure with code 190', async ({ sandbox, cfg }) => {
  seedForm(sandbox);
  const result = await fetchLead(cfg, 'l1', 'bad');
  assert.is(result.kind !== 'ok' && result.code, 190);
});

test('a transient failure of a read is retried in-process', async ({ sandbox, cfg }) => {
  seedForm(sandbox);
  sandbox.injectFailures({ match: '/l2', count: 1 });
  const result = await fetchLead(cfg, 'l2', 'page-token');
  assert.is(result.kind === 'ok' && result.value.platformLeadId, 'l2');
  assert.is(sandbox.requestsTo('/l2'), 2);
  sandbox.injectFailures({ match: '/l3', count: 5 });
  const gaveUp = await fetchLead({ ...cfg, retries: 1 }, 'l3', 'page-token');
  assert.is(gaveUp.kind, 'transient');
  assert.is(sandbox.requestsTo('/l3'), 2);
});

test('a form lists its leads newest first, page by page with the after cursor', async ({ sandbox, cfg }) => {
  seedForm(sandbox);
  const ids: string[] = [];
  let after: string | undefined;
  let pages = 0;
  for (;;) {
    const page = await listFormLeads(cfg, 'f1', 'tok', { limit: 2, after });
    assert.is(page.kind, 'ok');
    if (page.kind !== 'ok') return;
    pages += 1;
    ids.push(...page.value.leads.map((l) => l.platformLeadId));
    if (page.value.after === null) break;
    after = page.value.after;
  }
  assert.equal(ids, ['l5', 'l4', 'l3', 'l2', 'l1']);
  assert.is(pages, 3);
});

test('since keeps only the leads created after it', async ({ sandbox, cfg }) => {
  seedForm(sandbox);
  const page = await listFormLeads(cfg, 'f1', 'tok', { since: BASE + 3 * 60 });
  assert.equal(page.kind === 'ok' && page.value.leads.map((l) => l.platformLeadId), ['l5', 'l4']);
  const iso = await fetchAllFormLeads(cfg, 'f1', 'tok', { since: new Date((BASE + 60) * 1000).toISOString() });
  assert.equal(iso.kind === 'ok' && iso.value.map((l) => l.platformLeadId), ['l5', 'l4', 'l3', 'l2']);
});

test('an unknown form is a permanent failure', async ({ cfg }) => {
  const page = await listFormLeads(cfg, 'nope', 'tok');
  assert.is(page.kind, 'permanent');
});

test('a page lists its lead forms', async ({ sandbox, cfg }) => {
  seedForm(sandbox);
  const forms = await listPageForms(cfg, 'p1', 'tok');
  assert.equal(forms, {
    kind: 'ok',
    value: [
      { id: 'f1', name: 'Spring form', status: 'ACTIVE', labels: {} },
      { id: 'f2', name: 'Other form', status: 'ARCHIVED', labels: {} },
    ],
  });
});

test.run();
