import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from './client';
import type { ChannelInfo } from './types';

/**
 * The channel catalogue (`GET /channels`): every form that edits a channel target (contact methods,
 * escalation steps, workflow actions) is drawn from it, so no page keeps its own list of channels or fields.
 */
export function useChannels() {
  return useQuery({ queryKey: ['channels'], queryFn: ({ signal }) => unwrap(api.GET('/channels', { signal })), staleTime: Infinity, select: (r) => r.data });
}

export type ChannelUse = ChannelInfo['uses'][number];
export const channelsFor = (all: readonly ChannelInfo[] | undefined, use: ChannelUse): ChannelInfo[] => (all ?? []).filter((c) => c.uses.includes(use));
export const channelNamed = (all: readonly ChannelInfo[] | undefined, type: string): ChannelInfo | undefined => all?.find((c) => c.type === type);

/** The target the API takes: the channel's fields only (trimmed unless `trim` is false); an empty optional one left out (a secret: removed). */
export function cleanTarget(info: Pick<ChannelInfo, 'fields'> | undefined, values: Record<string, string>, trim = true): Record<string, string> {
  if (!info) return values;
  const target: Record<string, string> = {};
  for (const f of info.fields) {
    const raw = values[f.name] ?? '';
    const v = trim ? raw.trim() : raw;
    if (v !== '' || f.required) target[f.name] = v;
  }
  return target;
}

/** A blank target of the channel: its required fields empty, for the form to fill. */
export const blankTarget = (info: Pick<ChannelInfo, 'fields'> | undefined): Record<string, string> =>
  Object.fromEntries((info?.fields ?? []).filter((f) => f.required).map((f) => [f.name, '']));

/** What a target reaches, in one line of text: its fields that are not secrets (a secret only says it is set). */
export function reachOf(info: ChannelInfo | undefined, target: Record<string, string>): string {
  if (!info) return Object.values(target).join(' · ');
  return info.fields.flatMap((f) => {
    const v = target[f.name];
    if (v === undefined || v === '') return [];
    return [f.secret ? `with ${f.label.toLowerCase()}` : v];
  }).join(' · ');
}
