// Helpers of the webhook tests: subscribe a local receiver, wait for pushes, read the queue, verify signatures.
import * as assert from 'uvu/assert';
import type { TestOrg, TestServer } from '../../support/server.ts';
import type { ReceivedPush } from './receiver.ts';
import { verifyPush } from '../../../src/webhooks/signature.ts';
import { eventually } from '../../support/eventually.ts';

export const ALL_TYPES = ['contact.created', 'contact.stage_changed', 'lead.created', 'delivery.failed'];

export async function subscribe(server: TestServer, org: TestOrg, url: string, events: string[] = ALL_TYPES, description?: string) {
  const res = await server.request('POST', '/webhooks', { key: org.key, body: { url, events, ...(description === undefined ? {} : { description }) } });
  assert.is(res.status, 201, JSON.stringify(res.body));
  return res.body as { id: string; secret: string; url: string; events: string[]; active: boolean };
}

export async function queued(server: TestServer, organizationId: string): Promise<number> {
  const { rows } = await server.services.pool.query<{ n: string }>('SELECT count(*) AS n FROM webhook_queue WHERE organization_id = $1', [organizationId]);
  return Number(rows[0].n);
}

/** Every projector has passed the newest committed event (the test server's settle). */
export const settled = (server: TestServer): Promise<void> => server.settle();

/** Every projector has passed the store's head and nothing of the organisation is queued or in flight. */
export async function drained(server: TestServer, organizationId: string): Promise<void> {
  await settled(server);
  await eventually('the queue to drain', async () => (await queued(server, organizationId)) === 0);
}

export function pushesTo(received: ReceivedPush[], path: string): ReceivedPush[] {
  return received.filter((p) => p.path === path);
}

export function bodyOf(push: ReceivedPush): { id: string; type: string; created_at: string; data: Record<string, unknown> } {
  return JSON.parse(push.body);
}

/** The receiver's check, as the README shows it, at the time the push came. */
export function verifies(push: ReceivedPush, secret: string): boolean {
  return verifyPush(secret, push.headers, push.body, Math.floor(Date.now() / 1000));
}

let seq = 0;
/** A phone no other test of the run uses. */
export const freshPhone = () => `+4851${String(1_000_000 + ++seq + Math.floor(Math.random() * 1000) * 1000).slice(-7)}`;

export async function newContact(server: TestServer, org: TestOrg): Promise<string> {
  const res = await server.request('POST', '/contacts', { key: org.key, body: { name: 'Hook Test', phone: freshPhone() } });
  assert.is(res.status, 201, JSON.stringify(res.body));
  return res.body.id as string;
}
