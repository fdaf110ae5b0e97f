import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { CreateSuppressionBody } from '../../api/types';
import { useDebounced } from '../../components/use-debounced';

export function useWindows() {
  return useQuery({
    queryKey: ['suppression', 'list'],
    queryFn: ({ signal }) => unwrap(api.GET('/suppression', { params: { query: { limit: 100 } }, signal })),
    refetchInterval: 60_000,
  });
}

export function useWindow(id: string) {
  return useQuery({
    queryKey: ['suppression', id],
    queryFn: ({ signal }) => unwrap(api.GET('/suppression/{id}', { params: { path: { id } }, signal })),
  });
}

/** What the server makes of an unsaved window (asked once the form stops changing). */
export function useWindowPreview(body: CreateSuppressionBody) {
  const settled = useDebounced(body, 400);
  return useQuery({
    queryKey: ['suppression', 'preview', settled],
    queryFn: ({ signal }) => unwrap(api.POST('/suppression/preview', { body: settled, signal })),
    placeholderData: keepPreviousData,
    retry: false,
  });
}

function useInvalidate() {
  const qc = useQueryClient();
  return () => qc.invalidateQueries({ queryKey: ['suppression'] });
}

export function useCreateWindow() {
  const invalidate = useInvalidate();
  return useMutation({ mutationFn: (body: CreateSuppressionBody) => unwrap(api.POST('/suppression', { body })), onSuccess: invalidate });
}

export function useUpdateWindow(id: string) {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (body: CreateSuppressionBody) => unwrap(api.PUT('/suppression/{id}', { params: { path: { id } }, body })),
    onSuccess: invalidate,
  });
}

export function useDeleteWindow(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(api.DELETE('/suppression/{id}', { params: { path: { id } } })),
    onSuccess: () => {
      qc.removeQueries({ queryKey: ['suppression', id] });
      return qc.invalidateQueries({ queryKey: ['suppression'] });
    },
  });
}
