import type { ServerResponse } from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { closeSenderAgents, createSenderAgents } from '../../src/webhooks/agents.ts';
import { sendPush, type PushDelivery, type SendPushOptions } from '../../src/webhooks/sender.ts';
import { verifyPush } from '../../src/webhooks/signature.ts';
import { closedPort, startReceiver, type Receiver } from './support/receiver.ts';

const delivery: PushDelivery = {
  id: 'del_01HZX',
  type: 'contact.created',
  createdAt: '2024-05-01T10:00:00.000Z',
  data: { contact_id: 'c_1', stage: 'new', first_source: 'form' },
};
const NOW = 1_714_557_600;

function options(url: string, extra: Partial<SendPushOptions> = {}): SendPushOptions {
  return { url, secret: 'whsec_first', delivery, timeoutMs: 5000, allowPrivate: true, nowSeconds: NOW, ...extra };
}

const receivers: Receiver[] = [];
async function receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
  const started = await startReceiver(...args);
  receivers.push(started);
  return started;
}

const test = suite('Webhook sender: pushes to a local receiver');
test.after.each(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

test('a 2xx answer is success, and the push carries the contract headers and a verifiable signature', async () => {
  const hook = await receiver((_push, res) => res.writeHead(204).end());
  const result = await sendPush(options(hook.url('/in?x=1')));
  assert.equal([result.ok, result.status, result.error], [true, 204, '']);
  const [push] = hook.received;
  assert.is(push.method, 'POST');
  assert.is(push.path, '/in?x=1');
  assert.equal(JSON.parse(push.body), { id: delivery.id, type: delivery.type, created_at: delivery.createdAt, data: delivery.data });
  assert.is(push.headers['content-type'], 'application/json');
  assert.match(push.headers['user-agent'] ?? '', /Webhooks/);
  assert.is(push.headers['x-service-event'], 'contact.created');
  assert.is(push.headers['x-service-delivery'], 'del_01HZX');
  assert.is(push.headers['x-service-timestamp'], String(NOW));
  assert.ok(verifyPush('whsec_first', push.headers, push.body, NOW + 10));
  assert.not.ok(verifyPush('whsec_other', push.headers, push.body, NOW + 10));
});

test('every attempt of a delivery has the same delivery id, its own timestamp and the current secret', async () => {
  const hook = await receiver((_push, res) => res.writeHead(200).end());
  await sendPush(options(hook.url()));
  await sendPush(options(hook.url(), { secret: 'whsec_rotated', nowSeconds: NOW + 60 }));
  const [first, retry] = hook.received;
  assert.is(retry.headers['x-service-delivery'], first.headers['x-service-delivery']);
  assert.is(retry.headers['x-service-timestamp'], String(NOW + 60));
  assert.is.not(retry.headers['x-service-signature'], first.headers['x-service-signature']);
  assert.ok(verifyPush('whsec_rotated', retry.headers, retry.body, NOW + 60));
  assert.not.ok(verifyPush('whsec_first', retry.headers, retry.body, NOW + 60));
});

test('a 500 answer is a failed attempt with its status', async () => {
  const hook = await receiver((_push, res) => res.writeHead(500).end('boom'));
  const result = await sendPush(options(hook.url()));
  assert.equal([result.ok, result.status, result.error], [false, 500, 'HTTP 500']);
});

test('a redirect is a failed attempt and its target is never requested', async () => {
  const target = await receiver((_push, res) => res.writeHead(200).end());
  const hook = await receiver((_push, res) => res.writeHead(302, { Location: target.url('/moved') }).end());
  const result = await sendPush(options(hook.url()));
  assert.equal([result.ok, result.status, result.error], [false, 302, 'redirect not followed']);
  assert.is(hook.received.length, 1);
  assert.is(target.connections(), 0);
});

test('a receiver that never answers times out with status 0', async () => {
  const hook = await receiver(() => {}); // holds every request open
  const result = await sendPush(options(hook.url(), { timeoutMs: 200 }));
  assert.equal([result.ok, result.status], [false, 0]);
  assert.is(result.error, 'timed out after 200 ms');
});

test('nothing listening is a failed attempt with status 0 and a short error', async () => {
  const result = await sendPush(options(`http://127.0.0.1:${await closedPort()}/hook`));
  assert.equal([result.ok, result.status, result.error], [false, 0, 'connection refused']);
});

test('pooled agents reuse one keep-alive connection for successive pushes', async () => {
  const hook = await receiver((_push, res) => res.writeHead(200).end('ok'));
  const agents = createSenderAgents();
  try {
    for (let i = 0; i < 3; i++) assert.ok((await sendPush(options(hook.url(), { agents }))).ok);
  } finally {
    closeSenderAgents(agents);
  }
  assert.is(hook.received.length, 3);
  assert.is(hook.connections(), 1);
});

test('the pool is bounded: the least recently used agent is retired and its idle connection closed', async () => {
  const a = await receiver((_push, res) => res.writeHead(200).end());
  const b = await receiver((_push, res) => res.writeHead(200).end());
  const agents = createSenderAgents({ maxAgents: 1 });
  try {
    for (const hook of [a, b, a]) assert.ok((await sendPush(options(hook.url(), { agents }))).ok);
    assert.is(agents.pool.size, 1);
  } finally {
    closeSenderAgents(agents);
  }
  assert.equal([a.connections(), b.connections()], [2, 1]);
});

test('a pooled connection the receiver dropped is retried once on a new connection', async () => {
  const hook = await receiver((push, res) => {
    if (push.onConnection === 2) res.socket?.destroy(); // as a server closing an idle keep-alive socket
    else res.writeHead(200).end();
  });
  const agents = createSenderAgents();
  try {
    assert.ok((await sendPush(options(hook.url(), { agents }))).ok);
    const second = await sendPush(options(hook.url(), { agents }));
    assert.equal([second.ok, second.status], [true, 200]);
  } finally {
    closeSenderAgents(agents);
  }
  assert.is(hook.connections(), 2);
});

test('a long answer is not read to its end: the push succeeds and the sender drops the connection', async () => {
  let answer: Promise<'finished' | 'cut off'> | undefined;
  const hook = await receiver((_push, res) => {
    answer = streamAnswer(res, 64 << 20);
  });
  const agents = createSenderAgents();
  try {
    const result = await sendPush(options(hook.url(), { agents }));
    assert.equal([result.ok, result.status], [true, 200]);
    assert.is(await answer, 'cut off');
  } finally {
    closeSenderAgents(agents);
  }
});

/** Write a 200 answer of `total` bytes as fast as the client reads it; how it ended. */
function streamAnswer(res: ServerResponse, total: number): Promise<'finished' | 'cut off'> {
  return new Promise((resolve) => {
    const chunk = Buffer.alloc(1 << 16, 'x');
    let sent = 0;
    res.on('close', () => resolve(res.writableFinished ? 'finished' : 'cut off'));
    res.writeHead(200, { 'Content-Length': String(total) });
    const pump = () => {
      while (sent < total) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  });
}

test('after the agents are closed a push fails instead of opening connections', async () => {
  const hook = await receiver((_push, res) => res.writeHead(200).end());
  const agents = createSenderAgents();
  closeSenderAgents(agents);
  const result = await sendPush(options(hook.url(), { agents }));
  assert.equal([result.ok, result.status, result.error], [false, 0, 'the webhook sender is shut down']);
  assert.is(hook.connections(), 0);
});

test.run();
