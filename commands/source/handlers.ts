// Source command handlers: operator-created sources, and form sources made on the first lead of a platform form.
import { randomUUID } from 'node:crypto';
import { WrongExpectedVersionError, type EventStore, type Position } from '../../src/eventstore/port.ts';
import { handleCommand, loadAggregate, type Loaded } from '../../src/eventstore/handle.ts';
import { uuidFromParts } from '../../src/crypto/deterministicId.ts';
import { organizationExists } from '../organization/handlers.ts';
import { sourceAggregate, sourceStream, type SourceCreatedData, type SourceState } from './source.ts';
import { firstChars, MAX_NAME_CHARS } from '../shared/text.ts';
import { decideCreateSource, decideLearnName, decideLearnPage, decidePauseSource, decideResumeSource } from './decide.ts';

export interface SourceInput {
  organizationId: string;
  kind: string;
  name: string;
  csvUrl?: string | null;
  columns?: Record<string, string> | null;
  platformFormId?: string | null;
  platformPageId?: string | null;
}

/**
 * A source the operator makes. A form source with its platform form id takes the id derived from organisation and
 * form (formSourceId), the one its leads find it by; another form source for that form is 409 conflict.
 */
export async function createSource(store: EventStore, input: SourceInput, now: Date): Promise<{ id: string; position: Position }> {
  const sourceId = input.kind === 'form' && input.platformFormId ? formSourceId(input.organizationId, input.platformFormId) : randomUUID();
  const exists = await organizationExists(store, input.organizationId);
  const handled = await handleCommand(store, sourceStream(sourceId), sourceAggregate, (state) =>
    decideCreateSource(state, {
      sourceId, organizationId: input.organizationId, organizationExists: exists, kind: input.kind, name: input.name,
      csvUrl: input.csvUrl ?? null, columns: input.columns ?? null, platformFormId: input.platformFormId ?? null,
      platformPageId: input.platformPageId ?? null, now: now.toISOString(),
    }), { organizationId: input.organizationId, actor: 'operator' });
  return { id: sourceId, position: handled.append!.position };
}

/** The source id of a platform form in an organisation: the same on every call, in every process. */
export const formSourceId = (organizationId: string, platformFormId: string) => uuidFromParts('form-source', organizationId, platformFormId);

/**
 * The form source of a platform form, created on first use. Idempotent and race-free: the create is a
 * 'no_stream' append, and losing that race means the source already exists. Answers with the source's name and
 * page, which a lead that does not say takes; a source without a page learns the one this lead names.
 */
export async function ensureFormSource(
  store: EventStore,
  input: { organizationId: string; platformFormId: string; formName: string; platformPageId: string | null },
  now: Date,
): Promise<{ sourceId: string; name: string; platformPageId: string | null }> {
  const sourceId = formSourceId(input.organizationId, input.platformFormId);
  const existing = await loadAggregate(store, sourceStream(sourceId), sourceAggregate);
  if (existing.state.exists) return { sourceId, ...await learnFromLead(store, sourceId, existing, input, now) };
  const { events } = decideCreateSource(sourceAggregate.initialState(), {
    sourceId, organizationId: input.organizationId, organizationExists: true, kind: 'form',
    // The platform's form name is not ours to refuse: a longer one names the source by its start.
    name: firstChars(input.formName.trim() || input.platformFormId, MAX_NAME_CHARS), csvUrl: null, columns: null,
    platformFormId: input.platformFormId, platformPageId: input.platformPageId, now: now.toISOString(),
  });
  try {
    await store.append(sourceStream(sourceId), events, 'no_stream', { organizationId: input.organizationId, actor: 'platform' });
    const created = events[0].data as SourceCreatedData;
    return { sourceId, name: created.name, platformPageId: created.platformPageId };
  } catch (error) {
    if (!(error instanceof WrongExpectedVersionError)) throw error;
    return ensureFormSource(store, input, now);
  }
}

/**
 * The source's name and page, after it learned the lead's page when it had none, and the lead's form name when it
 * was named by its form id for want of one.
 */
async function learnFromLead(store: EventStore, sourceId: string, source: Loaded<SourceState>, lead: { platformFormId: string; formName: string; platformPageId: string | null }, now: Date) {
  const { state, revision } = source;
  const at = now.toISOString();
  const events = [
    ...(lead.platformPageId === null ? [] : decideLearnPage(state, { sourceId, platformPageId: lead.platformPageId, now: at })),
    ...decideLearnName(state, { sourceId, platformFormId: lead.platformFormId, formName: lead.formName, now: at }),
  ];
  if (events.length === 0) return { name: state.name, platformPageId: state.platformPageId };
  const learned = events.reduce(sourceAggregate.evolve, state);
  try {
    await store.append(sourceStream(sourceId), events, revision, { organizationId: state.organizationId!, actor: 'platform' });
  } catch (error) {
    // Paused, resumed or taught by another lead meanwhile: a later lead naming the page or the form teaches it if still needed.
    if (!(error instanceof WrongExpectedVersionError)) throw error;
  }
  return { name: learned.name, platformPageId: learned.platformPageId };
}

async function changeSource(store: EventStore, sourceId: string, decide: typeof decidePauseSource, now: Date): Promise<Position | null> {
  // The organisation goes into the metadata, so it is read before the command runs.
  const { state } = await loadAggregate(store, sourceStream(sourceId), sourceAggregate);
  const handled = await handleCommand(store, sourceStream(sourceId), sourceAggregate, (current) =>
    decide(current, { sourceId, now: now.toISOString() }), { organizationId: state.organizationId, actor: 'operator' });
  return handled.append?.position ?? null;
}

/** What a source was created with (its name, page, CSV address), from its first event; undefined for no such source. */
export async function sourceCreated(store: EventStore, sourceId: string): Promise<SourceCreatedData | undefined> {
  const [first] = await store.readStream(sourceStream(sourceId), { maxCount: 1 });
  return first?.data as SourceCreatedData | undefined;
}

/** A source's state and what it was created with (its CSV address, columns), from one read of its stream. */
export async function readSource(store: EventStore, sourceId: string): Promise<{ state: SourceState; created: SourceCreatedData | undefined }> {
  const events = await store.readStream(sourceStream(sourceId));
  const state = events.reduce((s, e) => sourceAggregate.evolve(s, e as never), sourceAggregate.initialState());
  return { state, created: events.find((e) => e.type === 'SourceCreated')?.data as SourceCreatedData | undefined };
}

export const pauseSource = (store: EventStore, sourceId: string, now: Date) => changeSource(store, sourceId, decidePauseSource, now);
export const resumeSource = (store: EventStore, sourceId: string, now: Date) => changeSource(store, sourceId, decideResumeSource, now);
