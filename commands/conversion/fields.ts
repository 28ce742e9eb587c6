// The POST /events body field names: also the spreadsheet column names a sheet source matches by default.
export const EVENT_FIELDS = [
  'external_id', 'status', 'consent', 'event_time', 'event_id', 'email', 'phone', 'lead_id', 'user_id', 'fbp', 'fbc',
  'event_source_url', 'tracking_id', 'client_ip_address', 'client_user_agent', 'value', 'currency', 'content_ids',
] as const;

export type EventField = (typeof EVENT_FIELDS)[number];
