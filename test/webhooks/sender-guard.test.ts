import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { closeSenderAgents, createSenderAgents } from '../../src/webhooks/agents.ts';
import { sendPush, type SendPushOptions } from '../../src/webhooks/sender.ts';
import { scriptedLookup, startReceiver, TEST_CERT, type Receiver } from './support/receiver.ts';

const REFUSED = ['10.0.0.1', '127.0.0.1', '169.254.169.254', '100.64.0.1', '::1', 'fe80::1', 'fc00::1', '::ffff:127.0.0.1', '::ffff:7f00:1'];

function options(url: string, extra: Partial<SendPushOptions> = {}): SendPushOptions {
  const delivery = { id: 'del_1', type: 'ping', createdAt: '2024-05-01T10:00:00.000Z', data: { webhook_id: 'wh_1' } };
  return { url, secret: 'whsec_x', delivery, timeoutMs: 2000, allowPrivate: false, nowSeconds: 1_714_557_600, ...extra };
}

const literal = (ip: string) => (ip.includes(':') ? `[${ip}]` : ip);

const guard = suite<{ local: Receiver }>('Webhook sender: without WEBHOOK_ALLOW_PRIVATE');
// Listens on every loopback address (IPv4 and IPv6), so any connection that slipped through would show.
guard.before(async (ctx) => {
  ctx.local = await startReceiver((_push, res) => res.writeHead(200).end(), { host: '::' });
});
guard.after(async ({ local }) => local.close());

guard('an address literal of every refused class is refused before any connection', async ({ local }) => {
  for (const ip of REFUSED) {
    const { lookup, calls } = scriptedLookup(['8.8.8.8']);
    const result = await sendPush(options(`https://${literal(ip)}:${local.port}/hook`, { lookup }));
    assert.equal([result.ok, result.status], [false, 0], ip);
    assert.match(result.error, /^refused: url must not point to a .* address$/, ip);
    assert.is(calls.length, 0, ip);
  }
  assert.is(local.connections(), 0);
});

guard('a name resolving to an address of every refused class is refused before any connection', async ({ local }) => {
  for (const ip of REFUSED) {
    const { lookup, calls } = scriptedLookup([ip]);
    const result = await sendPush(options(`https://hooks.example.com:${local.port}/hook`, { lookup }));
    assert.equal([result.ok, result.status], [false, 0], ip);
    assert.match(result.error, /^refused: hooks\.example\.com resolves to an? .* address$/, ip);
    assert.equal(calls, ['hooks.example.com'], ip);
  }
  assert.is(local.connections(), 0);
});

guard('a name with one private answer among public ones is refused', async ({ local }) => {
  const { lookup } = scriptedLookup(['8.8.8.8', '2606:4700::1111', '127.0.0.1']);
  const result = await sendPush(options(`https://hooks.example.com:${local.port}/hook`, { lookup }));
  assert.is(result.error, 'refused: hooks.example.com resolves to a loopback address');
  assert.is(local.connections(), 0);
});

guard('a rebinding name is resolved once: a later private answer is never used', async ({ local }) => {
  // Public first (unreachable here, so the attempt fails), loopback on any later lookup.
  const { lookup, calls } = scriptedLookup(['1.0.0.1'], ['127.0.0.1']);
  const result = await sendPush(options(`https://rebind.example.com:${local.port}/hook`, { lookup, timeoutMs: 500 }));
  assert.equal([result.ok, result.status], [false, 0]);
  assert.is(calls.length, 1);
  assert.is(local.connections(), 0);
});

guard('plain http, credentials and local names are refused without resolving', async ({ local }) => {
  const cases: Array<[string, string]> = [
    [`http://hooks.example.com:${local.port}/`, 'refused: url must use https'],
    [`https://u:p@hooks.example.com:${local.port}/`, 'refused: url must not contain credentials'],
    [`https://localhost:${local.port}/`, 'refused: url must not point to a local host name'],
    [`https://metadata.google.internal/computeMetadata/v1/`, 'refused: url must not point to a local host name'],
  ];
  for (const [url, error] of cases) {
    const { lookup, calls } = scriptedLookup(['127.0.0.1']);
    const result = await sendPush(options(url, { lookup }));
    assert.equal([result.ok, result.status, result.error], [false, 0, error], url);
    assert.is(calls.length, 0, url);
  }
  assert.is(local.connections(), 0);
});

guard('a failed lookup is a failed attempt with a short error', async () => {
  const lookup = async () => {
    throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.example.com'), { code: 'ENOTFOUND' });
  };
  const result = await sendPush(options('https://nowhere.example.com/hook', { lookup }));
  assert.equal([result.ok, result.status, result.error], [false, 0, 'host not found']);
});

guard.run();

