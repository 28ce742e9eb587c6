import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { contactAggregate, type ContactEvent, type ContactState } from '../../commands/contact/contact.ts';
import { decideChangeStage, decideLinkLead, decideMerge } from '../../commands/contact/decideStage.ts';
import { decideChangeTags, decideUpdateContact } from '../../commands/contact/decide.ts';
import { ApiError } from '../../commands/shared/errors.ts';

const test = suite('Contact deciders: given events, when a command, then events or an error');
const ORG = 'org-1';
const NOW = '2025-05-01T12:00:00.000Z';
const given = (...events: ContactEvent[]): ContactState => events.reduce(contactAggregate.evolve, contactAggregate.initialState());
const created = (id = 'c-1', stage: 'new' = 'new'): ContactEvent => ({
  type: 'ContactCreated',
  data: { contactId: id, organizationId: ORG, name: 'A', phone: '+48600100200', email: '', phoneHash: 'h', emailHash: null, tags: ['t'], stage, cycle: 1, firstSource: 'api', firstAd: null, ownerId: null, smsOptout: false, createdAt: NOW },
});
const linked = (leadId: string, submittedAt: string, contactId = 'c-1'): ContactEvent => ({
  type: 'ContactLeadLinked',
  data: { contactId, organizationId: ORG, leadId, platformLeadId: `p-${leadId}`, sourceId: 's-1', platformFormId: 'f', ad: null, cycle: 1, stage: 'new', submittedAt, linkedAt: NOW },
});
const sold = (leads: string[]): ContactEvent => ({
  type: 'ContactStageChanged',
  data: { contactId: 'c-1', organizationId: ORG, from: 'new', to: 'sold', cycle: 1, value: null, currency: null, leads: leads.map((leadId) => ({ leadId, platformEventQueued: false, conversionEventId: null })), valueLeadId: null, changedAt: NOW },
});
const code = (fn: () => unknown) => { try { fn(); } catch (e) { return (e as ApiError).code; } return null; };

test('Contact: when sold / a new lead opens cycle 2 at stage new', () => {
  const state = given(created(), linked('l-1', '2025-01-01T00:00:00Z'), sold(['l-1']));
  const { events, result } = decideLinkLead(state, { contactId: 'c-1', organizationId: ORG, leadId: 'l-2', platformLeadId: 'p', sourceId: 's-1', platformFormId: 'f', ad: null, submittedAt: NOW, now: NOW });
  assert.equal(events.map((e) => e.type), ['ContactCycleOpened', 'ContactLeadLinked']);
  assert.is(result.cycle, 2);
  const after = events.reduce(contactAggregate.evolve, state);
  assert.equal([after.stage, after.cycle, after.leads.map((l) => [l.leadId, l.open])], ['new', 2, [['l-1', false], ['l-2', true]]]);
});

test('Contact: a stage change / the value is counted on the newest queued lead, else the newest open lead', () => {
  const state = given(created(), linked('l-old', '2025-01-01T00:00:00Z'), linked('l-mid', '2025-02-01T00:00:00Z'), linked('l-new', '2025-03-01T00:00:00Z'));
  const change = (queued: string[]) => decideChangeStage(state, { contactId: 'c-1', organizationId: ORG, stage: 'sold', value: 100, currency: 'PLN', queued: new Map(queued.map((id) => [id, `e-${id}`])), now: NOW });
  const withQueue = change(['l-old', 'l-mid']);
  const data = withQueue.events[0].data as { valueLeadId: string; leads: { leadId: string }[] };
  assert.is(data.valueLeadId, 'l-mid');
  assert.equal(data.leads.map((l) => l.leadId), ['l-new', 'l-mid', 'l-old']);
  assert.equal(withQueue.result, { platformEventsQueued: 2, leadsWithoutSend: 1 });
  assert.is((change([]).events[0].data as { valueLeadId: string }).valueLeadId, 'l-new');
  assert.is(code(() => decideChangeStage(state, { contactId: 'c-1', organizationId: ORG, stage: 'new', value: null, currency: null, queued: new Map(), now: NOW })), 'stage_conflict');
});

test('Contact: merged / every command answers contact_merged; another organisation gets not_found', () => {
  const state = given(created(), { type: 'ContactMerged', data: { contactId: 'c-1', organizationId: ORG, mergedInto: 'c-2', mergedAt: NOW } });
  assert.is(code(() => decideUpdateContact(state, { contactId: 'c-1', organizationId: ORG, name: 'B', now: NOW })), 'contact_merged');
  assert.is(code(() => decideUpdateContact(given(created()), { contactId: 'c-1', organizationId: 'org-2', name: 'B', now: NOW })), 'not_found');
});

