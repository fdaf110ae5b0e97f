import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from './client';

/** The organization's schedules by name (the first 100, the API's page limit): for timelines and pickers. */
export function useScheduleNames(): (id: string) => string {
  const list = useQuery({
    queryKey: ['schedules', 'names'],
    staleTime: 60_000,
    queryFn: ({ signal }) => unwrap(api.GET('/schedules', { params: { query: { limit: 100 } }, signal })),
  });
  const byId = new Map((list.data?.data ?? []).map((s) => [s.id, s.name]));
  return (id) => byId.get(id) ?? `schedule ${id}`;
}
