// The endpoint table of the specification (service-spec.md, "Endpoint table"), written out by hand so
// that the conformance tests check the service against the document, not against its own route table.
export interface SpecEndpoint {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path under /v1 with {id} / {number} placeholders, as the specification writes it. */
  path: string;
  /** Required scope; null for GET /me. */
  scope: string | null;
  /** The endpoint answers a list envelope. */
  list?: boolean;
  /** The endpoint takes a JSON body (413 applies). */
  body?: boolean;
}

export const SPEC_ENDPOINTS: readonly SpecEndpoint[] = [
  { method: 'GET', path: '/me', scope: null },
  { method: 'GET', path: '/contacts', scope: 'contacts:read', list: true },
  { method: 'POST', path: '/contacts', scope: 'contacts:write', body: true },
  { method: 'GET', path: '/contacts/{id}', scope: 'contacts:read' },
  { method: 'PATCH', path: '/contacts/{id}', scope: 'contacts:write', body: true },
  { method: 'POST', path: '/contacts/{id}/stage', scope: 'contacts:write', body: true },
  { method: 'POST', path: '/contacts/{id}/notes', scope: 'contacts:write', body: true },
  { method: 'POST', path: '/contacts/{id}/tags', scope: 'contacts:write', body: true },
  { method: 'POST', path: '/contacts/{id}/sms-optout', scope: 'contacts:write', body: true },
  { method: 'GET', path: '/leads', scope: 'leads:read', list: true },
  { method: 'GET', path: '/leads/{id}', scope: 'leads:read' },
  { method: 'POST', path: '/events', scope: 'events:write', body: true },
  { method: 'GET', path: '/events', scope: 'events:read', list: true },
  { method: 'GET', path: '/events/{id}', scope: 'events:read' },
  { method: 'GET', path: '/deliveries', scope: 'events:read', list: true },
  { method: 'GET', path: '/campaigns/report', scope: 'campaigns:read' },
  { method: 'GET', path: '/creatives/report', scope: 'creatives:read' },
  { method: 'GET', path: '/jobs', scope: 'jobs:read', list: true },
  { method: 'GET', path: '/jobs/{number}', scope: 'jobs:read' },
  { method: 'GET', path: '/webhooks', scope: 'webhooks:read', list: true },
  { method: 'POST', path: '/webhooks', scope: 'webhooks:write', body: true },
  { method: 'GET', path: '/webhooks/{id}', scope: 'webhooks:read' },
  { method: 'PATCH', path: '/webhooks/{id}', scope: 'webhooks:write', body: true },
  { method: 'DELETE', path: '/webhooks/{id}', scope: 'webhooks:write' },
  { method: 'POST', path: '/webhooks/{id}/test', scope: 'webhooks:write' },
  { method: 'POST', path: '/webhooks/{id}/rotate-secret', scope: 'webhooks:write' },
  { method: 'GET', path: '/webhooks/{id}/deliveries', scope: 'webhooks:read', list: true },
];

/** The scope table of "Authentication". */
export const SPEC_SCOPES = [
  'contacts:read', 'contacts:write', 'leads:read', 'leads:answers', 'events:read', 'events:write',
  'campaigns:read', 'creatives:read', 'jobs:read', 'webhooks:read', 'webhooks:write',
] as const;

/** Scopes that include the wanted one (rule 5 of "Authentication"). */
export function scopesGranting(wanted: string): string[] {
  const out = [wanted];
  if (wanted.endsWith(':read')) {
    const write = wanted.replace(/:read$/, ':write');
    if ((SPEC_SCOPES as readonly string[]).includes(write)) out.push(write);
    if (wanted === 'leads:read') out.push('leads:answers');
  }
  return out;
}

/** The path with placeholders filled: unknown ids of a plausible form unless given. */
export function fill(path: string, id = '00000000-0000-4000-8000-000000000000', number = '999999'): string {
  return path.replace('{id}', id).replace('{number}', number);
}

/** A body each endpoint accepts as valid (ids may still be unknown); `nulField` holds a string field. */
export function sampleBody(endpoint: SpecEndpoint, unique: string): { body: Record<string, unknown>; nulField?: string } | null {
  switch (`${endpoint.method} ${endpoint.path}`) {
    case 'POST /contacts': return { body: { name: 'Conformance', email: `${unique}@example.com` }, nulField: 'name' };
    case 'PATCH /contacts/{id}': return { body: { name: `Renamed ${unique}` }, nulField: 'name' };
    case 'POST /contacts/{id}/stage': return { body: { stage: 'contacted' } };
    case 'POST /contacts/{id}/notes': return { body: { text: `note ${unique}` }, nulField: 'text' };
    case 'POST /contacts/{id}/tags': return { body: { add: [`t-${unique}`.slice(0, 40)] } };
    case 'POST /contacts/{id}/sms-optout': return { body: { sms_optout: true } };
    case 'POST /events': return { body: { source: 'no-such-source', external_id: unique, status: 'paid', consent: true }, nulField: 'external_id' };
    case 'POST /webhooks': return { body: { url: `https://example.com/${unique}`, events: ['contact.created'] }, nulField: 'description' };
    case 'PATCH /webhooks/{id}': return { body: { description: `d ${unique}` }, nulField: 'description' };
    default: return null;
  }
}
