// The delivery process: claim a dataset's due deliveries and record their attempt (one transaction), send,
// then record the outcomes and settle the work table (one transaction). Several loops (and several
// processes) run side by side; one dataset takes at most half a process's loops, so a dataset whose platform
// stops answering leaves the other loops to send with.
import { randomUUID } from 'node:crypto';
import type { Services } from '../../services.ts';
import type { EventMetadata, ExpectedRevision } from '../../eventstore/port.ts';
import { platformConfigFrom, type PlatformConfig } from '../../platform/graph.ts';
import { MAX_BATCH_EVENTS } from '../../platform/conversions.ts';
import { open } from '../../crypto/secretBox.ts';
import { targetTokens } from '../../../queries/setup.ts';
import { dispatchStream } from '../../../commands/delivery/delivery.ts';
import { decideAttempt, decideOutcomes, type DeliveryFacts } from '../../../commands/delivery/decide.ts';
import { MAX_AGE_MS } from '../../../commands/conversion/validate.ts';
import { claimBatch, settleBatch, type QueuedDelivery, type Settlement } from './queue-sql.ts';
import { recordWith } from '../record.ts';
import { finishWithin, pauseAfter, Sleepers } from '../sleepers.ts';
import { sendDispatch, type DispatchOutcome } from './send.ts';
import { InFlight } from '../inFlight.ts';

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
export const AGE_MARGIN_MS = 60_000;

export function deliveryWorkerOptions(services: Services, overrides: Partial<DeliveryWorkerOptions> = {}): DeliveryWorkerOptions {
  const timeoutMs = overrides.timeoutMs ?? 20_000;
  return {
    loops: 4, batchSize: MAX_BATCH_EVENTS, idlePollMs: 200, sending: services.config.platformSending,
    platform: platformConfigFrom(services.config, timeoutMs), ...overrides,
    timeoutMs, leaseMs: Math.max(overrides.leaseMs ?? 120_000, timeoutMs * 2),
  };
}

const facts = (d: QueuedDelivery): DeliveryFacts => ({
  deliveryId: d.id, eventId: d.event_id, organizationId: d.organization_id, targetId: d.target_id,
  datasetId: d.dataset_id, eventName: d.event_name, attempts: d.attempts,
});

/** A claim whose attempt is recorded: what to send, and the dispatch stream's revision to append after. */
interface Claim {
  token: string;
  rows: QueuedDelivery[];
  fresh: QueuedDelivery[];
  revision: ExpectedRevision;
  leaseEnd: number;
  metadata: EventMetadata;
}

export class DeliveryWorker {
  private stopped = false;
  private readonly loops: Promise<void>[] = [];
  private readonly sleepers = new Sleepers();
  /** Aborted when a stop's grace is over: a send still waiting for the platform ends (transient: a retry is scheduled). */
  private readonly interrupt = new AbortController();
  /** This process's claims still being sent, by target. */
  private readonly sending = new InFlight();
  /** Claims are made one at a time, so each sees the targets the ones before took. */
  private claimTurn: Promise<unknown> = Promise.resolve();

  constructor(private readonly services: Services, private readonly options: DeliveryWorkerOptions) {}

  start(): this {
    if (!this.options.sending) return this;
    for (let i = 0; i < this.options.loops; i++) this.loops.push(this.loop());
    return this;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.sleepers.wakeAll();
    await finishWithin(Promise.all(this.loops), this.services.config.shutdownGraceMs, this.interrupt);
  }

