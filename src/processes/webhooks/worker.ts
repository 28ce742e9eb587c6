// The webhook sender: claim due pushes, sign each with its subscription's current secret, POST them, then
// record the attempts (one event per organisation and batch), settle the queue and count failures in a row in one transaction. A
// subscription that reaches WEBHOOK_PAUSE_AFTER failures in a row is paused. Several loops and several
// processes run side by side; a worker that dies leaves its claims to expire and be sent again.
import { randomUUID } from 'node:crypto';
import type { Services } from '../../services.ts';
import { createListener, type Listener } from '../../db/listen.ts';
import { recordWith } from '../record.ts';
import { finishWithin, pauseAfter, Sleepers } from '../sleepers.ts';
import { closeSenderAgents, createSenderAgents, type SenderAgents } from '../../webhooks/agents.ts';
import { sendPush } from '../../webhooks/sender.ts';
import { decryptSecret } from '../../webhooks/signature.ts';
import { lookupOnceEach, systemLookup, type LookupAll } from '../../webhooks/resolve.ts';
import { webhookAttemptsStream } from '../../../commands/webhook/webhook.ts';
import { autoPauseWebhook } from '../../../commands/webhook/handlers.ts';
import { inPayloadOrder } from '../../../commands/webhook/pushSchemas.ts';
import { WEBHOOK_QUEUE_CHANNEL } from '../../../projections/webhook_outbox/projector.ts';
import { organizationsWithAttempts, purgeAttempts } from '../../../queries/webhooks.ts';
import { claimPushes, pausesDue, recordHealth, settlePushes, type Health, type QueuedPush } from './queue-sql.ts';
import { outcomesOf, type Attempted, type Outcomes } from './outcomes.ts';
import { ClaimStarts } from './claim-starts.ts';
import { InFlight } from '../inFlight.ts';

export interface WebhookSenderOptions {
  loops: number;
  batchSize: number;
  /** Pushes of one subscription in one batch at most (fairness, and politeness to one receiver). */
  perSubscription: number;
  timeoutMs: number;
  /** How long a claim holds: always longer than an attempt plus its recording. */
  leaseMs: number;
  /** How often the idle sender as a whole looks for due pushes (retries come due without a NOTIFY). */
  idlePollMs: number;
  /** How often a claim scans from each subscription's oldest row (see claim-starts.ts). */
  fullScanMs: number;
  /** Purge of old attempt records and the check for pauses left undone. */
  maintenanceMs: number;
  /**
   * How long a loop waits for its batch's slowest receivers before it claims again (see `loop`): a receiver
   * taking its time must not hold back every other subscription's pushes for up to the time-out.
   */
  detachAfterMs: number;
  /** Batches left to finish on their own at most; past it a loop waits for its batch again. */
  maxDetached: number;
  retrySchedule: number[];
  pauseAfter: number;
  allowPrivate: boolean;
  /** DNS for the SSRF check (tests play a resolver that answers private addresses). */
  lookup?: LookupAll;
}

export function webhookSenderOptions(services: Services, overrides: Partial<WebhookSenderOptions> = {}): WebhookSenderOptions {
  const { config } = services;
  const timeoutMs = overrides.timeoutMs ?? config.webhookTimeoutMs;
  return {
    loops: 4, batchSize: 100, perSubscription: 40, idlePollMs: 250, fullScanMs: 5000, maintenanceMs: 60 * 60_000, detachAfterMs: 500, maxDetached: 8,
    retrySchedule: config.webhookRetrySchedule,
    pauseAfter: config.webhookPauseAfter, allowPrivate: config.webhookAllowPrivate, leaseMs: timeoutMs * 2 + 1000, ...overrides, timeoutMs,
  };
}

interface Batch {
  taken: number;
  done: Promise<void>;
  /** The subscriptions of the pushes still waiting for an answer (one entry per push). */
  waiting(): string[];
}

