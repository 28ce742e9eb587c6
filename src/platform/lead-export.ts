// Platform leads in the service's terms: from a Graph lead object, as GET /{lead_id} and the JSON export give one.
// The lead's ad and answers are the domain's own types: the service stores them as the platform gives them.
import type { AdSource, LeadAnswer } from '../../commands/lead/lead.ts';
import { CALLER_ZONED_TIME, isoFromCaller, isWithinTimeSpan, TIME_SPAN_MESSAGE } from '../../commands/shared/time.ts';
import { storableStrings } from '../../commands/shared/text.ts';
import { isDay } from '../../projections/reporting_shared/days.ts';
import { instantOfWallClock } from '../../projections/reporting_shared/wall-clock.ts';

export type { AdSource, LeadAnswer };

export interface PlatformLead {
  platformLeadId: string;
  /** ISO 8601 UTC. */
  createdTime: string;
  formId: string;
  /** Null when the source did not say (a lead fetched by id). */
  formName: string | null;
  /** Null when the source did not say; the leadgen webhook names the page. */
  pageId: string | null;
  /** facebook, instagram, messenger, audience_network, or what the platform reported. */
  platform: string;
  /** Null for organic leads and leads without an ad id. */
  ad: AdSource | null;
  answers: LeadAnswer[];
  email: string | null;
  phone: string | null;
  fullName: string | null;
}

/** A lead as GET /{lead_id} and the JSON export give it. */
export interface GraphLeadObject {
  id: string;
  created_time: string;
  form_id?: string;
  form_name?: string;
  page_id?: string;
  ad_id?: string;
  ad_name?: string;
  adset_id?: string;
  adset_name?: string;
  campaign_id?: string;
  campaign_name?: string;
  platform?: string;
  is_organic?: boolean | string;
  field_data?: Array<{ name: string; values?: string[] }>;
}

export class LeadExportError extends Error {
  constructor(message: string, readonly row: number | null) {
    super(row === null ? message : `row ${row}: ${message}`);
  }
}

const PLATFORMS: Record<string, string> = { fb: 'facebook', ig: 'instagram', msg: 'messenger', messenger: 'messenger', an: 'audience_network' };
const LABELS: Record<string, string> = { email: 'Email', phone_number: 'Phone number', full_name: 'Full name', first_name: 'First name', last_name: 'Last name' };

export function placementPlatform(raw: string | undefined): string {
  const key = (raw ?? '').trim().toLowerCase();
  return key === '' ? 'facebook' : (PLATFORMS[key] ?? key);
}

/** An ISO 8601 day or date-time written without a zone (a space may stand for the T). */
const WALL_CLOCK = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?))?$/;

/**
 * The platform writes 2024-03-05T10:20:30+0000; exports may add a zone like +01:00. A time without a zone (a
 * sheet edited by hand) is a wall-clock time in the organisation's zone, as GET /leads reads one: JavaScript
 * would read it in the zone of whichever machine runs the import. Only these ISO 8601 forms are times: left to
 * JavaScript, "1" was a lead of 1 January 2001 and "11/20/2026" a time in that machine's zone again.
 */
function isoTime(raw: string, row: number | null, timezone: string): string {
  const text = raw.trim();
  const wall = WALL_CLOCK.exec(text);
  const zoned = wall ? null : CALLER_ZONED_TIME.exec(text);
  const day = wall?.[1] ?? zoned?.[1];
  const date = day === undefined || !isDay(day) ? new Date(NaN)
    : wall ? instantOfWallClock(timezone, `${wall[1]}T${wall[2] ?? '00:00:00'}`) : new Date(isoFromCaller(text) as string);
  if (Number.isNaN(date.getTime())) throw new LeadExportError(`created_time "${raw}" is not a date-time`, row);
  // A year 0000 time would be a lead event no projector can store (it would stop for every organisation).
  if (!isWithinTimeSpan(date.toISOString())) throw new LeadExportError(`created_time "${raw}" is not ${TIME_SPAN_MESSAGE}`, row);
  return date.toISOString();
}

export const labelFor = (key: string): string => LABELS[key] ?? key.replace(/_/g, ' ').replace(/^\w/, (c) => c.toUpperCase());

function first(answers: LeadAnswer[], ...keys: string[]): string | null {
  for (const key of keys) {
    const value = answers.find((a) => a.key === key)?.values.find((v) => v.trim() !== '');
    if (value !== undefined) return value.trim();
  }
  return null;
}

function fullNameOf(answers: LeadAnswer[]): string | null {
  const full = first(answers, 'full_name');
  if (full !== null) return full;
  const parts = [first(answers, 'first_name'), first(answers, 'last_name')].filter((p): p is string => p !== null);
  return parts.length > 0 ? parts.join(' ') : null;
}

/** A name as text: an export made by another tool may write one as a number. */
const text = (value: unknown): string => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '');

/** The form name a lead object carries, as text; null when it has none readable. */
const formNameOf = (g: GraphLeadObject): string | null => (typeof g.form_name === 'string' || typeof g.form_name === 'number' ? String(g.form_name) : null);

type IdField = 'id' | 'form_id' | 'page_id' | 'ad_id' | 'adset_id' | 'campaign_id';

/**
 * An id as text. The Graph API writes ids as strings, but an export made by another tool may write them as
 * numbers (a JSON ad_id of 601), which the API would then show as numbers where it promises strings. A number
 * past 2^53 lost its last digits when the file was read: refused, rather than kept as some other id.
 */
