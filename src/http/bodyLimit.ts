// The size limit of request bodies, checked on the declared Content-Length before any byte of the body is read.
import type { RequestHandler } from 'express';

/**
 * A body declared over `limitBytes` is refused at once (413 payload_too_large, by the error renderer). The body parser
 * refuses it too, but answers only after reading the whole body off the wire: a client that sends its headers and
 * waits, or whose Content-Length lies, got nothing until the request's time-out (a 500 blaming the database). The
 * unread body is drained by Node after the answer, so a keep-alive connection still serves its next request.
 */
export function refuseDeclaredOver(limitBytes: number, parse: RequestHandler): RequestHandler {
  return (req, res, next) => {
    if (Number(req.headers['content-length']) > limitBytes) {
      return next(Object.assign(new Error('request entity too large'), { type: 'entity.too.large', limit: limitBytes }));
    }
    parse(req, res, next);
  };
}
