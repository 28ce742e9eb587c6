// The route table entry: one declaration registers the Express handler, validates params, query and
// body with zod (strict: unknown fields are refused), shapes the response and feeds the OpenAPI document.
import type { z } from 'zod';
import type { Services } from '../services.ts';
import type { EventMetadata } from '../eventstore/port.ts';
import type { ErrorCode } from '../../commands/shared/errors.ts';
import type { Scope } from '../../commands/shared/scopes.ts';

export type { Scope };
import type { Language } from './messages.ts';


/** The authenticated caller: an API key of one organisation. */
export interface Caller {
  organizationId: string;
  keyId: string;
  scopes: readonly Scope[];
  /** Effective scopes: a :write scope includes :read of its area; leads:answers includes leads:read. */
  has(scope: Scope): boolean;
  /** Settings of the organisation, fixed when it is created (so cached with the key). */
  organization: { timezone: string; phoneCountryCode: string };
  /** What GET /me shows of the key, read (and cached) with it at authentication. */
  description: { organizationName: string; name: string; prefix: string; expiresAt: string | null };
}

export interface RequestContext<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  caller: Caller;
  services: Services;
  requestId: string;
  language: Language;
  /** Metadata for events this request appends: organisation, correlation id (request id), actor (the key). */
  metadata: EventMetadata;
  /** Raw header lookup (lower-case name). */
  header(name: string): string | undefined;
}

export interface RouteResult {
  status: number;
  body?: unknown;
  /**
   * The body already serialised as JSON text (instead of `body`): answered as it is, with the same
   * Content-Type as `body`, so a list built from JSON kept in the read model is not parsed and written again.
   * In parts, it is written part after part (a list's page is not copied into one string first).
   */
  rawBody?: string | readonly string[];
  headers?: Record<string, string>;
}

/** A `rawBody` read back as the value it serialises (for what inspects an answer rather than sends it). */
export function parseRawBody(raw: string | readonly string[]): unknown {
  return JSON.parse(typeof raw === 'string' ? raw : raw.join(''));
}

export interface RouteDef<
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
> {
  method: 'get' | 'post' | 'patch' | 'delete';
  /** Express path relative to /v1, e.g. '/contacts/:id'. */
  path: string;
  /** Required scope; null for routes any valid key may call (GET /me). */
  scope: Scope | null;
  summary: string;
  tag: string;
  params?: P;
  query?: Q;
  body?: B;
  /** Success status and its response schema (null for 204). */
  success: { status: number; schema: z.ZodType | null; description: string };
  /** Error codes beyond the ones every route can answer (400, 401, 403, 429, 500). */
  errors: readonly ErrorCode[];
  /**
   * A list read for incremental sync (updated_since): the resource (first path segment, e.g. '/contacts') whose writes
   * it shows. It waits first for the organisation's writes of that resource already under way, so a change it does not
   * show is stamped after the list began (src/http/writesInFlight.ts).
   */
  afterWrites?: string;
  handler(ctx: RequestContext<z.infer<P>, z.infer<Q>, z.infer<B>>): Promise<RouteResult>;
}

/** Identity function that keeps the three schema types linked to the handler's parameters. */
export function defineRoute<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType>(route: RouteDef<P, Q, B>): RouteDef {
  return route as unknown as RouteDef;
}
