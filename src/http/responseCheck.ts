// Test-only check that each successful answer is what its route declares (and so what the OpenAPI document
// publishes): the body parses with the success schema, and no object in it carries a field the schema does not name.
// Never on in production: createApp checks only when given a mismatch callback, which only the test harness passes.
import { z } from 'zod';
import { ApiError } from '../../commands/shared/errors.ts';
import { parseRawBody, type RouteDef, type RouteResult } from './route.ts';

export interface ResponseMismatch {
  /** The route as declared, e.g. 'GET /contacts/:id'. */
  route: string;
  /** The path asked for, with its query string. */
  path: string;
  status: number;
  /** What differed: each zod issue as "field.path: message", or the status or body that was not declared. */
  issues: string[];
}

export type OnResponseMismatch = (mismatch: ResponseMismatch) => void;

type Schema = z.core.$ZodType;

/** The same schema with every object strict (unknown keys refused), at every level. Shared schemas are converted once. */
const strictForms = new WeakMap<Schema, Schema>();

export function strictSchema(schema: Schema): Schema {
  const known = strictForms.get(schema);
  if (known) return known;
  const made = makeStrict(schema);
  strictForms.set(schema, made);
  return made;
}

function withDef(schema: Schema, changes: Record<string, unknown>): Schema {
  // mergeDefs keeps the def's lazy getters (an object's shape) that a spread would evaluate or lose.
  return z.core.clone(schema, z.core.util.mergeDefs(schema._zod.def, changes) as typeof schema._zod.def);
}

const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'nonoptional', 'readonly', 'catch', 'success']);
const LEAVES = new Set([
  'string', 'number', 'int', 'boolean', 'bigint', 'symbol', 'null', 'undefined', 'void', 'never', 'any', 'unknown',
  'date', 'enum', 'literal', 'nan', 'template_literal', 'transform', 'custom',
]);

function makeStrict(schema: Schema): Schema {
  const def = schema._zod.def as z.core.$ZodTypeDef & Record<string, any>;
  if (LEAVES.has(def.type)) return schema;
  if (WRAPPERS.has(def.type)) return withDef(schema, { innerType: strictSchema(def.innerType) });
  switch (def.type) {
    case 'object': {
      const shape = Object.fromEntries(Object.entries(def.shape as Record<string, Schema>).map(([key, field]) => [key, strictSchema(field)]));
      // A declared catchall (a loose object, a record-like object) names what extra keys may be: kept.
      return withDef(schema, { shape, catchall: def.catchall ? strictSchema(def.catchall) : z.never() });
    }
    case 'array': return withDef(schema, { element: strictSchema(def.element) });
    case 'union': return withDef(schema, { options: (def.options as Schema[]).map(strictSchema) });
    case 'record': return withDef(schema, { valueType: strictSchema(def.valueType) });
    case 'tuple': return withDef(schema, { items: (def.items as Schema[]).map(strictSchema), rest: def.rest ? strictSchema(def.rest) : null });
    case 'pipe': return withDef(schema, { in: strictSchema(def.in), out: strictSchema(def.out) });
    case 'lazy': return withDef(schema, { getter: () => strictSchema(def.getter()) });
    default:
      // An intersection of strict objects refuses each side's keys; any other kind is unknown here. Both are
      // said at start, not guessed at: the check must not pass for want of understanding a schema.
      throw new Error(`response check: no strict form for a zod ${def.type} schema`);
  }
}

/** The route's label in mismatch reports. */
export const routeLabel = (route: RouteDef) => `${route.method.toUpperCase()} ${route.path}`;

/**
 * What is wrong with a successful answer of `route`, or null: `body` is the JSON sent (or undefined for none).
 * A 2xx other than the declared one is a mismatch too, since the document publishes that one alone.
 */
export function responseIssues(route: RouteDef, status: number, body: unknown): string[] | null {
  const { success } = route;
  if (status !== success.status) return [`status ${status}, but the route declares ${success.status}`];
  if (!success.schema) return body === undefined ? null : ['a body, but the route declares none'];
  if (body === undefined) return ['no body, but the route declares one'];
  const result = z.safeParse(strictSchema(success.schema), body);
  if (result.success) return null;
  return result.error.issues.map((issue) => {
    const where = issue.path.map(String).join('.') || '(body)';
    return `${where}: ${issue.message}`;
  });
}

/** The body as the client receives it: the JSON text sent, read back (Dates as strings, undefined fields gone). */
function sentBody(result: RouteResult): unknown {
  if (result.rawBody !== undefined) return parseRawBody(result.rawBody);
  return result.body === undefined ? undefined : JSON.parse(JSON.stringify(result.body));
}

/**
 * Reports a successful answer that differs from its declaration and throws, so that it is answered 500 (with
 * the mismatch in its details, for the test that caused it) instead of the undeclared body.
 */
export function checkAnswer(route: RouteDef, path: string, result: RouteResult, report: OnResponseMismatch): void {
  if (result.status < 200 || result.status > 299) return;
  const issues = responseIssues(route, result.status, sentBody(result));
  if (!issues) return;
  const mismatch = { route: routeLabel(route), path, status: result.status, issues };
  report(mismatch);
  throw new ApiError('internal_error', { response_mismatch: mismatch });
}
