// Proof that one organisation's data is invisible to another: a fresh organisation (all scopes unless
// told otherwise) asks for the same endpoint and must see nothing - 404 not_found for a record, an empty
// list, no trace of the owner's values in the answer, and, for writes, no change to the owner's record.
import * as assert from 'uvu/assert';
import type { Reply, TestServer } from './server.ts';

export type Expectation = 'not_found' | 'empty_list' | ((reply: Reply) => void);

export interface InvisibleCheck {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path under /v1, with the owner's ids in it. */
  path: string;
  body?: unknown;
  /** Scopes of the other organisation's key; every scope by default. */
  scopes?: string[];
  /**
   * What the other organisation must get. By default: an empty list when a GET answers a list
   * envelope, else 404 not_found.
   */
  expect?: Expectation;
  /** Values of the owner's data (ids, names, e-mails) that must not appear anywhere in the answer. */
  secrets?: string[];
  /** A read of the owner's record with the owner's key: identical before and after the other's request. */
  unchanged?: { key: string; path: string };
}

function check(reply: Reply, expect: Expectation | undefined, method: string): void {
  const label = `${method}: ${reply.status} ${JSON.stringify(reply.body)?.slice(0, 300)}`;
  if (typeof expect === 'function') return expect(reply);
  const isList = reply.status === 200 && Array.isArray(reply.body?.data);
  if (expect === 'empty_list' || (expect === undefined && method === 'GET' && isList)) {
    assert.is(reply.status, 200, label);
    assert.equal(reply.body.data, [], label);
    assert.is(reply.body.has_more, false, label);
    return;
  }
  assert.is(reply.status, 404, label);
  assert.is(reply.body?.error?.code, 'not_found', label);
}

/** The test server, or anything that makes organisations and sends requests like it. */
export type OrgServer = Pick<TestServer, 'newOrganization' | 'request' | 'settle'>;

export async function assertInvisibleToOtherOrg(server: OrgServer, options: InvisibleCheck): Promise<void> {
  const stranger = await server.newOrganization({ name: 'Other organisation', scopes: options.scopes });
  const before = options.unchanged ? await server.request('GET', options.unchanged.path, { key: options.unchanged.key }) : null;
  const reply = await server.request(options.method, options.path, { key: stranger.key, body: options.body });
  check(reply, options.expect, options.method);
  const text = JSON.stringify(reply.body ?? '');
  for (const secret of options.secrets ?? []) assert.not.ok(text.includes(secret), `the answer shows "${secret}"`);
  if (options.unchanged && before) {
    await server.settle();
    const after = await server.request('GET', options.unchanged.path, { key: options.unchanged.key });
    assert.is(after.status, before.status);
    assert.equal(after.body, before.body, 'the other organisation changed the owner\'s record');
  }
}