export class WebhookSender {
  private stopped = false;
  /** Aborted when a stop's grace is over: pushes still waiting for their receivers end. */
  private readonly interrupt = new AbortController();
  private readonly loops: Promise<void>[] = [];
  private readonly sleepers = new Sleepers();
  private readonly agents: SenderAgents = createSenderAgents();
  private readonly starts: ClaimStarts;
  private listener: Listener | null = null;
  /** Batches a loop stopped waiting for, still sending or recording. */
  private readonly detached = new Set<Promise<void>>();
  /** Subscriptions with pushes in a detached batch still waiting for their answer: claims leave them out meanwhile. */
  private readonly busy = new InFlight();
  private maintenance: NodeJS.Timeout | null = null;

  constructor(private readonly services: Services, private readonly options: WebhookSenderOptions) {
    this.starts = new ClaimStarts(options.fullScanMs);
  }

  start(): this {
    this.listen();
    for (let i = 0; i < this.options.loops; i++) this.loops.push(this.loop());
    const tick = () => void this.maintain().catch((error) => this.services.log.error('webhook maintenance failed', { error }));
    this.maintenance = setInterval(tick, this.options.maintenanceMs);
    tick();
    return this;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.maintenance) clearInterval(this.maintenance);
    this.sleepers.wakeAll();
    await finishWithin(Promise.all(this.loops), this.services.config.shutdownGraceMs, this.interrupt);
    await this.listener?.close().catch(() => {});
    closeSenderAgents(this.agents);
  }

  /** Pushes queued by the fan-out in any process wake a loop at once; the poll is the safety net. */
  private listen(): void {
    const url = this.services.pool.options.connectionString;
    if (!url) return;
    const listener = createListener(url);
    listener.notifications.on(WEBHOOK_QUEUE_CHANNEL, () => this.wakeOne());
    this.listener = listener;
    listener.connect().then(() => listener.listenTo(WEBHOOK_QUEUE_CHANNEL)).catch((error) => this.services.log.warn('webhook listener failed', { error }));
  }

  /**
   * One sleeping loop, not all: a claim walks the queue's not yet vacuumed rows, so a claim that finds nothing
   * is as dear as one that fills a batch. A loop that claimed something wakes the next (there may be more).
   */
  private wakeOne(): void {
    this.sleepers.wakeOne();
  }

  /**
   * Claim, send, record, again. A batch whose slowest pushes are still waiting for their receivers after
   * `detachAfterMs` is left to finish on its own (up to `maxDetached` of them), and the subscriptions still waiting
   * are left out of this process's claims until it has: one slow receiver used to keep its loop, and soon all four,
   * from claiming anything for up to the time-out, holding back every other subscription's pushes meanwhile.
   */
  private async loop(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      let taken = 0;
      try {
        const batch = await this.claimAndSend();
        taken = batch.taken;
        await this.untilDoneOrDetached(batch);
        failures = 0;
      } catch (error) {
        failures++;
        this.services.log.error('webhook batch failed', { error });
      }
      if (taken === 0 && !this.stopped) await this.sleep(failures);
    }
    await Promise.all(this.detached);
  }

  private async untilDoneOrDetached(batch: Batch): Promise<void> {
    if (batch.taken === 0 || this.detached.size >= this.options.maxDetached) return batch.done;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => { timer = setTimeout(() => resolve('late'), this.options.detachAfterMs); });
    try {
      if (await Promise.race([batch.done.then(() => 'done' as const), late]) === 'done') return;
    } finally {
      clearTimeout(timer);
    }
    const waiting = [...new Set(batch.waiting())];
    for (const id of waiting) this.busy.add(id);
    const finished: Promise<void> = batch.done
      .catch((error: unknown) => this.services.log.error('webhook batch failed', { error }))
      .finally(() => {
        this.detached.delete(finished);
        for (const id of waiting) this.busy.remove(id);
        this.wakeOne();
      });
    this.detached.add(finished);
  }

  private sleep(failures: number): Promise<void> {
    // Each idle loop polls `loops` times less often, so together they poll once per idlePollMs.
    return this.sleepers.sleep(pauseAfter(this.options.idlePollMs * this.options.loops, failures));
  }

  /** One claim, sent and recorded: returns how many pushes it took (0 when nothing was due). */
  async runOnce(): Promise<number> {
    const batch = await this.claimAndSend();
    await batch.done;
    return batch.taken;
  }

  /** Claims due pushes and starts sending them; `done` settles once their attempts are recorded. */
  private async claimAndSend(): Promise<Batch> {
    const now = this.services.now();
    const token = randomUUID();
    const { batchSize: limit, pauseAfter, leaseMs, perSubscription } = this.options;
    const startAt = this.starts.next(Date.now());
    const skip = this.busy.keys();
    const pushes = await claimPushes(this.services.pool, { token, now, until: new Date(now.getTime() + leaseMs), limit, pauseAfter, perSubscription, startAt, skip });
    this.starts.claimed(pushes);
    if (pushes.length === 0) return { taken: 0, done: Promise.resolve(), waiting: () => [] };
    this.wakeOne();
    const secrets = this.secretsOf(pushes);
    // One resolution per host and batch, not per push (a getaddrinfo each, or a DNS query).
    const lookup = lookupOnceEach(this.options.lookup ?? systemLookup);
    const answered = new Set<QueuedPush>();
    const sending = pushes.map((push) => this.attempt(push, secrets.get(push.secret_ciphertext) ?? null, lookup).finally(() => answered.add(push)));
    const done = (async () => {
      const attempted = await Promise.all(sending);
      const outcomes = outcomesOf(attempted, this.options.retrySchedule, this.services.now());
      const health = await this.record(token, outcomes);
      await this.pauseWhereDue(health);
    })();
    return { taken: pushes.length, done, waiting: () => pushes.filter((push) => !answered.has(push)).map((push) => push.webhook_id) };
  }

  /** Each subscription's current secret, decrypted once per batch (null when it cannot be). */
  private secretsOf(pushes: QueuedPush[]): Map<string, string | null> {
    const secrets = new Map<string, string | null>();
    for (const { secret_ciphertext: sealed } of pushes) {
      if (secrets.has(sealed)) continue;
      try {
        secrets.set(sealed, decryptSecret(sealed, this.services.secrets.encryptionKey));
      } catch {
        secrets.set(sealed, null);
      }
    }
    return secrets;
  }

  private async attempt(push: QueuedPush, secret: string | null, lookup: LookupAll): Promise<Attempted> {
    const started = new Date();
    if (secret === null) {
      return { push, id: randomUUID(), at: started.toISOString(), result: { ok: false, status: 0, error: 'the signing secret could not be decrypted', durationMs: 0 } };
    }
    const result = await sendPush({
      url: push.url, secret, timeoutMs: this.options.timeoutMs, allowPrivate: this.options.allowPrivate, lookup,
      nowSeconds: Math.floor(Date.now() / 1000), agents: this.agents, interrupt: this.interrupt.signal,
      delivery: { id: push.id, type: push.event_type, createdAt: push.created_at, data: inPayloadOrder(push.event_type, push.payload) },
    });
    return { push, result, id: randomUUID(), at: started.toISOString() };
  }

  /** Attempts, settlement and counts in one transaction where the store allows it (PostgreSQL). */
  private record(token: string, outcomes: Outcomes): Promise<Health[]> {
    return recordWith(this.services, async (db, append) => {
      for (const [organizationId, event] of outcomes.events) {
        await append({ stream: webhookAttemptsStream(token, organizationId), events: [event], expectedRevision: 'no_stream' }, { organizationId, actor: 'worker:webhooks' });
      }
      await settlePushes(db, token, outcomes.settlement);
      return recordHealth(db, outcomes.health);
    });
  }

  private async pauseWhereDue(health: Health[]): Promise<void> {
    for (const h of health) {
      if (h.consecutive < this.options.pauseAfter) continue;
      const reason = `paused after ${h.consecutive} failed attempts in a row`;
      await autoPauseWebhook(this.services, { organizationId: h.organization_id, webhookId: h.webhook_id, reason, resumes: h.resumes })
        .catch((error) => this.services.log.error('webhook pause failed', { error, webhookId: h.webhook_id }));
    }
  }

  /** Attempt records older than 30 days go; pauses a dead worker left undone are made now. */
  async maintain(): Promise<void> {
    const now = this.services.now();
    for (const organizationId of await organizationsWithAttempts(this.services.pool)) await purgeAttempts(this.services.pool, organizationId, now);
    await this.pauseWhereDue(await pausesDue(this.services.pool, this.options.pauseAfter));
  }
}
