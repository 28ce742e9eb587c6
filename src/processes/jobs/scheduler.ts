// The scheduler: connection events (ad account, page, spreadsheet source) add a periodic schedule and
// queue the first run (the backfill); a tick queues every due schedule. Schedules live in a table, so
// they survive restarts; the duplicate rule of the queue means a slow job is never piled up behind.
import { withTransaction, type Queryable } from '../../db/pool.ts';
import { comparePositions, type EventMetadata, type RecordedEvent, type Subscription } from '../../eventstore/port.ts';
import type { JobsConfig } from '../../config.ts';
import type { Logger } from '../../logger.ts';
import type { Services } from '../../services.ts';
import { scopeOf, type JobKind } from '../../../commands/job/kinds.ts';
import { enqueueWithin } from './enqueue.ts';
import { addSchedule, advanceSchedule, lockDueSchedules, lockFeedPosition, readFeedPosition, removeOthersSchedules, writeFeedPosition } from './schedule-sql.ts';

const FEED = 'jobs-scheduler';
export const CONNECTION_EVENTS = ['AdAccountConnected', 'PageConnected', 'SourceCreated'] as const;

interface Connection {
  organizationId: string;
  kind: JobKind;
  scope: string;
}

/**
 * The periodic work a connection event starts, or null: a shop or form source has no sheet to read, and
 * neither has a spreadsheet source created without a CSV address (it takes POST /events only).
 */
export function connectionOf(event: Pick<RecordedEvent, 'type' | 'data'>): Connection | null {
  const type = event.type as (typeof CONNECTION_EVENTS)[number];
  switch (type) {
    case 'AdAccountConnected': {
      const d = event.data as { organizationId: string; account: string };
      return { organizationId: d.organizationId, kind: 'ad_spend', scope: scopeOf.account(d.account) };
    }
    case 'PageConnected': {
      const d = event.data as { organizationId: string; pageId: string };
      return { organizationId: d.organizationId, kind: 'lead_import', scope: scopeOf.page(d.pageId) };
    }
    case 'SourceCreated': {
      const d = event.data as { organizationId: string; sourceId: string; kind: string; csvUrl?: string | null };
      if (d.kind !== 'spreadsheet' || !d.csvUrl) return null;
      return { organizationId: d.organizationId, kind: 'sheets_sync', scope: scopeOf.source(d.sourceId) };
    }
    default: {
      const _never: never = type;
      return null;
    }
  }
}

export function intervalOf(kind: JobKind, cfg: JobsConfig): number {
  switch (kind) {
    case 'ad_spend':
    case 'creative_sync':
      return cfg.spendEveryMs;
    case 'lead_import':
      return cfg.leadsEveryMs;
    case 'sheets_sync':
      return cfg.sheetsEveryMs;
    default: {
      const _never: never = kind;
      return cfg.spendEveryMs;
    }
  }
}

export class JobScheduler {
  private feed: Subscription | null = null;
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  private readonly log: Logger;

  constructor(private readonly services: Services) {
    this.log = services.log.child({ component: 'scheduler' });
  }

  async start(): Promise<void> {
    const after = await readFeedPosition(this.services.pool, FEED);
    this.feed = this.services.store.subscribeToAll({
      after,
      types: CONNECTION_EVENTS,
      batchSize: 200,
      onBatch: (events) => this.onConnections(events),
      onError: (error) => this.log.warn('scheduler feed failed; retrying', { error }),
    });
    this.timer = setInterval(() => void this.tick(), this.services.config.jobs.schedulerTickMs);
    void this.tick();
  }

  /** One transaction per batch: schedules, first runs and the feed's position commit together. */
  private onConnections(events: RecordedEvent[]): Promise<void> {
    return withTransaction(this.services.pool, async (tx) => {
      const position = await lockFeedPosition(tx, FEED);
      const fresh = events.filter((e) => comparePositions(e.position, position) > 0);
      for (const event of fresh) await this.connect(tx, event);
      if (fresh.length) await writeFeedPosition(tx, FEED, fresh[fresh.length - 1].position);
    });
  }

  private async connect(tx: Queryable, event: RecordedEvent): Promise<void> {
    const connection = connectionOf(event);
    if (!connection) return;
    // A page belongs to one organisation at a time: the one it moved from stops importing it (every run there
    // used to fail, "not connected to this organisation", once per interval for good).
    if (event.type === 'PageConnected') await removeOthersSchedules(tx, connection);
    const now = this.services.now();
    const everyMs = intervalOf(connection.kind, this.services.config.jobs);
    const isNew = await addSchedule(tx, { ...connection, everyMs, nextRunAt: new Date(now.getTime() + everyMs), now });
    if (!isNew) return;
    const metadata: EventMetadata = { organizationId: connection.organizationId, actor: 'worker:scheduler', causationId: event.id, correlationId: event.metadata.correlationId };
    await enqueueWithin(this.services, tx, { ...connection, trigger: 'connect', params: { backfill: true } }, metadata);
  }

  /** Queue every due schedule (unless the same work is still queued or running) and move it on. */
  tick(): Promise<void> {
    this.ticking ??= this.runDue()
      .catch((error) => this.log.error('scheduler tick failed', { error }))
      .finally(() => { this.ticking = null; });
    return this.ticking;
  }

  private async runDue(): Promise<void> {
    for (;;) {
      const count = await withTransaction(this.services.pool, async (tx) => {
        const now = this.services.now();
        const due = await lockDueSchedules(tx, now, 100);
        for (const row of due) {
          const kind = row.kind as JobKind;
          const metadata: EventMetadata = { organizationId: row.organization_id, actor: 'worker:scheduler' };
          await enqueueWithin(this.services, tx, { organizationId: row.organization_id, kind, scope: row.scope, trigger: 'schedule' }, metadata);
          await advanceSchedule(tx, row, intervalOf(kind, this.services.config.jobs), now);
        }
        return due.length;
      });
      if (count < 100) return;
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.feed?.stop();
    this.feed = null;
    await this.ticking;
  }
}
