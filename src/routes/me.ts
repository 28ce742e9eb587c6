// GET /me: which organisation and key the caller is, with its scopes and limits.
import { z } from 'zod';
import { defineRoute } from '../http/route.ts';
import { findKeyById, getOrganization } from '../../queries/access.ts';
import { ApiError } from '../../commands/shared/errors.ts';
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
  handler: async ({ caller, services }) => {
    const [organization, key] = await Promise.all([
      getOrganization(services.pool, caller.organizationId),
      findKeyById(services.pool, caller.organizationId, caller.keyId),
    ]);
    if (!organization || !key) throw new ApiError('unauthorized');
    return {
      status: 200,
      body: {
        organization: { id: organization.id, name: organization.name },
        key: { id: key.id, name: key.name, prefix: key.prefix, scopes: key.scopes, expires_at: key.expires_at?.toISOString() ?? null },
        rate_limit: { per_minute: RATE_LIMIT_PER_MINUTE },
      },
    };
  },
});
