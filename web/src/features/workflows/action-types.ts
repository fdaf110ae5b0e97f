import type { ActionDraft } from './workflow-fns';

/** Where a choice field's options come from. */
export type ChoiceSource = 'schedules' | 'users' | 'severities' | 'policies';

/**
 * One field of an action's form. `text` and `secret` edit a string, `list` a list of strings (comma-separated),
 * `labels` a map (one `key=value` a line), `choice` an id or value from `choices` (empty: null), `channel` a
 * channel of the catalogue and `target` that channel's target, its fields as the catalogue declares them.
 */
export interface ActionField {
  name: string;
  label: string;
  kind: 'text' | 'secret' | 'seconds' | 'list' | 'labels' | 'choice' | 'channel' | 'target';
  choices?: ChoiceSource;
  hint?: string;
}

export interface ActionType {
  label: string;
  /** What the action does, shown under its form. */
  about: string;
  fields: ActionField[];
  /** A new action of this type, as added to the list. */
  blank: () => ActionDraft;
}

const TEMPLATES = 'Placeholders such as {{alert.title}}, {{alert.labels.service}}, {{incident.number}}.';

/** Every action type the editor offers: adding one (as `escalate {policyId}`) is one entry here. */
export const ACTION_TYPES: Record<string, ActionType> = {
  create_incident: {
    label: 'Create or join an incident',
    about: 'Joins the open incident of this workflow with the same group values, else opens one.',
    fields: [
      { name: 'groupBy', label: 'Group by', kind: 'list', hint: 'Fields, comma-separated (e.g. labels.service); none: one open incident for the workflow.' },
      { name: 'title', label: 'Incident title', kind: 'text', hint: `Default {{alert.title}}. ${TEMPLATES}` },
      { name: 'escalationPolicyId', label: 'Escalate a new incident with', kind: 'choice', choices: 'policies', hint: 'Optional: an escalation policy started when this action opens the incident.' },
      { name: 'groupWaitSeconds', label: 'Group wait (seconds)', kind: 'seconds', hint: 'Hold the first page of a new incident this long to collect a storm into it (0: page at once). Every person or target is paged once per incident.' },
    ],
    blank: () => ({ type: 'create_incident', groupBy: [], title: '{{alert.title}}', groupWaitSeconds: 0 }),
  },
  assign: {
    label: 'Assign the incident',
    about: 'Gives the incident to a schedule\'s current on-call or to a user (one of the two). Needs an incident action before it.',
    fields: [
      { name: 'scheduleId', label: 'On-call of schedule', kind: 'choice', choices: 'schedules' },
      { name: 'userId', label: 'User', kind: 'choice', choices: 'users' },
    ],
    blank: () => ({ type: 'assign', scheduleId: null, userId: null }),
  },
  email: {
    label: 'Send an email',
    about: 'Emails the addresses and/or a schedule\'s on-call; the email carries the alert\'s description.',
    fields: [
      { name: 'to', label: 'To', kind: 'list', hint: 'Addresses, comma-separated.' },
      { name: 'toOnCall', label: 'And the on-call of', kind: 'choice', choices: 'schedules' },
      { name: 'subject', label: 'Subject', kind: 'text', hint: `Empty: [SEVERITY] title. ${TEMPLATES}` },
    ],
    blank: () => ({ type: 'email', to: [], toOnCall: null, subject: '' }),
  },
  webhook: {
    label: 'Call a webhook',
    about: 'POSTs the alert as JSON, signed with HMAC-SHA256, retried with backoff.',
    fields: [
      { name: 'url', label: 'URL', kind: 'text', hint: 'http or https, without credentials.' },
      { name: 'secret', label: 'Signing secret', kind: 'secret', hint: '16–256 characters. A saved secret shows as ********; leave it to keep it.' },
    ],
    blank: () => ({ type: 'webhook', url: '', secret: '' }),
  },
  notify: {
    label: 'Post to a channel',
    about: 'Posts the alert to a channel (a team room, a push topic), retried with backoff. The channels are those the channel catalogue allows in workflows.',
    fields: [
      { name: 'channel', label: 'Channel', kind: 'channel' },
      { name: 'target', label: 'Where', kind: 'target' },
    ],
    blank: () => ({ type: 'notify', channel: '', target: {} }),
  },
  set_severity: {
    label: 'Set the severity',
    about: 'Changes the alert\'s severity.',
    fields: [{ name: 'severity', label: 'Severity', kind: 'choice', choices: 'severities' }],
    blank: () => ({ type: 'set_severity', severity: 'high' }),
  },
  add_labels: {
    label: 'Add labels',
    about: 'Adds (or overwrites) labels of the alert.',
    fields: [{ name: 'labels', label: 'Labels', kind: 'labels', hint: `One key=value a line. ${TEMPLATES}` }],
    blank: () => ({ type: 'add_labels', labels: {} }),
  },
  suppress: {
    label: 'Suppress the alert',
    about: 'The alert is stored suppressed; later workflows do not run for it.',
    fields: [],
    blank: () => ({ type: 'suppress' }),
  },
  escalate: {
    label: 'Escalate the incident',
    about: 'Starts an escalation policy for the incident (pages step by step until someone acknowledges), unless it is acknowledged, resolved or escalating already. Needs an incident action before it.',
    fields: [{ name: 'policyId', label: 'Escalation policy', kind: 'choice', choices: 'policies' }],
    blank: () => ({ type: 'escalate', policyId: '' }),
  },
};

/** A type the editor does not know (newer than this page) still shows, by its name. */
export const actionLabel = (type: string): string => ACTION_TYPES[type]?.label ?? type;
