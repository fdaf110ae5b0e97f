import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { Bucket } from './analytics-fns';

export interface SeriesParams {
  from: string;
  to: string;
  bucket: Bucket;
  groupBy?: string;
}

export function useVolume(q: SeriesParams) {
  return useQuery({
    queryKey: ['analytics', 'volume', q],
    queryFn: ({ signal }) => unwrap(api.GET('/analytics/volume', { params: { query: q }, signal })),
  });
}

export function useResponseTimes(q: SeriesParams) {
  return useQuery({
    queryKey: ['analytics', 'response-times', q],
    queryFn: ({ signal }) => unwrap(api.GET('/analytics/response-times', { params: { query: q }, signal })),
  });
}

export function usePagesPerPerson(q: { from: string; to: string }) {
  return useQuery({
    queryKey: ['analytics', 'pages-per-person', q],
    queryFn: ({ signal }) => unwrap(api.GET('/analytics/pages-per-person', { params: { query: q }, signal })),
  });
}

export type NoisyBy = 'occurrences' | 'pages' | 'flaps' | 'quickResolves';

export function useNoisy(q: { from: string; to: string; by: NoisyBy }) {
  return useQuery({
    queryKey: ['analytics', 'noisy', q],
    queryFn: ({ signal }) => unwrap(api.GET('/analytics/noisy-alerts', { params: { query: { ...q, limit: 10 } }, signal })),
  });
}

/** Under `alerts` and `incidents` both: the live stream refreshes the board whenever either changes. */
export function useClientBoard() {
  return useQuery({
    queryKey: ['alerts', 'client-board'],
    queryFn: ({ signal }) => unwrap(api.GET('/analytics/client-board', { signal })),
    // Maintenance windows start and end with no event: look again every minute.
    refetchInterval: 60_000,
  });
}

export function useOrganization() {
  return useQuery({
    queryKey: ['organization'],
    queryFn: ({ signal }) => unwrap(api.GET('/organization', { signal })),
  });
}

export function useUpdateOrganization() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: { timezone?: string; analyticsLabels?: string[] }) => unwrap(api.PUT('/organization', { body })),
    onSuccess: () => Promise.all([qc.invalidateQueries({ queryKey: ['organization'] }), qc.invalidateQueries({ queryKey: ['analytics'] })]),
  });
}
