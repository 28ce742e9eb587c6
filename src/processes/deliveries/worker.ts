// The delivery process: claim a dataset's due deliveries, record the attempt, send, record each outcome and
// settle the work table in the same transaction. Several loops (and several processes) run side by side.
import { randomUUID } from 'node:crypto';
import type { Services } from '../../services.ts';
import { withTransaction, type Queryable } from '../../db/pool.ts';
import { PostgresEventStore } from '../../eventstore/postgres.ts';
import type { AppendRequest, EventMetadata, ExpectedRevision } from '../../eventstore/port.ts';
import { platformConfigFrom, type PlatformConfig } from '../../platform/graph.ts';
import { MAX_BATCH_EVENTS } from '../../platform/conversions.ts';
import { open } from '../../crypto/secretBox.ts';
import { targetTokens } from '../../../queries/setup.ts';
import { dispatchStream, type DeliveryEvent } from '../../../commands/delivery/delivery.ts';
import { decideAttempt, decideOutcome, type DeliveryFacts } from '../../../commands/delivery/decide.ts';
import { MAX_AGE_MS } from '../../../commands/conversion/validate.ts';
import { claimBatch, markAttempted, settleBatch, type QueuedDelivery, type Settlement } from './queue-sql.ts';
import { sendDispatch, type DispatchOutcome } from './send.ts';

export interface DeliveryWorkerOptions {
  loops: number;
  batchSize: number;
  /** Per platform request. */
  timeoutMs: number;
  /** How long a claim holds; always longer than a request, so a live worker never loses its rows mid-send. */
  leaseMs: number;
  idlePollMs: number;
  /** Send at all (PLATFORM_SENDING); when false the worker leaves the queue alone. */
  sending: boolean;
  platform: PlatformConfig;
}

/** An event this close to the platform's 7-day limit is not sent: it could be refused in flight. */
const AGE_MARGIN_MS = 60_000;

export function deliveryWorkerOptions(services: Services, overrides: Partial<DeliveryWorkerOptions> = {}): DeliveryWorkerOptions {
  const timeoutMs = overrides.timeoutMs ?? 20_000;
  return {
    loops: 2, batchSize: MAX_BATCH_EVENTS, idlePollMs: 200, sending: services.config.platformSending,
    platform: platformConfigFrom(services.config, timeoutMs), ...overrides,
    timeoutMs, leaseMs: Math.max(overrides.leaseMs ?? 120_000, timeoutMs * 2),
  };
}

const facts = (d: QueuedDelivery): DeliveryFacts => ({
  deliveryId: d.id, eventId: d.event_id, organizationId: d.organization_id, targetId: d.target_id,
  datasetId: d.dataset_id, eventName: d.event_name, attempts: d.attempts,
});

export class DeliveryWorker {
  private stopped = false;
  private readonly loops: Promise<void>[] = [];
  private readonly sleepers = new Set<() => void>();

  constructor(private readonly services: Services, private readonly options: DeliveryWorkerOptions) {}

