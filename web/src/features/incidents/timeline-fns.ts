import type { TimelineEntry } from '../../api/types';

export type TimelineType = TimelineEntry['type'];

/** Names the timeline shows instead of ids; an unknown id is shown as it is. */
export interface TimelineNames {
  user: (id: string) => string;
  schedule: (id: string) => string;
  alert: (id: string) => string | undefined;
  /** An instant as the viewer reads it. */
  time: (iso: string) => string;
}

/** One entry in words, and the alert it links to when there is one. */
export interface Described {
  text: string;
  alertId?: string;
  /** Words a person wrote (a note), shown as text below the entry with its line breaks. */
  quote?: string;
}

type Data = Record<string, unknown>;
const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Minutes in the largest units that divide them: "45 minutes", "2 hours", "1 hour 30 minutes", "1 day". */
export function duration(minutes: number): string {
  if (!Number.isFinite(minutes) || minutes < 0) return 'a while';
  if (minutes === 0) return 'no time';
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const mins = minutes % 60;
  return [days && plural(days, 'day'), hours && plural(hours, 'hour'), mins && plural(mins, 'minute')].filter(Boolean).join(' ');
}

/** Why the status changed, when it was not the actor's own choice (status_changed's `reason`). */
const STATUS_REASONS: Record<string, string> = {
  alerts_resolved: 'all its alerts were resolved',
  alerts_acknowledged: 'all its alerts were acknowledged',
  snoozed: 'snoozed',
  snooze_ended: 'the snooze ended',
};

/** Why an escalation stopped (the `reason` of escalation_stopped), as the end of "Escalation stopped: …". */
const STOP_REASONS: Record<string, string> = {
  acknowledged: 'the incident was acknowledged',
  resolved: 'the incident was resolved',
  incident_acknowledged: 'the incident was acknowledged',
  incident_resolved: 'the incident was resolved',
  incident_gone: 'the incident no longer exists',
  reassigned: 'the incident was reassigned, so it starts again from step 1',
  snoozed: 'the incident was snoozed',
  done: 'every step has run',
};

/** Who a step paged and how: "Olga (email olga@example.com, sms after 3 min)"; nobody on call said so. */
function pagedText(p: Data, names: TimelineNames): string {
  const via = list(p.via).map(str).filter(Boolean);
  const how = via.length ? ` (${via.join(', ')})` : ' (no contact method could be used)';
  if (p.target === 'channel') return `the ${str(p.channel)} channel${via.length ? ` (${via.join(', ')})` : ''}`;
  const person = str(p.userId);
  if (p.target === 'schedule') {
    const schedule = names.schedule(str(p.scheduleId));
    return person ? `${names.user(person)}, on call in ${schedule}${how}` : `nobody: no one is on call in ${schedule}`;
  }
  return `${names.user(person)}${how}`;
}

const byNotification = (d: Data, names: TimelineNames): string => {
  const who = str(d.recipientId) ? `${names.user(str(d.recipientId))} ` : '';
  const step = d.step !== undefined ? ` (escalation step ${str(d.step)})` : '';
  const tries = Number(d.attempts) > 1 ? `, after ${plural(Number(d.attempts), 'attempt')}` : '';
  return `${who}by ${str(d.channel) || 'a channel'} at ${str(d.target) || 'an unnamed target'}${step}${tries}`;
};

/**
 * Every entry type the API can return, in words: a type missing here is a type error, and a unit test checks
 * this table against the served OpenAPI document's list.
 */