const pinned = suite<{ first: Receiver; second: Receiver }>('Webhook sender: connects to the address it checked');
// Two receivers on the same port of two loopback addresses: a second lookup would land on the second one.
pinned.before(async (ctx) => {
  ctx.first = await startReceiver((_push, res) => res.writeHead(200).end(), { host: '127.0.0.1', tls: true });
  ctx.second = await startReceiver((_push, res) => res.writeHead(200).end(), { host: '127.0.0.2', port: ctx.first.port, tls: true });
});
pinned.after(async ({ first, second }) => {
  await Promise.all([first.close(), second.close()]);
});

pinned('https keeps the host name for SNI, certificate and Host while connecting to the checked address', async ({ first, second }) => {
  const agents = createSenderAgents({ ca: TEST_CERT });
  try {
    for (let i = 0; i < 2; i++) {
      const { lookup, calls } = scriptedLookup(['127.0.0.1'], ['127.0.0.2']);
      const result = await sendPush(options(`https://hooks.test:${first.port}/hook`, { lookup, agents, allowPrivate: true }));
      assert.equal([result.ok, result.status, result.error], [true, 200, '']);
      assert.is(calls.length, 1);
    }
  } finally {
    closeSenderAgents(agents);
  }
  assert.equal(first.received.map((p) => [p.servername, p.headers.host]), [['hooks.test', `hooks.test:${first.port}`], ['hooks.test', `hooks.test:${first.port}`]]);
  assert.is(second.connections(), 0);
});

pinned('a certificate for another name fails the attempt', async ({ second }) => {
  const agents = createSenderAgents({ ca: TEST_CERT });
  const { lookup } = scriptedLookup(['127.0.0.2']);
  try {
    const result = await sendPush(options(`https://other.test:${second.port}/hook`, { lookup, agents, allowPrivate: true }));
    assert.equal([result.ok, result.status, result.error], [false, 0, 'tls certificate error (ERR_TLS_CERT_ALTNAME_INVALID)']);
  } finally {
    closeSenderAgents(agents);
  }
  assert.is(second.received.length, 0);
});

pinned('without a pool the attempt also connects to the checked address', async ({ first, second }) => {
  const { lookup, calls } = scriptedLookup(['127.0.0.2'], ['127.0.0.1']);
  const before = [first.connections(), second.connections()];
  const url = `https://hooks.test:${first.port}/hook`;
  const result = await sendPush(options(url, { lookup, allowPrivate: true }));
  // No pool means no extra CA: the self-signed certificate is refused, but only after reaching 127.0.0.2.
  assert.equal([result.ok, result.status], [false, 0]);
  assert.match(result.error, /^tls certificate error/);
  assert.is(calls.length, 1);
  assert.equal([first.connections(), second.connections()], [before[0], before[1] + 1]);
});

pinned.run();

const allowed = suite<{ local: Receiver }>('Webhook sender: WEBHOOK_ALLOW_PRIVATE opens loopback receivers only');
allowed.before(async (ctx) => { ctx.local = await startReceiver((_push, res) => res.writeHead(200).end()); });
allowed.after(async (ctx) => { await ctx.local.close(); });

allowed('a name resolving to loopback is sent to; one resolving to a private, link-local or metadata address is refused', async ({ local }) => {
  const sent = await sendPush(options(`http://hooks.localhost:${local.port}/hook`, { lookup: scriptedLookup(['127.0.0.1']).lookup, allowPrivate: true }));
  assert.equal([sent.ok, sent.status], [true, 200]);
  for (const [ip, cls] of [['10.1.2.3', 'private'], ['169.254.1.1', 'link-local'], ['169.254.169.254', 'cloud metadata']]) {
    const result = await sendPush(options(`https://hooks.example.com:${local.port}/hook`, { lookup: scriptedLookup([ip]).lookup, allowPrivate: true }));
    assert.equal([result.ok, result.status, result.error], [false, 0, `refused: hooks.example.com resolves to a ${cls} address`], ip);
  }
  assert.is(local.received.length, 1);
});

allowed('a name answering ::1 first reaches a receiver on 127.0.0.1 only: every checked address is tried, none other', async ({ local }) => {
  // localhost in a container whose /etc/hosts lists ::1 too: glibc sorts ::1 first, and the receiver listens on IPv4.
  const agents = createSenderAgents();
  try {
    for (const pool of [undefined, agents, agents]) {
      const { lookup, calls } = scriptedLookup(['::1', '127.0.0.1'], ['127.0.0.2']);
      const result = await sendPush(options(`http://localhost:${local.port}/hook`, { lookup, agents: pool, allowPrivate: true }));
      assert.equal([result.ok, result.status, result.error], [true, 200, '']);
      assert.is(calls.length, 1);
    }
  } finally {
    closeSenderAgents(agents);
  }
  assert.is(local.received.length, 4);
});

allowed.run();
