// Webhook command handlers: check the URL, make and seal the secret, then load, decide and append.
import { randomUUID } from 'node:crypto';
import pRetry from 'p-retry';
import { WrongExpectedVersionError, type EventMetadata, type Position } from '../../src/eventstore/port.ts';
import { handleCommand, inTurn, loadAggregate } from '../../src/eventstore/handle.ts';
import type { Services } from '../../src/services.ts';
import { checkWebhookUrl } from '../../src/webhooks/url.ts';
import { encryptSecret, generateSecret } from '../../src/webhooks/signature.ts';
import { validationError } from '../shared/errors.ts';
import { webhookAggregate, webhookRegistryAggregate, webhookRegistryStream, webhookStream, type WebhookCreated, type WebhookEventType } from './webhook.ts';
import { decideAutoPause, decideCreateWebhook, decideDeleteWebhook, decideRequestPing, decideRotateSecret, decideUpdateWebhook } from './decide.ts';

export interface WebhookInput {
  organizationId: string;
  url: string;
  events: WebhookEventType[];
  description?: string;
}

export interface WebhookChange {
  organizationId: string;
  webhookId: string;
  url?: string;
  events?: WebhookEventType[];
  description?: string;
  active?: boolean;
}

/** Appends that lost a race against another writer are decided again on the new state. */
const onConflict = <T>(run: () => Promise<T>) =>
  pRetry(run, { retries: 8, minTimeout: 5, maxTimeout: 80, randomize: true, shouldRetry: ({ error }) => error instanceof WrongExpectedVersionError });

function checkedUrl(services: Services, url: string): string {
  const check = checkWebhookUrl(url, { allowPrivate: services.config.webhookAllowPrivate });
  if (!check.ok) throw validationError('url', check.reason);
  return url;
}

/** The plain secret goes back to the caller once; only its ciphertext is stored. */
function newSecret(services: Services): { secret: string; secretCiphertext: string } {
  const secret = generateSecret();
  return { secret, secretCiphertext: encryptSecret(secret, services.secrets.encryptionKey) };
}

/**
 * `created` is the appended WebhookCreated, the answer when the read model is late (webhookAfter).
 * The registry stream is appended with its exact revision in the same atomic append as the subscription,
 * so concurrent creates cannot pass the limit: the loser is decided again against the new count.
 */
export async function createWebhook(services: Services, input: WebhookInput, metadata: EventMetadata): Promise<{ webhookId: string; secret: string; position: Position; created: WebhookCreated }> {
  const url = checkedUrl(services, input.url);
  const { secret, secretCiphertext } = newSecret(services);
  const webhookId = randomUUID();
  const registryStream = webhookRegistryStream(input.organizationId);
  let created: WebhookCreated | undefined;
  const position = await inTurn(services.store, registryStream, () => onConflict(async () => {
    const registry = await loadAggregate(services.store, registryStream, webhookRegistryAggregate);
    const decided = decideCreateWebhook(registry.state, webhookAggregate.initialState(), {
      webhookId, organizationId: input.organizationId, url, events: input.events, description: input.description ?? '',
      secretCiphertext, now: services.now().toISOString(),
    });
    const appended = await services.store.appendMany([
      { stream: registryStream, events: decided.registry, expectedRevision: registry.revision },
      { stream: webhookStream(webhookId), events: decided.webhook, expectedRevision: 'no_stream' },
    ], metadata);
    created = decided.webhook[0].data as WebhookCreated;
    return appended.position;
  }));
  return { webhookId, secret, position, created: created! };
}

/** Null position: nothing changed. */
export async function updateWebhook(services: Services, change: WebhookChange, metadata: EventMetadata): Promise<Position | null> {
  const url = change.url === undefined ? undefined : checkedUrl(services, change.url);
  const handled = await handleCommand(services.store, webhookStream(change.webhookId), webhookAggregate,
    (state) => decideUpdateWebhook(state, { ...change, url, now: services.now().toISOString() }), metadata);
  return handled.append?.position ?? null;
}

export async function rotateWebhookSecret(services: Services, ids: { organizationId: string; webhookId: string }, metadata: EventMetadata): Promise<{ secret: string; position: Position }> {
  const { secret, secretCiphertext } = newSecret(services);
  const handled = await handleCommand(services.store, webhookStream(ids.webhookId), webhookAggregate,
    (state) => decideRotateSecret(state, { ...ids, secretCiphertext, now: services.now().toISOString() }), metadata);
  return { secret, position: handled.append!.position };
}

export async function deleteWebhook(services: Services, ids: { organizationId: string; webhookId: string }, metadata: EventMetadata): Promise<Position> {
  const stream = webhookStream(ids.webhookId);
  return inTurn(services.store, stream, () => onConflict(async () => {
    const loaded = await loadAggregate(services.store, stream, webhookAggregate);
    const decided = decideDeleteWebhook(loaded.state, { ...ids, now: services.now().toISOString() });
    const appended = await services.store.appendMany([
      { stream, events: decided.webhook, expectedRevision: loaded.revision },
      { stream: webhookRegistryStream(ids.organizationId), events: decided.registry, expectedRevision: 'any' },
    ], metadata);
    return appended.position;
  }));
}

export async function requestPing(services: Services, ids: { organizationId: string; webhookId: string }, metadata: EventMetadata): Promise<{ deliveryId: string; position: Position }> {
  const deliveryId = randomUUID();
  const handled = await handleCommand(services.store, webhookStream(ids.webhookId), webhookAggregate,
    (state) => decideRequestPing(state, { ...ids, deliveryId, now: services.now().toISOString() }), metadata);
  return { deliveryId, position: handled.append!.position };
}

/** The sender's pause after too many failures in a row; a no-op when someone paused, resumed or deleted it first. */
export async function autoPauseWebhook(services: Services, ids: { organizationId: string; webhookId: string; reason: string; resumes: number }): Promise<void> {
  await handleCommand(services.store, webhookStream(ids.webhookId), webhookAggregate,
    (state) => decideAutoPause(state, { ...ids, now: services.now().toISOString() }),
    { organizationId: ids.organizationId, actor: 'worker:webhooks' });
}