export const TIMELINE_TEXT: Record<TimelineType, (d: Data, names: TimelineNames) => Described> = {
  opened: (d) => ({ text: `Opened by a workflow${str(d.groupKey) ? `, grouping alerts by ${str(d.groupKey)}` : ''}` }),
  alert_joined: (d, n) => ({ text: `Alert joined: ${n.alert(str(d.alertId)) ?? str(d.alertId)}`, alertId: str(d.alertId) }),
  status_changed: (d) => {
    const why = STATUS_REASONS[str(d.reason)];
    return { text: `Status changed from ${str(d.from) || 'unknown'} to ${str(d.to) || 'unknown'}${why ? `: ${why}` : ''}` };
  },
  assigned: (d, n) => {
    if (d.to === null || d.to === undefined) return { text: `Unassigned${d.reason === 'member_removed' ? ': the member was removed from the organization' : ''}` };
    return { text: `Assigned to ${n.user(str(d.to))}${str(d.scheduleId) ? ` (on call in ${n.schedule(str(d.scheduleId))})` : ''}` };
  },
  notification_sent: (d, n) => ({ text: `${d.source === 'escalation' ? 'Paged' : 'Notified'} ${byNotification(d, n)}` }),
  notification_failed: (d, n) => ({ text: `Could not ${d.source === 'escalation' ? 'page' : 'notify'} ${byNotification(d, n)}${str(d.error) ? `: ${str(d.error)}` : ''}` }),
  escalation_started: (d, n) => {
    const policy = `“${str(d.policyName) || str(d.policyId)}”`;
    const assignee = str(d.assigneeId) ? `, also paging the assignee ${n.user(str(d.assigneeId))}` : '';
    if (str(d.restartOf) && str(d.reason)) return { text: `Escalation started again from step 1 of ${policy}: the incident was triggered again${assignee}` };
    if (str(d.restartOf)) return { text: `Escalation restarted from step 1 of ${policy} for the new assignee${assignee}` };
    return { text: `Escalation started: policy ${policy}` };
  },
  escalation_step: (d, n) => {
    const paged = list(d.paged).map((p) => pagedText(p as Data, n));
    const round = Number(d.round) > 1 ? ` (round ${str(d.round)})` : '';
    const next = d.last === true ? ' That was the last step.' : d.nextStepInMinutes !== undefined ? ` Next step in ${duration(Number(d.nextStepInMinutes))} unless acknowledged.` : '';
    return { text: `Escalation step ${str(d.step)}${round} paged ${paged.length ? paged.join('; ') : 'nobody'}.${next}` };
  },
  escalated: (d) => ({
    text: `Escalated now: step ${str(d.step) || '?'}${Number(d.round) > 1 ? ` (round ${str(d.round)})` : ''} of “${str(d.policyName) || 'the policy'}” pages at once`,
  }),
  responder_added: (d, n) => {
    if (str(d.userId)) return { text: `Asked ${n.user(str(d.userId))} to respond: paging them now` };
    const policy = `“${str(d.policyName) || str(d.policyId)}”`;
    if (d.started === true) return { text: `Added the policy ${policy}: the incident escalates with it from step 1` };
    return { text: `Asked the policy ${policy} to respond: its first step pages once, now` };
  },
  responder_paged: (d, n) => {
    const paged = list(d.paged).map((p) => pagedText(p as Data, n));
    return { text: `Responder request paged ${paged.length ? paged.join('; ') : 'nobody'}` };
  },
  snoozed: (d, n) => ({ text: `Snoozed for ${duration(Number(d.minutes))}${str(d.until) ? `, until ${n.time(str(d.until))}` : ''}: it is triggered and pages again then, unless answered` }),
  note_added: (d) => ({ text: 'Added a note', quote: str(d.text) || '(empty)' }),
  severity_changed: (d) => ({ text: `Severity changed from ${str(d.from) || 'unknown'} to ${str(d.to) || 'unknown'}` }),
  escalation_stopped: (d) => ({ text: `Escalation stopped: ${STOP_REASONS[str(d.reason)] ?? (str(d.reason) || 'no reason recorded')}` }),
};

export const describeEntry = (e: Pick<TimelineEntry, 'type' | 'data'>, names: TimelineNames): Described => TIMELINE_TEXT[e.type](e.data, names);
