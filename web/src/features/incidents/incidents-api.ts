import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { IncidentQuery, IncidentStatus, Severity } from '../../api/types';

const PAGE = 50;
export const OPEN = 'triggered,acknowledged';

/** The API query the address describes: filters and the page live in the URL, so a filtered list survives a reload. */
export function incidentQueryOf(params: URLSearchParams): IncidentQuery {
  const q: IncidentQuery = { limit: PAGE, status: params.get('status') ?? OPEN };
  if (q.status === '') delete q.status;
  for (const k of ['assigneeId', 'clientId', 'cursor'] as const) {
    const v = params.get(k);
    if (v) q[k] = v;
  }
  if (params.get('mine') === 'true') q.mine = true;
  return q;
}

// Every key starts with 'incidents': the live-update stream invalidates them all at once.
export function useIncidents(query: IncidentQuery) {
  return useQuery({
    queryKey: ['incidents', 'list', query],
    queryFn: ({ signal }) => unwrap(api.GET('/incidents', { params: { query }, signal })),
    placeholderData: keepPreviousData,
  });
}

export function useIncident(id: string) {
  return useQuery({
    queryKey: ['incidents', 'detail', id],
    queryFn: ({ signal }) => unwrap(api.GET('/incidents/{id}', { params: { path: { id } }, signal })),
  });
}

export type IncidentChange = { status: IncidentStatus } | { assigneeId: string | null } | { severity: Severity };

/** After any change: the incident, its list and its alerts are fetched again. */
function useRefetch() {
  const qc = useQueryClient();
  return () => Promise.all([qc.invalidateQueries({ queryKey: ['incidents'] }), qc.invalidateQueries({ queryKey: ['alerts'] }), qc.invalidateQueries({ queryKey: ['alert'] })]);
}

/** Acknowledge, resolve, assign or change the severity. */
export function useUpdateIncident(id: string) {
  const refetch = useRefetch();
  return useMutation({
    mutationFn: (body: IncidentChange) => unwrap(api.PATCH('/incidents/{id}', { params: { path: { id } }, body })),
    onSettled: refetch,
  });
}

export function useAddNote(id: string) {
  const refetch = useRefetch();
  return useMutation({
    mutationFn: (text: string) => unwrap(api.POST('/incidents/{id}/notes', { params: { path: { id } }, body: { text } })),
    onSettled: refetch,
  });
}
