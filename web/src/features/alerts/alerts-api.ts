import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { useClients } from '../../api/clients';
import type { paths } from '../../api/schema';
import type { AlertQuery } from '../../api/types';

const PAGE = 50;

/** The API query the address describes: filters live in the URL, so a filtered list survives a reload. */
export function alertQueryOf(params: URLSearchParams): AlertQuery {
  const q: AlertQuery = { limit: PAGE, status: params.get('status') ?? 'firing,acknowledged' };
  if (q.status === '') delete q.status;
  for (const k of ['severity', 'integrationId', 'clientId', 'q', 'cursor'] as const) {
    const v = params.get(k);
    if (v) q[k] = v;
  }
  const label = params.get('label');
  if (label) q.label = label.split(/\s+/).filter(Boolean);
  const flapping = params.get('flapping');
  if (flapping === 'true' || flapping === 'false') q.flapping = flapping;
  return q;
}

export const alertsQuery = (query: AlertQuery) => ({
  queryKey: ['alerts', query],
  queryFn: ({ signal }: { signal: AbortSignal }) => unwrap(api.GET('/alerts', { params: { query }, signal })),
});

export function useAlerts(query: AlertQuery) {
  return useQuery({ ...alertsQuery(query), placeholderData: keepPreviousData });
}

export function useAlert(id: string) {
  return useQuery({ queryKey: ['alert', id], queryFn: ({ signal }) => unwrap(api.GET('/alerts/{id}', { params: { path: { id } }, signal })) });
}

export function useAlertNotifications(id: string) {
  return useQuery({
    queryKey: ['alert', id, 'notifications'],
    queryFn: ({ signal }) => unwrap(api.GET('/alerts/{id}/notifications', { params: { path: { id }, query: { limit: 100 } }, signal })),
  });
}

export function useIncident(id: string | null) {
  return useQuery({
    queryKey: ['incidents', 'detail', id],
    enabled: id !== null,
    queryFn: ({ signal }) => unwrap(api.GET('/incidents/{id}', { params: { path: { id: id as string } }, signal })),
  });
}

export type AlertAction = 'acknowledge' | 'resolve';

/** Acknowledge or resolve up to 100 alerts at once; the list and the details are fetched again. */
export function useBulkAction() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ action, ids }: { action: AlertAction; ids: string[] }) => unwrap(api.POST('/alerts/bulk', { body: { action, ids } })),
    onSettled: () => Promise.all([qc.invalidateQueries({ queryKey: ['alerts'] }), qc.invalidateQueries({ queryKey: ['alert'] })]),
  });
}

type ByFilterBody = NonNullable<paths['/alerts/bulk-by-filter']['post']['requestBody']>['content']['application/json'];
export type AlertFilter = ByFilterBody['filter'];

/** The filters of a list query, without its page: what "all matching" acts on. */
export function filterOf(query: AlertQuery): AlertFilter {
  const { limit: _limit, cursor: _cursor, ...filter } = query;
  return filter;
}

/**
 * "Acknowledge/resolve all matching": `count` asks how many the action would change (nothing changes), `confirm`
 * acts on that count as of the moment it was made; the server refuses if more match by then.
 */
export function useByFilter() {
  const qc = useQueryClient();
  const count = useMutation({
    mutationFn: ({ action, filter }: { action: AlertAction; filter: AlertFilter }) =>
      unwrap(api.POST('/alerts/bulk-by-filter', { body: { action, filter, dryRun: true } })),
  });
  const confirm = useMutation({
    mutationFn: ({ action, filter, matching, asOf }: { action: AlertAction; filter: AlertFilter; matching: number; asOf: string }) =>
      unwrap(api.POST('/alerts/bulk-by-filter', { body: { action, filter, confirm: { count: matching, asOf } } })),
    onSettled: () => Promise.all([qc.invalidateQueries({ queryKey: ['alerts'] }), qc.invalidateQueries({ queryKey: ['alert'] }), qc.invalidateQueries({ queryKey: ['incidents'] })]),
  });
  return { count, confirm };
}

/** The integrations and clients the filters offer (the first 100 of each: the API's page limit). */
export function useFilterChoices() {
  const integrations = useQuery({
    queryKey: ['integrations', 'choices'],
    queryFn: ({ signal }) => unwrap(api.GET('/integrations', { params: { query: { limit: 100 } }, signal })),
  });
  const clients = useClients();
  return { integrations: integrations.data?.data ?? [], clients: clients.data?.data ?? [] };
}
