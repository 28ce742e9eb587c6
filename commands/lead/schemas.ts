// zod schemas of the lead endpoints.
import { z } from 'zod';
import { AdSourceSchema, StageSchema } from '../contact/schemas.ts';
import { isoFromCaller, isWithinTimeSpan, offsetFromQuery, TIME_SPAN_MESSAGE } from '../shared/time.ts';

export const LeadAnswerSchema = z.object({
  key: z.string().describe('Field key, also the automation variable'),
  label: z.string().describe('Question as shown in the form'),
  values: z.array(z.string()),
}).meta({ id: 'LeadAnswer' });

export const LeadSchema = z.object({
  id: z.string(),
  platform_lead_id: z.string(),
  form_id: z.string().describe('Service source (form) id; usable as the form filter'),
  form_name: z.string(),
  platform_form_id: z.string(),
  platform_page_id: z.string().describe('"" when neither the lead nor earlier leads of its form named the page'),
  stage: StageSchema,
  cycle: z.number().int().describe('Sales cycle of the person; 0 while the lead has no person (fetch_status pending or failed)'),
  contact_id: z.string().nullable().describe('null while the lead has no person (fetch_status pending or failed)'),
  fetch_status: z.enum(['pending', 'ready', 'failed']).describe('pending: known, data not fetched yet; ready; failed: the platform refused'),
  ad: AdSourceSchema.nullable(),
  stages: z.array(z.object({ stage: StageSchema, at: z.iso.datetime(), platform_event_queued: z.boolean() })),
  answers: z.array(LeadAnswerSchema).optional().describe('Present only for keys with leads:answers'),
  created_at: z.iso.datetime().nullable().describe('When the lead was submitted'),
  updated_at: z.iso.datetime(),
}).meta({ id: 'Lead' });

// A date-time without an offset is a wall-clock time in the organisation's zone, like a bare day.
// An offset whose '+' arrived unencoded (a space) is read as '+', and the other ISO 8601 forms event_time
// takes (+0200, +02, no seconds, a space or a lower-case t and z) are read too, as in updated_since.
const bound = z.preprocess((v) => isoFromCaller(offsetFromQuery(v)), z.union([z.iso.date(), z.iso.datetime({ offset: true, local: true })], { error: 'a day (YYYY-MM-DD) or an ISO 8601 date-time' }).refine(isWithinTimeSpan, TIME_SPAN_MESSAGE));

export const LeadFilterShape = {
  form: z.string().min(1).max(100).optional().describe('Service source (form) id'),
  campaign: z.string().min(1).max(100).optional(),
  adset: z.string().min(1).max(100).optional(),
  ad: z.string().min(1).max(100).optional(),
  contact: z.string().min(1).max(100).optional(),
  stage: StageSchema.optional(),
  from: bound.optional().describe('Submitted on or after: YYYY-MM-DD in the organisation\'s time zone (from the day\'s first instant, as the reports count days), or ISO 8601 (without an offset: in the organisation\'s time zone; a time a DST change skips is read with the offset before it, one it repeats as its first occurrence)'),
  to: bound.optional().describe('Submitted on or before: YYYY-MM-DD (the whole day in the organisation\'s time zone, 23 or 25 hours on a DST change) or ISO 8601 (without an offset: in the organisation\'s time zone)'),
};

export const LeadParams = z.object({ id: z.string().min(1).max(100) }).strict();
