import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from './client';

/** The organization's clients, to choose one in a form (integrations, heartbeats). */
export function useClients() {
  return useQuery({
    queryKey: ['clients', 'choices'],
    queryFn: ({ signal }) => unwrap(api.GET('/clients', { params: { query: { limit: 100 } }, signal })),
  });
}
