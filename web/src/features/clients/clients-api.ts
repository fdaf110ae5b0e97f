import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { CreateClientBody, PatchClientBody } from '../../api/types';

/** What a client page lists of each kind: a few, with a link to the full list. */
const SHORT = 10;

export function useClientList() {
  return useQuery({
    queryKey: ['clients', 'list'],
    queryFn: ({ signal }) => unwrap(api.GET('/clients', { params: { query: { limit: 100 } }, signal })),
  });
}

export function useClient(id: string) {
  return useQuery({
    queryKey: ['clients', id],
    queryFn: ({ signal }) => unwrap(api.GET('/clients/{id}', { params: { path: { id } }, signal })),
  });
}

export function useClientIncidents(clientId: string) {
  const query = { clientId, status: 'triggered,acknowledged', limit: SHORT };
  return useQuery({
    queryKey: ['incidents', query],
    queryFn: ({ signal }) => unwrap(api.GET('/incidents', { params: { query }, signal })),
  });
}

export function useClientIntegrations(clientId: string) {
  const query = { clientId, limit: SHORT };
  return useQuery({
    queryKey: ['integrations', query],
    queryFn: ({ signal }) => unwrap(api.GET('/integrations', { params: { query }, signal })),
  });
}

export function useClientWindows(clientId: string) {
  const query = { clientId, limit: SHORT };
  return useQuery({
    queryKey: ['suppression', query],
    queryFn: ({ signal }) => unwrap(api.GET('/suppression', { params: { query }, signal })),
  });
}

export function useClientReport(id: string, period: string | undefined) {
  const query = period ? { period } : {};
  return useQuery({
    queryKey: ['clients', id, 'report', period ?? null],
    queryFn: ({ signal }) => unwrap(api.GET('/clients/{id}/report', { params: { path: { id }, query }, signal })),
  });
}

export const openAlertsOf = (clientId: string) => ({ clientId, status: 'firing,acknowledged', limit: SHORT });

function useInvalidate() {
  const qc = useQueryClient();
  return () => qc.invalidateQueries({ queryKey: ['clients'] });
}

export function useCreateClient() {
  const invalidate = useInvalidate();
  return useMutation({ mutationFn: (body: CreateClientBody) => unwrap(api.POST('/clients', { body })), onSuccess: invalidate });
}

export function useUpdateClient(id: string) {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (body: PatchClientBody) => unwrap(api.PATCH('/clients/{id}', { params: { path: { id } }, body })),
    onSuccess: invalidate,
  });
}

export function useDeleteClient(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(api.DELETE('/clients/{id}', { params: { path: { id } } })),
    onSuccess: () => {
      qc.removeQueries({ queryKey: ['clients', id] });
      return qc.invalidateQueries({ queryKey: ['clients'] });
    },
  });
}
