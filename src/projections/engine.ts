// Runs projectors: catch up in batches, then follow live; the checkpoint commits with the read model.
// One leader per projector across processes (session advisory lock); the others wait as standbys.
import type { Logger } from '../logger.ts';
import type { Client, Pool } from '../db/pool.ts';
import { comparePositions, type EventStore, type RecordedEvent, type Subscription } from '../eventstore/port.ts';
import type { Projector } from './projector.ts';
import { ensureCheckpoint, lockKeys, markStatus, readCheckpoint, writeCheckpoint } from './checkpoints.ts';
import type { CheckpointWaiter } from './waiter.ts';

const STANDBY_RETRY_MS = 2000;
const FAILED_RETRY_MS = 30_000;

/** Apply one batch in one transaction: apply lock, checkpoint re-read, handled events, checkpoint write. */
export async function applyBatch(client: Client, projector: Projector, events: RecordedEvent[]): Promise<RecordedEvent | null> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [lockKeys(projector.name).apply]);
    const checkpoint = await readCheckpoint(client, projector.name, true);
    // A rebuild may have swapped in a checkpoint ahead of this batch: skip what it already covers.
    const fresh = events.filter((e) => comparePositions(e.position, checkpoint) > 0);
    if (fresh.length === 0) {
      await client.query('COMMIT');
      return null;
    }
    const handled = fresh.filter((e) => projector.handles.includes(e.type));
    if (handled.length) await projector.apply(client, handled);
    const last = fresh[fresh.length - 1];
    await writeCheckpoint(client, projector.name, last.position, handled.length);
    await client.query('COMMIT');
    return last;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

class ProjectorRunner {
  private stopped = false;
  private subscription: Subscription | null = null;
  private client: Client | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly projector: Projector,
    private readonly pool: Pool,
    private readonly store: EventStore,
    private readonly waiter: CheckpointWaiter | null,
    private readonly log: Logger,
    private readonly batchSize: number,
  ) {}

  start(): void {
    void this.tryLead();
  }

  private schedule(ms: number): void {
    if (!this.stopped) this.timer = setTimeout(() => void this.tryLead(), ms);
  }

  private async tryLead(): Promise<void> {
    if (this.stopped) return;
    try {
      this.client ??= await this.pool.connect();
      const { rows } = await this.client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [lockKeys(this.projector.name).leader]);
      if (!rows[0].ok) return this.schedule(STANDBY_RETRY_MS);
      await ensureCheckpoint(this.client, this.projector.name);
      const after = await readCheckpoint(this.client, this.projector.name);
      this.log.debug('projector leading', { from: `${after.commit}/${after.prepare}` });
      this.subscription = this.store.subscribeToAll({
        after,
        batchSize: this.batchSize,
        onBatch: (events) => this.onBatch(events),
        onError: (error) => this.log.warn('projector read failed', { error }),
      });
    } catch (error) {
      this.log.error('projector could not start', { error });
      await this.releaseClient();
      this.schedule(STANDBY_RETRY_MS);
    }
  }

  private async onBatch(events: RecordedEvent[]): Promise<void> {
    if (this.stopped || !this.client) return;
    try {
      const last = await applyBatch(this.client, this.projector, events);
      if (last) this.waiter?.advance(this.projector.name, last.position);
    } catch (error) {
      // Never skip: stop here, show the error, try again later from the same checkpoint.
      const message = (error as Error).message ?? String(error);
      this.log.error('projector failed', { error, eventId: events[0]?.id });
      await markStatus(this.pool, this.projector.name, 'failed', message).catch(() => {});
      const subscription = this.subscription;
      this.subscription = null;
      void subscription?.stop();
      await this.releaseClient();
      this.schedule(FAILED_RETRY_MS);
      throw error;
    }
  }

  private async releaseClient(): Promise<void> {
    const client = this.client;
    this.client = null;
    if (!client) return;
    // Session locks die with the session: destroy rather than return a locked connection to the pool.
    client.release(true);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.subscription?.stop();
    this.subscription = null;
    await this.releaseClient();
  }
}

export class ProjectionEngine {
  private readonly runners: ProjectorRunner[] = [];

  constructor(
    private readonly pool: Pool,
    private readonly store: EventStore,
    readonly projectors: readonly Projector[],
    private readonly log: Logger,
    private readonly waiter: CheckpointWaiter | null = null,
    private readonly batchSize = 1000,
  ) {}

  start(): void {
    for (const projector of this.projectors) {
      const runner = new ProjectorRunner(projector, this.pool, this.store, this.waiter, this.log.child({ projector: projector.name }), this.batchSize);
      this.runners.push(runner);
      runner.start();
    }
  }

  async stop(): Promise<void> {
    await Promise.all(this.runners.map((r) => r.stop()));
    this.runners.length = 0;
  }
}
