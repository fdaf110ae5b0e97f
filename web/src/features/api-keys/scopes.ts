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

/** How the form names each resource's group. */
const RESOURCE_NAMES: Record<string, string> = {
  alerts: 'Alerts', incidents: 'Incidents', integrations: 'Integrations', clients: 'Clients', workflows: 'Workflows',
  schedules: 'On-call schedules', suppression: 'Suppression windows', users: 'Members', api_keys: 'API keys', audit: 'Audit log',
  heartbeats: 'Heartbeats', escalations: 'Escalation policies',
};

/** Scopes grouped by the resource before the colon: one fieldset per resource, named in words. */
export function scopeGroups(): Array<{ resource: string; name: string; scopes: Scope[] }> {
  const groups = new Map<string, Scope[]>();
  for (const s of SCOPES) {
    const resource = s.split(':')[0] as string;
    groups.set(resource, [...(groups.get(resource) ?? []), s]);
  }
  return [...groups].map(([resource, scopes]) => ({ resource, name: RESOURCE_NAMES[resource] ?? resource, scopes }));
}

/** The form's presets: a key that reads everything, and one that may do everything. */
export const SCOPE_PRESETS: ReadonlyArray<{ label: string; scopes: readonly Scope[] }> = [
  { label: 'Read only', scopes: SCOPES.filter((s) => s.endsWith(':read')) },
  { label: 'Everything', scopes: SCOPES },
];
