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

/**
 * Actors in words: a user by name and email when the session may list users (the first 100, the API's page
 * limit), anything else by type and id.
 */
export function useActorText(): (a: Actor | null) => string {
  const users = useMembers();
  const byId = new Map((users.data?.data ?? []).map((u) => [u.id, u.name ? `${u.name} <${u.email}>` : u.email]));
  return (a) => {
    if (!a) return '—';
    const name = a.type === 'user' && a.id ? byId.get(a.id) : undefined;
    return name ?? `${a.type.replace('_', ' ')}${a.id ? ` ${a.id}` : ''}`;
  };
}

/** A member by name alone (their email when they have no name), for sentences that say who; an unknown id as it is. */
export function useMemberName(): (id: string) => string {
  const users = useMembers();
  const byId = new Map((users.data?.data ?? []).map((u) => [u.id, u.name || u.email]));
  return (id) => byId.get(id) ?? `user ${id}`;
}
