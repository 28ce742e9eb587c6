// A queued delivery as the platform's server event (docs/conversions.md has the field-by-field mapping).
import type { ServerEvent, ServerUserData } from '../../platform/conversions.ts';
import type { QueuedDelivery } from './queue-sql.ts';

/** The tool the platform's Conversion Leads integration is told its CRM events come from (custom_data.lead_event_source). */
export const LEAD_EVENT_SOURCE = 'Conversion and Lead Management API';

export function toServerEvent(d: QueuedDelivery): ServerEvent {
  const p = d.payload;
  const u = p.userData;
  const user: ServerUserData = {};
  if (u.em) user.em = [u.em];
  if (u.ph) user.ph = [u.ph];
  if (u.externalId) user.external_id = [u.externalId];
  if (u.fbp) user.fbp = u.fbp;
  if (u.fbc) user.fbc = u.fbc;
  if (u.clientIpAddress) user.client_ip_address = u.clientIpAddress;
  if (u.clientUserAgent) user.client_user_agent = u.clientUserAgent;
  // The platform's lead ids are numeric; anything else would make it refuse the whole batch.
  if (u.leadId && /^\d+$/.test(u.leadId)) user.lead_id = u.leadId;
  const event: ServerEvent = {
    event_name: d.event_name,
    event_time: Math.floor(Date.parse(p.eventTime) / 1000),
    event_id: d.platform_event_id,
    action_source: p.actionSource,
    user_data: user,
  };
  if (p.eventSourceUrl) event.event_source_url = p.eventSourceUrl;
  const custom: NonNullable<ServerEvent['custom_data']> = {};
  if (p.value !== null) custom.value = p.value;
  if (p.currency !== null) custom.currency = p.currency;
  if (p.contentIds?.length) custom.content_ids = p.contentIds;
  // A CRM event about an instant-form lead: the platform's Conversion Leads payload requires both.
  if (user.lead_id !== undefined && event.action_source === 'system_generated') {
    custom.event_source = 'crm';
    custom.lead_event_source = LEAD_EVENT_SOURCE;
  }
  if (Object.keys(custom).length) event.custom_data = custom;
  return event;
}
