import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from './client';

interface Actor {
  type: string;
  id: string | null;
}

/** The organization's members (the first 100, the API's page limit): names for actors, choices for pickers. */
export function useMembers() {
  return useQuery({
    queryKey: ['users', 'names'],
    staleTime: 60_000,
    queryFn: ({ signal }) => unwrap(api.GET('/users', { params: { query: { limit: 100 } }, signal })),
  });
}

/** API keys and integrations by name (the first 100 of each): they act too, e.g. in the audit log. */
function useKeyAndIntegrationNames(): Map<string, string> {
  const keys = useQuery({
    queryKey: ['api-keys', 'names'],
    staleTime: 60_000,
    queryFn: ({ signal }) => unwrap(api.GET('/api-keys', { params: { query: { limit: 100 } }, signal })),
  });
  const integrations = useQuery({
    queryKey: ['integrations', 'choices'],
    queryFn: ({ signal }) => unwrap(api.GET('/integrations', { params: { query: { limit: 100 } }, signal })),
  });
  return new Map([
    ...(keys.data?.data ?? []).map((k): [string, string] => [`api_key:${k.id}`, `API key “${k.name}”`]),
    ...(integrations.data?.data ?? []).map((i): [string, string] => [`integration:${i.id}`, `integration “${i.name}”`]),
  ]);
}

/**
 * Actors in words: a user by name and email, an API key or an integration by its name (the first 100 of each,
 * the API's page limit); anything else, or one not found, by type and id.
 */
export function actorText(users: Map<string, string>, named: Map<string, string>, a: Actor | null): string {
  if (!a) return '—';
  const name = a.id === null ? undefined : a.type === 'user' ? users.get(a.id) : named.get(`${a.type}:${a.id}`);
  return name ?? `${a.type.replace('_', ' ')}${a.id ? ` ${a.id}` : ''}`;
}

export function useActorText(): (a: Actor | null) => string {
  const users = useMembers();
  const named = useKeyAndIntegrationNames();
  const byId = new Map((users.data?.data ?? []).map((u) => [u.id, u.name ? `${u.name} <${u.email}>` : u.email]));
  return (a) => actorText(byId, named, a);
}

/** A member by name alone (their email when they have no name), for sentences that say who; an unknown id as it is. */
export function useMemberName(): (id: string) => string {
  const users = useMembers();
  const byId = new Map((users.data?.data ?? []).map((u) => [u.id, u.name || u.email]));
  return (id) => byId.get(id) ?? `user ${id}`;
}
