// The API key scopes of the specification, and what each one implies.
export type Scope =
  | 'contacts:read' | 'contacts:write'
  | 'leads:read' | 'leads:answers'
  | 'events:read' | 'events:write'
  | 'campaigns:read' | 'creatives:read'
  | 'jobs:read'
  | 'webhooks:read' | 'webhooks:write';

export const ALL_SCOPES: readonly Scope[] = [
  'contacts:read', 'contacts:write', 'leads:read', 'leads:answers', 'events:read', 'events:write',
  'campaigns:read', 'creatives:read', 'jobs:read', 'webhooks:read', 'webhooks:write',
];

/** A :write scope includes :read of its area; leads:answers includes leads:read. */
export function grants(held: readonly string[], wanted: Scope): boolean {
  if (held.includes(wanted)) return true;
  if (wanted.endsWith(':read')) {
    const area = wanted.slice(0, -':read'.length);
    if (held.includes(`${area}:write`)) return true;
    if (wanted === 'leads:read' && held.includes('leads:answers')) return true;
  }
  return false;
}
