import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';

/** My shifts now and in the next 30 days, each with who follows. */
export function useMyOnCall() {
  return useQuery({
    queryKey: ['schedules', 'me'],
    queryFn: ({ signal }) => unwrap(api.GET('/users/me/oncall', { signal })),
    refetchInterval: 60_000,
  });
}

/** My open incidents: assigned to me or that paged me (key starts with 'incidents': the live stream refreshes it). */
export function useMyIncidents() {
  return useQuery({
    queryKey: ['incidents', 'mine'],
    queryFn: ({ signal }) => unwrap(api.GET('/incidents', { params: { query: { mine: true, status: 'triggered,acknowledged', limit: 20 } }, signal })),
  });
}

export function useAcknowledge() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => unwrap(api.PATCH('/incidents/{id}', { params: { path: { id } }, body: { status: 'acknowledged' } })),
    onSettled: () => qc.invalidateQueries({ queryKey: ['incidents'] }),
  });
}
