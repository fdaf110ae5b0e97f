import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';

const SETTINGS = ['channel-settings'] as const;

/** The channels an organization sets up itself (its Slack app, its Telegram bot), with their fields and URLs. */
export function useChannelSettings() {
  return useQuery({ queryKey: SETTINGS, queryFn: ({ signal }) => unwrap(api.GET('/channel-settings', { signal })) });
}

/** What the operator configured in the environment (Twilio), read-only. */
export function useChannelProviders() {
  return useQuery({ queryKey: ['channel-providers'], queryFn: ({ signal }) => unwrap(api.GET('/channel-providers', { signal })), select: (r) => r.data });
}

/** A set-up saved or removed changes which channels can send: the catalogue (`available`) is read again too. */
function useSettingsMutation<I, O>(fn: (input: I) => Promise<O>) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: () => Promise.all([qc.invalidateQueries({ queryKey: SETTINGS }), qc.invalidateQueries({ queryKey: ['channels'] })]),
  });
}

export const useSaveChannelSettings = () =>
  useSettingsMutation(({ channel, settings }: { channel: string; settings: Record<string, string> }) =>
    unwrap(api.PUT('/channel-settings/{channel}', { params: { path: { channel } }, body: settings })));

export const useRemoveChannelSettings = () =>
  useSettingsMutation((channel: string) => unwrap(api.DELETE('/channel-settings/{channel}', { params: { path: { channel } } })));
