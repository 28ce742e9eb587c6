// Lead cohort facts for the campaign and creative reports: per local submission day and ad, how many
// leads came, how many reached qualified, are rejected or sold now, and their sale values.
import { migrationsIn } from '../../src/db/migrate.ts';
import type { Client } from '../../src/db/pool.ts';
import type { RecordedEvent } from '../../src/eventstore/port.ts';
import type { Projector } from '../../src/projections/projector.ts';
import type { OrganizationEvent } from '../../commands/organization/organization.ts';
import type { LeadFetched, LeadReceived } from '../../commands/lead/lead.ts';
import type { ContactLeadLinked, ContactStageChanged } from '../../commands/contact/contact.ts';
import { localDays } from '../reporting_shared/days.ts';
import { LatestNames, noteNames, saveNames } from '../reporting_shared/names.ts';
import { FactDeltas, contributions, emptyLead, withEntryStage, withSource, withStageChange, type ReportLead } from './lead-state.ts';
import { addFacts, copyNewLeads, loadLeads, loadZones, saveLeads, saveZones } from './store.ts';
import { LeadReplay } from './replay.ts';

const HANDLES = ['OrganizationCreated', 'LeadReceived', 'LeadFetched', 'ContactLeadLinked', 'ContactStageChanged'] as const;
type Handled = (typeof HANDLES)[number];

/** Leads submitted from this instant on are counted on their local day (see Batch.localDay). */
const FIRST_COUNTED_INSTANT = Date.parse('1900-01-01T00:00:00Z');

type OrganizationCreated = Extract<OrganizationEvent, { type: 'OrganizationCreated' }>['data'];

/** The data keys applyBatch() reads, per type (a rebuild reads only these); it reads no metadata. */
const DATA_KEYS: Record<Handled, readonly string[]> = {
  OrganizationCreated: ['organizationId', 'timezone'] satisfies (keyof OrganizationCreated)[],
  LeadReceived: ['organizationId', 'leadId', 'ad', 'submittedAt', 'receivedAt'] satisfies (keyof LeadReceived)[],
  LeadFetched: ['organizationId', 'leadId', 'ad', 'submittedAt', 'fetchedAt'] satisfies (keyof LeadFetched)[],
  ContactLeadLinked: ['organizationId', 'leadId', 'stage'] satisfies (keyof ContactLeadLinked)[],
  ContactStageChanged: ['organizationId', 'leads', 'to', 'valueLeadId', 'value', 'currency'] satisfies (keyof ContactStageChanged)[],
};

/** (organisation, lead) pairs an event touches. */
function leadKeys(event: RecordedEvent): { organizationId: string; leadId: string }[] {
  const type = event.type as Handled;
  switch (type) {
    case 'OrganizationCreated':
      return [];
    case 'LeadReceived':
    case 'LeadFetched':
    case 'ContactLeadLinked': {
      const d = event.data as { organizationId: string; leadId: string };
      return [{ organizationId: d.organizationId, leadId: d.leadId }];
    }
    case 'ContactStageChanged': {
      const d = event.data as ContactStageChanged;
      return d.leads.map((l) => ({ organizationId: d.organizationId, leadId: l.leadId }));
    }
    default: {
      const _never: never = type;
      return [];
    }
  }
}

/** One batch: load the touched leads, fold the events, write the leads and the difference they make. */
class Batch {
  readonly leads: Map<string, ReportLead>;
  readonly before = new Map<string, ReportLead>();
  readonly zones: { organizationId: string; timezone: string }[] = [];
  private readonly dayFns = new Map<string, (iso: string) => string>();

  constructor(loaded: Map<string, ReportLead>, private readonly zoneOf: Map<string, string>, private readonly names: LatestNames) {
    this.leads = loaded;
    for (const [k, v] of loaded) this.before.set(k, v);
  }

  private localDay(organizationId: string, iso: string): string | null {
    // A lead submitted before 1900 counts on no report day: no report reaches back so far (they start in 1970,
    // less a year of previous period), and Intl writes a year before 1000 without its leading zeros ("99-06-01"),
    // which PostgreSQL refused as a date, stopping this projector for every organisation.
    if (!(Date.parse(iso) >= FIRST_COUNTED_INSTANT)) return null;
    let fn = this.dayFns.get(organizationId);
    if (!fn) {
      // A lead of an organisation the store never created is counted on its UTC day.
      fn = localDays(this.zoneOf.get(organizationId) ?? 'UTC');
      this.dayFns.set(organizationId, fn);
    }
    return fn(iso);
  }

  private update(organizationId: string, leadId: string, change: (lead: ReportLead) => ReportLead): void {
    const key = `${organizationId} ${leadId}`;
    this.leads.set(key, change(this.leads.get(key) ?? emptyLead(organizationId, leadId)));
  }

