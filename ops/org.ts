// `ops org create`: organisations own all data.
import { createOrganization } from '../commands/organization/handlers.ts';
import { isCurrencyCode } from '../commands/shared/currency.ts';
import { CliError, nameOption, type CommandGroup } from './context.ts';

export const orgCommands: CommandGroup = {
  create: {
    usage: 'org create --name N [--timezone TZ] [--currency CUR] [--phone-country-code 48]',
    async run(ctx) {
      const name = nameOption(ctx);
      const givenTimezone = ctx.options.timezone ?? 'Europe/Warsaw';
      const givenCurrency = ctx.options.currency ?? 'PLN';
      const currency = givenCurrency.toUpperCase();
      const phoneCountryCode = ctx.options['phone-country-code'] ?? '48';
      // The zone's own spelling, as the currency's upper case: `europe/warsaw` was stored as typed, and the reports'
      // `timezone` said so, a name that case-sensitive readers (Java's ZoneId, Python's zoneinfo on Linux) do not know.
      let timezone: string;
      try {
        timezone = new Intl.DateTimeFormat('en', { timeZone: givenTimezone }).resolvedOptions().timeZone;
      } catch {
        throw new CliError(`--timezone must be an IANA time zone such as Europe/Warsaw, got ${givenTimezone}`);
      }
      // The codes the HTTP edge takes for a sale's currency: an organisation's own currency is one of them.
      if (!isCurrencyCode(currency)) throw new CliError(`--currency must be an ISO 4217 code, got ${givenCurrency}`);
      // Country calling codes begin with 1-9: a leading 0 would be dropped from every normalised phone number.
      if (!/^[1-9]\d{0,2}$/.test(phoneCountryCode)) throw new CliError('--phone-country-code must be 1-3 digits, not beginning with 0');
      const org = await createOrganization(ctx.services.store, { name, timezone, currency, phoneCountryCode }, ctx.services.now());
      await ctx.settle(org.position);
      ctx.print(`organisation ${org.id} created`);
      return { id: org.id };
    },
  },
};
