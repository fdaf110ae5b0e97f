import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { CreateUserBody, Role } from '../../api/types';
import { SESSION_KEY } from '../auth/session';

const PAGE = 100;

export function useMemberList(cursor: string | undefined) {
  return useQuery({
    queryKey: ['users', 'list', cursor ?? null],
    queryFn: ({ signal }) => unwrap(api.GET('/users', { params: { query: { limit: PAGE, ...(cursor && { cursor }) } }, signal })),
  });
}

/** Every change to members refreshes the lists, the names shown for actors and (a role may be one's own) the session. */
function useMemberMutation<I, O>(fn: (input: I) => Promise<O>) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSettled: () => Promise.all([qc.invalidateQueries({ queryKey: ['users'] }), qc.invalidateQueries({ queryKey: SESSION_KEY })]),
  });
}

export const useAddMember = () => useMemberMutation((body: CreateUserBody) => unwrap(api.POST('/users', { body })));

export const useNewLink = () =>
  useMemberMutation((id: string) => unwrap(api.POST('/users/{id}/password-link', { params: { path: { id } } })));

export const useChangeRole = () =>
  useMemberMutation(({ id, role }: { id: string; role: Role }) => unwrap(api.PATCH('/users/{id}', { params: { path: { id } }, body: { role } })));

export const useRemoveMember = () =>
  useMemberMutation((id: string) => unwrap(api.DELETE('/users/{id}', { params: { path: { id } } })));

export const useRename = () => useMemberMutation((name: string) => unwrap(api.PATCH('/users/me', { body: { name } })));

export const useSetMyZone = () => useMemberMutation((timezone: string | null) => unwrap(api.PATCH('/users/me', { body: { timezone } })));

export function useMe() {
  return useQuery({ queryKey: ['users', 'me'], queryFn: ({ signal }) => unwrap(api.GET('/users/me', { signal })) });
}

export function useChangePassword() {
  return useMutation({
    mutationFn: (body: { currentPassword: string; newPassword: string }) => unwrap(api.POST('/users/me/password', { body })),
  });
}
