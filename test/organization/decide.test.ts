// Organisation and API key deciders: a name is 1-200 characters, whoever calls them (the CLI checks first).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { organizationAggregate } from '../../commands/organization/organization.ts';
import { decideCreateOrganization } from '../../commands/organization/decide.ts';
import { apiKeyAggregate } from '../../commands/apikey/apikey.ts';
import { decideCreateApiKey } from '../../commands/apikey/decide.ts';
import { ApiError } from '../../commands/shared/errors.ts';

const test = suite('Organisation and key: when created / a blank name or one over 200 characters is a validation_error');
const NOW = '2026-01-01T00:00:00.000Z';

const createOrg = (name: string) => decideCreateOrganization(organizationAggregate.initialState(), {
  organizationId: 'org-1', name, timezone: 'Europe/Warsaw', currency: 'PLN', phoneCountryCode: '48', now: NOW,
});
const createKey = (name: string) => decideCreateApiKey(apiKeyAggregate.initialState(), {
  keyId: 'key-1', organizationId: 'org-1', organizationExists: true, name, prefix: 'p', hash: 'h', scopes: [], expiresAt: null, now: NOW,
});

function refusedField(fn: () => unknown): string | null {
  try {
    fn();
  } catch (error) {
    assert.instance(error, ApiError);
    assert.is((error as ApiError).code, 'validation_error');
    return ((error as ApiError).details?.fields as { field: string }[])[0].field;
  }
  return null;
}

for (const [what, create] of [['organisation', createOrg], ['key', createKey]] as const) {
  test(`${what}: a name of 201 characters, or a blank one, is refused`, () => {
    assert.is(refusedField(() => create('n'.repeat(201))), 'name');
    assert.is(refusedField(() => create('🙂'.repeat(201))), 'name');
    assert.is(refusedField(() => create('   ')), 'name');
  });

  test(`${what}: a name of 200 characters (emoji counted once) is taken as given`, () => {
    for (const name of ['n'.repeat(200), '🙂'.repeat(200), 'Acme']) {
      const { events } = create(name);
      assert.is(events.length, 1);
      assert.is((events[0].data as { name: string }).name, name);
    }
  });
}

test.run();