function idText(g: GraphLeadObject, field: IdField, row: number | null): string {
  const value: unknown = g[field];
  if (typeof value === 'number' && !Number.isSafeInteger(value)) throw new LeadExportError(`${field} ${value} is a number too long to read exactly: write it in quotes`, row);
  return text(value);
}

function adOf(g: GraphLeadObject, platform: string, row: number | null): AdSource | null {
  const organic = g.is_organic === true || g.is_organic === 'true' || g.is_organic === '1';
  const adId = idText(g, 'ad_id', row);
  if (organic || !adId) return null;
  return {
    platform,
    campaign_id: idText(g, 'campaign_id', row),
    campaign_name: text(g.campaign_name),
    adset_id: idText(g, 'adset_id', row),
    adset_name: text(g.adset_name),
    ad_id: adId,
    ad_name: text(g.ad_name),
  };
}

export function mapLead(g: GraphLeadObject, answers: LeadAnswer[], formName: string | null, row: number | null, timezone = 'UTC'): PlatformLead {
  const id = idText(g, 'id', row);
  if (id === '') throw new LeadExportError('lead without an id', row);
  const created: unknown = g.created_time;
  if (created === undefined || created === null) throw new LeadExportError(`lead ${id} without created_time`, row);
  // A number (Unix seconds from another tool) is a created_time, not its absence: say what it is.
  if (typeof created !== 'string') throw new LeadExportError(`created_time ${JSON.stringify(created)} is not a date-time text`, row);
  const platform = placementPlatform(text(g.platform));
  return {
    platformLeadId: id,
    createdTime: isoTime(created, row, timezone),
    formId: idText(g, 'form_id', row),
    formName,
    pageId: g.page_id === undefined || g.page_id === null ? null : idText(g, 'page_id', row),
    platform,
    ad: adOf(g, platform, row),
    answers,
    email: first(answers, 'email', 'work_email'),
    phone: first(answers, 'phone_number', 'phone', 'work_phone_number'),
    fullName: fullNameOf(answers),
  };
}

/** One Graph lead object in the service's terms; `labels` maps field keys to the form's question texts. */
export function leadFromGraph(g: GraphLeadObject, formName?: string, labels: Record<string, string> = {}): PlatformLead {
  return mapLead(g, answersOf(g.field_data, labels, null), formName ?? formNameOf(g), null);
}

/**
 * One answer value as text. The platform writes strings; another tool's export may write a number or a boolean,
 * kept as written. A null, a list or an object is no answer anyone typed: it became "null" or "[object Object]",
 * even a person's e-mail, so the lead is refused by its row.
 */
function answerText(value: unknown, key: string, row: number | null): string {
  if (typeof value === 'string') return value;
  if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean') return String(value);
  throw new LeadExportError(`field_data ${key}: a value is ${value === null ? 'null' : Array.isArray(value) ? 'a list' : 'an object'}, not text`, row);
}

/**
 * An answer's values: a list of text (none when the item has no `values`). Anything else, such as the bare text
 * `"values": "a@example.com"` another tool may write, was taken as no answer at all: the person was made without
 * the e-mail or phone the file held. Refused by its row instead, as a value that is not text is.
 */
function valuesOf(values: unknown, key: string, row: number | null): string[] {
  if (values === undefined) return [];
  if (Array.isArray(values)) return values.map((v) => answerText(v, key, row));
  const what = values === null ? 'null' : typeof values === 'string' ? 'text' : typeof values === 'object' ? 'an object' : `a ${typeof values}`;
  throw new LeadExportError(`field_data ${key}: values is ${what}, not a list`, row);
}

function answersOf(fieldData: unknown, labels: Record<string, string>, row: number | null): LeadAnswer[] {
  if (fieldData === undefined) return [];
  if (!Array.isArray(fieldData)) throw new LeadExportError('field_data is not a list', row);
  return fieldData.map((f: { name?: unknown; values?: unknown }) => {
    if (typeof f?.name !== 'string') throw new LeadExportError('a field_data item has no name', row);
    return { key: f.name, label: labels[f.name] ?? labelFor(f.name), values: valuesOf(f.values, f.name, row) };
  });
}

/**
 * A file's lead names its form (the webhook's notice does that for a fetched one): its form source hangs on it.
 * Its text is made storable here, as graphFetch makes the platform's answers: a NUL or a lone surrogate (a \u0000
 * escape in the file) would fail the lead's append and stop the import.
 */
export function exportedLead(lead: PlatformLead, row: number): PlatformLead {
  if (lead.formId === '') throw new LeadExportError(`lead ${lead.platformLeadId} without form_id`, row);
  return storableStrings(lead);
}

export const EMPTY_EXPORT = 'the file is empty (no header, no leads)';
export const NOT_A_LEAD_LIST = 'expected a JSON array of lead objects';

/** One item of the JSON export's array as a lead; `row` is its place in the array, from 1. */
export function leadFromJsonItem(item: unknown, row: number, timezone: string): PlatformLead {
  if (item === null || typeof item !== 'object') throw new LeadExportError('not a lead object', row);
  const g = item as GraphLeadObject;
  return exportedLead(mapLead(g, answersOf(g.field_data, {}, row), formNameOf(g), row, timezone), row);
}
