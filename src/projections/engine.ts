// Runs projectors: catch up in batches, then follow live; the checkpoint commits with the read model.
// One leader per projector across processes (a session advisory lock); the others wait as standbys.
import type { Logger } from '../logger.ts';
import type { Client, Pool } from '../db/pool.ts';
import { positionToJson, type EventStore, type Position, type RecordedEvent, type Subscription } from '../eventstore/port.ts';
import { appliesLive, type Projector } from './projector.ts';
import { applyBatch, narrowFailure } from './batch.ts';
import { ensureCheckpoint, lockKeys, markStatus, passCheckpoints, readCheckpoint } from './checkpoints.ts';
import type { CheckpointWaiter } from './waiter.ts';

export { applyBatch };

export interface EngineOptions {
  /** Events read and applied per transaction. */
  batchSize?: number;
  /** How often a standby tries to take the lead. */
  standbyRetryMs?: number;
  /** How long a failed projector waits before trying the same event again. */
  failedRetryMs?: number;
}

const DEFAULTS: Required<EngineOptions> = { batchSize: 2000, standbyRetryMs: 2000, failedRetryMs: 30_000 };
/** A checkpoint passed over events a projector does not apply is written at most this often. */
const PASS_WRITE_MS = 200;

/**
 * Checkpoints passed over and not written yet, of every projector of the engine: written together a little
 * later, one statement for all (under load most batches of most projectors are passed over).
 */
class PassedCheckpoints {
  private readonly passed = new Map<string, Position>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly pool: Pool,
    private readonly log: Logger,
  ) {}

  pass(name: string, position: Position): void {
    this.passed.set(name, position);
    this.timer ??= setTimeout(() => void this.write(), PASS_WRITE_MS);
  }

  async write(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const passed = new Map(this.passed);
    this.passed.clear();
    await passCheckpoints(this.pool, passed).catch((error) => this.log.warn('checkpoints not written', { error }));
  }
}

class ProjectorRunner {
  private stopped = false;
  private subscription: Subscription | null = null;
  private client: Client | null = null;
  private timer: NodeJS.Timeout | null = null;
  private firstAttempt!: () => void;
  /** Resolves once this runner has tried to lead at least once (leading or standing by). */
  readonly attempted = new Promise<void>((resolve) => (this.firstAttempt = resolve));

  constructor(
    readonly projector: Projector,
    private readonly pool: Pool,
    private readonly store: EventStore,
    private readonly waiter: CheckpointWaiter | null,
    private readonly log: Logger,
    private readonly options: Required<EngineOptions>,
    private readonly passed: PassedCheckpoints,
  ) {}

  get leading(): boolean {
    return this.subscription !== null;
  }

  start(): void {
    void this.tryLead();
  }

  private schedule(ms: number): void {
    if (!this.stopped) this.timer = setTimeout(() => void this.tryLead(), ms);
  }

