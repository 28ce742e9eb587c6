// The one error type of the service: a stable code, an HTTP status, optional details.
// The HTTP layer alone renders it, with the message in the caller's language.

export const ERROR_STATUS = {
  unauthorized: 401,
  key_revoked: 401,
  key_expired: 401,
  insufficient_scope: 403,
  rate_limited: 429,
  invalid_json: 400,
  validation_error: 400,
  invalid_cursor: 400,
  not_found: 404,
  route_not_found: 404,
  conflict: 409,
  contact_exists: 409,
  contact_merged: 409,
  stage_conflict: 409,
  event_conflict: 409,
  source_paused: 409,
  limit_reached: 409,
  idempotency_in_progress: 409,
  idempotency_key_reused: 422,
  payload_too_large: 413,
  internal_error: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    readonly details?: Record<string, unknown>,
    /** Optional extra text for humans (English); the rendered message comes from the catalogue. */
    readonly hint?: string,
    /** The rendered message in place of the catalogue's, where the code's own does not fit (the leadgen webhook's 401 is about no API key). */
    readonly messages?: Readonly<Record<'pl' | 'en', string>>,
  ) {
    super(hint ? `${code}: ${hint}` : code);
    this.name = 'ApiError';
    this.status = ERROR_STATUS[code];
  }
}

export const notFound = (what?: string) => new ApiError('not_found', undefined, what);
export const validationError = (field: string, problem: string) =>
  new ApiError('validation_error', { fields: [{ field, message: problem }] }, `${field}: ${problem}`);
