import type { EscalationStep, EscalationTarget } from '../../api/types';

/** The channels a step can post to, and the fields of each one's target (as the API names them). */
export const CHANNEL_FIELDS: Record<string, Array<{ name: string; label: string; optional?: boolean; secret?: boolean }>> = {
  email: [{ name: 'to', label: 'Email address' }],
  slack: [{ name: 'webhookUrl', label: 'Slack incoming webhook URL', secret: true }],
  teams: [{ name: 'webhookUrl', label: 'Teams Workflows webhook URL', secret: true }],
  ntfy: [{ name: 'serverUrl', label: 'ntfy server URL' }, { name: 'topic', label: 'Topic' }, { name: 'token', label: 'Access token', optional: true, secret: true }],
  webhook: [{ name: 'url', label: 'Webhook URL' }, { name: 'secret', label: 'Signing secret (16+ characters)', optional: true, secret: true }],
};
export const CHANNELS = Object.keys(CHANNEL_FIELDS);

type ChannelTarget = Extract<EscalationTarget, { type: 'channel' }>;
/** A channel target's fields as the form edits them: text by name (the API checks the shape). */
export const fieldsOf = (t: ChannelTarget): Record<string, string> => t.target as Record<string, string>;
export const withFields = (t: ChannelTarget, fields: Record<string, string>): ChannelTarget => ({ ...t, target: fields as ChannelTarget['target'] });

export const blankTarget = (): EscalationTarget => ({ type: 'user', id: '' });
export const blankStep = (): EscalationStep => ({ delayMinutes: 5, targets: [blankTarget()] });

/** A target of another kind, keeping nothing of the old one. */
export function retarget(kind: string): EscalationTarget {
  if (kind === 'schedule') return { type: 'schedule', id: '' };
  if (kind === 'channel') return { type: 'channel', channel: 'email', target: { to: '' } };
  return blankTarget();
}

/** Optional channel fields left empty are left out (the API refuses an empty token or secret). */
export function cleanTargets(steps: EscalationStep[]): EscalationStep[] {
  return steps.map((s) => ({
    ...s,
    targets: s.targets.map((t) => (t.type !== 'channel' ? t : withFields(t,
      Object.fromEntries(Object.entries(fieldsOf(t)).filter(([k, v]) => v !== '' || !CHANNEL_FIELDS[t.channel]?.find((f) => f.name === k)?.optional))))),
  }));
}

/** One line per step for the list: "email the on-call of Primary, then after 5 min: slack". */
export function describeTarget(t: EscalationTarget, names: { users: Map<string, string>; schedules: Map<string, string> }): string {
  if (t.type === 'user') return names.users.get(t.id) ?? `user ${t.id}`;
  if (t.type === 'schedule') return `on-call of ${names.schedules.get(t.id) ?? t.id}`;
  return t.channel === 'email' ? `email ${fieldsOf(t).to ?? ''}` : t.channel;
}

export function describeSteps(steps: EscalationStep[], names: { users: Map<string, string>; schedules: Map<string, string> }): string {
  let at = 0;
  return steps.map((s, i) => {
    const when = i === 0 ? 'at once' : `after ${at} min`;
    at += s.delayMinutes;
    return `${when}: ${s.targets.map((t) => describeTarget(t, names)).join(', ')}`;
  }).join('; ');
}
