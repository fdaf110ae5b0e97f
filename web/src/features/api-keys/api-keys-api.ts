import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { Scope } from '../../api/types';

export interface NewKeyInput {
  name: string;
  scopes: Scope[];
  expiresAt?: string;
}

export function useApiKeys() {
  return useQuery({
    queryKey: ['api-keys'],
    queryFn: ({ signal }) => unwrap(api.GET('/api-keys', { params: { query: { limit: 100 } }, signal })),
  });
}

export function useCreateApiKey() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: NewKeyInput) => unwrap(api.POST('/api-keys', { body })),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['api-keys'] }),
  });
}

export function useRevokeApiKey() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => unwrap(api.DELETE('/api-keys/{id}', { params: { path: { id } } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['api-keys'] }),
  });
}
