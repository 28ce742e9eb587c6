// Routes that exist only in tests: a POST whose calls are counted, one that waits until released, ones
// that fail, and two lists over a small table of their own, all declared like real routes.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ApiError, notFound } from '../../../commands/shared/errors.ts';
import { defineRoute, type RouteDef } from '../../../src/http/route.ts';
import { closePage, keyset, listEnvelope, listQuery, openPage } from '../../../src/http/pagination.ts';
import type { Queryable } from '../../../src/db/pool.ts';

export interface Probe {
  calls: Record<string, number>;
  /** Resolves when the slow route has started (after its Idempotency-Key claim). */
  entered: Promise<void>;
  /** Lets the slow route finish. */
  release(): void;
}

export function newProbe(): Probe & { enter(): void; released: Promise<void> } {
  let enter!: () => void;
  let release!: () => void;
  const entered = new Promise<void>((resolve) => { enter = resolve; });
  const released = new Promise<void>((resolve) => { release = resolve; });
  return { calls: {}, entered, enter, released, release };
}

const count = (probe: Probe, name: string) => { probe.calls[name] = (probe.calls[name] ?? 0) + 1; return probe.calls[name]; };

const Item = z.object({ id: z.string(), name: z.string(), updated_at: z.iso.datetime() }).meta({ id: 'TestItem' });
const Echo = z.object({ name: z.string().min(1).max(50), size: z.number().int().min(0).optional() }).strict();
const EchoAnswer = z.object({ id: z.string(), name: z.string(), call: z.number() });

export async function createItemsTable(db: Queryable): Promise<void> {
  await db.query(`CREATE TABLE IF NOT EXISTS test_items (
    organization_id text NOT NULL, id text NOT NULL, name text NOT NULL, updated_at timestamptz NOT NULL,
    PRIMARY KEY (organization_id, id))`);
}

function itemList(list: string, path: string) {
  return defineRoute({
    method: 'get', path, scope: 'contacts:read', summary: `Test list ${list}`, tag: 'Test',
    query: listQuery({ name: z.string().optional() }),
    success: { status: 200, schema: listEnvelope(Item), description: 'Items' },
    errors: [],
    handler: async ({ query, caller, services }) => {
      const page = openPage(query, { list, organizationId: caller.organizationId }, services.secrets.cursorKey);
      const filter = query.name ?? null;
      const ks = keyset(page, 3);
      const { rows } = await services.pool.query<{ id: string; name: string; updated_at: Date }>(
        `SELECT id, name, updated_at FROM test_items
         WHERE organization_id = $1 AND ($2::text IS NULL OR name = $2) AND ${ks.where}
         ORDER BY ${ks.orderBy} LIMIT ${ks.limit}`,
        [caller.organizationId, filter, ...ks.params],
      );
      const at = (r: { updated_at: Date }) => r.updated_at.toISOString();
      return { status: 200, body: closePage(rows, page, services.secrets.cursorKey, (r) => ({ updatedAt: at(r), id: r.id }), (r) => ({ id: r.id, name: r.name, updated_at: at(r) })) };
    },
  });
}

export function testRoutes(probe: Probe & { enter(): void; released: Promise<void> }): RouteDef[] {
  return [
    defineRoute({
      method: 'post', path: '/test/echo', scope: 'contacts:write', summary: 'Counted echo', tag: 'Test',
      body: Echo, success: { status: 201, schema: EchoAnswer, description: 'Echo' }, errors: [],
      handler: async ({ body }) => {
        const id = randomUUID();
        return { status: 201, body: { id, name: body.name, call: count(probe, 'echo') }, headers: { Location: `/v1/test/echo/${id}` } };
      },
    }),
    defineRoute({
      method: 'post', path: '/test/slow', scope: null, summary: 'Waits until released', tag: 'Test',
      body: Echo, success: { status: 201, schema: EchoAnswer, description: 'Done' }, errors: [],
      handler: async ({ body }) => {
        const call = count(probe, 'slow');
        probe.enter();
        await probe.released;
        return { status: 201, body: { id: randomUUID(), name: body.name, call } };
      },
    }),
    defineRoute({
      method: 'post', path: '/test/fail', scope: null, summary: 'Fails unexpectedly', tag: 'Test',
      success: { status: 201, schema: EchoAnswer, description: 'Never' }, errors: [],
      handler: async () => { count(probe, 'fail'); throw new Error('secret cause: connection to 10.0.0.7 refused'); },
    }),
    defineRoute({
      method: 'post', path: '/test/busy', scope: null, summary: 'Answers 429 itself', tag: 'Test',
      success: { status: 201, schema: EchoAnswer, description: 'Never' }, errors: [],
      handler: async () => { count(probe, 'busy'); throw new ApiError('rate_limited'); },
    }),
    defineRoute({
      method: 'post', path: '/test/items/:id/rename', scope: 'contacts:write', summary: 'Rename an item', tag: 'Test',
      params: z.object({ id: z.string() }), body: z.object({ name: z.string() }).strict(),
      success: { status: 204, schema: null, description: 'Renamed' }, errors: ['not_found'],
      handler: async ({ params, body, caller, services }) => {
        const { rowCount } = await services.pool.query("UPDATE test_items SET name = $3, updated_at = date_trunc('milliseconds', now()) WHERE organization_id = $1 AND id = $2", [caller.organizationId, params.id, body.name]);
        if (!rowCount) throw notFound('item');
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'get', path: '/test/items/:id', scope: 'contacts:read', summary: 'One item', tag: 'Test',
      params: z.object({ id: z.string() }), query: z.object({}).strict(),
      success: { status: 200, schema: Item, description: 'Item' }, errors: ['not_found'],
      handler: async ({ params, caller, services }) => {
        const { rows } = await services.pool.query<{ id: string; name: string; updated_at: Date }>('SELECT id, name, updated_at FROM test_items WHERE organization_id = $1 AND id = $2', [caller.organizationId, params.id]);
        if (!rows[0]) throw notFound('item');
        return { status: 200, body: { ...rows[0], updated_at: rows[0].updated_at.toISOString() } };
      },
    }),
    itemList('test-items', '/test/items'),
    itemList('test-others', '/test/others'),
    defineRoute({
      method: 'get', path: '/test/leads-only', scope: 'leads:read', summary: 'Needs leads:read', tag: 'Test',
      query: z.object({}).strict(), success: { status: 200, schema: z.object({ ok: z.boolean() }), description: 'ok' }, errors: [],
      handler: async () => ({ status: 200, body: { ok: true } }),
    }),
  ];
}
