// Turns on event streams across processes (the service, other API processes, the operator CLI): a PostgreSQL
// session advisory lock per stream, held on a connection of a small pool of its own while the work runs.
// With EventStoreDB as the event store the lock still lives here, in the read models' PostgreSQL.
import { createPool, type Pool } from './pool.ts';

/** Class of the two-key advisory locks held by writers of one stream (the second key: hashtext of the stream). */
const STREAM_TURN_LOCK = 7_300_001;

/**
 * A holder stuck for this long (a frozen process) fails its waiters rather than hanging them: the wait ends
 * with PostgreSQL's lock_not_available, which the caller answers as any unexpected error.
 */
const LOCK_WAIT = '15s';

export class StreamLocks {
  /**
   * Its own connections: a holder needs connections of the main pool for its work, so holders and waiters
   * sharing that pool could take all of it and wait on each other for good.
   */
  private readonly pool: Pool;

  constructor(url: string, size = 10) {
    this.pool = createPool(url, size);
    this.pool.on('connect', (client) => { client.query(`SET lock_timeout = '${LOCK_WAIT}'`).catch(() => {}); });
  }

  /**
   * Run `work` while holding the turns of `streams` (taken in one order, so two holders of several streams never
   * wait on each other in a circle). The work must not ask for a turn again: it would wait for itself.
   */
  async hold<T>(streams: string[], work: () => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let unlocked = false;
    try {
      for (const stream of [...new Set(streams)].sort()) {
        await client.query('SELECT pg_advisory_lock($1, hashtext($2))', [STREAM_TURN_LOCK, stream]);
      }
      return await work();
    } finally {
      unlocked = await client.query('SELECT pg_advisory_unlock_all()').then(() => true, () => false);
      // A connection that may still hold a turn is closed, which gives the turn back, rather than reused.
      client.release(!unlocked);
    }
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
