// Configuration: parsed once at start from the environment and passed down; nothing reads process.env later.
import path from 'node:path';

export interface Config {
  databaseUrl: string | null;
  eventstoreUrl: string | null;
  port: number;
  dataDir: string;
  platformApiUrl: string;
  platformApiVersion: string;
  platformAppSecret: string;
  platformVerifyToken: string;
  platformSending: boolean;
  deliveryRetrySchedule: number[];
  webhookRetrySchedule: number[];
  webhookAllowPrivate: boolean;
  /** Failed webhook attempts in a row that pause a subscription. */
  webhookPauseAfter: number;
  webhookTimeoutMs: number;
  /** How long an API request may take before it is answered 500 internal_error (a database that stops answering). */
  requestTimeoutMs: number;
  /** On SIGTERM: how long in-flight platform and webhook calls may go on before they are aborted. */
  shutdownGraceMs: number;
  /** Passphrase the key of secrets at rest (tokens, webhook secrets) is derived from; unset: a random key kept in the database. */
  secretKey: string | null;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  /** Run the workers (projectors, process managers) in this process. */
  workers: boolean;
  /** Background jobs and their schedules (docs/jobs.md). */
  jobs: JobsConfig;
}

export interface JobsConfig {
  concurrency: number;
  leaseMs: number;
  retrySchedule: number[];
  maxAttempts: number;
  pollMs: number;
  progressEveryMs: number;
  schedulerTickMs: number;
  spendEveryMs: number;
  leadsEveryMs: number;
  sheetsEveryMs: number;
  spendWindowDays: number;
  spendBackfillDays: number;
  leadsBackfillDays: number;
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * The longest delay a setting takes. A Node.js timer holds at most 2^31-1 ms (about 24.8 days; a longer one fires at
 * once, so JOB_POLL=30d polled without pause), and a retry due later than a date can hold was an "Invalid time value"
 * in the worker on the first failure (DELIVERY_RETRY_SCHEDULE=100000000d left the delivery `sending`).
 */
const MAX_DELAY = '24d';
const MAX_DELAY_MS = 24 * UNITS.d;
/** The same limit for a setting in milliseconds, exactly: a larger one fires at once (AbortSignal.timeout throws). */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * A setting the service cannot run with (a bad value, or a database or event store it names that does not answer):
 * the server and the CLI print its message as one line and exit.
 */
export class ConfigError extends Error {}

/** "200ms,5s,1m" -> [200, 5000, 60000] */
export function parseSchedule(text: string): number[] {
  return text.split(',').map((part) => {
    const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*$/.exec(part);
    if (!match) throw new Error(`bad schedule entry "${part}" (expected e.g. 500ms, 5s, 1m, 2h)`);
    return Math.round(Number(match[1]) * UNITS[match[2]]);
  });
}

const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;

/** ["a", "b", "c"] -> "a, b or c" */
const inWords = (values: readonly string[]) => (values.length < 2 ? values.join('') : `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`);

/**
 * A URL as an error may echo it: its password, from the first ":" after the scheme's "//" to the last "@", is never
 * shown, whatever characters it holds (one with a "/" or ":", as a base64 password may have, was echoed whole or in part).
 */
export function withoutPassword(url: string): string {
  const scheme = url.indexOf('://');
  const start = scheme === -1 ? 0 : scheme + 3;
  const at = url.lastIndexOf('@');
  const colon = url.indexOf(':', start);
  return at < start || colon === -1 || colon > at ? url : `${url.slice(0, colon)}:***${url.slice(at)}`;
}

/**
 * Reads the environment, checking each value where it is read: a typo must stop the start with the variable's name,
 * not surface later as NaN in a query or a request to nowhere.
 */
export class Env {
  constructor(private readonly env: NodeJS.ProcessEnv) {}

  private bad(name: string, expected: string): never {
    throw new ConfigError(`${name}=${JSON.stringify(this.env[name])} is not valid: expected ${expected}`);
  }

