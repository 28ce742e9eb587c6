// The OpenAPI 3.1 document, generated from the route table: the same zod schemas that validate requests
// and shape responses, every error answer with its codes, the bearer scheme and each route's scope.
import { ERROR_STATUS, type ErrorCode } from '../../commands/shared/errors.ts';
import { ErrorBody } from './render.ts';
import { isOptional, objectShape, SchemaCollector, type JsonSchema } from './openapi-schemas.ts';
import { webhookPushes } from './openapi-webhooks.ts';
import type { RouteDef } from './route.ts';

const ALWAYS: ErrorCode[] = ['invalid_json', 'validation_error', 'unauthorized', 'key_revoked', 'key_expired', 'insufficient_scope', 'rate_limited', 'internal_error'];
const EXCHANGE_HEADERS = ['X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];
/**
 * Error statuses of a POST that a repeat with the same Idempotency-Key replays (with Idempotent-Replayed): those
 * answered after the key is claimed (a bad field, an unknown id, a conflict). 401, 403, 413 and invalid JSON come
 * before the claim, 422 and 409 idempotency_in_progress are the key's own answers, 429 and 5xx are never stored.
 */
const REPLAYED_ERROR_STATUSES = [400, 404, 409];

/** Express '/contacts/:id' -> OpenAPI '/contacts/{id}'. */
export const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');
const pathParams = (path: string) => [...path.matchAll(/:(\w+)/g)].map((m) => m[1]);

/** Every error code a route can answer: the common ones, the ones its shape implies, and its own. */
export function errorCodesOf(route: RouteDef): ErrorCode[] {
  const codes = new Set<ErrorCode>(ALWAYS);
  if ('cursor' in objectShape(route.query)) codes.add('invalid_cursor');
  if (pathParams(route.path).length) codes.add('not_found');
  // The body parser reads a body on every route (a GET's or a DELETE's too, as the spec's "413 on requests with bodies"
  // has it) but the POSTs that take none, whose oversized body is invalid_json (register.ts: noBodyParser).
  if (route.body || route.method !== 'post') codes.add('payload_too_large');
  if (route.method === 'post') {
    codes.add('idempotency_in_progress');
    codes.add('idempotency_key_reused');
    // The repeat of a request whose process died after its change, before its answer (src/http/idempotency.ts).
    codes.add('conflict');
  }
  for (const code of route.errors) codes.add(code);
  return [...codes];
}

function operationId(route: RouteDef): string {
  const words = route.path.split('/').filter(Boolean).map((part) => {
    const name = part.startsWith(':') ? `By-${part.slice(1)}` : part;
    return name.split(/[^A-Za-z0-9]+/).filter(Boolean).map((w) => w[0].toUpperCase() + w.slice(1)).join('');
  });
  return route.method + words.join('');
}

function headerRefs(names: string[]): Record<string, { $ref: string }> {
  return Object.fromEntries(names.map((n) => [n, { $ref: `#/components/headers/${n}` }]));
}

function errorResponses(route: RouteDef): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(route)) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  const responses: Record<string, unknown> = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const replayed = route.method === 'post' && REPLAYED_ERROR_STATUSES.includes(status);
    responses[String(status)] = errorResponse(status, codes, replayed ? ['Idempotent-Replayed'] : []);
  }
  return responses;
}

/** One error status: the Error body narrowed to its codes, the exchange headers and any the status adds. */
function errorResponse(status: number, codes: ErrorCode[], moreHeaders: string[] = []): Record<string, unknown> {
  const schema = {
    allOf: [{ $ref: '#/components/schemas/Error' }, { properties: { error: { properties: { code: { enum: codes } } } } }],
  };
  const headers = headerRefs([...EXCHANGE_HEADERS, ...(status === 429 ? ['Retry-After'] : []), ...(status === 401 ? ['WWW-Authenticate'] : []), ...moreHeaders]);
  return { description: `Error codes: ${codes.join(', ')}`, headers, content: { 'application/json': { schema } } };
}

/**
 * GET /openapi.json itself: no key, but counted per client address like every request without one, so it
 * carries the rate-limit headers and may be 429.
 */
const documentOperation = {
  operationId: 'getOpenapiJson', summary: 'This document', tags: ['Meta'], security: [],
  responses: {
    200: { description: 'OpenAPI 3.1 document', headers: headerRefs(EXCHANGE_HEADERS), content: { 'application/json': { schema: { type: 'object' } } } },
    429: errorResponse(429, ['rate_limited']),
    500: errorResponse(500, ['internal_error']),
  },
};

