// 120 requests a minute per key, counted in PostgreSQL (one upsert per request) so that every API process
// shares the count. Fixed one-minute windows on the service clock; requests without a valid key are
// counted per client address (at a higher limit), so key guessing is limited too and 401s carry the headers.
import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../../commands/shared/errors.ts';
import type { Queryable } from '../db/pool.ts';
import type { Caller } from './route.ts';

export const RATE_LIMIT_PER_MINUTE = 120;
/**
 * Requests without a valid key are limited per client address at ten times the key limit: enough to stop
 * key guessing, while many integrations (or a test run) behind one address that meet 401s, or read the
 * OpenAPI document, are answered what they asked rather than 429 for a limit the specification sets per key.
 */
export const ADDRESS_LIMIT_FACTOR = 10;
const WINDOW_MS = 60_000;

export interface Bucket {
  /** '' for requests without a valid key. */
  organizationId: string;
  /** The key id, or 'ip:ADDRESS'. */
  subject: string;
}

export interface Allowance {
  limit: number;
  remaining: number;
  /** Unix epoch seconds when the window ends. */
  reset: number;
  /** Whole seconds until the window ends (at least 1). */
  retryAfter: number;
  limited: boolean;
}

const HIT = `INSERT INTO rate_limit_windows AS w (organization_id, subject, window_minute, count) VALUES ($1, $2, $3, $4)
  ON CONFLICT (organization_id, subject, window_minute) DO UPDATE SET count = w.count + EXCLUDED.count
  RETURNING count`;
const PURGE = 'DELETE FROM rate_limit_windows WHERE organization_id = $1 AND subject = $2 AND window_minute < $3';

/** Requests of one bucket and window that wait for the same upsert. */
interface Batch {
  size: number;
  total: Promise<number>;
}

export class RateLimiter {
  /** Per bucket and window: the batch still open for joiners, and whether an upsert is under way. */
  private readonly open = new Map<string, Batch & { settle(total: number | Error): void }>();
  private readonly running = new Set<string>();

  constructor(
    private readonly db: Queryable,
    private readonly now: () => Date,
    readonly perMinute = RATE_LIMIT_PER_MINUTE,
    readonly perAddressMinute = perMinute * ADDRESS_LIMIT_FACTOR,
  ) {}

  async hit(bucket: Bucket): Promise<Allowance> {
    const now = this.now().getTime();
    const minute = Math.floor(now / WINDOW_MS);
    const count = await this.count(bucket, minute);
    const resetMs = (minute + 1) * WINDOW_MS;
    const limit = bucket.organizationId === '' ? this.perAddressMinute : this.perMinute;
    return {
      limit,
      remaining: Math.max(0, limit - count),
      reset: resetMs / 1000,
      retryAfter: Math.max(1, Math.ceil((resetMs - now) / 1000)),
      limited: count > limit,
    };
  }

  /**
   * This request's number in the window. Every request is counted in PostgreSQL before it is answered,
   * but requests of one bucket that arrive while its upsert runs share the next one (adding their
   * number at once), so a burst costs a few statements rather than one each, queued on one row lock.
   */
  private async count(bucket: Bucket, minute: number): Promise<number> {
    const id = `${bucket.organizationId}\n${bucket.subject}\n${minute}`;
    let batch = this.open.get(id);
    if (!batch) {
      let settle!: (total: number | Error) => void;
      const total = new Promise<number>((resolve, reject) => {
        settle = (t) => (t instanceof Error ? reject(t) : resolve(t));
      });
      batch = { size: 0, total, settle };
      this.open.set(id, batch);
      if (!this.running.has(id)) this.flush(id, bucket, minute);
    }
    const position = ++batch.size;
    const total = await batch.total;
    return total - batch.size + position;
  }

  private flush(id: string, bucket: Bucket, minute: number): void {
    const batch = this.open.get(id);
    if (!batch) return;
    this.running.add(id);
    // Joiners of this same tick still count: the statement's parameters are read on the next one.
    queueMicrotask(() => {
      this.open.delete(id);
      this.upsert(bucket, minute, batch.size)
        .then((total) => batch.settle(total), (error: Error) => batch.settle(error))
        .finally(() => {
          this.running.delete(id);
          this.flush(id, bucket, minute);
        });
    });
  }

  private async upsert(bucket: Bucket, minute: number, size: number): Promise<number> {
    const values = [bucket.organizationId, bucket.subject, minute];
    // Named statements are parsed and planned once per connection.
    const { rows } = await this.db.query<{ count: number }>({ name: 'rate-limit-hit', text: HIT, values: [...values, size] });
    const total = rows[0].count;
    // The first statement of a window drops the bucket's older windows: one row per bucket stays.
    if (total === size) await this.db.query({ name: 'rate-limit-purge', text: PURGE, values });
    return total;
  }
}

export function bucketOf(req: Request, caller: Caller | undefined): Bucket {
  if (caller) return { organizationId: caller.organizationId, subject: caller.keyId };
  return addressBucket(req.socket.remoteAddress);
}

/** The bucket of requests without a valid key: the client's address. */
export function addressBucket(address: string | undefined): Bucket {
  return { organizationId: '', subject: `ip:${address ?? 'unknown'}` };
}

/** The three headers every answer carries, plus Retry-After when the request is over the limit. */
export function limitHeaders(allowance: Allowance): Record<string, string> {
  const headers: Record<string, string> = {
    'X-RateLimit-Limit': String(allowance.limit),
    'X-RateLimit-Remaining': String(allowance.remaining),
    'X-RateLimit-Reset': String(allowance.reset),
  };
  if (allowance.limited) headers['Retry-After'] = String(allowance.retryAfter);
  return headers;
}

/**
 * Counts the request and sets the three headers on every answer. Runs after authentication: a failed
 * authentication (res.locals.authError) is reported here, after counting, unless the address is over.
 */
export function rateLimit(limiter: RateLimiter) {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const allowance = await limiter.hit(bucketOf(req, res.locals.caller as Caller | undefined));
      if (res.headersSent) return; // answered by its time-out meanwhile
      for (const [name, value] of Object.entries(limitHeaders(allowance))) res.setHeader(name, value);
      if (allowance.limited) return next(new ApiError('rate_limited', { retry_after: allowance.retryAfter }));
      next(res.locals.authError);
    } catch (error) {
      next(error);
    }
  };
}
