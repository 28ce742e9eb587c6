// zod schemas of the /__sandbox control bodies, so another process gets a clear 400 for a wrong seed.
import { z } from 'zod';

const id = z.string().min(1);
/** One object or a list of them; errors then name the item's index and field. */
const one = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (Array.isArray(v) ? v : [v]), z.array(schema));

export const behaviourSchema = z.strictObject({
  mode: z.enum(['accept', 'refuse', 'flaky']),
  failures: z.number().int().min(0).optional(),
  refuseCode: z.number().int().optional(),
  refuseSubcode: z.number().int().optional(),
  refuseMessage: z.string().optional(),
  validTokens: z.array(z.string()).optional(),
  refuseEventIds: z.array(z.string()).optional(),
  nameRefusedEvent: z.boolean().optional(),
});

export const pagesSchema = one(z.strictObject({ id, name: z.string().optional() }));

export const formsSchema = one(
  z.strictObject({
    id, pageId: id, name: z.string(), status: z.enum(['ACTIVE', 'ARCHIVED', 'DELETED', 'DRAFT']).optional(),
    questions: z.array(z.strictObject({ key: id, label: z.string(), type: z.string().optional() })).optional(),
  }),
);

const adSource = z.strictObject({ ad_id: id, ad_name: z.string(), adset_id: id, adset_name: z.string(), campaign_id: id, campaign_name: z.string() });

export const leadsSchema = one(
  z.strictObject({
    id,
    formId: id,
    createdTime: z.union([z.string(), z.number()]),
    platform: z.enum(['fb', 'ig']).optional(),
    ad: adSource.optional(),
    answers: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
  }),
);

export const accountsSchema = one(
  z.strictObject({ id, name: z.string().optional(), currency: z.string().optional(), timezoneName: z.string().optional() }),
);

export const insightRowsSchema = z.array(
  z.strictObject({
    date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
    campaign_id: id,
    campaign_name: z.string(),
    adset_id: id,
    adset_name: z.string(),
    ad_id: id,
    ad_name: z.string(),
    spend: z.number().min(0),
    impressions: z.number().int().min(0),
    clicks: z.number().int().min(0),
    reach: z.number().int().min(0),
    formLeads: z.number().int().min(0),
    pixelLeads: z.number().int().min(0).optional(),
  }),
);

export const generateSchema = z.strictObject({
  ads: z.number().int().min(1),
  days: z.number().int().min(1),
  since: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  seed: z.number().int().optional(),
  adsPerAdset: z.number().int().min(1).optional(),
  adsetsPerCampaign: z.number().int().min(1).optional(),
});

export const cellLimitSchema = z.strictObject({ cells: z.number().int().min(1) });

export const adsSchema = one(z.strictObject({ id, name: z.string().optional(), creativeId: id }));

export const creativesSchema = one(
  z.strictObject({
    id,
    objectType: z.enum(['VIDEO', 'PHOTO', 'SHARE', 'STATUS']).optional(),
    videoId: z.string().optional(),
    imageHash: z.string().optional(),
    carouselImageHashes: z.array(z.string()).optional(),
    thumbnailUrl: z.string().optional(),
    title: z.string().optional(),
    body: z.string().optional(),
  }),
);

export const failureSchema = z.strictObject({
  match: z.string().min(1),
  count: z.number().int().min(1),
  status: z.number().int().optional(),
  code: z.number().int().optional(),
  subcode: z.number().int().optional(),
  message: z.string().optional(),
  userMessage: z.string().optional(),
  transient: z.boolean().optional(),
  skip: z.number().int().min(0).optional(),
});

export const deliverLeadgenSchema = z.strictObject({
  url: z.string().url(),
  appSecret: z.string(),
  pageId: id,
  formId: id,
  leadId: id,
  createdTime: z.union([z.string(), z.number()]),
  adId: z.string().optional(),
});
