import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { deliverLeadgen, leadgenWebhookBody, signLeadgenPayload } from '../../ops/sandbox/leadgen.ts';
import { sandboxContext, type SandboxContext } from './helpers.ts';

const test = suite<SandboxContext>('Sandbox leadgen webhook: body and X-Hub-Signature-256');
test.before((ctx) => sandboxContext(ctx));
test.after(({ sandbox }) => sandbox.stop());

test('the signature is sha256= and the hex HMAC-SHA256 of the raw body (RFC 4231 case 2)', () => {
  assert.is(signLeadgenPayload('Jefe', 'what do ya want for nothing?'), 'sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
});

test('the body has the platform shape, with the ad named when there is one', () => {
  assert.equal(leadgenWebhookBody({ pageId: 'p1', formId: 'f1', leadId: 'l1', createdTime: 1740824430, adId: 'a1' }), {
    object: 'page',
    entry: [
      {
        id: 'p1',
        time: 1740824430,
        changes: [{ field: 'leadgen', value: { leadgen_id: 'l1', page_id: 'p1', form_id: 'f1', created_time: 1740824430, ad_id: 'a1', adgroup_id: 'a1' } }],
      },
    ],
  });
  const organic = leadgenWebhookBody({ pageId: 'p1', formId: 'f1', leadId: 'l2', createdTime: '2025-03-01T10:20:30Z' });
  assert.equal(organic.entry[0].changes[0].value, { leadgen_id: 'l2', page_id: 'p1', form_id: 'f1', created_time: 1740824430 });
});

test('the sandbox delivers a signed notice to a subscriber over /__sandbox/leadgen/deliver', async ({ sandbox }) => {
  const seen: { signature?: string; raw: string } = { raw: '' };
  const receiver = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      seen.signature = req.headers['x-hub-signature-256'] as string | undefined;
      seen.raw = raw;
      res.writeHead(200).end('EVENT_RECEIVED');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks/platform`;
  const res = await fetch(`${sandbox.url}/__sandbox/leadgen/deliver`, {
    method: 'POST',
    body: JSON.stringify({ url, appSecret: 's3cret', pageId: 'p1', formId: 'f1', leadId: 'l9', createdTime: 1740824430 }),
  });
  receiver.close();
  assert.equal(await res.json(), { status: 200, body: 'EVENT_RECEIVED' });
  assert.is(seen.signature, `sha256=${createHmac('sha256', 's3cret').update(seen.raw).digest('hex')}`);
  assert.is(JSON.parse(seen.raw).entry[0].changes[0].value.leadgen_id, 'l9');
  const direct = await deliverLeadgen(`${sandbox.url}/nowhere`, 's', { pageId: 'p', formId: 'f', leadId: 'l', createdTime: 1 });
  assert.is(direct.status, 400);
});

test.run();