  apply(event: RecordedEvent): void {
    const type = event.type as Handled;
    switch (type) {
      case 'OrganizationCreated': {
        const d = event.data as OrganizationCreated;
        this.zoneOf.set(d.organizationId, d.timezone);
        this.zones.push({ organizationId: d.organizationId, timezone: d.timezone });
        return;
      }
      case 'LeadReceived':
      case 'LeadFetched': {
        const d = event.data as LeadReceived | LeadFetched;
        const submitted = d.submittedAt || (d as LeadReceived).receivedAt || (d as LeadFetched).fetchedAt;
        this.update(d.organizationId, d.leadId, (lead) => withSource(lead, d.ad, this.localDay(d.organizationId, submitted)));
        if (d.ad) noteNames(this.names.of(d.organizationId), d.ad);
        return;
      }
      case 'ContactLeadLinked': {
        const d = event.data as ContactLeadLinked;
        this.update(d.organizationId, d.leadId, (lead) => withEntryStage(lead, d.stage));
        return;
      }
      case 'ContactStageChanged': {
        const d = event.data as ContactStageChanged;
        for (const l of d.leads) this.update(d.organizationId, l.leadId, (lead) => withStageChange(lead, d));
        return;
      }
      default: {
        const _never: never = type;
      }
    }
  }

  deltas(): FactDeltas {
    const deltas = new FactDeltas();
    for (const [key, lead] of this.leads) {
      const old = this.before.get(key);
      if (old === lead) continue;
      if (old) deltas.add(contributions(old), -1);
      deltas.add(contributions(lead), 1);
    }
    return deltas;
  }

  /** The lead was in the table when the batch began. */
  loaded(lead: ReportLead): boolean {
    return this.before.has(`${lead.organizationId} ${lead.leadId}`);
  }

  changedLeads(): ReportLead[] {
    return [...this.leads].filter(([key, lead]) => this.before.get(key) !== lead).map(([, lead]) => lead);
  }
}

/** Zones of the organisations named: from the database, or (in a replay) those it has seen, loading the others once. */
async function zonesOf(tx: Client, organizations: string[], replay: LeadReplay | undefined): Promise<Map<string, string>> {
  if (!replay) return loadZones(tx, organizations);
  const missing = organizations.filter((o) => !replay.zones.has(o));
  if (missing.length) for (const [o, zone] of await loadZones(tx, missing)) replay.zones.set(o, zone);
  return replay.zones;
}

/** With `replay` (a rebuild), the fact differences are not written: replay.finish() derives the facts once at the end. */
async function applyBatch(tx: Client, events: RecordedEvent[], replay?: LeadReplay): Promise<void> {
  const keys = new Map(events.flatMap(leadKeys).map((k) => [`${k.organizationId} ${k.leadId}`, k]));
  const organizations = [...new Set(events.map((e) => (e.data as { organizationId: string }).organizationId))];
  const known = replay ? [...keys].filter(([key]) => replay.mayHaveWritten(key)).map(([, k]) => k) : [...keys.values()];
  // A replay keeps the newest names of all its batches and writes them once, at its end.
  const names = replay?.names ?? new LatestNames();
  const batch = new Batch(await loadLeads(tx, known), await zonesOf(tx, organizations, replay), names);
  for (const event of events) batch.apply(event);
  await saveZones(tx, batch.zones);
  const changed = batch.changedLeads();
  if (replay) {
    // Every lead the table holds among the batch's was loaded (the Bloom filter only skips leads surely not written),
    // so one that was not is new: copied in, where the loaded ones are upserted.
    await copyNewLeads(tx, changed.filter((lead) => !batch.loaded(lead)));
    await saveLeads(tx, changed.filter((lead) => batch.loaded(lead)));
  } else await saveLeads(tx, changed);
  if (!replay) await addFacts(tx, batch.deltas().changed());
  for (const lead of changed) replay?.rememberWritten(`${lead.organizationId} ${lead.leadId}`);
  if (!replay) await saveNames(tx, 'report_lead_names', names);
}

export const reportingLeadsProjector: Projector = {
  name: 'reporting_leads',
  tables: ['report_zones', 'report_leads', 'report_lead_facts', 'report_lead_campaigns', 'report_lead_names'],
  migrations: migrationsIn(import.meta.dirname),
  handles: HANDLES,
  dataKeys: DATA_KEYS,
  apply: (tx, events) => applyBatch(tx, events),
  replay: () => {
    const replay = new LeadReplay();
    return { start: (tx) => replay.start(tx), apply: (tx, events) => applyBatch(tx, events, replay), finish: (tx) => replay.finish(tx) };
  },
};
