// Short, stable messages for failed webhook attempts, shown to subscribers as last_error.

const MESSAGES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EADDRNOTAVAIL: 'address not available',
  ENOTFOUND: 'host not found',
  ENODATA: 'host has no addresses',
  EAI_AGAIN: 'host lookup failed (temporary)',
  EPROTO: 'tls handshake failed',
};

const TLS_CERT_CODES = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
]);

function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}

/** A short message for a network or TLS error; raw messages can be long and leak local details. */
export function describeNetworkError(error: unknown): string {
  const code = codeOf(error);
  if (code === undefined) return 'network error';
  if (TLS_CERT_CODES.has(code)) return `tls certificate error (${code})`;
  if (code.startsWith('ERR_SSL_')) return 'tls handshake failed';
  if (code.startsWith('HPE_')) return 'invalid HTTP response';
  return MESSAGES[code] ?? `network error (${code})`;
}
