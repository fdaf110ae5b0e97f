import { blankTarget as blankChannelTarget, channelNamed, cleanTarget } from '../../api/channels';
import type { ChannelInfo, EscalationStep, EscalationTarget } from '../../api/types';

type ChannelTarget = Extract<EscalationTarget, { type: 'channel' }>;
/** A channel target's fields as the form edits them: text by name (the API checks the shape). */
export const fieldsOf = (t: ChannelTarget): Record<string, string> => t.target as Record<string, string>;
export const withFields = (t: ChannelTarget, fields: Record<string, string>): ChannelTarget => ({ ...t, target: fields as ChannelTarget['target'] });

export const blankTarget = (): EscalationTarget => ({ type: 'user', id: '' });
export const blankStep = (): EscalationStep => ({ delayMinutes: 5, targets: [blankTarget()] });

/** A target of another kind, keeping nothing of the old one; a channel target starts as the first channel a step may post to. */
export function retarget(kind: string, channels: readonly ChannelInfo[]): EscalationTarget {
  if (kind === 'schedule') return { type: 'schedule', id: '' };
  const first = channels[0];
  if (kind === 'channel' && first) return { type: 'channel', channel: first.type as ChannelTarget['channel'], target: blankChannelTarget(first) as ChannelTarget['target'] };
  return blankTarget();
}

/** Optional channel fields left empty are left out (the API refuses an empty token or secret); the rest trimmed. */
export function cleanTargets(steps: EscalationStep[], channels: readonly ChannelInfo[] | undefined): EscalationStep[] {
  return steps.map((s) => ({
    ...s,
    targets: s.targets.map((t) => (t.type !== 'channel' ? t : withFields(t, cleanTarget(channelNamed(channels, t.channel), fieldsOf(t))))),
  }));
}

type Names = { users: Map<string, string>; schedules: Map<string, string>; channels?: readonly ChannelInfo[] | undefined };

/**
 * One target in words: "Olga", "on-call of Primary", "Email ops@example.com". A channel shows its plain fields
 * only: secrets never, nor URLs (a chat webhook URL is a credential).
 */
export function describeTarget(t: EscalationTarget, names: Names): string {
  if (t.type === 'user') return names.users.get(t.id) ?? `user ${t.id}`;
  if (t.type === 'schedule') return `on-call of ${names.schedules.get(t.id) ?? t.id}`;
  const info = channelNamed(names.channels, t.channel);
  const plain = (info?.fields ?? []).filter((f) => !f.secret && !f.url).map((f) => fieldsOf(t)[f.name]).filter((v): v is string => !!v);
  return [info?.label ?? t.channel, ...plain].join(' ');
}

export function describeSteps(steps: EscalationStep[], names: Names): string {
  let at = 0;
  return steps.map((s, i) => {
    const when = i === 0 ? 'at once' : `after ${at} min`;
    at += s.delayMinutes;
    return `${when}: ${s.targets.map((t) => describeTarget(t, names)).join(', ')}`;
  }).join('; ');
}
