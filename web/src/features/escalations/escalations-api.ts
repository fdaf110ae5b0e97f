import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useChannels } from '../../api/channels';
import { api, unwrap } from '../../api/client';
import type { CreateEscalationPolicyBody } from '../../api/types';

export function usePolicies() {
  return useQuery({
    queryKey: ['escalation-policies', 'list'],
    queryFn: ({ signal }) => unwrap(api.GET('/escalation-policies', { params: { query: { limit: 100 } }, signal })),
  });
}

export function usePolicy(id: string) {
  return useQuery({
    queryKey: ['escalation-policies', id],
    queryFn: ({ signal }) => unwrap(api.GET('/escalation-policies/{id}', { params: { path: { id } }, signal })),
  });
}

/** The members and schedules a step can page (the first 100 of each: the API's page limit), by id. */
export function useTargetChoices() {
  const users = useQuery({ queryKey: ['users', 'choices'], queryFn: ({ signal }) => unwrap(api.GET('/users', { params: { query: { limit: 100 } }, signal })) });
  const schedules = useQuery({ queryKey: ['schedules', 'choices'], queryFn: ({ signal }) => unwrap(api.GET('/schedules', { params: { query: { limit: 100 } }, signal })) });
  const channels = useChannels();
  return {
    users: new Map((users.data?.data ?? []).map((u) => [u.id, `${u.name} <${u.email}>`])),
    schedules: new Map((schedules.data?.data ?? []).map((s) => [s.id, s.name])),
    channels: channels.data,
  };
}

function useInvalidate() {
  const qc = useQueryClient();
  return () => qc.invalidateQueries({ queryKey: ['escalation-policies'] });
}

export function useCreatePolicy() {
  const invalidate = useInvalidate();
  return useMutation({ mutationFn: (body: CreateEscalationPolicyBody) => unwrap(api.POST('/escalation-policies', { body })), onSuccess: invalidate });
}

export function useUpdatePolicy(id: string) {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (body: CreateEscalationPolicyBody) => unwrap(api.PUT('/escalation-policies/{id}', { params: { path: { id } }, body })),
    onSuccess: invalidate,
  });
}

export function useDeletePolicy(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(api.DELETE('/escalation-policies/{id}', { params: { path: { id } } })),
    onSuccess: () => {
      qc.removeQueries({ queryKey: ['escalation-policies', id] });
      return qc.invalidateQueries({ queryKey: ['escalation-policies'] });
    },
  });
}
