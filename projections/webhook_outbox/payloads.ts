// The push payload of each domain event that webhooks carry (DESIGN.md, "webhook payloads").
import type { RecordedEvent } from '../../src/eventstore/port.ts';
import type { ContactCreated, ContactCycleOpened, ContactLeadLinked, ContactStageChanged } from '../../commands/contact/contact.ts';
import type { DeliveryEvent } from '../../commands/delivery/delivery.ts';
import type { WebhookEventType } from '../../commands/webhook/webhook.ts';

type DeliveryFailed = Extract<DeliveryEvent, { type: 'DeliveryFailed' }>['data'];

/** Domain event type -> push type. lead.created comes from ContactLeadLinked: the moment a lead has its
 * person and its data (an import at once, a leadgen webhook lead once it is fetched). A new lead that
 * reopens a sold or rejected person (ContactCycleOpened) moves the person back to new: a stage change too. */
export const PUSH_SOURCES = {
  ContactCreated: 'contact.created',
  ContactStageChanged: 'contact.stage_changed',
  ContactCycleOpened: 'contact.stage_changed',
  ContactLeadLinked: 'lead.created',
  DeliveryFailed: 'delivery.failed',
} as const satisfies Record<string, WebhookEventType>;

export type PushSource = keyof typeof PUSH_SOURCES;

export interface Push {
  organizationId: string;
  type: WebhookEventType;
  eventId: string;
  createdAt: string;
  data: Record<string, unknown>;
}

export const isPushSource = (type: string): type is PushSource => Object.hasOwn(PUSH_SOURCES, type);

function payload(type: PushSource, data: unknown): { organizationId: string; data: Record<string, unknown> } {
  switch (type) {
    case 'ContactCreated': {
      const d = data as ContactCreated;
      return { organizationId: d.organizationId, data: { contact_id: d.contactId, stage: d.stage, first_source: d.firstSource } };
    }
    case 'ContactStageChanged': {
      const d = data as ContactStageChanged;
      return { organizationId: d.organizationId, data: { contact_id: d.contactId, from: d.from, to: d.to, cycle: d.cycle, value: d.value, currency: d.currency } };
    }
    case 'ContactCycleOpened': {
      const d = data as ContactCycleOpened;
      return { organizationId: d.organizationId, data: { contact_id: d.contactId, from: d.from, to: 'new', cycle: d.cycle, value: null, currency: null } };
    }
    case 'ContactLeadLinked': {
      const d = data as ContactLeadLinked;
      return {
        organizationId: d.organizationId,
        data: { lead_id: d.leadId, contact_id: d.contactId, form_id: d.sourceId, platform_lead_id: d.platformLeadId, cycle: d.cycle, ad: d.ad },
      };
    }
    case 'DeliveryFailed': {
      const d = data as DeliveryFailed;
      return {
        organizationId: d.organizationId,
        data: { delivery_id: d.deliveryId, event_id: d.eventId, target_id: d.targetId, dataset_id: d.datasetId, event_name: d.eventName, attempts: d.attempts, last_error: d.lastError },
      };
    }
    default: {
      const _never: never = type;
      throw new Error(`no payload for ${String(_never)}`);
    }
  }
}

export function pushOf(event: RecordedEvent & { type: PushSource }): Push {
  const { organizationId, data } = payload(event.type, event.data);
  return { organizationId, type: PUSH_SOURCES[event.type], eventId: event.id, createdAt: event.createdAt, data };
}
