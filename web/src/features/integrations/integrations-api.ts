import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { CreateIntegrationBody, Mapping, PatchIntegrationBody } from '../../api/types';

/** The first 100 integrations, or those of one client (a client page's "See all"). */
export function useIntegrations(clientId: string | null = null) {
  return useQuery({
    queryKey: ['integrations', 'list', clientId],
    queryFn: ({ signal }) => unwrap(api.GET('/integrations', { params: { query: { limit: 100, ...(clientId && { clientId }) } }, signal })),
  });
}

export function useIntegration(id: string) {
  return useQuery({
    queryKey: ['integrations', id],
    queryFn: ({ signal }) => unwrap(api.GET('/integrations/{id}', { params: { path: { id } }, signal })),
  });
}

export function usePresets() {
  return useQuery({
    queryKey: ['presets'],
    staleTime: Infinity,
    queryFn: ({ signal }) => unwrap(api.GET('/integrations/presets', { signal })),
  });
}

export function useRejections(id: string) {
  return useQuery({
    queryKey: ['integrations', id, 'rejections'],
    queryFn: ({ signal }) => unwrap(api.GET('/integrations/{id}/rejections', { params: { path: { id } }, signal })),
  });
}

function useInvalidate() {
  const qc = useQueryClient();
  return () => qc.invalidateQueries({ queryKey: ['integrations'] });
}

export function useCreateIntegration() {
  const invalidate = useInvalidate();
  return useMutation({ mutationFn: (body: CreateIntegrationBody) => unwrap(api.POST('/integrations', { body })), onSuccess: invalidate });
}

export function useUpdateIntegration(id: string) {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (body: PatchIntegrationBody) => unwrap(api.PATCH('/integrations/{id}', { params: { path: { id } }, body })),
    onSuccess: invalidate,
  });
}

export function useRotateToken(id: string) {
  const invalidate = useInvalidate();
  return useMutation({ mutationFn: () => unwrap(api.POST('/integrations/{id}/rotate-token', { params: { path: { id } } })), onSuccess: invalidate });
}

export function useDeleteIntegration(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(api.DELETE('/integrations/{id}', { params: { path: { id } } })),
    onSuccess: () => {
      qc.removeQueries({ queryKey: ['integrations', id] });
      return qc.invalidateQueries({ queryKey: ['integrations'] });
    },
  });
}

/** What ingest would make of `payload` with the (unsaved) `mapping`; changes nothing. */
export function previewMapping(id: string, payload: unknown, mapping: Mapping | null, signal?: AbortSignal) {
  return unwrap(api.POST('/integrations/{id}/preview', { params: { path: { id } }, body: { payload, mapping }, ...(signal && { signal }) }));
}
