// The size limit of request bodies: a body declared over it is refused before any byte of it is read, one without a
// Content-Length (chunked) as soon as more than the limit has arrived.
import type { RequestHandler } from 'express';

const tooLarge = (limit: number) => Object.assign(new Error('request entity too large'), { type: 'entity.too.large', limit });

/**
 * Refuses a body over `limitBytes` (413 payload_too_large, by the error renderer) without waiting for the rest of it.
 * The body parser refuses it too, but answers only after reading the whole body off the wire: a client that sends its
 * headers and waits, whose Content-Length lies, or that goes on streaming a chunked body, got nothing until the
 * request's time-out. What is left of the body is drained after the answer (by Node, or by the body parser still
 * reading), so a keep-alive connection still serves its next request.
 */
export function refuseDeclaredOver(limitBytes: number, parse: RequestHandler): RequestHandler {
  return (req, res, next) => {
    if (Number(req.headers['content-length']) > limitBytes) return next(tooLarge(limitBytes));
    // Without either header a request has no body (RFC 9112, 6.3).
    if (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] === undefined) return parse(req, res, next);
    let answered = false;
    let received = 0;
    const once = (error?: unknown) => {
      if (answered) return;
      answered = true;
      req.off('data', count);
      next(error);
    };
    // Beside the body parser's own listener, attached in the same tick: both see every chunk.
    const count = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limitBytes) once(tooLarge(limitBytes));
    };
    req.on('data', count);
    parse(req, res, once);
  };
}
