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

/** "200ms,5s,1m" -> [200, 5000, 60000] */
export function parseSchedule(text: string): number[] {
  return text.split(',').map((part) => {
    const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*$/.exec(part);
    if (!match) throw new Error(`bad schedule entry "${part}" (expected e.g. 500ms, 5s, 1m, 2h)`);
    return Math.round(Number(match[1]) * UNITS[match[2]]);
  });
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = path.resolve(env.DATA_DIR ?? './.data');
  return {
    databaseUrl: env.DATABASE_URL || null,
    eventstoreUrl: env.EVENTSTORE_URL || null,
    port: env.PORT !== undefined ? Number(env.PORT) : 8080,
    dataDir,
    platformApiUrl: (env.PLATFORM_API_URL ?? 'https://graph.facebook.com').replace(/\/+$/, ''),
    platformApiVersion: env.PLATFORM_API_VERSION ?? 'v21.0',
    platformAppSecret: env.PLATFORM_APP_SECRET ?? '',
    platformVerifyToken: env.PLATFORM_VERIFY_TOKEN ?? '',
    platformSending: (env.PLATFORM_SENDING ?? 'on') !== 'off',
    deliveryRetrySchedule: parseSchedule(env.DELIVERY_RETRY_SCHEDULE ?? '1m,5m,30m,2h,6h,12h,24h'),
    webhookRetrySchedule: parseSchedule(env.WEBHOOK_RETRY_SCHEDULE ?? '5s,1m,5m,30m,2h,6h,12h,24h'),
    webhookAllowPrivate: env.WEBHOOK_ALLOW_PRIVATE === '1',
    webhookPauseAfter: Number(env.WEBHOOK_PAUSE_AFTER ?? 20),
    webhookTimeoutMs: Number(env.WEBHOOK_TIMEOUT_MS ?? 10_000),
    secretKey: env.SECRET_KEY || null,
    logLevel: (env.LOG_LEVEL as Config['logLevel']) ?? 'info',
    workers: env.WORKERS !== 'off',
    jobs: loadJobsConfig(env),
  };
}

const duration = (text: string): number => parseSchedule(text)[0];

function loadJobsConfig(env: NodeJS.ProcessEnv): JobsConfig {
  return {
    concurrency: Number(env.JOB_CONCURRENCY ?? 4),
    leaseMs: duration(env.JOB_LEASE ?? '2m'),
    retrySchedule: parseSchedule(env.JOB_RETRY_SCHEDULE ?? '30s,2m,10m'),
    maxAttempts: Number(env.JOB_MAX_ATTEMPTS ?? 4),
    pollMs: duration(env.JOB_POLL ?? '1s'),
    progressEveryMs: duration(env.JOB_PROGRESS_EVERY ?? '1s'),
    schedulerTickMs: duration(env.JOB_SCHEDULER_TICK ?? '10s'),
    spendEveryMs: duration(env.JOB_SPEND_EVERY ?? '6h'),
    leadsEveryMs: duration(env.JOB_LEADS_EVERY ?? '1h'),
    sheetsEveryMs: duration(env.JOB_SHEETS_EVERY ?? '15m'),
    spendWindowDays: Number(env.JOB_SPEND_WINDOW_DAYS ?? 7),
    spendBackfillDays: Number(env.JOB_SPEND_BACKFILL_DAYS ?? 90),
    leadsBackfillDays: Number(env.JOB_LEADS_BACKFILL_DAYS ?? 90),
  };
}
