// `npm run bench -- contacts`: with 100,000 contacts and 200,000 leads loaded, the contact and lead lists
// (limit 100: unfiltered, by tag, by campaign, by phone; leads by a from/to window) and POST
// /contacts/{id}/stage, each under 32 connections beside GET /v1/me measured in the same run.
// GET loads run autocannon in a worker thread; the stage load rotates contacts per request, which needs
// a function, so it and its /me baseline run in-process.
import autocannon from 'autocannon';
import type { Pool } from '../src/db/pool.ts';
import type { BenchContext, Figure } from './run.ts';
import { setupContactsBench } from './_contacts-setup.ts';
import { serveApi } from './_serve.ts';

const CONNECTIONS = 32;
const STAGES = ['contacted', 'qualified'];

interface Measured { rps: number; p99: number; non2xx: number }

async function getLoad(url: string, headers: Record<string, string>, seconds: number): Promise<Measured> {
  const r = await autocannon({ url, connections: CONNECTIONS, duration: seconds, headers, workers: 1 });
  return { rps: r.requests.average, p99: r.latency.p99, non2xx: r.non2xx };
}

/** Each request moves the next contact to the next stage; a contact comes round again only a full pass later. */
async function stageLoad(base: string, headers: Record<string, string>, contactIds: string[], seconds: number, counter: { n: number }): Promise<Measured> {
  const r = await autocannon({
    url: base, connections: CONNECTIONS, duration: seconds, headers: { ...headers, 'content-type': 'application/json' },
    requests: [{
      method: 'POST',
      setupRequest: (req) => {
        const i = counter.n++;
        const id = contactIds[i % contactIds.length];
        return { ...req, path: `/v1/contacts/${id}/stage`, body: JSON.stringify({ stage: STAGES[Math.floor(i / contactIds.length) % 2] }) };
      },
    }],
  });
  return { rps: r.requests.average, p99: r.latency.p99, non2xx: r.non2xx };
}

/**
 * The key must authenticate before anything is measured. Twice a run answered 401 here although the
 * access projector's checkpoint had passed the store's head: wait for it (bounded), and if it never
 * comes, say what the read model holds.
 */
async function keyAnswers(base: string, headers: Record<string, string>, pool: Pool): Promise<void> {
  for (let attempt = 0; attempt < 60; attempt++) {
    if ((await fetch(`${base}/v1/me`, { headers })).status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const keys = await pool.query('SELECT count(*)::int AS n FROM api_keys');
  const checkpoints = await pool.query('SELECT name, commit_position, prepare_position, status, error FROM projection_checkpoints ORDER BY name');
  throw new Error(`the bench key does not authenticate (api_keys rows: ${keys.rows[0].n}; checkpoints: ${JSON.stringify(checkpoints.rows)})`);
}

function listFigures(name: string, list: Measured, me: Measured): Figure[] {
  return [
    { name: `${name} throughput`, value: list.rps, unit: 'req/s', baseline: { name: 'GET /v1/me', value: me.rps }, target: '>= 50% of /me' },
    { name: `${name} p99`, value: list.p99, unit: 'ms', target: '<= 50 ms' },
  ];
}

export async function run(ctx: BenchContext): Promise<void> {
  const { booted, key, movable: ids, contacts, leads, lists } = await setupContactsBench(ctx, 'contacts');
  const { services } = booted;
  const server = await serveApi(services);
  const headers = { authorization: `Bearer ${key}` };
  const seconds = Math.max(3, Math.round(8 * ctx.scale));
  try {
    await keyAnswers(server.url, headers, services.pool);
    for (const [, path] of lists) {
      const res = await fetch(`${server.url}${path}`, { headers });
      const body = await res.json() as { data?: unknown[] };
      if (res.status !== 200 || !body.data?.length) throw new Error(`${path} answered ${res.status} with ${body.data?.length ?? 0} rows: ${JSON.stringify(body).slice(0, 300)}`);
    }
    ctx.note(`warming up, then ${seconds} s per figure with ${CONNECTIONS} connections`);
    await getLoad(`${server.url}/v1/me`, headers, 2);
    const figures: Figure[] = [];
    for (const [name, path] of lists) {
      const me = await getLoad(`${server.url}/v1/me`, headers, seconds);
      const list = await getLoad(`${server.url}${path}`, headers, seconds);
      if (list.non2xx) ctx.note(`warning: ${list.non2xx} answers of ${name} were not 2xx`);
      figures.push(...listFigures(name, list, me));
    }
    const meInProcess = await autocannon({ url: `${server.url}/v1/me`, connections: CONNECTIONS, duration: seconds, headers });
    const stage = await stageLoad(server.url, headers, ids, seconds, { n: 0 });
    if (stage.non2xx) ctx.note(`warning: ${stage.non2xx} stage answers were not 2xx`);
    figures.push(
      { name: 'POST stage throughput', value: stage.rps, unit: 'req/s', baseline: { name: 'GET /v1/me (in-process load)', value: meInProcess.requests.average } },
      { name: 'POST stage p99', value: stage.p99, unit: 'ms', target: `/me: ${meInProcess.latency.p99} ms` },
    );
    ctx.table(`Contacts and leads: ${contacts} contacts, ${leads} leads, ${CONNECTIONS} connections (same run)`, figures);
  } finally {
    await server.close();
    await booted.shutdown();
  }
}
