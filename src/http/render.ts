// Turning failures into the specification's error body, in the caller's language.
import type { Request, Response } from 'express';
import { z } from 'zod';
import { ApiError, ERROR_STATUS, type ErrorCode } from '../../commands/shared/errors.ts';
import { MESSAGES, pickLanguage, type Language } from './messages.ts';

/** The one error body of the service, shared by every error answer of the OpenAPI document. */
export const ErrorBody = z.object({
  error: z.object({
    code: z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]).describe('Stable code; never translated'),
    message: z.string().describe('For humans, in the language of Accept-Language (Polish by default)'),
    details: z.record(z.string(), z.unknown()).optional()
      .describe('Extra data, e.g. required_scope, contact_id, merged_into; for validation_error `field` (the first field at fault) and `fields` (each field with its problem)'),
  }),
}).meta({ id: 'Error' });

export function languageOf(req: Request): Language {
  return pickLanguage(req.headers['accept-language']);
}

/** The error body of `error`, its message in `language`; details only when there are some. */
export function errorBody(error: ApiError, language: Language): z.infer<typeof ErrorBody> {
  const body: z.infer<typeof ErrorBody> = { error: { code: error.code, message: (error.messages ?? MESSAGES[error.code])[language] } };
  if (error.details && Object.keys(error.details).length) body.error.details = withFirstField(error.details);
  return body;
}

/** A validation error names its first field at the top of details too, for clients that read one field. */
function withFirstField(details: Record<string, unknown>): Record<string, unknown> {
  const fields = details.fields as { field: string }[] | undefined;
  if (!Array.isArray(fields) || !fields.length || 'field' in details) return details;
  return { field: fields[0].field, ...details };
}

/**
 * The challenge of a 401, which HTTP requires (RFC 9110, 15.5.2: a 401 MUST carry WWW-Authenticate): the Bearer scheme
 * of RFC 6750, with error="invalid_token" when a key was sent and refused (unknown, revoked or expired) and no error
 * when none was sent (RFC 6750, 3.1).
 */
export function authChallenge(req: Request): string {
  return req.headers.authorization === undefined ? 'Bearer realm="api"' : 'Bearer realm="api", error="invalid_token"';
}

export function sendError(req: Request, res: Response, error: ApiError): void {
  if (error.status === 401) res.setHeader('WWW-Authenticate', authChallenge(req));
  res.status(error.status).json(errorBody(error, languageOf(req)));
}

/** The message for a query parameter written twice (`?status=done&status=failed`), which arrives as an array. */
export const REPEATED_PARAMETER = 'given more than once; give it once';

/**
 * Map a zod failure to invalid_json (unknown body fields) or validation_error naming each field. `input` is what
 * was parsed: a query parameter in it that is an array was given twice, and no parameter of this API takes a list,
 * so that is what its message says (the schema's own read "expected one of ... done ..." for `status=done&status=failed`,
 * or "expected array to have >=3 items" for two `tag`s).
 */
export function fromZodError(error: z.ZodError, where: 'body' | 'query' | 'params', input?: unknown): ApiError {
  // A body that is JSON but not an object (an array): as unreadable as a bare string or null.
  if (where === 'body' && error.issues.some((i) => i.code === 'invalid_type' && i.path.length === 0)) {
    return new ApiError('invalid_json', { expected: 'a JSON object' });
  }
  const unknown = error.issues.filter((i) => i.code === 'unrecognized_keys');
  if (where === 'body' && unknown.length) {
    const keys = unknown.flatMap((i) => (i as { keys: string[] }).keys.map((k) => [...i.path, k].join('.')));
    return new ApiError('invalid_json', { unknown_fields: keys });
  }
  const repeated = (name: PropertyKey | undefined): name is string =>
    where === 'query' && typeof name === 'string' && Array.isArray((input as Record<string, unknown> | undefined)?.[name]);
  const fields = error.issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') return issue.keys.map((k) => ({ field: [...issue.path, k].join('.'), message: 'unknown parameter' }));
    if (repeated(issue.path[0])) return [{ field: issue.path[0], message: REPEATED_PARAMETER }];
    if (where === 'body' && ABSENT_VALUE.has(issue.code) && isMissing(input, issue.path)) return [{ field: issue.path.join('.'), message: 'required' }];
    return [{ field: issue.path.join('.') || where, message: issue.message }];
  });
  // One line per repeated parameter, however many of its schema's checks the array failed.
  const once = fields.filter((f, i) => f.message !== REPEATED_PARAMETER || fields.findIndex((g) => g.field === f.field) === i);
  return new ApiError('validation_error', { fields: once });
}

/**
 * The issues zod raises for a value that is not there: a wrong type, an enum's or a literal's other value
 * (`stage` left out read "Invalid option: expected one of ..."), no member of a union. A refinement's own
 * issue (`custom`) keeps its words.
 */
const ABSENT_VALUE = new Set<string>(['invalid_type', 'invalid_value', 'invalid_union']);

/**
 * A field the body does not hold at all: said so ('required'), not in zod's words for a missing value
 * ('Invalid input: expected string, received undefined', and JSON has no undefined).
 */
function isMissing(body: unknown, path: readonly PropertyKey[]): boolean {
  if (path.length === 0) return false;
  let parent = body;
  for (const key of path.slice(0, -1)) {
    if (parent === null || typeof parent !== 'object') return false;
    parent = (parent as Record<PropertyKey, unknown>)[key];
  }
  return parent !== null && typeof parent === 'object' && !Object.hasOwn(parent, path[path.length - 1]);
}

/** The type of the body parser's error for a body whose bytes are not UTF-8 (app.ts). */
export const NOT_UTF8 = 'encoding.not_utf8';

/** Anything thrown while serving a request becomes an ApiError; unknown causes are internal_error. */
export function toApiError(error: unknown): { apiError: ApiError; unexpected: boolean } {
  if (error instanceof ApiError) return { apiError: error, unexpected: false };
  const e = error as { type?: string; status?: number };
  // The limit is the route's: 64 KB for the API, more for the platform's leadgen notices.
  if (e?.type === 'entity.too.large') return { apiError: new ApiError('payload_too_large', { limit_bytes: (error as { limit?: number }).limit }), unexpected: false };
  // The router could not percent-decode a path segment (e.g. /contacts/%E0%A4%A): a bad parameter.
  if (error instanceof URIError && e.status === 400) {
    return { apiError: new ApiError('validation_error', { fields: [{ field: 'path', message: 'malformed percent-encoding' }] }), unexpected: false };
  }
  if (e?.type === NOT_UTF8) return { apiError: new ApiError('invalid_json', { expected: 'JSON text in UTF-8' }), unexpected: false };
  const unreadable = ['entity.parse.failed', 'encoding.unsupported', 'charset.unsupported', 'request.size.invalid', 'request.aborted'];
  if (e?.type && unreadable.includes(e.type)) {
    return { apiError: new ApiError('invalid_json'), unexpected: false };
  }
  // A body that does not decompress as its Content-Encoding says: the body parser passes zlib's own
  // error on (status 400, no type); it is as unreadable as broken JSON.
  if (e?.status === 400 && isZlibError(error)) return { apiError: new ApiError('invalid_json'), unexpected: false };
  return { apiError: new ApiError('internal_error'), unexpected: true };
}

/** zlib's errors carry codes such as Z_DATA_ERROR, Z_BUF_ERROR (gzip, deflate) or ERR__ERROR_FORMAT_* (brotli). */
function isZlibError(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'string' && (code.startsWith('Z_') || code.startsWith('ERR__'));
}
