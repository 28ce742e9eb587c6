// The PostgreSQL pool and the small transaction helper every module uses.
import pg from 'pg';

// bigint columns (int8) come back as strings by default; counts and revisions fit in numbers here,
// but positions do not, so callers convert explicitly with BigInt() where it matters.
export type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;
export type Pool = pg.Pool;
export type Client = pg.PoolClient;

export function createPool(connectionString: string, max = 20): pg.Pool {
  const pool = new pg.Pool({ connectionString, max, idleTimeoutMillis: 30_000 });
  // A client that dies (server restart or shutdown) must not crash the process: idle ones report on the pool,
  // checked-out ones between two queries on themselves; either way their next query fails and is handled there.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

/** `begin` may carry the transaction's first statements after BEGIN (no parameters): one round trip. */
export async function withTransaction<T>(pool: pg.Pool, work: (tx: pg.PoolClient) => Promise<T>, begin = 'BEGIN'): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(begin);
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
