// A rebuild fills the reporting tables with the projectors' replay writers (rows staged, facts derived once
// at the end); batch by batch, apply() upserts differences. Both must leave the same rows, whatever the
// batches: here a day re-synced in a later batch, a day twice in one batch, a sale that moves between batches.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Client } from '../../src/db/pool.ts';
import type { RecordedEvent } from '../../src/eventstore/port.ts';
import type { Projector } from '../../src/projections/projector.ts';
import type { AdSource } from '../../commands/lead/lead.ts';
import { reportingAdsProjector } from '../../projections/reporting_ads/projector.ts';
import { reportingLeadsProjector } from '../../projections/reporting_leads/projector.ts';
import { LeadReplay } from '../../projections/reporting_leads/replay.ts';
import { freshDatabase, type TestDatabase } from '../support/db.ts';
import { adSource, spendDay, type AdRef } from './events.ts';

const test = suite<{ db: TestDatabase }>('Reporting rebuild: facts derived once at the end equal the facts applied batch by batch');
test.before(async (ctx) => { ctx.db = await freshDatabase('reporting_replay'); });
test.after(async (ctx) => { await ctx.db.drop(); });

const ORG = 'org-1';
const A1: AdRef = { campaign: 'c1', adset: 's1', ad: 'a1' };
const A2: AdRef = { campaign: 'c1', adset: 's2', ad: 'a2' };
const A3: AdRef = { campaign: 'c2', adset: 's3', ad: 'a3' };

let seq = 0;
const event = (type: string, data: Record<string, unknown>): RecordedEvent => ({
  id: `e${++seq}`, type, stream: 's', revision: 0n, position: { commit: BigInt(seq), prepare: BigInt(seq) },
  data: { organizationId: ORG, ...data }, metadata: { organizationId: ORG, actor: 'test' }, createdAt: '2024-04-01T00:00:00.000Z',
});

const synced = (account: string, currency: string, days: ReturnType<typeof spendDay>[]) =>
  event('AdSpendSynced', { account, currency, since: days[0].date, until: days.at(-1)!.date, days, syncedAt: '2024-04-01T00:00:00.000Z' });

async function inTransaction(client: Client, work: () => Promise<void>): Promise<void> {
  await client.query('BEGIN');
  await work();
  await client.query('COMMIT');
}

/** The projector's tables in a schema of their own, filled by apply() batch by batch, or by its replay writer. */
async function fill(client: Client, projector: Projector, schema: string, batches: RecordedEvent[][], replay: boolean): Promise<void> {
  await client.query(`CREATE SCHEMA ${schema}`);
  await client.query(`SET search_path = ${schema}, public`);
  for (const migration of projector.migrations) await client.query(migration.sql);
  const writer = replay ? projector.replay!() : null;
  if (writer) await inTransaction(client, () => writer.start(client));
  for (const batch of batches) await inTransaction(client, () => (writer ?? projector).apply(client, batch));
  if (writer) await inTransaction(client, () => writer.finish(client));
}

async function rows(client: Client, schema: string, table: string): Promise<string[]> {
  const { rows } = await client.query<{ row: string }>(`SELECT row_to_json(t)::text AS row FROM ${schema}.${table} t`);
  return rows.map((r) => r.row).sort();
}

async function compare(db: TestDatabase, projector: Projector, batches: RecordedEvent[][], prefix = projector.name.replace('reporting_', '')): Promise<void> {
  const client = await db.pool.connect();
  try {
    await fill(client, projector, `${prefix}_applied`, batches, false);
    await fill(client, projector, `${prefix}_replayed`, batches, true);
    for (const table of projector.tables) {
      const applied = await rows(client, `${prefix}_applied`, table);
      assert.ok(applied.length > 0 || table === 'report_creative_tags' || table === 'report_zones', `${table} has rows`);
      assert.equal(await rows(client, `${prefix}_replayed`, table), applied, table);
    }
  } finally {
    client.release(true);
  }
}

test('spend: re-synced days, two accounts, roll-ups per campaign and ad set', async ({ db }) => {
  await compare(db, reportingAdsProjector, [
    [
      event('AdAccountConnected', { account: 'act_1', name: 'One', currency: 'PLN', timezone: 'Europe/Warsaw', tokenCiphertext: '', connectedAt: '2024-01-01T00:00:00.000Z' }),
      synced('act_1', 'PLN', [spendDay(A1, '2024-03-01', 10.5, { impressions: 100, clicks: 3, reach: 80, platform_leads: 1 }), spendDay(A2, '2024-03-01', 20)]),
      // The same day twice in one batch: the later row counts.
      synced('act_1', 'PLN', [spendDay(A1, '2024-03-03', 7), spendDay(A1, '2024-03-03', 8.25, { impressions: 40 })]),
      synced('act_2', 'EUR', [spendDay(A3, '2024-02-26', 5), spendDay(A3, '2024-03-10', 6)]),
      event('AdSpendSyncSucceeded', { account: 'act_1', since: '2024-03-01', until: '2024-03-03', rows: 3, at: '2024-04-01T00:00:00.000Z' }),
    ],
    [
      // A later sync replaces two days and adds one in the next 7-day bucket; the ad and its campaign were renamed since.
      synced('act_1', 'PLN', [spendDay(A1, '2024-03-01', 12, { impressions: 90, clicks: 4, reach: 70 }), spendDay(A2, '2024-03-01', 0),
        spendDay(A2, '2024-03-11', 3.333333, { ad_name: 'Renamed a2', campaign_name: 'Renamed c1' })]),
      event('AdCreativeSynced', { account: 'act_1', ad_id: 'a1', creative_id: 'cr1', video_id: 'v1', image_hash: null, format: 'video', thumbnail_url: '', title: 'T', body: '', syncedAt: '2024-04-01T00:00:00.000Z' }),
      event('AdSpendSyncFailed', { account: 'act_2', error: 'token expired', at: '2024-04-02T00:00:00.000Z' }),
    ],
  ]);
});