  text(name: string, fallback: string): string {
    return this.env[name] ?? fallback;
  }

  /** Text of a fixed shape (PLATFORM_API_VERSION is a path segment the platform must know). */
  matching(name: string, pattern: RegExp, fallback: string, expected: string): string {
    const text = this.env[name] ?? fallback;
    if (!pattern.test(text)) this.bad(name, expected);
    return text;
  }

  /** Unset or empty: null. */
  optional(name: string): string | null {
    return this.env[name] || null;
  }

  integer(name: string, fallback: number, min = 1, max = Number.MAX_SAFE_INTEGER): number {
    const text = this.env[name];
    if (text === undefined) return fallback;
    // Plain digits only: Number() reads PORT=0x10 as 16 and PORT=1e3 as 1000, a port nobody meant.
    const value = /^\d+$/.test(text) ? Number(text) : NaN;
    if (!Number.isInteger(value) || value < min || value > max) {
      this.bad(name, max === Number.MAX_SAFE_INTEGER ? `a whole number, at least ${min}` : `a whole number from ${min} to ${max}`);
    }
    return value;
  }

  /** `expected` says the accepted values in words where a plain list would not read ("1 or 0", not ", 0, 1"). */
  oneOf<T extends string>(name: string, values: readonly T[], fallback: T, expected = inWords(values)): T {
    const text = this.env[name] ?? fallback;
    if (!values.includes(text as T)) this.bad(name, expected);
    return text as T;
  }

  schedule(name: string, fallback: string): number[] {
    let delays: number[];
    try {
      delays = parseSchedule(this.env[name] ?? fallback);
    } catch {
      return this.bad(name, 'comma-separated delays, each a number with ms, s, m, h or d (e.g. 500ms,5s,1m,2h)');
    }
    if (delays.some((delay) => delay > MAX_DELAY_MS)) this.bad(name, `comma-separated delays of at most ${MAX_DELAY} each`);
    return delays;
  }

  /** One delay: SHUTDOWN_GRACE=soon was told it needs "comma-separated delays", which it does not take. */
  duration(name: string, fallback: string): number {
    let delays: number[] = [];
    try { delays = parseSchedule(this.env[name] ?? fallback); } catch { /* said below */ }
    if (delays.length !== 1 || delays[0] <= 0) this.bad(name, 'one delay above zero, a number with ms, s, m, h or d (e.g. 500ms, 5s, 1m, 2h)');
    if (delays[0] > MAX_DELAY_MS) this.bad(name, `one delay of at most ${MAX_DELAY}`);
    return delays[0];
  }