test('Contact: merge / open leads join the survivor\'s cycle, tags unite, the owner moves when the survivor has none', () => {
  const from = given(created('c-1'), linked('l-1', NOW), { type: 'ContactOwnerAssigned', data: { contactId: 'c-1', organizationId: ORG, ownerId: 'u1', assignedAt: NOW } });
  const into = given(created('c-2'), { type: 'ContactTagsChanged', data: { contactId: 'c-2', organizationId: ORG, added: ['v'], removed: [], tags: ['t', 'v'], changedAt: NOW } });
  const { fromEvents, intoEvents } = decideMerge(from, into, { fromId: 'c-1', intoId: 'c-2', organizationId: ORG, now: NOW });
  assert.equal(fromEvents.map((e) => e.type), ['ContactMerged']);
  assert.equal(intoEvents.map((e) => e.type), ['ContactMergeAbsorbed', 'ContactOwnerAssigned']);
  const survivor = intoEvents.reduce(contactAggregate.evolve, into);
  assert.equal([survivor.tags, survivor.ownerId, survivor.leads.map((l) => l.leadId)], [['t', 'v'], 'u1', ['l-1']]);
  assert.is(code(() => decideMerge(from, from, { fromId: 'c-1', intoId: 'c-1', organizationId: ORG, now: NOW })), 'validation_error');
});

// A sold lead of the merged card joined the survivor's cycle, and the survivor's next stage change moved it
// (sold -> contacted): the sale left the campaign report.
test('Contact: merge / a lead the merged card sold stays closed: the survivor\'s next stage change leaves it sold', () => {
  const from = given(created('c-1'), linked('l-1', NOW), sold(['l-1']));
  const into = given(created('c-2'), linked('l-2', NOW, 'c-2'));
  const { intoEvents } = decideMerge(from, into, { fromId: 'c-1', intoId: 'c-2', organizationId: ORG, now: NOW });
  const survivor = intoEvents.reduce(contactAggregate.evolve, into);
  assert.equal(survivor.leads.map((l) => [l.leadId, l.stage, l.open]), [['l-2', 'new', true], ['l-1', 'sold', false]]);
  const moved = decideChangeStage(survivor, { contactId: 'c-2', organizationId: ORG, stage: 'contacted', value: null, currency: null, queued: new Map(), now: NOW });
  assert.equal((moved.events[0].data as { leads: { leadId: string }[] }).leads.map((l) => l.leadId), ['l-2']);
});

test('Contact: merge / a union of more than 50 tags is refused (validation_error), nothing appended', () => {
  const tagged = (id: string, prefix: string, n: number): ContactEvent => ({
    type: 'ContactTagsChanged',
    data: { contactId: id, organizationId: ORG, added: [], removed: [], tags: Array.from({ length: n }, (_, i) => `${prefix}${i}`), changedAt: NOW },
  });
  const merge = (from: ContactState, into: ContactState) => decideMerge(from, into, { fromId: 'c-1', intoId: 'c-2', organizationId: ORG, now: NOW });
  assert.is(code(() => merge(given(created('c-1'), tagged('c-1', 'a', 30)), given(created('c-2'), tagged('c-2', 'b', 30)))), 'validation_error');
  // Exactly 50 after the union (shared tags count once) is allowed.
  const survivor = merge(given(created('c-1'), tagged('c-1', 'a', 30)), given(created('c-2'), tagged('c-2', 'a', 20), tagged('c-2', 'b', 20)));
  assert.is((survivor.intoEvents[0].data as { tags: string[] }).tags.length, 50);
});

test('Contact: tags / a card holding more than 50 tags (merged before the limit held) may still lose some', () => {
  const absorbed: ContactEvent = {
    type: 'ContactMergeAbsorbed',
    data: { contactId: 'c-1', organizationId: ORG, mergedFrom: 'c-9', leads: [], ads: [], noteIds: [], tags: Array.from({ length: 60 }, (_, i) => `t${i}`), mergedAt: NOW },
  };
  const state = given(created(), absorbed);
  const { events } = decideChangeTags(state, { contactId: 'c-1', organizationId: ORG, add: [], remove: ['t1'], now: NOW });
  assert.is((events[0].data as { tags: string[] }).tags.length, 59);
  assert.is(code(() => decideChangeTags(state, { contactId: 'c-1', organizationId: ORG, add: ['new'], remove: ['t1'], now: NOW })), 'validation_error');
});

test('Contact: update / removing the last of phone and e-mail is refused; an unchanged value appends nothing', () => {
  const state = given(created());
  assert.is(code(() => decideUpdateContact(state, { contactId: 'c-1', organizationId: ORG, phone: { value: '', hash: null }, now: NOW })), 'validation_error');
  assert.equal(decideUpdateContact(state, { contactId: 'c-1', organizationId: ORG, name: ' A ', phone: { value: '+48600100200', hash: 'h' }, now: NOW }).events, []);
});

test.run();
