// Graph API error answers in the platform's own shape: {"error":{message,type,code,error_subcode,fbtrace_id,is_transient}}.
import { randomBytes } from 'node:crypto';

export interface GraphErrorAnswer {
  status: number;
  body: {
    error: {
      message: string;
      type: string;
      code: number;
      error_subcode?: number;
      error_user_title?: string;
      error_user_msg?: string;
      fbtrace_id: string;
      is_transient: boolean;
    };
  };
}

export function fbtraceId(): string {
  return randomBytes(9).toString('base64url');
}

/** Token, permission and parameter errors are OAuthException at the platform; missing objects are GraphMethodException. */
function errorType(code: number, subcode: number | undefined): string {
  if (code === 100 && subcode === 33) return 'GraphMethodException';
  return 'OAuthException';
}

export function graphError(
  status: number,
  code: number,
  message: string,
  extra: { subcode?: number; transient?: boolean; userTitle?: string; userMsg?: string } = {},
): GraphErrorAnswer {
  return {
    status,
    body: {
      error: {
        message,
        type: errorType(code, extra.subcode),
        code,
        ...(extra.subcode !== undefined ? { error_subcode: extra.subcode } : {}),
        ...(extra.userTitle !== undefined ? { error_user_title: extra.userTitle } : {}),
        ...(extra.userMsg !== undefined ? { error_user_msg: extra.userMsg } : {}),
        fbtrace_id: fbtraceId(),
        is_transient: extra.transient ?? false,
      },
    },
  };
}

export const invalidToken = (): GraphErrorAnswer =>
  graphError(400, 190, 'Invalid OAuth access token - Cannot parse access token');

export const unexpectedError = (): GraphErrorAnswer =>
  graphError(500, 2, 'An unexpected error has occurred. Please retry your request later.', { transient: true });

export const invalidParameter = (message: string, extra: { subcode?: number; userTitle?: string; userMsg?: string } = {}): GraphErrorAnswer =>
  graphError(400, 100, message, extra);

export const reduceData = (): GraphErrorAnswer =>
  graphError(500, 1, "Please reduce the amount of data you're asking for, then retry your request", { subcode: 99 });

export function unknownObject(id: string): GraphErrorAnswer {
  return graphError(
    400,
    100,
    `Unsupported get request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation. Please read the Graph API documentation at https://developers.facebook.com/docs/graph-api`,
    { subcode: 33 },
  );
}

export const unknownPath = (): GraphErrorAnswer =>
  graphError(400, 2500, 'Unknown path components');

/** A token the sandbox treats as invalid everywhere: empty, or the word 'bad'. */
export function isBadToken(token: string | null | undefined): boolean {
  return !token || token === 'bad';
}