  private async loop(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      let sent = 0;
      try {
        sent = await this.runOnce();
        failures = 0;
      } catch (error) {
        failures++;
        this.services.log.error('delivery batch failed', { error });
      }
      if (sent === 0 && !this.stopped) await this.sleepers.sleep(pauseAfter(this.options.idlePollMs, failures));
    }
  }

  /** One claim: returns how many deliveries it took (0 when nothing was due). */
  async runOnce(): Promise<number> {
    const claim = this.claimTurn.then(() => this.claim());
    this.claimTurn = claim.catch(() => undefined);
    const claimed = await claim;
    if (!claimed) return 0;
    const targetId = claimed.rows[0].target_id;
    try {
      const outcomes = await this.send(claimed);
      const fresh = new Set(claimed.fresh);
      const tooOld = claimed.rows.filter((d) => !fresh.has(d));
      for (const d of tooOld) outcomes.set(d.id, { kind: 'too_old' });
      await this.conclude(claimed, outcomes);
      return claimed.rows.length;
    } finally {
      this.sending.remove(targetId);
    }
  }

  /** The targets this process may not claim now: each already has half the loops (one, for fewer than four). */
  private targetsAtLimit(): string[] {
    return this.sending.keys(Math.max(1, Math.floor(this.options.loops / 2)));
  }

  /** Claims a batch and records the attempt of its fresh deliveries (the claim counted it in the table). */
  private async claim(): Promise<Claim | null> {
    const now = this.services.now();
    const token = randomUUID();
    const leaseEnd = now.getTime() + this.options.leaseMs;
    const sendableAfter = new Date(now.getTime() - MAX_AGE_MS + AGE_MARGIN_MS);
    const skipTargets = this.targetsAtLimit();
    const claim = await recordWith(this.services, async (db, append) => {
      const rows = await claimBatch(db, { token, now, until: new Date(leaseEnd), limit: this.options.batchSize, sendableAfter, skipTargets });
      if (rows.length === 0) return null;
      const metadata: EventMetadata = { organizationId: rows[0].organization_id, actor: 'worker:deliveries' };
      const fresh = rows.filter((d) => d.event_time >= sendableAfter);
      let revision: ExpectedRevision = 'no_stream';
      if (fresh.length) {
        revision = await append({ stream: dispatchStream(token), events: [decideAttempt(fresh.map(facts), now.toISOString())], expectedRevision: 'no_stream' }, metadata);
      }
      return { token, rows, fresh, revision, leaseEnd, metadata };
    });
    const targetId = claim?.rows[0].target_id;
    if (targetId) this.sending.add(targetId);
    return claim;
  }

  private async send(claim: Claim): Promise<Map<string, DispatchOutcome>> {
    const outcomes = new Map<string, DispatchOutcome>();
    if (claim.fresh.length === 0) return outcomes;
    const { organization_id: organizationId, target_id: targetId } = claim.rows[0];
    const sealed = (await targetTokens(this.services.pool, organizationId, [targetId])).get(targetId);
    if (!sealed) {
      for (const d of claim.fresh) outcomes.set(d.id, { kind: 'transient', message: `target ${targetId} is not known to this worker yet` });
      return outcomes;
    }
    const accessToken = open(sealed, this.services.secrets.encryptionKey);
    // A request started before this moment ends (answer or time-out) well before the lease does.
    const startBefore = claim.leaseEnd - this.options.leaseMs + (this.options.leaseMs - this.options.timeoutMs) / 2;
    // A target has one test code, but a delivery keeps the one it was accepted with: send each group apart.
    const groups = new Map<string | null, QueuedDelivery[]>();
    for (const d of claim.fresh) {
      const group = groups.get(d.test_event_code);
      if (group) group.push(d);
      else groups.set(d.test_event_code, [d]);
    }
    const platform = { ...this.options.platform, signal: this.interrupt.signal };
    for (const [testEventCode, group] of groups) {
      await sendDispatch(platform, { datasetId: group[0].dataset_id, accessToken, testEventCode, startBefore }, group, outcomes);
    }
    return outcomes;
  }

  /** Records every outcome and settles the work table; rows left unsent are released at once. */
  private async conclude(claim: Claim, outcomes: Map<string, DispatchOutcome>): Promise<void> {
    const sent: Parameters<typeof decideOutcomes>[0] = [];
    const settlement: Settlement = { done: [], retries: [], released: [] };
    for (const d of claim.rows) {
      const outcome = outcomes.get(d.id) ?? { kind: 'unsent' };
      if (outcome.kind === 'unsent') settlement.released.push(d.id);
      else sent.push({ facts: facts(d), outcome });
    }
    const events = decideOutcomes(sent, this.services.now(), this.services.config.deliveryRetrySchedule);
    for (const event of events) {
      if (event.type === 'DeliveryRetryScheduled') settlement.retries.push({ id: event.data.deliveryId, attempts: event.data.attempts, dueAt: event.data.nextAttemptAt });
      else if (event.type === 'DeliveriesAccepted') settlement.done.push(...event.data.deliveries.map((d) => d.deliveryId));
      else if (event.type !== 'DeliveriesAttempted') settlement.done.push(event.data.deliveryId);
    }
    const organizationId = claim.rows[0].organization_id;
    await recordWith(this.services, async (db, append) => {
      if (events.length) await append({ stream: dispatchStream(claim.token), events, expectedRevision: claim.revision }, claim.metadata);
      await settleBatch(db, organizationId, claim.token, settlement);
    });
  }
}
