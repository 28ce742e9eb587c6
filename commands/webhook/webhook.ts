// Webhook aggregate: one subscription of an organisation (URL, event types, signing secret, active flag).
//
// Streams: `webhook-<webhookId>` (this aggregate), `webhooks-<orgId>` (the registry of live subscriptions,
// appended with its exact revision in the same appendMany as WebhookCreated, so the limit of 10 holds under
// concurrent creates) and `webhookattempts-<claimToken>-<orgId>` (the attempts of one sender batch, one
// new stream per batch: kept off the aggregate's stream so loading a subscription stays cheap however many
// pushes it has had, and so concurrent senders never wait on each other's stream). A batch's attempts are one
// event: every subscriber of the store reads every event, so one event per push would triple the store's
// traffic under a fan-out to three subscriptions.
export const webhookStream = (webhookId: string) => `webhook-${webhookId}`;
export const webhookRegistryStream = (organizationId: string) => `webhooks-${organizationId}`;
export const webhookAttemptsStream = (claimToken: string, organizationId: string) => `webhookattempts-${claimToken}-${organizationId}`;

export const WEBHOOK_EVENT_TYPES = ['contact.created', 'contact.stage_changed', 'lead.created', 'delivery.failed'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
/** What a push may carry: the subscribable types and the test ping. */
export type PushType = WebhookEventType | 'ping';

export const MAX_WEBHOOKS_PER_ORGANIZATION = 10;

interface Ids {
  webhookId: string;
  organizationId: string;
}

export interface WebhookCreated extends Ids {
  url: string;
  events: WebhookEventType[];
  description: string;
  /** The signing secret, encrypted at rest (never the plain text). */
  secretCiphertext: string;
  createdAt: string;
}

export interface WebhookUpdated extends Ids {
  changes: { url?: string; events?: WebhookEventType[]; description?: string };
  updatedAt: string;
}

export interface WebhookPaused extends Ids {
  reason: string;
  /** True when the sender paused it after too many failed attempts in a row. */
  auto: boolean;
  pausedAt: string;
}

/** One attempt of one push (before batching, each was its own event; stores keep those and they are still read). */
export interface WebhookDeliveryAttempted extends Ids {
  deliveryId: string;
  event: PushType;
  /** 1-based attempt number of this delivery. */
  attempt: number;
  /** HTTP status, 0 when there was no answer. */
  status: number;
  success: boolean;
  error: string;
  durationMs: number;
  at: string;
}

export type WebhookEvent =
  | { type: 'WebhookCreated'; data: WebhookCreated }
  | { type: 'WebhookUpdated'; data: WebhookUpdated }
  | { type: 'WebhookPaused'; data: WebhookPaused }
  | { type: 'WebhookResumed'; data: Ids & { resumedAt: string } }
  | { type: 'WebhookSecretRotated'; data: Ids & { secretCiphertext: string; rotatedAt: string } }
  | { type: 'WebhookDeleted'; data: Ids & { deletedAt: string } }
  | { type: 'WebhookPingRequested'; data: Ids & { deliveryId: string; requestedAt: string } };

/** One attempt within a batch; `id` is the attempt record's id. */
export type PushAttempt = Omit<WebhookDeliveryAttempted, 'organizationId'> & { id: string };

/** The attempts of one sender batch in one organisation. */
export interface WebhookPushesAttempted {
  organizationId: string;
  attempts: PushAttempt[];
}

/** On `webhookattempts-<claimToken>-<orgId>`: `WebhookPushesAttempted` (written now), `WebhookDeliveryAttempted` (older). */
export type WebhookAttemptEvent =
  | { type: 'WebhookPushesAttempted'; data: WebhookPushesAttempted }
  | { type: 'WebhookDeliveryAttempted'; data: WebhookDeliveryAttempted };

export const WEBHOOK_ATTEMPT_EVENTS = ['WebhookPushesAttempted', 'WebhookDeliveryAttempted'] as const satisfies readonly WebhookAttemptEvent['type'][];

/** On `webhooks-<orgId>`. */
export type WebhookRegistryEvent =
  | { type: 'WebhookRegistered'; data: Ids }
  | { type: 'WebhookUnregistered'; data: Ids };

export const WEBHOOK_EVENTS = [
  'WebhookCreated', 'WebhookUpdated', 'WebhookPaused', 'WebhookResumed', 'WebhookSecretRotated', 'WebhookDeleted', 'WebhookPingRequested',
] as const satisfies readonly WebhookEvent['type'][];

export interface WebhookState {
  exists: boolean;
  deleted: boolean;
  organizationId: string;
  url: string;
  events: WebhookEventType[];
  description: string;
  active: boolean;
  /** WebhookResumed events so far: the run of failures an automatic pause counts (webhook_subscriptions.resumes). */
  resumes: number;
}

export const initialWebhookState = (): WebhookState => ({
  exists: false, deleted: false, organizationId: '', url: '', events: [], description: '', active: false, resumes: 0,
});

export function evolveWebhook(state: WebhookState, event: WebhookEvent): WebhookState {
  switch (event.type) {
    case 'WebhookCreated': {
      const d = event.data;
      return { exists: true, deleted: false, organizationId: d.organizationId, url: d.url, events: d.events, description: d.description, active: true, resumes: 0 };
    }
    case 'WebhookUpdated':
      return { ...state, ...event.data.changes };
    case 'WebhookPaused':
      return { ...state, active: false };
    case 'WebhookResumed':
      return { ...state, active: true, resumes: state.resumes + 1 };
    case 'WebhookDeleted':
      return { ...state, deleted: true, active: false };
    case 'WebhookSecretRotated':
    case 'WebhookPingRequested':
      return state;
    default: {
      const _never: never = event;
      return state;
    }
  }
}

export const webhookAggregate = { initialState: initialWebhookState, evolve: evolveWebhook };

/** The registry: ids of the organisation's live subscriptions. */
export interface WebhookRegistryState {
  live: string[];
}

export function evolveRegistry(state: WebhookRegistryState, event: WebhookRegistryEvent): WebhookRegistryState {
  switch (event.type) {
    case 'WebhookRegistered':
      return { live: [...state.live.filter((id) => id !== event.data.webhookId), event.data.webhookId] };
    case 'WebhookUnregistered':
      return { live: state.live.filter((id) => id !== event.data.webhookId) };
    default: {
      const _never: never = event;
      return state;
    }
  }
}

export const webhookRegistryAggregate = { initialState: (): WebhookRegistryState => ({ live: [] }), evolve: evolveRegistry };
