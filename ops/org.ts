// `ops org create`: organisations own all data.
import { createOrganization } from '../commands/organization/handlers.ts';
import { CliError, required, type CommandGroup } from './context.ts';

const CURRENCY = /^[A-Z]{3}$/;

export const orgCommands: CommandGroup = {
  create: {
    usage: 'org create --name N [--timezone TZ] [--currency CUR] [--phone-country-code 48]',
    async run(ctx) {
      const name = required(ctx, 'name');
      const timezone = ctx.options.timezone ?? 'Europe/Warsaw';
      const currency = (ctx.options.currency ?? 'PLN').toUpperCase();
      const phoneCountryCode = ctx.options['phone-country-code'] ?? '48';
      try {
        new Intl.DateTimeFormat('en', { timeZone: timezone });
      } catch {
        throw new CliError(`unknown time zone ${timezone}`);
      }
      if (!CURRENCY.test(currency)) throw new CliError(`currency must be an ISO 4217 code, got ${currency}`);
      if (!/^\d{1,3}$/.test(phoneCountryCode)) throw new CliError('--phone-country-code must be 1-3 digits');
      const org = await createOrganization(ctx.services.store, { name, timezone, currency, phoneCountryCode }, ctx.services.now());
      await ctx.settle(org.position);
      ctx.print(`organisation ${org.id} created`);
      return { id: org.id };
    },
  },
};
