// zod schemas of the contact endpoints: bodies (strict: unknown fields are refused) and responses.
import { z } from 'zod';
import { chars } from '../shared/text.ts';
import { isCurrencyCode } from '../shared/currency.ts';
import { NOTE_KINDS, STAGES } from './contact.ts';
import { TAG_MAX_LENGTH, TAGS_PER_CONTACT } from './fields.ts';
import { CALLER_ZONED_TIME, isoFromCaller, isWithinTimeSpan, TIME_SPAN_MESSAGE } from '../shared/time.ts';

/**
 * The largest sale value. Reports sum sale values in millionths in 64-bit cells (at most 9.2 * 10^12 units each):
 * at 10^12 ten sales of one campaign in 56 days overflowed a cell and stopped the reporting projector for every
 * organisation. 10^10 still prices a house in VND or IDR, and a cell holds 922 such sales.
 */
export const MAX_SALE_VALUE = 1e10;

export const AdSourceSchema = z.object({
  platform: z.string(),
  campaign_id: z.string(),
  campaign_name: z.string(),
  adset_id: z.string(),
  adset_name: z.string(),
  ad_id: z.string(),
  ad_name: z.string(),
}).meta({ id: 'AdSource' });

export const StageSchema = z.enum(STAGES).describe('new, contacted, qualified, sold or rejected');

export const ContactSchema = z.object({
  id: z.string(),
  name: z.string(),
  phone: z.string().describe('E.164, empty when unknown'),
  email: z.string().describe('Empty when unknown'),
  stage: StageSchema,
  cycle: z.number().int(),
  tags: z.array(z.string()),
  sms_optout: z.boolean(),
  first_source: z.string(),
  first_ad: AdSourceSchema.nullable(),
  owner_id: z.string().nullable(),
  last_activity_at: z.iso.datetime().nullable(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
}).meta({ id: 'Contact' });

export const NoteSchema = z.object({
  id: z.string(),
  contact_id: z.string(),
  kind: z.enum(NOTE_KINDS),
  text: z.string(),
  time: z.iso.datetime(),
}).meta({ id: 'Note' });

export const StageResultSchema = z.object({
  contact: ContactSchema,
  platform_events_queued: z.number().int(),
  leads_without_send: z.number().int(),
}).meta({ id: 'StageResult' });

// A tag is checked after trimming (cleanTags): the schema takes padded ones, and says the rule in the document.
const TAG_RULE = `each 1-${TAG_MAX_LENGTH} characters after trimming; at most ${TAGS_PER_CONTACT} tags on a contact`;
// Past the schema's own bounds the answer still states the tag rule, not the looser bounds ('at most 200 characters').
const TAG_MESSAGE = `a tag is 1-${TAG_MAX_LENGTH} characters after trimming`;
export const TagText = chars(0, 200, TAG_MESSAGE).describe(`A tag: 1-${TAG_MAX_LENGTH} characters after trimming`);
const tags = z.array(TagText).max(TAGS_PER_CONTACT * 2, `at most ${TAGS_PER_CONTACT} tags on a contact`);

const EMAIL_RULE = 'One address (no brackets, quotes or separators around it), trimmed and lower-cased';

export const CreateContactBody = z.object({
  name: chars(0, 200).optional(),
  phone: z.string().max(40).optional().describe('With its country code (+48...) or 9 national digits; stored in E.164'),
  email: chars(0, 254).optional().describe(EMAIL_RULE),
  tags: tags.optional().describe(`Tags: ${TAG_RULE}`),
}).strict();

export const PatchContactBody = z.object({
  name: chars(0, 200).optional(),
  phone: z.string().max(40).optional().describe('Empty string removes it; a phone or an e-mail must remain'),
  email: chars(0, 254).optional().describe(`${EMAIL_RULE}; empty string removes it; a phone or an e-mail must remain`),
  tags: tags.optional().describe(`Replaces all tags: ${TAG_RULE}`),
}).strict();

export const StageBody = z.object({
  stage: StageSchema,
  value: z.number().nonnegative().max(MAX_SALE_VALUE).optional()
    .describe('Sale value (0 to 10^10), counted once on the newest lead whose event is queued'),
  // Trimmed, and blank is absent, as POST /events reads its currency (' usd ' was refused here, taken there).
  currency: z.string().transform((c) => c.trim().toUpperCase()).refine((c) => c === '' || isCurrencyCode(c), 'an ISO 4217 currency code').optional()
    .describe('ISO 4217 currency code of the value, e.g. PLN (any case, spaces around ignored); a value without it (or with a blank one) is in the organisation currency, and it is not kept without a value'),
}).strict();

export const NoteBody = z.object({
  kind: z.enum(NOTE_KINDS).default('note'),
  text: chars(1, 5000).refine((t) => t.trim().length > 0, 'must not be blank'),
  // The ISO 8601 forms event_time takes (+0200, +02, no seconds, a space or a lower-case t and z).
  // Documented as the forms isoFromCaller reads (+0200, +02, no seconds, a space), as POST /events' event_time.
  time: z.preprocess(isoFromCaller, z.iso.datetime({ offset: true }).refine(isWithinTimeSpan, TIME_SPAN_MESSAGE)).meta({ pattern: CALLER_ZONED_TIME.source })
    .optional().describe('Default now; not in the future'),
}).strict();

export const TagsBody = z.object({
  add: tags.default([]).describe(`Tags to add: ${TAG_RULE}`),
  remove: tags.default([]).describe(`Tags to remove, each 1-${TAG_MAX_LENGTH} characters after trimming; add and remove may not both be empty`),
  // Said here too (decideChangeTags keeps the rule), so that the document marks this body required: {} is refused.
}).strict().refine((b) => b.add.length > 0 || b.remove.length > 0, { path: ['add'], message: 'add or remove must name at least one tag' });

export const SmsOptoutBody = z.object({ sms_optout: z.boolean() }).strict();

export const ContactParams = z.object({ id: z.string().min(1).max(100) }).strict();
