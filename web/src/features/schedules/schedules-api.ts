import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { CreateScheduleBody, UpdateScheduleBody } from '../../api/types';
import { useDebounced } from '../../components/use-debounced';

export function useOnCall() {
  return useQuery({
    queryKey: ['schedules', 'oncall'],
    queryFn: ({ signal }) => unwrap(api.GET('/schedules/current-oncall', { params: { query: { limit: 100 } }, signal })),
    refetchInterval: 60_000,
  });
}

export function useScheduleOnCall(id: string) {
  return useQuery({
    queryKey: ['schedules', 'oncall', id],
    queryFn: ({ signal }) => unwrap(api.GET('/schedules/current-oncall', { params: { query: { scheduleId: id } }, signal })),
    refetchInterval: 60_000,
  });
}

export function useSchedule(id: string) {
  return useQuery({
    queryKey: ['schedules', id],
    queryFn: ({ signal }) => unwrap(api.GET('/schedules/{id}', { params: { path: { id } }, signal })),
  });
}

export function useShifts(id: string, from: number, to: number) {
  return useQuery({
    queryKey: ['schedules', id, 'shifts', from, to],
    queryFn: ({ signal }) => unwrap(api.GET('/schedules/{id}/shifts', {
      params: { path: { id }, query: { from: new Date(from).toISOString(), to: new Date(to).toISOString() } }, signal,
    })),
    placeholderData: keepPreviousData,
  });
}

/** The organization's people, by id: who a layer or an override can name. */
export function useUsers() {
  return useQuery({
    queryKey: ['users', 'choices'],
    queryFn: ({ signal }) => unwrap(api.GET('/users', { params: { query: { limit: 100 } }, signal })),
    staleTime: 60_000,
  });
}

/** What the server makes of an unsaved schedule (asked once the form stops changing); null while there is nothing to ask. */
export function useSchedulePreview(body: CreateScheduleBody | null) {
  const settled = useDebounced(body, 400);
  return useQuery({
    queryKey: ['schedules', 'preview', settled],
    queryFn: ({ signal }) => unwrap(api.POST('/schedules/preview', { body: settled as CreateScheduleBody, signal })),
    enabled: settled !== null,
    placeholderData: keepPreviousData,
    retry: false,
  });
}

function useInvalidate() {
  const qc = useQueryClient();
  return () => qc.invalidateQueries({ queryKey: ['schedules'] });
}

export function useCreateSchedule() {
  const invalidate = useInvalidate();
  return useMutation({ mutationFn: (body: CreateScheduleBody) => unwrap(api.POST('/schedules', { body })), onSuccess: invalidate });
}

export function useUpdateSchedule(id: string) {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (body: UpdateScheduleBody) => unwrap(api.PUT('/schedules/{id}', { params: { path: { id } }, body })),
    onSuccess: invalidate,
  });
}

export function useDeleteSchedule(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(api.DELETE('/schedules/{id}', { params: { path: { id } } })),
    onSuccess: () => {
      qc.removeQueries({ queryKey: ['schedules', id] });
      return qc.invalidateQueries({ queryKey: ['schedules'] });
    },
  });
}