const lead = (leadId: string, ad: AdRef | null, submittedAt: string, renamed: Partial<AdSource> = {}) => event('LeadReceived', {
  leadId, platformLeadId: `p-${leadId}`, contactId: `c-${leadId}`, sourceId: 'form-1', formName: 'Form', platformFormId: 'pf', platformPageId: 'pp',
  ad: ad ? { ...adSource(ad), ...renamed } : null, answers: [], cycle: 1, submittedAt, receivedAt: submittedAt, fetchStatus: 'ready', via: 'import',
});
const stage = (leadId: string, from: string, to: string, sale?: { value: number; currency: string | null }) => event('ContactStageChanged', {
  contactId: `c-${leadId}`, from, to, cycle: 1, value: sale?.value ?? null, currency: sale?.currency ?? null,
  leads: [{ leadId, platformEventQueued: false, conversionEventId: null }], valueLeadId: sale ? leadId : null, changedAt: '2024-03-20T10:00:00Z',
});

test('leads: stages and sales across batches, organic leads, a sale in another currency', async ({ db }) => {
  await compare(db, reportingLeadsProjector, [
    [
      event('OrganizationCreated', { name: 'Org', timezone: 'Europe/Warsaw', currency: 'PLN' }),
      lead('l1', A1, '2024-03-01T10:00:00Z'), lead('l2', A1, '2024-03-01T11:00:00Z'), lead('l3', A2, '2024-02-29T23:30:00Z'),
      lead('l4', null, '2024-03-05T10:00:00Z'), lead('l5', A3, '2024-03-12T10:00:00Z'),
      stage('l1', 'new', 'qualified'), stage('l2', 'new', 'rejected'),
    ],
    [
      stage('l1', 'qualified', 'sold', { value: 500.5, currency: null }), stage('l3', 'new', 'sold', { value: 99.99, currency: 'EUR' }),
      // The ad and its ad set were renamed since the first batch's leads.
      stage('l4', 'new', 'sold', { value: 100, currency: 'PLN' }), lead('l6', A1, '2024-03-02T10:00:00Z', { ad_name: 'Renamed a1', adset_name: 'Renamed s1' }),
    ],
    [stage('l5', 'new', 'qualified'), stage('l6', 'new', 'contacted')],
  ]);
});

test('leads: sale values with digits past the millionth round the same both ways', async ({ db }) => {
  await compare(db, reportingLeadsProjector, [
    [
      event('OrganizationCreated', { name: 'Org', timezone: 'Europe/Warsaw', currency: 'PLN' }),
      lead('m1', A1, '2024-03-01T10:00:00Z'), lead('m2', A1, '2024-03-01T11:00:00Z'), lead('m3', A2, '2024-03-01T12:00:00Z'),
      // 0.0001245 * 1e6 is 124.49999999999999 in floating point: apply() held 124 millionths, the rebuild 125.
      stage('m3', 'new', 'sold', { value: 0.0001245, currency: 'PLN' }),
      // Two sales of 0.0000004 in one cell: summed before rounding they made 1 millionth, rounded one by one 0.
      stage('m1', 'new', 'sold', { value: 0.0000004, currency: 'PLN' }), stage('m2', 'new', 'sold', { value: 0.0000004, currency: 'PLN' }),
    ],
  ], 'fine_values');
});

test('leads: new leads are copied in (COPY text format), known ones upserted; ids with tabs, backslashes and newlines', async ({ db }) => {
  const odd = 'l\t7\\x\ny';
  await compare(db, reportingLeadsProjector, [
    [
      event('OrganizationCreated', { name: 'Org', timezone: 'Europe/Warsaw', currency: 'PLN' }),
      lead(odd, A1, '2024-03-01T10:00:00Z'), lead('l8', { ...A2, ad: 'a\\2' }, '2024-03-02T10:00:00Z'),
      stage(odd, 'new', 'qualified'),
    ],
    // Known leads of the first batch change; a new one comes beside them.
    [stage('l8', 'new', 'rejected'), stage(odd, 'qualified', 'sold', { value: 12.345, currency: null }), lead('l9', null, '2024-03-03T10:00:00Z')],
  ], 'copied_leads');
});

test('lead replay: every lead it wrote is loaded again, few it did not', () => {
  const replay = new LeadReplay();
  for (let i = 0; i < 20_000; i++) replay.rememberWritten(`${ORG} w${i}`);
  for (let i = 0; i < 20_000; i++) assert.ok(replay.mayHaveWritten(`${ORG} w${i}`), `w${i}`);
  let falsePositives = 0;
  for (let i = 0; i < 20_000; i++) if (replay.mayHaveWritten(`${ORG} n${i}`)) falsePositives++;
  assert.ok(falsePositives < 20, `${falsePositives} of 20,000 unwritten leads would be loaded`);
});

test.run();