  private async tryLead(): Promise<void> {
    if (this.stopped) return;
    try {
      this.client ??= await this.connect();
      const { rows } = await this.client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [lockKeys(this.projector.name).leader]);
      if (!rows[0].ok || this.stopped) {
        await this.releaseClient(rows[0].ok);
        return this.schedule(this.options.standbyRetryMs);
      }
      await ensureCheckpoint(this.client, this.projector.name);
      const after = await readCheckpoint(this.client, this.projector.name);
      this.log.debug('projector leading', { from: positionToJson(after) });
      this.subscription = this.store.subscribeToAll({
        after,
        batchSize: this.options.batchSize,
        // Every position is read (the checkpoint passes over all events), but only handled ones are parsed.
        payloadTypes: this.projector.handles,
        onBatch: (events) => this.onBatch(events),
        onError: (error) => this.log.warn('projector read failed', { error }),
      });
    } catch (error) {
      this.log.error('projector could not start', { error });
      await this.releaseClient(true);
      this.schedule(this.options.standbyRetryMs);
    } finally {
      this.firstAttempt();
    }
  }

  /** The leader's session holds the lock: if it breaks, give up the lead and try again. */
  private readonly onConnectionError = (error: Error) => {
    this.log.error('projector connection lost', { error });
    void this.stepDown(this.options.standbyRetryMs);
  };

  private async connect(): Promise<Client> {
    const client = await this.pool.connect();
    client.on('error', this.onConnectionError);
    return client;
  }

  private async onBatch(events: RecordedEvent[]): Promise<void> {
    if (this.stopped || !this.client) return;
    if (!events.some((e) => appliesLive(this.projector, e))) return this.passOver(events[events.length - 1]);
    let last: RecordedEvent | null;
    try {
      last = await applyBatch(this.client, this.projector, events);
    } catch {
      // Find the faulty event: what precedes it is kept, it and what follows are not applied.
      const narrowed = await narrowFailure(this.client, this.projector, events);
      if (narrowed.failure) {
        this.advance(narrowed.last);
        await this.fail(narrowed.failure.message, narrowed.failure.error);
        throw narrowed.failure.error;
      }
      last = narrowed.last;
    }
    this.advance(last);
  }

  /**
   * Nothing to apply (no event it handles, or only events whose rows were written with them): no transaction, and the checkpoint is written a little later with a single statement
   * (moving forward only), covering every batch passed over meanwhile. Under load most batches of most
   * projectors are of this kind. A crash before the write reads those events again and applies nothing.
   */
  private passOver(last: RecordedEvent): void {
    this.advance(last);
    this.passed.pass(this.projector.name, last.position);
  }

  private advance(last: RecordedEvent | null): void {
    if (last) this.waiter?.advance(this.projector.name, last.position);
  }

  /** Never skip: stop here, show the error, try the same event again later. */
  private async fail(message: string, error: unknown): Promise<void> {
    this.log.error('projector failed', { error, detail: message });
    await markStatus(this.pool, this.projector.name, 'failed', message).catch(() => {});
    await this.stepDown(this.options.failedRetryMs);
  }

  private async stepDown(retryMs: number): Promise<void> {
    const subscription = this.subscription;
    this.subscription = null;
    // Not awaited: this may run inside the subscription's own batch callback.
    void subscription?.stop();
    await this.releaseClient();
    this.schedule(retryMs);
  }

  /** Session locks die with the session: a connection that may hold one is destroyed, not pooled. */
  private async releaseClient(mayHoldLock = true): Promise<void> {
    const client = this.client;
    this.client = null;
    if (!client) return;
    client.off('error', this.onConnectionError);
    client.release(mayHoldLock);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    const subscription = this.subscription;
    this.subscription = null;
    await subscription?.stop();
    await this.releaseClient();
  }
}

export class ProjectionEngine {
  private readonly runners: ProjectorRunner[] = [];
  private readonly options: Required<EngineOptions>;
  private readonly passed: PassedCheckpoints;

  constructor(
    private readonly pool: Pool,
    private readonly store: EventStore,
    readonly projectors: readonly Projector[],
    private readonly log: Logger,
    private readonly waiter: CheckpointWaiter | null = null,
    options: EngineOptions = {},
  ) {
    this.options = { ...DEFAULTS, ...options };
    this.passed = new PassedCheckpoints(pool, log);
  }

  start(): void {
    for (const projector of this.projectors) {
      const runner = new ProjectorRunner(projector, this.pool, this.store, this.waiter, this.log.child({ projector: projector.name }), this.options, this.passed);
      this.runners.push(runner);
      runner.start();
    }
  }

  /** Resolves once every projector has tried to take the lead (it leads now, or stands by). */
  async ready(): Promise<void> {
    await Promise.all(this.runners.map((r) => r.attempted));
  }

  /** Names of the projectors this engine runs right now (the others stand by in another process). */
  leading(): string[] {
    return this.runners.filter((r) => r.leading).map((r) => r.projector.name);
  }

  async stop(): Promise<void> {
    await Promise.all(this.runners.map((r) => r.stop()));
    await this.passed.write();
    this.runners.length = 0;
  }
}
