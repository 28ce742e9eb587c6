import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freshDatabase, type TestDatabase } from '../support/db.ts';
import { startHarness, type Harness } from './support/harness.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';
import { bodyOf, freshPhone } from './support/hooks.ts';
import { eventually } from '../support/eventually.ts';

const CONTACTS = 12;

const test = suite<{ db: TestDatabase }>('Webhooks: a worker killed between queueing and sending');
test.before(async (ctx) => { ctx.db = await freshDatabase('wh_crash'); });
test.after(async (ctx) => { await ctx.db.drop(); });

function startWorkerProcess(databaseUrl: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'support/worker-child.ts')], {
    env: { ...process.env, DATABASE_URL: databaseUrl, WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_TIMEOUT_MS: '3000', LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => { if (chunk.toString().includes('ready')) resolve(child); });
    child.on('exit', (code) => reject(new Error(`worker process exited with ${code}`)));
    setTimeout(() => reject(new Error('worker process not ready after 60 s')), 60_000).unref();
  });
}

test('every queued push still arrives (at least once, same delivery ids) after SIGKILL mid-send', async ({ db }) => {
  // The receiver holds every request open until told to answer: the first worker dies with its claims in flight.
  let answering = false;
  const held: import('node:http').ServerResponse[] = [];
  const receiver: Receiver = await startReceiver((_push, res) => (answering ? res.writeHead(200).end() : held.push(res)));
  const api: Harness = await startHarness(db.url, { WEBHOOK_ALLOW_PRIVATE: '1' }, false);
  let child: ChildProcess | null = null;
  let survivor: Harness | null = null;
  try {
    const org = await api.newOrganization();
    const hook = await api.request('POST', '/webhooks', { key: org.key, body: { url: receiver.url('/in'), events: ['contact.created'] } });
    assert.is(hook.status, 201);
    child = await startWorkerProcess(db.url);
    const contacts: string[] = [];
    for (let i = 0; i < CONTACTS; i++) contacts.push((await api.request('POST', '/contacts', { key: org.key, body: { phone: freshPhone() } })).body.id);
    await eventually('the first worker to be sending', () => receiver.received.length > 0);
    child.kill('SIGKILL');
    await new Promise((resolve) => child!.once('exit', resolve));
    for (const res of held) res.destroy();
    const inFlight = new Set(receiver.received.map((p) => p.headers['x-service-delivery']));
    const firstAnswered = receiver.received.length;
    answering = true;
    survivor = await startHarness(db.url, { WEBHOOK_ALLOW_PRIVATE: '1' }, { timeoutMs: 2000 });
    const answered = () => receiver.received.slice(firstAnswered);
    await eventually('every contact pushed and answered', () => {
      const ids = new Set(answered().map((p) => bodyOf(p).data.contact_id));
      return contacts.every((c) => ids.has(c));
    }, 30_000);
    await eventually('the queue to drain', async () => {
      const { rows } = await survivor!.services.pool.query<{ n: string }>('SELECT count(*) AS n FROM webhook_queue WHERE organization_id = $1', [org.organizationId]);
      return Number(rows[0].n) === 0;
    });
    // What the dead worker had in flight came again under the same delivery ids.
    const resent = new Set(answered().map((p) => p.headers['x-service-delivery']));
    assert.ok(inFlight.size > 0);
    for (const id of inFlight) assert.ok(resent.has(id), `delivery ${id} sent again`);
    assert.is(new Set(answered().map((p) => bodyOf(p).data.contact_id)).size, CONTACTS);
  } finally {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await survivor?.stop();
    await api.stop();
    await receiver.close();
  }
});

test.run();
