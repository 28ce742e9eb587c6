import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestOrg, TestServer } from '../support/server.ts';
import { settleReports, startReportServer } from './support.ts';
import { importLead } from '../leads/support.ts';

const test = suite<{ server: TestServer; org: TestOrg }>('Sale values: through POST /contacts/{id}/stage into the campaign report');
test.before(async (ctx) => {
  ctx.server = await startReportServer();
  ctx.org = await ctx.server.newOrganization({ timezone: 'UTC', currency: 'IDR' });
});
test.after(async (ctx) => { await ctx.server.stop(); });

const sell = (ctx: { server: TestServer; org: TestOrg }, contactId: string, value: number) =>
  ctx.server.request('POST', `/contacts/${contactId}/stage`, { key: ctx.org.key, body: { stage: 'sold', value, currency: 'IDR' } });

test('ten sales at the largest value of one campaign and day all count; a larger value is a validation_error', async (ctx) => {
  const contacts: string[] = [];
  for (let i = 0; i < 10; i++) {
    const lead = await importLead(ctx.server, ctx.org, { id: `90${i}`, email: `buyer${i}@example.com`, ad: 'a-1', campaign: 'c-1', created: '2025-03-01T10:00:00+0000' });
    contacts.push(lead.contactId!);
  }
  // 10^12 was accepted: ten such sales in one report cell (2025-03-01, ad a-1) overflowed its 64-bit millionths and
  // stopped the reporting projector for every organisation.
  for (const value of [1e12, 1e10 + 1]) {
    const refused = await sell(ctx, contacts[0], value);
    assert.is(refused.status, 400, `${value}: ${JSON.stringify(refused.body)}`);
    assert.is(refused.body.error.details.field, 'value');
  }
  for (const contactId of contacts) assert.is((await sell(ctx, contactId, 1e10)).status, 200);
  await settleReports(ctx.server);
  const res = await ctx.server.request('GET', '/campaigns/report?from=2025-03-01&to=2025-03-01', { key: ctx.org.key });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.rows.map((r: any) => [r.id, r.currency, r.metrics.sales, r.metrics.revenue]), [['c-1', 'IDR', 10, 1e11]]);
});

test('a sale is in the campaign report as soon as POST /contacts/{id}/stage answers, though the reports projector is behind', async (ctx) => {
  const lead = await importLead(ctx.server, ctx.org, { id: '950', email: 'prompt@example.com', ad: 'a-2', campaign: 'c-2', created: '2025-03-02T10:00:00+0000' });
  await settleReports(ctx.server);
  // Hold the reporting_leads projector for 500 ms: its batch waits to write report_leads. A table lock takes no
  // transaction id, so the store goes on showing the stage change to every other projector.
  const holder = await ctx.server.services.pool.connect();
  await holder.query('BEGIN');
  await holder.query('LOCK TABLE report_leads IN SHARE MODE');
  const released = new Promise((resolve) => setTimeout(resolve, 500)).then(() => holder.query('COMMIT')).finally(() => holder.release());
  try {
    const sold = await sell(ctx, lead.contactId!, 250);
    assert.is(sold.status, 200, JSON.stringify(sold.body));
    // Read-your-writes (DESIGN.md): the stage change answered only once the reports had applied it.
    const res = await ctx.server.request('GET', '/campaigns/report?from=2025-03-02&to=2025-03-02', { key: ctx.org.key });
    assert.is(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.rows.map((r: any) => [r.id, r.metrics.leads, r.metrics.qualified, r.metrics.sales, r.metrics.revenue]), [['c-2', 1, 1, 1, 250]]);
  } finally {
    await released;
  }
});

test.run();
