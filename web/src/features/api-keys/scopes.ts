import type { Scope } from '../../api/types';

/**
 * Every scope the API knows, in the order the form shows them. The type check below fails the build when
 * the generated schema gains or loses a scope, so this list cannot drift from the API.
 */
export const SCOPES = [
  'alerts:read', 'alerts:write', 'incidents:read', 'incidents:write', 'integrations:read', 'integrations:write',
  'clients:read', 'clients:write', 'workflows:read', 'workflows:write', 'schedules:read', 'schedules:write',
  'suppression:read', 'suppression:write', 'users:read', 'users:write', 'api_keys:read', 'api_keys:write', 'audit:read',
  'heartbeats:read', 'heartbeats:write',
  'escalations:read', 'escalations:write',
] as const satisfies readonly Scope[];
type Missing = Exclude<Scope, (typeof SCOPES)[number]>;
const exhaustive: [Missing] extends [never] ? true : Missing = true;
void exhaustive;

/** Scopes grouped by the resource before the colon: one fieldset per resource. */
export function scopeGroups(): Array<{ resource: string; scopes: Scope[] }> {
  const groups = new Map<string, Scope[]>();
  for (const s of SCOPES) {
    const resource = s.split(':')[0] as string;
    groups.set(resource, [...(groups.get(resource) ?? []), s]);
  }
  return [...groups].map(([resource, scopes]) => ({ resource, scopes }));
}
