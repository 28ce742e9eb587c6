// A spreadsheet row as a POST /events body: each field read from its column (the field's own name unless
// the source maps it to another header), checked by the endpoint's own schema, then the endpoint's input.
import { PostEventBody } from '../../../../commands/conversion/schemas.ts';
import { EVENT_FIELDS, type EventField } from '../../../../commands/conversion/fields.ts';
import type { ConversionInput } from '../../../../commands/conversion/handlers.ts';
import { unstorableText } from '../../../../commands/shared/text.ts';

export type RowResult = { ok: true; input: ConversionInput } | { ok: false; error: string };

/** Field -> index of its column in the header row; fields without a column are left out. */
export function columnIndex(header: string[], mapping: Record<string, string> | null): Map<EventField, number> {
  const index = new Map<EventField, number>();
  const normalized = header.map((h) => h.trim().toLowerCase());
  for (const field of EVENT_FIELDS) {
    const at = normalized.indexOf((mapping?.[field] ?? field).trim().toLowerCase());
    if (at >= 0) index.set(field, at);
  }
  return index;
}

const TRUE = new Set(['true', 'yes', 'y', '1', 'tak', 'x', 'ok']);
const FALSE = new Set(['false', 'no', 'n', '0', 'nie', '']);

/** Cells are text; the body wants numbers, booleans and lists where the endpoint does. */
function typed(field: EventField, cell: string): unknown {
  switch (field) {
    case 'consent': {
      const v = cell.toLowerCase();
      return TRUE.has(v) ? true : FALSE.has(v) ? false : cell;
    }
    case 'value': {
      // The separator written last is the decimal one, the other groups thousands: 1.234,50 and 1,234.50 are 1234.5
      // (a '.' anywhere used to make every ',' a thousands mark, and 1.234,50 was read as 1.2345).
      const text = cell.replace(/\s/g, '');
      const decimal = text.lastIndexOf(',') > text.lastIndexOf('.') ? text.replace(/\./g, '').replace(',', '.') : text.replace(/,/g, '');
      return /^-?\d+(\.\d+)?$/.test(decimal) ? Number(decimal) : cell;
    }
    case 'event_time':
      return /^\d{9,11}$/.test(cell) ? Number(cell) : cell;
    case 'content_ids':
      return cell.split(/[,;]/).map((s) => s.trim()).filter(Boolean);
    default:
      return cell;
  }
}

export function rowBody(cells: string[], index: Map<EventField, number>, sourceId: string): Record<string, unknown> {
  const body: Record<string, unknown> = { source: sourceId };
  for (const [field, at] of index) {
    const cell = (cells[at] ?? '').trim();
    if (cell !== '' || field === 'consent') body[field] = typed(field, cell);
  }
  return body;
}

/** The row checked exactly as POST /events checks a body; the first problem names the field. */
export function rowInput(cells: string[], index: Map<EventField, number>, organizationId: string, sourceId: string): RowResult {
  const body = rowBody(cells, index, sourceId);
  // POST /events refuses a NUL at its edge, before the schema; a sheet's cell holding one would fail the append.
  const unstorable = unstorableText(body);
  if (unstorable) return { ok: false, error: `${unstorable.path}: ${unstorable.problem}` };
  const parsed = PostEventBody.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue.path.join('.') || 'row';
    // A required field the row leaves empty (or the sheet lacks) is said in the sheet's terms.
    const missing = issue.path.length === 1 && body[String(issue.path[0])] === undefined;
    return { ok: false, error: `${field}: ${missing ? 'required: the cell is empty or the sheet has no such column' : issue.message}` };
  }
  const b = parsed.data;
  const eventTime = typeof b.event_time === 'number' ? new Date(b.event_time * 1000).toISOString() : b.event_time;
  return {
    ok: true,
    input: {
      organizationId, sourceId, trigger: { kind: 'status', status: b.status }, externalId: b.external_id, eventTime, eventId: b.event_id,
      email: b.email, phone: b.phone, leadId: b.lead_id, userId: b.user_id, fbp: b.fbp, fbc: b.fbc, eventSourceUrl: b.event_source_url,
      trackingId: b.tracking_id, clientIpAddress: b.client_ip_address, clientUserAgent: b.client_user_agent, value: b.value,
      currency: b.currency, contentIds: b.content_ids,
    },
  };
}
