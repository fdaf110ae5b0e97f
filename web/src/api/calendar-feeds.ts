import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from './client';

/** Whose feed: the signed-in member's own, or a schedule's. */
export type FeedOf = { kind: 'member' } | { kind: 'schedule'; id: string };

const keyOf = (of: FeedOf) => ['calendar-feed', of.kind === 'member' ? 'me' : of.id];

export function useFeedStatus(of: FeedOf) {
  return useQuery({
    queryKey: keyOf(of),
    queryFn: ({ signal }) => unwrap(of.kind === 'member'
      ? api.GET('/users/me/calendar-feed', { signal })
      : api.GET('/schedules/{id}/calendar-feed', { params: { path: { id: of.id } }, signal })),
  });
}

/** Issues (or replaces) the feed URL; the answer holds it, shown once. */
export function useIssueFeed(of: FeedOf) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(of.kind === 'member'
      ? api.POST('/users/me/calendar-feed')
      : api.POST('/schedules/{id}/calendar-feed', { params: { path: { id: of.id } } })),
    onSettled: () => qc.invalidateQueries({ queryKey: keyOf(of) }),
  });
}

export function useRevokeFeed(of: FeedOf) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(of.kind === 'member'
      ? api.DELETE('/users/me/calendar-feed')
      : api.DELETE('/schedules/{id}/calendar-feed', { params: { path: { id: of.id } } })),
    onSettled: () => qc.invalidateQueries({ queryKey: keyOf(of) }),
  });
}
