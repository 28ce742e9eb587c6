// The platform's leadgen webhook at /platform/webhook (outside /v1, no API key): the GET verification
// handshake, and POSTs signed with the app secret (X-Hub-Signature-256 over the raw body). A lead it
// names is recorded at once as pending; the lead-fetch process brings its data.
import { createHmac, timingSafeEqual } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import { ApiError, validationError } from '../../commands/shared/errors.ts';
import { isWithinTimeSpanMs } from '../../commands/shared/time.ts';
import { unstorableText } from '../../commands/shared/text.ts';
import { recordPendingLead } from '../../commands/lead/intake.ts';
import { pageOwner } from '../../queries/pages.ts';
import { LEADGEN_REFUSED } from '../http/messages.ts';
import { refuseDeclaredOver } from '../http/bodyLimit.ts';
import { REPEATED_PARAMETER } from '../http/render.ts';
import type { Services } from '../services.ts';

export const PLATFORM_WEBHOOK_PATH = '/platform/webhook';

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Constant-time check of "sha256=<hex>"; false without a configured secret, so nothing unsigned gets in. */
export function validLeadgenSignature(appSecret: string, raw: Buffer, header: string | undefined): boolean {
  if (!appSecret || !header) return false;
  const expected = `sha256=${createHmac('sha256', appSecret).update(raw).digest('hex')}`;
  return sameText(expected, header.trim().toLowerCase());
}

interface LeadgenChange {
  field?: unknown;
  value?: { leadgen_id?: unknown; page_id?: unknown; form_id?: unknown; created_time?: unknown };
}

interface Notice {
  platformLeadId: string;
  pageId: string;
  formId: string;
  submittedAt: string;
}

/**
 * A notice time the service can keep: after 1970 and before the year 10000. A later one (10^12 seconds) is a
 * lead event no projector can store, and one past what a date holds (10^20) threw while the notice was read.
 */
const storable = (ms: number): boolean => ms > 0 && isWithinTimeSpanMs(ms);

/**
 * The lead id of a notice: a string, or a number read exactly. Anything else (null, '', an object) named a
 * lead "null" or "[object Object]" that no fetch could find; a number past 2^53 lost its last digits in
 * JSON.parse, and would have fetched another lead. The lead_import job still brings such a lead in.
 */
function noticeLeadId(value: unknown): string | null {
  if (typeof value === 'string') return value.trim() === '' ? null : value;
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? String(value) : null;
}

/**
 * A page or form id of a notice: a string, or a number read exactly. Anything else (an object, a list, true, a
 * number past 2^53) is null: String() made it '[object Object]', 'a,b', 'true' or a rounded id, a form or page
 * the platform never had, which the pending lead showed (platform_form_id) and grouped by.
 */
function noticeId(value: unknown): string | null {
  if (typeof value === 'string') return value;
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? String(value) : null;
}

/**
 * The leadgen changes of a notification; anything else in it is ignored. A lead is submitted at the change's
 * created_time, else at its entry's time, else (neither readable) when the notice arrived, not in 1970.
 */
export function leadgenNotices(body: unknown, receivedAt: Date): Notice[] {
  // An entry or a change that is not an object (null in a signed body) is no notice, not a 500 the platform resends.
  const entries = (body as { entry?: ({ id?: unknown; time?: unknown; changes?: (LeadgenChange | null)[] } | null)[] })?.entry;
  if (!Array.isArray(entries)) return [];
  return entries.flatMap((entry) => (entry && Array.isArray(entry.changes) ? entry.changes : []).flatMap((change): Notice[] => {
    const v = change?.value;
    const leadId = noticeLeadId(v?.leadgen_id);
    if (change?.field !== 'leadgen' || !v || leadId === null) return [];
    const pageId = noticeId(v.page_id ?? entry?.id ?? '');
    const formId = noticeId(v.form_id ?? '');
    if (pageId === null || formId === null) return [];
    // Ids PostgreSQL cannot store (a NUL, a lone surrogate) name no lead the platform has: read as unreadable.
    if (unstorableText([leadId, pageId, formId])) return [];
    const created = typeof v.created_time === 'number' ? v.created_time * 1000 : Date.parse(String(v.created_time ?? ''));
    const entryTime = Number(entry?.time ?? 0) * 1000;
    const time = storable(created) ? created : storable(entryTime) ? entryTime : receivedAt.getTime();
    return [{
      platformLeadId: leadId, pageId, formId,
      submittedAt: new Date(time).toISOString(),
    }];
  }));
}

async function receive(services: Services, req: Request, res: Response): Promise<void> {
  const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  if (!validLeadgenSignature(services.config.platformAppSecret, raw, req.get('x-hub-signature-256'))) throw new ApiError('unauthorized', undefined, 'bad leadgen signature', LEADGEN_REFUSED.signature);
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new ApiError('invalid_json');
  }
  let recorded = 0;
  for (const notice of leadgenNotices(body, services.now())) {
    const page = await pageOwner(services.pool, notice.pageId);
    if (!page) {
      services.log.warn('leadgen notice for a page no organisation connected', { pageId: notice.pageId });
      continue;
    }
    const metadata = { organizationId: page.organization_id, correlationId: res.locals.requestId as string | undefined, actor: 'platform' };
    await recordPendingLead(services, { organizationId: page.organization_id, platformLeadId: notice.platformLeadId, platformFormId: notice.formId, platformPageId: notice.pageId, submittedAt: notice.submittedAt }, metadata);
    recorded++;
  }
  if (res.headersSent) return; // answered by its time-out meanwhile (a 500: the platform sends the notice again)
  res.status(200).json({ received: recorded });
}

/**
 * The handshake: the right mode and token answer hub.challenge back, exactly. A handshake without a challenge (or
 * with two) has nothing to echo: it is 400 naming hub.challenge, not a 200 with an empty body (or "1,2") that the
 * caller would take for a verified subscription.
 */
function verify(services: Services, req: Request, res: Response): void {
  const q = req.query as Record<string, unknown>;
  const token = services.config.platformVerifyToken;
  if (q['hub.mode'] !== 'subscribe' || !token || !sameText(String(q['hub.verify_token'] ?? ''), token)) throw new ApiError('unauthorized', undefined, 'bad verify token', LEADGEN_REFUSED.verifyToken);
  const challenge = q['hub.challenge'];
  if (Array.isArray(challenge)) throw validationError('hub.challenge', REPEATED_PARAMETER);
  if (typeof challenge !== 'string' || challenge === '') throw validationError('hub.challenge', 'missing: the handshake answers it back');
  res.status(200).type('text/plain').send(challenge);
}

/** The platform's notices: up to 1 MB (the API's own bodies: 64 KB). */
const NOTICE_LIMIT_BYTES = 1024 * 1024;

/** Mounted by the app before its 404 handler; errors go to the app's JSON error handler. */
export function mountPlatformWebhook(app: express.Express, services: Services): void {
  const wrap = (handler: (req: Request, res: Response) => Promise<void> | void) => async (req: Request, res: Response, next: NextFunction) => {
    try {
      await handler(req, res);
    } catch (error) {
      next(error);
    }
  };
  app.get(PLATFORM_WEBHOOK_PATH, wrap((req, res) => verify(services, req, res)));
  app.post(PLATFORM_WEBHOOK_PATH, refuseDeclaredOver(NOTICE_LIMIT_BYTES, express.raw({ type: () => true, limit: NOTICE_LIMIT_BYTES })), wrap((req, res) => receive(services, req, res)));
}