  start(): this {
    if (!this.options.sending) return this;
    for (let i = 0; i < this.options.loops; i++) this.loops.push(this.loop());
    return this;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const wake of this.sleepers) wake();
    await Promise.all(this.loops);
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      let sent = 0;
      try {
        sent = await this.runOnce();
      } catch (error) {
        this.services.log.error('delivery batch failed', { error });
      }
      if (sent === 0 && !this.stopped) {
        await new Promise<void>((resolve) => {
          const wake = () => { clearTimeout(timer); this.sleepers.delete(wake); resolve(); };
          const timer = setTimeout(wake, this.options.idlePollMs);
          this.sleepers.add(wake);
        });
      }
    }
  }

  /** One claim: returns how many deliveries it took (0 when nothing was due). */
  async runOnce(): Promise<number> {
    const now = this.services.now();
    const token = randomUUID();
    const rows = await claimBatch(this.services.pool, { token, now, until: new Date(now.getTime() + this.options.leaseMs), limit: this.options.batchSize });
    if (rows.length === 0) return 0;
    await this.dispatch(rows, token, now.getTime() + this.options.leaseMs);
    return rows.length;
  }

  private async dispatch(rows: QueuedDelivery[], token: string, leaseEnd: number): Promise<void> {
    const { organization_id: organizationId, target_id: targetId } = rows[0];
    const metadata: EventMetadata = { organizationId, actor: 'worker:deliveries' };
    const tooOld = (d: QueuedDelivery) => d.event_time.getTime() < this.services.now().getTime() - MAX_AGE_MS + AGE_MARGIN_MS;
    const fresh = rows.filter((d) => !tooOld(d));
    const stale = rows.filter((d) => !fresh.includes(d));
    let revision: ExpectedRevision = 'no_stream';
    if (fresh.length) {
      const attempted = fresh.map((d) => decideAttempt(facts(d), this.services.now().toISOString()));
      revision = await this.record({ stream: dispatchStream(token), events: attempted, expectedRevision: 'no_stream' }, metadata,
        (tx) => markAttempted(tx, organizationId, token, fresh.map((d) => d.id)));
    }
    const outcomes = await this.send(fresh, targetId, organizationId, leaseEnd);
    for (const d of stale) outcomes.set(d.id, { kind: 'too_old' });
    const { events, settlement } = this.conclude(rows, outcomes);
    if (events.length === 0) return settleBatch(this.services.pool, organizationId, token, settlement);
    await this.record({ stream: dispatchStream(token), events, expectedRevision: revision }, metadata,
      (tx) => settleBatch(tx, organizationId, token, settlement));
  }

  private async send(rows: QueuedDelivery[], targetId: string, organizationId: string, leaseEnd: number): Promise<Map<string, DispatchOutcome>> {
    const outcomes = new Map<string, DispatchOutcome>();
    if (rows.length === 0) return outcomes;
    const sealed = (await targetTokens(this.services.pool, organizationId, [targetId])).get(targetId);
    if (!sealed) {
      for (const d of rows) outcomes.set(d.id, { kind: 'transient', message: `target ${targetId} is not known to this worker yet` });
      return outcomes;
    }
    const accessToken = open(sealed, this.services.secrets.encryptionKey);
    // A request started before this moment ends (answer or time-out) well before the lease does.
    const startBefore = leaseEnd - this.options.leaseMs + (this.options.leaseMs - this.options.timeoutMs) / 2;
    // A target has one test code, but a delivery keeps the one it was accepted with: send each group apart.
    const groups = new Map<string | null, QueuedDelivery[]>();
    for (const d of rows) groups.set(d.test_event_code, [...(groups.get(d.test_event_code) ?? []), d]);
    for (const [testEventCode, group] of groups) {
      await sendDispatch(this.options.platform, { datasetId: group[0].dataset_id, accessToken, testEventCode, startBefore }, group, outcomes);
    }
    return outcomes;
  }

  private conclude(rows: QueuedDelivery[], outcomes: Map<string, DispatchOutcome>): { events: DeliveryEvent[]; settlement: Settlement } {
    const now = this.services.now();
    const events: DeliveryEvent[] = [];
    const settlement: Settlement = { done: [], retries: [], released: [] };
    for (const d of rows) {
      const outcome = outcomes.get(d.id) ?? { kind: 'unsent' };
      if (outcome.kind === 'unsent') {
        settlement.released.push(d.id);
        continue;
      }
      const event = decideOutcome(facts(d), outcome, now, this.services.config.deliveryRetrySchedule);
      events.push(event);
      if (event.type === 'DeliveryRetryScheduled') settlement.retries.push({ id: d.id, attempts: event.data.attempts, dueAt: event.data.nextAttemptAt });
      else settlement.done.push(d.id);
    }
    return { events, settlement };
  }

  /** Append and update the work table in one transaction where the store allows it (PostgreSQL). */
  private async record(request: AppendRequest, metadata: EventMetadata, update: (tx: Queryable) => Promise<void>): Promise<bigint> {
    const store = this.services.store;
    if (store instanceof PostgresEventStore) {
      return withTransaction(this.services.pool, async (tx) => {
        const appended = await store.appendWithin(tx, request, metadata);
        await update(tx);
        return appended.nextExpectedRevision;
      });
    }
    // EventStoreDB: the event first; a crash before the update only means the claim expires and is re-sent.
    const appended = await store.append(request.stream, request.events, request.expectedRevision, metadata);
    await update(this.services.pool);
    return appended.nextExpectedRevision;
  }
}
