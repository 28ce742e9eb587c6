// GET /me: which organisation and key the caller is, with its scopes and limits.
import { z } from 'zod';
import { defineRoute } from '../http/route.ts';
import { RATE_LIMIT_PER_MINUTE } from '../http/ratelimit.ts';

export const KeyDescription = z.object({
  organization: z.object({ id: z.string(), name: z.string() }),
  key: z.object({
    id: z.string(),
    name: z.string(),
    prefix: z.string(),
    scopes: z.array(z.string()),
    expires_at: z.iso.datetime().nullable(),
  }),
  rate_limit: z.object({ per_minute: z.number().int() }),
}).meta({ id: 'KeyDescription' });

export const getMe = defineRoute({
  method: 'get',
  path: '/me',
  scope: null,
  summary: 'Describe the calling key: organisation, key name, scopes, expiry and rate limit',
  tag: 'Account',
  query: z.object({}).strict(),
  success: { status: 200, schema: KeyDescription, description: 'Key description' },
  errors: [],
  // Everything shown was read with the key when it was authenticated: no query of its own.
  handler: async ({ caller }) => {
    const { organizationName, name, prefix, expiresAt } = caller.description;
    return {
      status: 200,
      body: {
        organization: { id: caller.organizationId, name: organizationName },
        key: { id: caller.keyId, name, prefix, scopes: [...caller.scopes], expires_at: expiresAt },
        rate_limit: { per_minute: RATE_LIMIT_PER_MINUTE },
      },
    };
  },
});
