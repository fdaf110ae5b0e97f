import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { CreateWorkflowBody, TestDraftBody } from '../../api/types';

export function useWorkflows() {
  return useQuery({
    queryKey: ['workflows', 'list'],
    queryFn: ({ signal }) => unwrap(api.GET('/workflows', { params: { query: { limit: 100 } }, signal })),
  });
}

export function useWorkflow(id: string) {
  return useQuery({
    queryKey: ['workflows', id],
    queryFn: ({ signal }) => unwrap(api.GET('/workflows/{id}', { params: { path: { id } }, signal })),
  });
}

/** A workflow's runs, newest first, 25 a page. */
export function useRuns(id: string) {
  return useInfiniteQuery({
    queryKey: ['workflows', id, 'runs'],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam, signal }) =>
      unwrap(api.GET('/workflows/{id}/runs', { params: { path: { id }, query: { limit: 25, ...(pageParam && { cursor: pageParam }) } }, signal })),
    getNextPageParam: (last) => (last.meta.hasMore ? (last.meta.nextCursor ?? undefined) : undefined),
  });
}

/** Recent alerts: the samples to test on, and the label and annotation keys the condition fields suggest. */
export function useRecentAlerts() {
  return useQuery({
    queryKey: ['alerts', 'recent'],
    queryFn: ({ signal }) => unwrap(api.GET('/alerts', { params: { query: { limit: 50 } }, signal })),
  });
}

/** The schedules, users and escalation policies actions can name (the first 100 of each: the API's page limit). */
export function useActionChoices() {
  const schedules = useQuery({
    queryKey: ['schedules', 'choices'],
    queryFn: ({ signal }) => unwrap(api.GET('/schedules', { params: { query: { limit: 100 } }, signal })),
  });
  const users = useQuery({
    queryKey: ['users', 'choices'],
    queryFn: ({ signal }) => unwrap(api.GET('/users', { params: { query: { limit: 100 } }, signal })),
  });
  const policies = useQuery({
    queryKey: ['escalation-policies', 'choices'],
    queryFn: ({ signal }) => unwrap(api.GET('/escalation-policies', { params: { query: { limit: 100 } }, signal })),
  });
  return {
    schedules: (schedules.data?.data ?? []).map((s) => ({ value: s.id, label: s.name })),
    policies: (policies.data?.data ?? []).map((p) => ({ value: p.id, label: p.name })),
    users: (users.data?.data ?? []).map((u) => ({ value: u.id, label: `${u.name} <${u.email}>` })),
  };
}

function useInvalidate() {
  const qc = useQueryClient();
  return () => qc.invalidateQueries({ queryKey: ['workflows'] });
}

export function useCreateWorkflow() {
  const invalidate = useInvalidate();
  return useMutation({ mutationFn: (body: CreateWorkflowBody) => unwrap(api.POST('/workflows', { body })), onSuccess: invalidate });
}

export function useUpdateWorkflow(id: string) {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (body: CreateWorkflowBody) => unwrap(api.PUT('/workflows/{id}', { params: { path: { id } }, body })),
    onSuccess: invalidate,
  });
}

export function useSetEnabled() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: ({ id, enabled }: { id: string; enabled: boolean }) =>
      unwrap(api.POST(enabled ? '/workflows/{id}/enable' : '/workflows/{id}/disable', { params: { path: { id } } })),
    onSuccess: invalidate,
  });
}

export function useDeleteWorkflow(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(api.DELETE('/workflows/{id}', { params: { path: { id } } })),
    onSuccess: () => {
      qc.removeQueries({ queryKey: ['workflows', id] });
      return qc.invalidateQueries({ queryKey: ['workflows'] });
    },
  });
}

/** The dry run of the editor's definition, saved or not: nothing is stored or sent. */
export function useDryRun() {
  return useMutation({ mutationFn: (body: TestDraftBody) => unwrap(api.POST('/workflows/test', { body })) });
}