  /** A URL with one of these schemes (unset or empty: null); an error echoes it without its password. */
  url(name: string, schemes: readonly string[]): string | null {
    const text = this.env[name];
    if (!text) return null;
    let scheme: string | null = null;
    try { scheme = new URL(text).protocol.slice(0, -1); } catch { /* not a URL */ }
    if (scheme === null || !schemes.includes(scheme)) {
      // One that begins as it should but cannot be read (a "/" in its password) was told to begin so: say what to fix.
      const begins = schemes.some((s) => text.toLowerCase().startsWith(`${s}://`));
      const expected = begins
        ? 'a URL that can be read: a port in digits, and a "/", "?" or "#" in its user name or password percent-encoded (%2F, %3F, %23)'
        : `a URL starting with ${inWords(schemes.map((s) => `${s}://`))}`;
      throw new ConfigError(`${name}=${JSON.stringify(withoutPassword(text))} is not valid: expected ${expected}`);
    }
    return text;
  }
}

export function loadConfig(environment: NodeJS.ProcessEnv = process.env): Config {
  const env = new Env(environment);
  return {
    databaseUrl: env.url('DATABASE_URL', ['postgres', 'postgresql']),
    eventstoreUrl: env.url('EVENTSTORE_URL', ['esdb', 'esdb+discover']),
    port: env.integer('PORT', 8080, 0, 65535),
    // Empty is unset, as for DATABASE_URL and SECRET_KEY: DATA_DIR= resolved to the working directory and put the cluster in the project folder.
    dataDir: path.resolve(env.optional('DATA_DIR') ?? './.data'),
    platformApiUrl: (env.url('PLATFORM_API_URL', ['https', 'http']) ?? 'https://graph.facebook.com').replace(/\/+$/, ''),
    platformApiVersion: env.matching('PLATFORM_API_VERSION', /^v\d+\.\d+$/, 'v21.0', 'a Graph API version such as v21.0'),
    platformAppSecret: env.text('PLATFORM_APP_SECRET', ''),
    platformVerifyToken: env.text('PLATFORM_VERIFY_TOKEN', ''),
    platformSending: env.oneOf('PLATFORM_SENDING', ['on', 'off'], 'on') === 'on',
    deliveryRetrySchedule: env.schedule('DELIVERY_RETRY_SCHEDULE', '1m,5m,30m,2h,6h,12h,24h'),
    webhookRetrySchedule: env.schedule('WEBHOOK_RETRY_SCHEDULE', '5s,1m,5m,30m,2h,6h,12h,24h'),
    // Only the documented spellings: WORKERS=false or WEBHOOK_ALLOW_PRIVATE=true read as their opposite before.
    webhookAllowPrivate: env.oneOf('WEBHOOK_ALLOW_PRIVATE', ['', '0', '1'], '', '1 (on) or 0 (off); empty or unset is off') === '1',
    webhookPauseAfter: env.integer('WEBHOOK_PAUSE_AFTER', 20),
    webhookTimeoutMs: env.integer('WEBHOOK_TIMEOUT_MS', 10_000, 1, MAX_TIMER_MS),
    requestTimeoutMs: env.integer('REQUEST_TIMEOUT_MS', 15_000, 1, MAX_TIMER_MS),
    shutdownGraceMs: env.duration('SHUTDOWN_GRACE', '10s'),
    secretKey: env.optional('SECRET_KEY'),
    logLevel: env.oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    workers: env.oneOf('WORKERS', ['on', 'off'], 'on') === 'on',
    jobs: loadJobsConfig(env),
  };
}

const MAX_SYNC_DAYS = 1095;

function loadJobsConfig(env: Env): JobsConfig {
  return {
    concurrency: env.integer('JOB_CONCURRENCY', 4, 0),
    leaseMs: env.duration('JOB_LEASE', '2m'),
    retrySchedule: env.schedule('JOB_RETRY_SCHEDULE', '30s,2m,10m'),
    maxAttempts: env.integer('JOB_MAX_ATTEMPTS', 4),
    pollMs: env.duration('JOB_POLL', '1s'),
    progressEveryMs: env.duration('JOB_PROGRESS_EVERY', '1s'),
    schedulerTickMs: env.duration('JOB_SCHEDULER_TICK', '10s'),
    spendEveryMs: env.duration('JOB_SPEND_EVERY', '6h'),
    leadsEveryMs: env.duration('JOB_LEADS_EVERY', '1h'),
    sheetsEveryMs: env.duration('JOB_SHEETS_EVERY', '15m'),
    // At most three years: the platform's insights go back 37 months (older ranges it refuses, code 3018), and a
    // day count past the calendar's end failed every sync with "Invalid time value".
    spendWindowDays: env.integer('JOB_SPEND_WINDOW_DAYS', 7, 1, MAX_SYNC_DAYS),
    spendBackfillDays: env.integer('JOB_SPEND_BACKFILL_DAYS', 90, 1, MAX_SYNC_DAYS),
    leadsBackfillDays: env.integer('JOB_LEADS_BACKFILL_DAYS', 90, 1, MAX_SYNC_DAYS),
  };
}
