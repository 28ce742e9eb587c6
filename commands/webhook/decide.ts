// Webhook commands: create (within the organisation's limit), change, pause/resume, rotate the secret,
// delete, queue a test ping, and the sender's automatic pause. Pure: ids, time and the encrypted secret
// arrive with the command.
import { ApiError } from '../shared/errors.ts';
import {
  MAX_WEBHOOKS_PER_ORGANIZATION,
  type WebhookEvent,
  type WebhookEventType,
  type WebhookRegistryEvent,
  type WebhookRegistryState,
  type WebhookState,
} from './webhook.ts';

export interface CreateWebhook {
  webhookId: string;
  organizationId: string;
  url: string;
  events: WebhookEventType[];
  description: string;
  secretCiphertext: string;
  now: string;
}

export interface UpdateWebhook {
  webhookId: string;
  organizationId: string;
  url?: string;
  events?: WebhookEventType[];
  description?: string;
  /** false pauses, true resumes and resets the failure count (also when the subscription is active). */
  active?: boolean;
  now: string;
}

interface Decision {
  events: WebhookEvent[];
  result: { webhookId: string };
}

/** Subscribed types without repeats, in the caller's order: a subscription reads back as it was written. */
export const normalizedEvents = (events: readonly WebhookEventType[]): WebhookEventType[] => [...new Set(events)];

/** A subscription of the caller's organisation that still exists; anything else is not found. */
function live(state: WebhookState, cmd: { webhookId: string; organizationId: string }): WebhookState {
  if (!state.exists || state.deleted || state.organizationId !== cmd.organizationId) throw new ApiError('not_found', { webhook_id: cmd.webhookId });
  return state;
}

export function decideCreateWebhook(registry: WebhookRegistryState, state: WebhookState, cmd: CreateWebhook): { webhook: WebhookEvent[]; registry: WebhookRegistryEvent[] } {
  if (state.exists) throw new ApiError('conflict', { webhook_id: cmd.webhookId });
  if (registry.live.length >= MAX_WEBHOOKS_PER_ORGANIZATION) throw new ApiError('limit_reached', { limit: MAX_WEBHOOKS_PER_ORGANIZATION });
  const { webhookId, organizationId, url, description, secretCiphertext, now } = cmd;
  return {
    webhook: [{ type: 'WebhookCreated', data: { webhookId, organizationId, url, events: normalizedEvents(cmd.events), description, secretCiphertext, createdAt: now } }],
    registry: [{ type: 'WebhookRegistered', data: { webhookId, organizationId } }],
  };
}

/** Field changes first, then the pause or resume, so the record reads in the order the caller meant. */
export function decideUpdateWebhook(state: WebhookState, cmd: UpdateWebhook): Decision {
  const { organizationId } = live(state, cmd);
  const ids = { webhookId: cmd.webhookId, organizationId };
  const changes: { url?: string; events?: WebhookEventType[]; description?: string } = {};
  if (cmd.url !== undefined && cmd.url !== state.url) changes.url = cmd.url;
  if (cmd.events !== undefined) {
    const events = normalizedEvents(cmd.events);
    if (events.join() !== state.events.join()) changes.events = events;
  }
  if (cmd.description !== undefined && cmd.description !== state.description) changes.description = cmd.description;
  const events: WebhookEvent[] = [];
  if (Object.keys(changes).length) events.push({ type: 'WebhookUpdated', data: { ...ids, changes, updatedAt: cmd.now } });
  if (cmd.active === false && state.active) events.push({ type: 'WebhookPaused', data: { ...ids, reason: 'paused through the API', auto: false, pausedAt: cmd.now } });
  // `active: true` resets the failure count even on a subscription still active (DESIGN.md: true resumes and
  // resets consecutive_failures): a caller who fixed the receiver before the automatic pause restarts the count.
  if (cmd.active === true) events.push({ type: 'WebhookResumed', data: { ...ids, resumedAt: cmd.now } });
  return { events, result: { webhookId: cmd.webhookId } };
}

export function decideRotateSecret(state: WebhookState, cmd: { webhookId: string; organizationId: string; secretCiphertext: string; now: string }): Decision {
  const { organizationId } = live(state, cmd);
  return {
    events: [{ type: 'WebhookSecretRotated', data: { webhookId: cmd.webhookId, organizationId, secretCiphertext: cmd.secretCiphertext, rotatedAt: cmd.now } }],
    result: { webhookId: cmd.webhookId },
  };
}

export function decideDeleteWebhook(state: WebhookState, cmd: { webhookId: string; organizationId: string; now: string }): { webhook: WebhookEvent[]; registry: WebhookRegistryEvent[] } {
  const { organizationId } = live(state, cmd);
  const ids = { webhookId: cmd.webhookId, organizationId };
  return { webhook: [{ type: 'WebhookDeleted', data: { ...ids, deletedAt: cmd.now } }], registry: [{ type: 'WebhookUnregistered', data: ids }] };
}

export function decideRequestPing(state: WebhookState, cmd: { webhookId: string; organizationId: string; deliveryId: string; now: string }): Decision {
  const { organizationId } = live(state, cmd);
  return {
    events: [{ type: 'WebhookPingRequested', data: { webhookId: cmd.webhookId, organizationId, deliveryId: cmd.deliveryId, requestedAt: cmd.now } }],
    result: { webhookId: cmd.webhookId },
  };
}

/**
 * The sender's pause of a subscription whose failures of the run `resumes` reached the count: nothing when the
 * subscription is gone or already paused (a repeat is harmless), or when a resume since that count (PATCH active
 * true) ended the run and reset it.
 */
export function decideAutoPause(state: WebhookState, cmd: { webhookId: string; organizationId: string; reason: string; resumes: number; now: string }): Decision {
  const stale = state.resumes !== cmd.resumes;
  if (!state.exists || state.deleted || !state.active || stale || state.organizationId !== cmd.organizationId) return { events: [], result: { webhookId: cmd.webhookId } };
  return {
    events: [{ type: 'WebhookPaused', data: { webhookId: cmd.webhookId, organizationId: state.organizationId, reason: cmd.reason, auto: true, pausedAt: cmd.now } }],
    result: { webhookId: cmd.webhookId },
  };
}
