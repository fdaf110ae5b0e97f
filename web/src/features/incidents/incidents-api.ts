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

/**
 * One incident. While it is open its timeline is fetched again every few seconds: pages go out from the job
 * workers, and a page sent changes no field of the incident that the live stream would announce.
 */
export function useIncident(id: string) {
  return useQuery({
    queryKey: ['incidents', 'detail', id],
    queryFn: ({ signal }) => unwrap(api.GET('/incidents/{id}', { params: { path: { id } }, signal })),
    refetchInterval: (q) => (q.state.data?.data.status === 'resolved' ? false : 5000),
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

export function useSnooze(id: string) {
  const refetch = useRefetch();
  return useMutation({
    mutationFn: (minutes: number) => unwrap(api.POST('/incidents/{id}/snooze', { params: { path: { id } }, body: { minutes } })),
    onSettled: refetch,
  });
}

export function useEscalateNow(id: string) {
  const refetch = useRefetch();
  return useMutation({
    mutationFn: () => unwrap(api.POST('/incidents/{id}/escalate', { params: { path: { id } } })),
    onSettled: refetch,
  });
}

export type Responder = { userId: string } | { policyId: string };

export function useAddResponder(id: string) {
  const refetch = useRefetch();
  return useMutation({
    mutationFn: (body: Responder) => unwrap(api.POST('/incidents/{id}/responders', { params: { path: { id } }, body })),
    onSettled: refetch,
  });
}

/** The escalation policies a responder can be (the first 100, the API's page limit). */
export function usePolicyChoices(enabled: boolean) {
  return useQuery({
    queryKey: ['escalation-policies', 'choices'],
    enabled,
    staleTime: 60_000,
    queryFn: ({ signal }) => unwrap(api.GET('/escalation-policies', { params: { query: { limit: 100 } }, signal })),
  });
}
