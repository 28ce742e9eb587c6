// `ops key create | list | revoke`: API keys are shown once, stored as a hash.
import { createApiKey, revokeApiKey, shownPrefix } from '../commands/apikey/handlers.ts';
import { ALL_SCOPES } from '../commands/shared/scopes.ts';
import { isWithinTimeSpan, TIME_SPAN_MESSAGE } from '../commands/shared/time.ts';
import { listKeys } from '../queries/access.ts';
import { CliError, existingOrganization, nameOption, parseIsoTime, positional, required, type CliContext, type CommandGroup } from './context.ts';

/** `--expires ISO` as the stored time: a real calendar time, and a later one than now (a key born expired is a typo). */
function expiryOf(ctx: CliContext): string | null {
  const given = ctx.options.expires;
  if (given === undefined) return null;
  const parsed = parseIsoTime(given);
  if (!parsed) throw new CliError(`--expires is not an ISO 8601 time: ${given}`);
  const expiresAt = parsed.at.toISOString();
  if (!isWithinTimeSpan(expiresAt)) throw new CliError(`--expires must be ${TIME_SPAN_MESSAGE}`);
  if (parsed.at.getTime() <= ctx.services.now().getTime()) throw new CliError(`--expires is in the past: ${given} (the key would be expired from the start)`);
  return expiresAt;
}

export const keyCommands: CommandGroup = {
  create: {
    usage: 'key create --org ID --name N --scopes a,b,c [--expires ISO]',
    async run(ctx) {
      const organizationId = required(ctx, 'org');
      const name = nameOption(ctx);
      // `--scopes ""` is a key with no scope: it may call GET /me and nothing else.
      const given = ctx.options.scopes;
      if (given === undefined || given === 'true') throw new CliError('missing --scopes');
      const scopes = given.split(',').map((s) => s.trim()).filter(Boolean);
      const unknown = scopes.filter((s) => !(ALL_SCOPES as readonly string[]).includes(s));
      if (unknown.length) throw new CliError(`unknown scope: ${unknown.join(', ')} (known: ${ALL_SCOPES.join(', ')})`);
      const expiresAt = expiryOf(ctx);
      const created = await createApiKey(ctx.services.store, { organizationId, name, scopes, expiresAt }, ctx.services.now());
      await ctx.settle(created.position);
      ctx.print(`key ${created.id} created; it is shown only now:\n${created.key}`);
      return { id: created.id, key: created.key, prefix: created.prefix, scopes: created.scopes };
    },
  },
  list: {
    usage: 'key list --org ID',
    async run(ctx) {
      const organizationId = await existingOrganization(ctx);
      await ctx.settle();
      const keys = await listKeys(ctx.services.pool, organizationId);
      const out = keys.map((k) => ({
        id: k.id, name: k.name, prefix: shownPrefix(k.prefix), scopes: k.scopes,
        expires_at: k.expires_at?.toISOString() ?? null, revoked_at: k.revoked_at?.toISOString() ?? null,
        created_at: k.created_at.toISOString(),
      }));
      for (const k of out) ctx.print(`${k.id}  ${k.prefix}  ${k.name}  ${k.scopes.join(',')}${k.revoked_at ? '  (revoked)' : ''}`);
      return out;
    },
  },
  revoke: {
    usage: 'key revoke ID',
    async run(ctx) {
      const keyId = positional(ctx, 0, 'key id');
      // An operator revoking a leaked key pastes the key itself; echoing it in 'unknown key' would print the
      // secret once more (terminal scroll-back, CI logs), so it is refused without being shown.
      if (keyId.startsWith('csk_')) throw new CliError('key revoke takes the key\'s id, not the key itself (`key list --org ID` shows each id beside its prefix); the key given is not shown here');
      const position = await revokeApiKey(ctx.services.store, keyId, ctx.services.now());
      if (position) await ctx.settle(position);
      ctx.print(`key ${keyId} revoked`);
      return { id: keyId, revoked: true };
    },
  },
};
