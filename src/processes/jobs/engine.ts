// The job engine of one worker process: claims due jobs of the kinds it knows (user priority first,
// FOR UPDATE SKIP LOCKED, so several workers share the queue), runs up to `concurrency` at a time,
// returns jobs of dead workers to the queue when their lease expires, and wakes on NOTIFY or a slow poll.
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { createListener, type Listener } from '../../db/listen.ts';
import { withTransaction } from '../../db/pool.ts';
import type { EventMetadata } from '../../eventstore/port.ts';
import type { Logger } from '../../logger.ts';
import type { Services } from '../../services.ts';
import { decideStart } from '../../../commands/job/decide.ts';
import { announceAtCommit } from './append.ts';
import { cancelledJobKey, jobKey, JOBS_CHANNEL } from './enqueue.ts';
import type { JobHandler } from './handler.ts';
import { claimDue, stateOf, type QueueRow } from './queue-sql.ts';
import { JobRun } from './run.ts';
import { Completions } from './completions.ts';
import { applyDecision, recordRelease, sweepExpiredLeases } from './transitions.ts';

export interface EngineOptions {
  handlers: Record<string, JobHandler>;
  concurrency?: number;
  leaseMs?: number;
  pollMs?: number;
  progressEveryMs?: number;
  /** How long stop() waits for interrupted handlers before releasing their jobs anyway. */
  stopGraceMs?: number;
  workerId?: string;
}

export class JobEngine {
  readonly workerId: string;
  private readonly kinds: string[];
  private readonly running = new Map<string, { run: JobRun; done: Promise<void> }>();
  private readonly log: Logger;
  private readonly completions: Completions;
  private readonly metadata: EventMetadata = { organizationId: null, actor: 'worker:jobs' };
  private stopped = false;
  private ticking = false;
  private again = false;
  private lastSweep = 0;
  private timer: NodeJS.Timeout | null = null;
  private listener: Listener | null = null;

  constructor(
    private readonly services: Services,
    private readonly options: EngineOptions,
  ) {
    this.workerId = options.workerId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.kinds = Object.keys(options.handlers);
    this.log = services.log.child({ worker: this.workerId, component: 'jobs' });
    this.completions = new Completions(services);
  }

  private get cfg() {
    const jobs = this.services.config.jobs;
    return {
      concurrency: this.options.concurrency ?? jobs.concurrency,
      leaseMs: this.options.leaseMs ?? jobs.leaseMs,
      pollMs: this.options.pollMs ?? jobs.pollMs,
      progressEveryMs: this.options.progressEveryMs ?? jobs.progressEveryMs,
    };
  }

  async start(): Promise<void> {
    this.timer = setInterval(() => this.wake(), this.cfg.pollMs);
    this.wake();
    const url = this.services.pool.options.connectionString;
    if (!url) return;
    const listener = createListener(url);
    listener.notifications.on(JOBS_CHANNEL, (payload: unknown) => {
      const key = cancelledJobKey(payload);
      const cancelled = key === null ? undefined : this.running.get(key);
      if (cancelled) void cancelled.run.checkHeld();
      else this.wake();
    });
    this.listener = listener;
    await listener.connect();
    await listener.listenTo(JOBS_CHANNEL);
  }

  /** Look for work now (coalesced: a wake during a tick runs one more tick). */
  wake(): void {
    if (this.stopped) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.ticking = true;
    void this.tick().finally(() => { this.ticking = false; });
  }

  private async tick(): Promise<void> {
    do {
      this.again = false;
      try {
        await this.sweepWhenDue();
        await this.claim();
      } catch (error) {
        this.log.error('job engine tick failed', { error });
        return;
      }
    } while (this.again && !this.stopped);
  }

  private async sweepWhenDue(): Promise<void> {
    const every = Math.min(this.cfg.pollMs, this.cfg.leaseMs / 2);
    if (Date.now() - this.lastSweep < every) return;
    this.lastSweep = Date.now();
    const released = await sweepExpiredLeases(this.services, this.kinds, this.metadata);
    if (released > 0) this.log.info('jobs returned to the queue after their lease expired', { released });
  }

  private async claim(): Promise<number> {
    const free = this.cfg.concurrency - this.running.size;
    if (free <= 0 || this.stopped || this.kinds.length === 0) return 0;
    const now = this.services.now();
    const leaseUntil = new Date(now.getTime() + this.cfg.leaseMs);
    const rows = await withTransaction(this.services.pool, async (tx) => {
      const claimed = await claimDue(tx, { kinds: this.kinds, limit: free, now, leaseUntil, workerId: this.workerId });
      for (const row of claimed) {
        // The claim already moved the row on; the decision is taken from the row as it was.
        const before: QueueRow = { ...row, status: 'queued', attempts: row.attempts - 1, revision: String(BigInt(row.revision) - 1n) };
        await applyDecision(this.services, tx, before, (s) => decideStart(s, { leaseUntil: leaseUntil.toISOString(), now: now.toISOString() }),
          { ...this.metadata, organizationId: row.organization_id });
      }
      if (claimed.length) await announceAtCommit(this.services.store, tx);
      return claimed;
    });
    for (const row of rows) this.launch(row);
    return rows.length;
  }

  private launch(row: QueueRow): void {
    const key = jobKey(row.organization_id, row.number);
    const log = this.log.child({ organizationId: row.organization_id, job: row.number, kind: row.kind });
    const run = new JobRun(this.services, row, this.options.handlers[row.kind], {
      succeed: (held, summary, metadata) => this.completions.succeed(held, summary, metadata),
      leaseMs: this.cfg.leaseMs, progressEveryMs: this.cfg.progressEveryMs, stopping: () => this.stopped,
    }, log, this.workerId);
    const done = run.run()
      .catch((error) => log.error('job outcome not recorded', { error, state: stateOf(row) }))
      .finally(() => {
        this.running.delete(key);
        this.wake();
      });
    this.running.set(key, { run, done });
  }

  /** Running jobs of this worker (for tests and the benchmark). */
  get active(): number {
    return this.running.size;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const jobs = [...this.running.values()];
    for (const { run } of jobs) run.interrupt();
    const grace = new Promise<void>((resolve) => setTimeout(resolve, this.options.stopGraceMs ?? 5000).unref());
    await Promise.race([Promise.all(jobs.map((j) => j.done)), grace]);
    // Handlers that ignored the signal: give their jobs back so another worker can run them.
    for (const { run } of this.running.values()) {
      await recordRelease(this.services, run.held, 'interrupted: the worker stopped', run.metadata).catch(() => {});
    }
    await this.listener?.close().catch(() => {});
    this.listener = null;
  }
}
