// `npm run bench -- [NAME...]`: runs bench/NAME.ts modules (all of them when no NAME is given) on an
// embedded PostgreSQL of their own under .bench-data (fast settings: fsync off), and prints figures.
//
// The bench module contract (bench/http.ts, bench/conversions.ts, ... follow it):
//   export async function run(ctx: BenchContext): Promise<void>
// - Files whose name starts with "_" are helpers of a bench, not benches.
// - ctx.freshDatabase(label) gives a new database with every migration applied ({ name, url, pool });
//   it is dropped when the run ends (kept with BENCH_KEEP=1, for profiling the same data afterwards; the run
//   prints each kept database's URL). ctx.urlFor(name) reaches any other database on the cluster.
// - Measure each figure beside a baseline measured in the same run (the same work done the plainest
//   way), so that figures compare across noisy machines; print them with ctx.table(title, figures):
//   each figure { name, value, unit, baseline?: { name, value }, target? } shows value / baseline.
//   Express figures as rates (higher is better) so that the ratio reads the same way everywhere.
// - ctx.scale (BENCH_SCALE, default 1) multiplies work sizes: BENCH_SCALE=0.05 for a quick try.
// - ctx.note(text) prints progress. Benchmarks print, they never assert; a bench that throws is
//   reported and the others still run (the exit code is then 1).
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { startEmbeddedPostgres } from '../src/db/embedded.ts';
import { createPool, type Pool } from '../src/db/pool.ts';
import { migrateAll } from '../src/db/schema.ts';

export interface BenchDatabase {
  name: string;
  url: string;
  /** 40 connections: enough for 16+ concurrent writers beside readers. */
  pool: Pool;
}

export interface Figure {
  name: string;
  value: number;
  unit: string;
  baseline?: { name: string; value: number };
  /** Printed beside the ratio, e.g. ">= 50% of baseline" or ">= 50,000 events/s". */
  target?: string;
}

export interface BenchContext {
  freshDatabase(label: string): Promise<BenchDatabase>;
  urlFor(database: string): string;
  table(title: string, figures: Figure[]): void;
  note(text: string): void;
  scale: number;
}

export type BenchModule = { run(ctx: BenchContext): Promise<void> };

const here = import.meta.dirname;
const root = path.resolve(here, '..');

function available(): string[] {
  return fs.readdirSync(here).filter((f) => f.endsWith('.ts') && f !== 'run.ts' && !f.startsWith('_')).map((f) => f.slice(0, -3)).sort();
}

const fmt = (n: number) => (n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toPrecision(3));

function printTable(title: string, figures: Figure[]): void {
  const rows = figures.map((f) => [
    f.name,
    `${fmt(f.value)} ${f.unit}`,
    f.baseline ? `${f.baseline.name}: ${fmt(f.baseline.value)} ${f.unit}` : '-',
    f.baseline ? `${((f.value / f.baseline.value) * 100).toFixed(0)}%` : '-',
    f.target ?? '',
  ]);
  const head = ['figure', 'value', 'baseline (same run)', 'ratio', 'target'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  console.log(`\n${title}\n${line(head)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}`);
  for (const r of rows) console.log(line(r));
}

async function main(): Promise<number> {
  const known = available();
  const asked = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const unknown = asked.filter((a) => !known.includes(a));
  if (unknown.length) {
    console.error(`unknown bench ${unknown.join(', ')} (available: ${known.join(', ')})`);
    return 2;
  }
  // BENCH_DATA_DIR: a cluster apart, so that a bench running beside another is not stopped when that one ends.
  const cluster = await startEmbeddedPostgres(process.env.BENCH_DATA_DIR ? path.resolve(process.env.BENCH_DATA_DIR) : path.join(root, '.bench-data'), { fast: true });
  const created: BenchDatabase[] = [];
  const ctx: BenchContext = {
    urlFor: cluster.urlFor,
    scale: Number(process.env.BENCH_SCALE ?? 1),
    table: printTable,
    note: (text) => console.log(`  ${text}`),
    async freshDatabase(label) {
      const name = `bench_${label.replace(/\W/g, '_').slice(0, 30)}_${randomBytes(3).toString('hex')}`.toLowerCase();
      const admin = new pg.Client({ connectionString: cluster.urlFor('postgres') });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      await admin.end();
      const db = { name, url: cluster.urlFor(name), pool: createPool(cluster.urlFor(name), 40) };
      await migrateAll(db.pool);
      created.push(db);
      return db;
    },
  };
  let failed = 0;
  try {
    for (const name of asked.length ? asked : known) {
      console.log(`\n== bench ${name} ==`);
      try {
        const mod = (await import(`./${name}.ts`)) as BenchModule;
        await mod.run(ctx);
      } catch (error) {
        failed++;
        console.error(`bench ${name} failed:`, error);
      }
    }
  } finally {
    if (process.env.BENCH_KEEP === '1') await keepAll(created);
    else await dropAll(cluster.urlFor('postgres'), created);
    await cluster.stop();
  }
  return failed ? 1 : 0;
}

async function keepAll(databases: BenchDatabase[]): Promise<void> {
  for (const db of databases) {
    await db.pool.end().catch(() => {});
    console.log(`kept database ${db.name}: ${db.url} (the cluster stops now; a later run on the same BENCH_DATA_DIR starts it again)`);
  }
}

async function dropAll(adminUrl: string, databases: BenchDatabase[]): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  for (const db of databases) {
    await db.pool.end().catch(() => {});
    await admin.query(`DROP DATABASE IF EXISTS ${db.name} WITH (FORCE)`).catch(() => {});
  }
  await admin.end();
}

process.exit(await main());
