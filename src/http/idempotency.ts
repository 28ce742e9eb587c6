// Idempotency-Key on POST routes, following the specification's five rules: the first request claims the
// key before its handler runs; its answer (unless 5xx or 429) is stored before it is sent; a repeat
// with the same method, path and body within 24 hours gets the stored answer with Idempotent-Replayed;
// a different body is 422, a repeat while the first still runs is 409. A claim whose process died runs
// again only when its request made no change.
import { createHash, randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { ApiError, validationError } from '../../commands/shared/errors.ts';
import type { Services } from '../services.ts';
import { open, seal } from '../crypto/secretBox.ts';
import { PostgresEventStore } from '../eventstore/postgres.ts';
import {
  claimLanded, claimRecord, completeRecord, purgeRecords, readRecord, releaseRecord, takeOverRecord,
  type ExistingRecord, type RecordKey, type StoredAnswer,
} from './idempotency-store.ts';
import { ANSWER_LOST } from './messages.ts';
import { errorBody, languageOf } from './render.ts';
import type { Caller } from './route.ts';

const VISIBLE_ASCII = /^[\x21-\x7e]{1,255}$/;
const REPLAY_MS = 24 * 3600_000;
/** A claim this old belongs to a request whose process died: it may be taken over. */
const ABANDONED_MS = 2 * 60_000;
const PURGE_EVERY_MS = 10 * 60_000;
/** Headers that describe this exchange rather than the answer, so a replay does not repeat them. */
const NOT_REPLAYED = new Set([
  'x-request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after',
  'idempotent-replayed', 'content-length', 'date', 'connection', 'keep-alive', 'etag', 'transfer-encoding',
]);

/** JSON with object keys sorted, so that the same body with its fields in another order matches. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** No body at all (no Content-Length), an empty one and {} are one body, as the routes read them (`req.body ?? {}`). */
function fingerprintOf(req: Request): string {
  return createHash('sha256').update(`${req.method} ${req.originalUrl}\n${canonicalJson(req.body ?? {})}`).digest('hex');
}

export class Idempotency {
  /** When each organisation's expired records were last purged by this process. */
  private readonly purgedAt = new Map<string, number>();
  constructor(private readonly services: Pick<Services, 'pool' | 'store' | 'now' | 'log' | 'secrets'>) {}

  /** Express middleware for one POST route. */
  readonly middleware = async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    try {
      const given = req.get('idempotency-key');
      if (given === undefined) return next();
      if (!VISIBLE_ASCII.test(given)) throw validationError('Idempotency-Key', 'must be 1-255 visible ASCII characters');
      const caller = res.locals.caller as Caller;
      const key: RecordKey = { organizationId: caller.organizationId, keyId: caller.keyId, idempotencyKey: given };
      await this.purgeNow(caller.organizationId);
      const token = await this.claimOrAnswer(key, fingerprintOf(req), req, res);
      if (token && res.headersSent) return await this.releaseUnused(key, token, res);
      if (token) {
        // The events the handler appends carry the claim (register.ts), for claimLanded.
        res.locals.idempotencyClaim = token;
        this.captureAnswer(res, key, token);
        next();
      }
    } catch (error) {
      next(error);
    }
  };

  /** The claim token when this request may run; otherwise the request has been answered or refused. */
  private async claimOrAnswer(key: RecordKey, fingerprint: string, req: Request, res: Response): Promise<string | null> {
    const { pool } = this.services;
    // A record released between our claim attempt and our read is claimable again: try a few times.
    for (let attempt = 0; attempt < 3; attempt++) {
      const now = this.services.now();
      const token = randomUUID();
      const claimed = await claimRecord(pool, key, { fingerprint, token, now, expiredBefore: new Date(now.getTime() - REPLAY_MS) });
      if (claimed) return token;
      const existing = await readRecord(pool, key);
      if (!existing) continue;
      if (existing.fingerprint !== fingerprint) throw new ApiError('idempotency_key_reused');
      if (existing.state === 'running') {
        if (existing.createdAt.getTime() > now.getTime() - ABANDONED_MS) throw new ApiError('idempotency_in_progress');
        // Its process died. Taken over, the request ran again whatever the first run had done: a note added twice.
        if (await this.landed(existing)) {
          const lost: StoredAnswer = { status: 409, headers: {}, body: JSON.stringify(errorBody(new ApiError('conflict', undefined, undefined, ANSWER_LOST), languageOf(req))) };
          await completeRecord(pool, key, existing.claim, { ...lost, body: this.sealBody(lost.body) });
          replay(res, lost);
          return null;
        }
        if (await takeOverRecord(pool, key, { from: existing.claim, token, now })) return token;
        continue;
      }
      replay(res, { ...existing.answer, body: this.openBody(existing.answer.body) });
      return null;
    }
    throw new ApiError('idempotency_in_progress');
  }

  /**
   * Whether the request of an abandoned claim appended its events. With EventStoreDB (the events are not in
   * PostgreSQL), or for a claim taken before claims kept their transaction id, this is not known: it runs again.
   */
  private async landed(existing: Extract<ExistingRecord, { state: 'running' }>): Promise<boolean> {
    if (!(this.services.store instanceof PostgresEventStore) || existing.claimXid === null) return false;
    return claimLanded(this.services.pool, existing.claim, existing.claimXid);
  }

  /** Answered by its time-out while claiming: the handler does not run, and the key is free again at once. */
  private async releaseUnused(key: RecordKey, token: string, res: Response): Promise<void> {
    await releaseRecord(this.services.pool, key, token).catch((error) => {
      this.services.log.debug('idempotency claim of a timed-out request not released', { requestId: res.locals.requestId, error });
    });
  }

  /**
   * Hold the handler's answer until it is stored (or the claim released), then send it. Stored even when the
   * request's time-out has answered meanwhile (then it is not sent): a retry with the key gets what really happened.
   */
  private captureAnswer(res: Response, key: RecordKey, token: string): void {
    const json = res.json;
    const end = res.end;
    const settle = async (status: number, headers: Record<string, string>, body: string | null): Promise<void> => {
      try {
        if (status >= 500 || status === 429) await releaseRecord(this.services.pool, key, token);
        else await completeRecord(this.services.pool, key, token, { status, headers, body: this.sealBody(body) });
      } catch (error) {
        this.services.log.error('idempotency record not saved', { requestId: res.locals.requestId, error });
      }
      res.json = json;
      res.end = end;
    };
    res.json = (body: unknown) => {
      void settle(res.statusCode, replayableHeaders(res.getHeaders()), body === undefined ? null : JSON.stringify(body)).then(() => { if (!res.headersSent) res.json(body); });
      return res;
    };
    res.end = ((...args: unknown[]) => {
      void settle(res.statusCode, replayableHeaders(res.getHeaders()), null).then(() => { if (!res.headersSent) (end as (...a: unknown[]) => Response).apply(res, args); });
      return res;
    }) as Response['end'];
    res.locals.lateAnswer = ((status, headers, body) => {
      void settle(status, replayableHeaders(headers), body === undefined ? null : JSON.stringify(body));
    }) satisfies LateAnswer;
  }

  /**
   * Stored answers are sealed with the key of secrets at rest: they hold what the first answer showed, e.g. a
   * webhook's signing secret (create, rotate-secret) or a person's phone and e-mail, for 24 hours.
   */
  private sealBody(body: string | null): string | null {
    return body === null ? null : seal(body, this.services.secrets.encryptionKey);
  }

  /** A body stored before answers were sealed is JSON text ('{' or '['), never the sealed 'v1.' form. */
  private openBody(body: string | null): string | null {
    return body === null || !body.startsWith('v1.') ? body : open(body, this.services.secrets.encryptionKey);
  }

  private async purgeNow(organizationId: string): Promise<void> {
    const now = this.services.now().getTime();
    if (now - (this.purgedAt.get(organizationId) ?? 0) < PURGE_EVERY_MS) return;
    this.purgedAt.set(organizationId, now);
    await purgeRecords(this.services.pool, organizationId, new Date(now - REPLAY_MS));
  }
}

type LateAnswer = (status: number, headers: Record<string, unknown>, body: unknown) => void;

/**
 * An answer given after the request's time-out has answered for it (src/http/timeout.ts): not sent, but stored
 * (or the claim released) as if it had been, so that a retry with the Idempotency-Key learns what really happened.
 */
export function keepLateAnswer(res: Response, status: number, headers: Record<string, unknown>, body: unknown): void {
  (res.locals.lateAnswer as LateAnswer | undefined)?.(status, headers, body);
}

function replayableHeaders(headers: Record<string, unknown>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !NOT_REPLAYED.has(name.toLowerCase())) kept[name] = String(value);
  }
  return kept;
}

function replay(res: Response, answer: StoredAnswer): void {
  if (res.headersSent) return; // answered by its time-out while the record was read
  for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  res.setHeader('Idempotent-Replayed', 'true');
  res.status(answer.status);
  if (answer.body === null) {
    res.end();
    return;
  }
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.send(answer.body);
}