function parameters(route: RouteDef, schemas: SchemaCollector): unknown[] {
  const params: unknown[] = [];
  const declared = objectShape(route.params);
  for (const name of pathParams(route.path)) {
    const schema = declared[name] ? schemas.convert(declared[name], 'input') : { type: 'string' };
    params.push({ name, in: 'path', required: true, schema });
  }
  for (const [name, field] of Object.entries(objectShape(route.query))) {
    const schema = schemas.convert(field, 'input');
    const description = typeof schema.description === 'string' ? schema.description : undefined;
    params.push({ name, in: 'query', required: !isOptional(field), schema, ...(description ? { description } : {}) });
  }
  if (route.method === 'post') params.push({ $ref: '#/components/parameters/IdempotencyKey' });
  params.push({ $ref: '#/components/parameters/AcceptLanguage' });
  return params;
}

function successResponse(route: RouteDef, schemas: SchemaCollector): Record<string, unknown> {
  const headers = headerRefs(route.method === 'post' ? [...EXCHANGE_HEADERS, 'Idempotent-Replayed'] : EXCHANGE_HEADERS);
  const { status, schema, description } = route.success;
  const content = schema ? { content: { 'application/json': { schema: schemas.convert(schema, 'output') } } } : {};
  return { [String(status)]: { description, headers, ...content } };
}

/** A request without a body is read as {} (register.ts): the body is optional where its schema takes {}. */
function takesEmptyBody(route: RouteDef): boolean {
  return route.body?.safeParse({}).success ?? true;
}

function operation(route: RouteDef, success: Record<string, unknown>, schemas: SchemaCollector): Record<string, unknown> {
  const scopeText = route.scope ? `Required scope: \`${route.scope}\`.` : 'No scope needed: any valid key.';
  return {
    operationId: operationId(route),
    summary: route.summary,
    description: scopeText,
    tags: [route.tag],
    ...(route.scope ? { 'x-required-scope': route.scope } : {}),
    parameters: parameters(route, schemas),
    ...(route.body ? { requestBody: { required: !takesEmptyBody(route), content: { 'application/json': { schema: schemas.convert(route.body, 'input') } } } } : {}),
    responses: { ...success, ...errorResponses(route) },
  };
}

export function buildOpenApi(routes: readonly RouteDef[]): JsonSchema {
  const schemas = new SchemaCollector();
  schemas.convert(ErrorBody, 'output');
  // Responses first, so that a shared id keeps its plain name for the response form.
  const successes = routes.map((route) => successResponse(route, schemas));
  const paths: Record<string, Record<string, unknown>> = {};
  routes.forEach((route, i) => {
    paths[openApiPath(route.path)] ??= {};
    paths[openApiPath(route.path)][route.method] = operation(route, successes[i], schemas);
  });
  const webhooks = webhookPushes(schemas);
  paths['/openapi.json'] = { get: documentOperation };
  return {
    openapi: '3.1.0',
    info: { title: 'Conversion and Lead Management API', version: '1.0.0', description: 'Contacts, instant-form leads, server-to-server conversions, reports, jobs and webhooks. Error messages are in Polish unless Accept-Language asks for English.' },
    servers: [{ url: '/v1' }],
    security: [{ bearerAuth: [] }],
    tags: [...new Set([...routes.map((r) => r.tag), 'Webhooks', 'Meta'])].map((name) => ({ name })),
    paths,
    webhooks,
    components: { schemas: schemas.components, securitySchemes, headers: componentHeaders, parameters: componentParameters },
  };
}

const securitySchemes = {
  bearerAuth: { type: 'http', scheme: 'bearer', description: 'An organisation API key: `Authorization: Bearer csk_...`. Server-to-server only.' },
};

const intHeader = (description: string) => ({ description, schema: { type: 'integer' } });
const componentHeaders = {
  'X-Request-Id': { description: 'Request id (taken from the request when sane); events appended carry it as correlation id', schema: { type: 'string' } },
  'X-RateLimit-Limit': intHeader('Requests allowed per minute for this key'),
  'X-RateLimit-Remaining': intHeader('Requests left in the current window'),
  'X-RateLimit-Reset': intHeader('Unix epoch seconds when the current window ends'),
  'Retry-After': intHeader('Seconds to wait before retrying'),
  'WWW-Authenticate': { description: 'The Bearer challenge: `Bearer realm="api"`, with `error="invalid_token"` when a key was sent and refused', schema: { type: 'string' } },
  'Idempotent-Replayed': { description: 'true when this is the stored answer of an earlier request with the same Idempotency-Key', schema: { type: 'string', enum: ['true'] } },
};

const componentParameters = {
  IdempotencyKey: {
    name: 'Idempotency-Key', in: 'header', required: false,
    description: 'Repeating the request with the same key and body within 24 hours returns the stored answer',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7E]+$' },
  },
  AcceptLanguage: {
    name: 'Accept-Language', in: 'header', required: false,
    description: 'Language of error messages: Polish by default, English for en', schema: { type: 'string' },
  },
};
