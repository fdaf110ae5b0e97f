import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { CreateHeartbeatBody, PatchHeartbeatBody } from '../../api/types';

/** States change with pings and the server's checker, not with anything done here: looked at again every so often. */
const REFRESH_MS = 15_000;

export function useHeartbeats() {
  return useQuery({
    queryKey: ['heartbeats', 'list'],
    refetchInterval: REFRESH_MS,
    queryFn: ({ signal }) => unwrap(api.GET('/heartbeats', { params: { query: { limit: 100 } }, signal })),
  });
}

export function useHeartbeat(id: string) {
  return useQuery({
    queryKey: ['heartbeats', id],
    refetchInterval: REFRESH_MS,
    queryFn: ({ signal }) => unwrap(api.GET('/heartbeats/{id}', { params: { path: { id } }, signal })),
  });
}

function useInvalidate() {
  const qc = useQueryClient();
  return () => qc.invalidateQueries({ queryKey: ['heartbeats'] });
}

export function useCreateHeartbeat() {
  const invalidate = useInvalidate();
  return useMutation({ mutationFn: (body: CreateHeartbeatBody) => unwrap(api.POST('/heartbeats', { body })), onSuccess: invalidate });
}

export function useUpdateHeartbeat(id: string) {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (body: PatchHeartbeatBody) => unwrap(api.PATCH('/heartbeats/{id}', { params: { path: { id } }, body })),
    onSuccess: invalidate,
  });
}

export function useRotateHeartbeatToken(id: string) {
  const invalidate = useInvalidate();
  return useMutation({ mutationFn: () => unwrap(api.POST('/heartbeats/{id}/rotate-token', { params: { path: { id } } })), onSuccess: invalidate });
}

export function useDeleteHeartbeat(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(api.DELETE('/heartbeats/{id}', { params: { path: { id } } })),
    onSuccess: () => {
      qc.removeQueries({ queryKey: ['heartbeats', id] });
      return qc.invalidateQueries({ queryKey: ['heartbeats'] });
    },
  });
}
